"""Confirmation under pressure: files that change while the user is asked, answers that are not the form, a
question that is never answered, names that try to pass for the summary's own words. Every test runs in both
eras (conftest's ``connect``) and checks the bytes on disk.

On 2025-11-25 the question is put in the middle of the call and a person may take minutes to answer; on
2026-07-28 the client answers between two rounds. Either way the call must do what the person confirmed and
nothing more: a question whose answer finds a different operation on disk is asked again.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.client import ClientRequestContext, InputRequiredRoundsExceededError
from mcp.types import ElicitRequestParams, ElicitResult

from fsguard.config import Settings
from fsguard.server import build_server
from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio

Meanwhile = Callable[[int], object]


@dataclass
class User:
    """Answers each question with the next of ``answers`` (the last one repeats), after ``meanwhile`` changed the
    disk as another client would while the question was shown; remembers every question."""

    answers: list[dict[str, Any]]
    meanwhile: Meanwhile = lambda asked: None
    asked: list[str] = field(default_factory=list)

    async def __call__(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(getattr(params, "message", ""))
        self.meanwhile(len(self.asked))
        answer = self.answers[min(len(self.asked), len(self.answers)) - 1]
        return ElicitResult.model_construct(**answer)


YES = {"action": "accept", "content": {"confirm": True}}
NO = {"action": "decline", "content": None}


def _tree(root: Path, count: int, name: str = "dir") -> Path:
    folder = root / name
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"f{i:03}.txt").write_bytes(b"keep\n")
    return folder


def _bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


async def _notes_deleted_for_good_asked_twice(connect: ClientFactory, meanwhile: Meanwhile) -> User:
    """A permanent delete of notes.txt, ``meanwhile`` changing the disk while the user is first asked (yes), then
    asked again (no): declined; the user, with both questions."""
    user = User([YES, NO], meanwhile)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": "notes.txt", "permanent": True})
    assert error_code(result) == "declined", text_of(result)
    assert len(user.asked) == 2
    return user


# Files that change while the user is asked -------------------------------------------------------------------


async def test_a_directory_that_grows_while_the_user_is_asked_is_asked_about_again(
    connect: ClientFactory, root: Path
) -> None:
    folder = _tree(root, 1)

    def grow(asked: int) -> None:
        if asked == 1:
            _tree(root, 40)

    user = User([YES, NO], grow)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": "dir", "recursive": True, "permanent": True})
    assert error_code(result) == "declined", text_of(result)
    assert _bytes(folder) == {f"f{i:03}.txt": b"keep\n" for i in range(40)}
    assert len(user.asked) == 2
    assert "1 file or folder (5 bytes) in all" in user.asked[0]
    assert "40 files and folders (200 bytes) in all" in user.asked[1]


async def test_a_file_swapped_for_a_bigger_one_while_the_user_is_asked_is_asked_about_again(
    connect: ClientFactory, root: Path
) -> None:
    target = root / "notes.txt"
    target.write_bytes(b"3 lines\n" * 3)
    bigger = b"the user's real work\n" * 3000

    def swap(asked: int) -> None:
        if asked == 1:
            target.write_bytes(bigger)

    user = await _notes_deleted_for_good_asked_twice(connect, swap)
    assert target.read_bytes() == bigger
    assert "(24 bytes)" in user.asked[0]
    assert f"({len(bigger):,} bytes)" in user.asked[1]


async def test_a_file_made_again_with_as_many_bytes_while_the_user_is_asked_is_asked_about_again(
    connect: ClientFactory, root: Path
) -> None:
    # The question named the path and its size only: a yes given for one file deleted another of the same size made
    # at that path since (on 2026-07-28 a yes replayed minutes later did too). It names when it last changed now.
    target = root / "notes.txt"
    target.write_bytes(b"draft 1\n")
    os.utime(target, (1767225600, 1767225600))  # 2026-01-01T00:00:00Z

    def remake(asked: int) -> None:
        if asked == 1:
            target.write_bytes(b"final!\n\n")
            os.utime(target, (1767229200, 1767229200))

    user = await _notes_deleted_for_good_asked_twice(connect, remake)
    assert target.read_bytes() == b"final!\n\n"
    assert "last changed 2026-01-01T00:00:00Z" in user.asked[0]
    assert "last changed 2026-01-01T01:00:00Z" in user.asked[1]


async def test_another_file_alike_in_size_and_time_renamed_over_the_one_asked_about_is_asked_about_again(
    connect: ClientFactory, root: Path
) -> None:
    # Two files of one checkout share their size and modification time: renamed over the one the user was asked
    # about, the other read the same in the question, and the yes deleted it. The question names the version.
    target, other = root / "notes.txt", root / "other.txt"
    for path, data in ((target, b"draft 1\n"), (other, b"KEEPME!\n")):
        path.write_bytes(data)
        os.utime(path, (1767225600, 1767225600))

    def rename_over(asked: int) -> None:
        if asked == 1:
            other.rename(target)

    user = await _notes_deleted_for_good_asked_twice(connect, rename_over)
    assert target.read_bytes() == b"KEEPME!\n"
    assert user.asked[0] != user.asked[1]


async def test_a_git_restore_whose_work_grows_while_the_user_is_asked_is_asked_about_again(
    connect: ClientFactory, root: Path
) -> None:
    repo = make_repo(root)
    (repo / "a.txt").write_text("alpha\nmine\n", encoding="utf-8")
    more = "alpha\nmine\n" + "".join(f"more work {n}\n" for n in range(500))

    def work_more(asked: int) -> None:
        if asked == 1:
            (repo / "a.txt").write_text(more, encoding="utf-8")

    user = User([YES, NO], work_more)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt"]})
    assert error_code(result) == "declined", text_of(result)
    assert (repo / "a.txt").read_text(encoding="utf-8") == more
    assert len(user.asked) == 2
    assert "1 line added" in user.asked[0]
    assert "501 lines added" in user.asked[1]


async def test_a_replace_that_reaches_more_files_while_the_user_is_asked_is_asked_about_again(
    connect: ClientFactory, root: Path
) -> None:
    for i in range(60):
        (root / f"m{i:02}.txt").write_bytes(b"old\n")

    def more(asked: int) -> None:
        for i in range(100 if asked == 1 else 0):
            (root / f"x{i:03}.txt").write_bytes(b"old\n")

    user = User([YES, NO], more)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("project_replace", {"find": "old", "replace": "new"})
    assert error_code(result) == "declined", text_of(result)
    assert {p.read_bytes() for p in root.iterdir()} == {b"old\n"}
    assert [" in 60 files" in user.asked[0], " in 160 files" in user.asked[1]] == [True, True]


async def test_a_second_yes_to_the_changed_question_runs_the_changed_call(connect: ClientFactory, root: Path) -> None:
    folder = _tree(root, 1)
    user = User([YES], lambda asked: _tree(root, 5) if asked == 1 else None)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": "dir", "recursive": True, "permanent": True})
    assert not result.is_error, text_of(result)
    assert not folder.exists()
    assert len(user.asked) == 2


async def test_a_git_restore_of_a_file_edited_while_the_user_is_asked_is_asked_about_again(
    connect: ClientFactory, root: Path
) -> None:
    make_repo(root)
    (root / "a.txt").write_bytes(b"edited\n")
    (root / "b.txt").write_bytes(b"beta\n")
    git(root, "add", "b.txt")
    git(root, "commit", "-q", "-m", "b")

    def edit_b(asked: int) -> None:
        if asked == 1:
            (root / "b.txt").write_bytes(b"precious work\n")

    user = User([YES, NO], edit_b)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt", "b.txt"]})
    assert error_code(result) == "declined", text_of(result)
    assert [(root / n).read_bytes() for n in ("a.txt", "b.txt")] == [b"edited\n", b"precious work\n"]
    assert "of 1 file" in user.asked[0]
    assert "of 2 files" in user.asked[1]


async def test_files_that_keep_changing_while_the_user_is_asked_are_never_deleted(
    connect: ClientFactory, root: Path
) -> None:
    folder = _tree(root, 1)
    user = User([YES], lambda asked: _tree(root, asked + 1))
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            try:
                result = await client.call_tool("delete_file", {"path": "dir", "recursive": True, "permanent": True})
            except InputRequiredRoundsExceededError:  # 2026: the client gives up after its rounds
                outcome = "gave up"
            else:
                outcome = error_code(result) or "ran"
    assert outcome != "ran"
    assert len(_bytes(folder)) == len(user.asked) + 1
    assert set(_bytes(folder).values()) == {b"keep\n"}


async def test_a_parent_swapped_for_a_link_outside_the_root_while_the_user_is_asked_deletes_nothing_outside(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    inside = root / "dir"
    inside.mkdir()
    (inside / "a.txt").write_bytes(b"inside\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_bytes(b"outside\n")

    def swap(asked: int) -> None:
        if asked == 1:
            inside.rename(root / "moved")
            inside.symlink_to(outside)

    user = User([YES], swap)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": "dir/a.txt", "permanent": True})
    assert result.is_error
    assert (outside / "a.txt").read_bytes() == b"outside\n"
    assert (root / "moved" / "a.txt").read_bytes() == b"inside\n"


async def test_a_file_deleted_while_the_user_is_asked_ends_as_not_found(connect: ClientFactory, root: Path) -> None:
    target = root / "a.txt"
    target.write_bytes(b"keep\n")
    user = User([YES], lambda asked: target.unlink())
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True})
    assert error_code(result) == "not_found", text_of(result)
    assert len(user.asked) == 1


# Answers that are not a ticked form ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        {"action": "accept", "content": None},
        {"action": "accept", "content": {}},
        {"action": "accept", "content": {"confirm": "maybe"}},
        {"action": "accept", "content": {"confirm": False, "force": True}},
        {"action": "decline", "content": {"confirm": True}},
        {"action": "cancel", "content": {"confirm": True}},
    ],
    ids=["no-content", "empty", "not-a-bool", "no-with-extra", "decline-with-yes", "cancel-with-yes"],
)
async def test_an_answer_that_is_not_a_ticked_form_deletes_nothing(
    connect: ClientFactory, root: Path, answer: dict[str, Any]
) -> None:
    target = root / "a.txt"
    target.write_bytes(b"keep\n")
    with anyio.fail_after(30):
        async with connect(elicitation_callback=User([answer])) as client:
            result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True})
    assert error_code(result) in ("declined", "invalid_params"), text_of(result)
    assert "Resolver" not in text_of(result) or error_code(result) == "invalid_params"
    assert target.read_bytes() == b"keep\n"


# A question nobody answers -----------------------------------------------------------------------------------


async def test_a_question_waiting_for_its_answer_blocks_no_other_client(
    base_settings: Settings, root: Path, mode: str
) -> None:
    (root / "a.txt").write_bytes(b"keep\n")
    (root / "b.txt").write_bytes(b"bee\n")
    server = build_server(base_settings)
    shown, answer = anyio.Event(), anyio.Event()

    async def waiting(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        shown.set()
        await answer.wait()
        return ElicitResult(action="decline")

    outcome: dict[str, Any] = {}
    with anyio.fail_after(30):
        async with (
            Client(server, mode=mode, elicitation_callback=waiting) as asking,
            Client(server, mode=mode) as other,
        ):

            async def delete() -> None:
                outcome["delete"] = await asking.call_tool("delete_file", {"path": "a.txt", "permanent": True})

            async with anyio.create_task_group() as group:
                group.start_soon(delete)
                await shown.wait()
                for name in ("b.txt", "a.txt"):
                    edit = {"path": name, "old_text": "e", "new_text": "E", "replace_all": True}
                    edited = await other.call_tool("edit_file", edit)
                    assert not edited.is_error, text_of(edited)
                answer.set()
    assert error_code(outcome["delete"]) == "declined"
    assert [(root / n).read_bytes() for n in ("a.txt", "b.txt")] == [b"kEEp\n", b"bEE\n"]


async def test_a_call_cancelled_while_the_user_is_asked_changes_nothing(connect: ClientFactory, root: Path) -> None:
    folder = _tree(root, 3)
    scope = anyio.CancelScope()

    async def walks_away(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        scope.cancel()
        await anyio.sleep_forever()
        raise AssertionError("never answered")

    with anyio.fail_after(30):
        async with connect(elicitation_callback=walks_away) as client:
            with scope:
                await client.call_tool("delete_file", {"path": "dir", "recursive": True, "permanent": True})
            assert scope.cancelled_caught
            listed = await client.call_tool("list_directory", {"path": "dir"})
            assert not listed.is_error, text_of(listed)
    assert _bytes(folder) == {f"f{i:03}.txt": b"keep\n" for i in range(3)}


# Names that try to pass for the summary's own words -----------------------------------------------------------

_NAMES = ["evil\u202etxt.exe", "nl\nIt can be undone", "esc\x1b[2Jx", "zw\u200bx", "a.txt. Nothing is deleted"]


async def test_file_names_in_a_git_restore_question_are_quoted_and_escaped(connect: ClientFactory, root: Path) -> None:
    make_repo(root)
    for name in _NAMES:
        (root / name).write_bytes(b"committed\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "names")
    for name in _NAMES:
        (root / name).write_bytes(b"edited\n")
    user = User([NO])
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("git", {"action": "restore", "paths": ["."]})
    assert error_code(result) == "declined"
    question = user.asked[0]
    assert question.isprintable(), question
    for shown in ("evil\\u202etxt.exe'", "nl\\nIt can be undone'", "esc\\x1b[2Jx'", "zw\\u200bx'"):
        assert shown in question
    assert "a.txt. Nothing is deleted'" in question
    assert {(root / name).read_bytes() for name in _NAMES} == {b"edited\n"}


async def test_a_name_that_reads_like_the_summary_is_shown_quoted(connect: ClientFactory, root: Path) -> None:
    target = root / "a.txt. It can be undone: it moves to the trash"
    target.write_bytes(b"keep\n")
    user = User([NO])
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": target.name, "permanent": True})
    assert error_code(result) == "declined"
    assert f"Permanently delete 1 path: '{target}'." in user.asked[0]
    assert target.read_bytes() == b"keep\n"


async def test_a_push_remote_is_shown_quoted(connect: ClientFactory, root: Path) -> None:
    # A remote's name holds no space or control character (git's ref rules), but a bidi override passes them.
    repo = make_repo(root)
    remote = repo / "remote.git"
    git(repo, "init", "-q", "--bare", str(remote))
    (repo / ".git" / "info" / "exclude").write_text("remote.git/\n", encoding="utf-8")
    name = "ev\u202elif"
    git(repo, "remote", "add", name, "remote.git")
    git(repo, "push", "-q", "-u", name, "main")
    published = git(remote, "rev-parse", "main")
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    user = User([NO])
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("git", {"action": "push", "remote": name, "name": "main"})
    assert error_code(result) == "declined", text_of(result)
    assert "Force-push to 'ev\\u202elif' (--force-with-lease)" in user.asked[0]
    assert git(remote, "rev-parse", "main") == published


@pytest.mark.parametrize("fetched", [False, True], ids=["not fetched", "fetched in the background"])
async def test_a_force_push_confirmed_while_someone_else_pushed_keeps_their_commit(
    connect: ClientFactory, root: Path, tmp_path: Path, fetched: bool
) -> None:
    # Fetched: an editor fetches on its own, so the lease alone (the remote-tracking ref) names their commit, and the
    # push replaced a commit nobody was shown (--force-if-includes holds it now).
    repo = make_repo(root)
    remote = repo / "remote.git"
    git(repo, "init", "-q", "--bare", "-b", "main", str(remote))
    (repo / ".git" / "info" / "exclude").write_text("remote.git/\n", encoding="utf-8")
    git(repo, "remote", "add", "origin", "remote.git")
    git(repo, "push", "-q", "-u", "origin", "main")
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(remote), str(other))

    def someone_pushes(asked: int) -> None:
        if asked == 1:
            (other / "theirs.txt").write_bytes(b"theirs\n")
            git(other, "add", "theirs.txt")
            git(other, "-c", "user.name=o", "-c", "user.email=o@x", "commit", "-q", "-m", "theirs")
            git(other, "push", "-q", "origin", "HEAD:main")
            if fetched:
                git(repo, "fetch", "-q", "origin")

    user = User([YES, YES, YES], someone_pushes)
    with anyio.fail_after(60):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("git", {"action": "push"})
    assert error_code(result) == "git_error", text_of(result)
    if fetched:  # looked at again, a forced push is refused too: the call runs as nobody was asked, unforced
        assert "integrate them first" in text_of(result)
        assert len(user.asked) == 1
    assert git(remote, "rev-parse", "main") == git(other, "rev-parse", "HEAD")  # theirs stays


async def test_a_rename_target_created_while_the_user_is_asked_is_not_overwritten(
    connect: ClientFactory, root: Path
) -> None:
    names = [f"m{i:03}.txt" for i in range(150)]
    for name in names:
        (root / name).write_bytes(b"mine\n")
    (root / "dest").mkdir()
    theirs = root / "dest" / "m000.txt"
    user = User([YES], lambda asked: theirs.write_bytes(b"theirs\n"))
    steps = [{"id": "mv", "action": "rename", "params": {"files": names, "destination": "dest"}}]
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert theirs.read_bytes() == b"theirs\n"
    assert {(root / name).read_bytes() for name in names} == {b"mine\n"}
    assert list((root / "dest").iterdir()) == [theirs]
    assert len(user.asked) == 1
