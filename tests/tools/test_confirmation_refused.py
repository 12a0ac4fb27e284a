"""A delete the call refuses anyway (a .git, a root, a read-only root) asks the user nothing: the refusal comes
first, and a question about the other paths of the call leaves it out (found by a probe: the user was asked to
confirm a permanent delete of a .git, then told it was refused). Both eras."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, Mount, bind_mounted, error_code, text_of, tree
from tests.tools.test_confirmation import User
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio


def _seed(root: Path) -> dict[str, bytes | None]:
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_bytes(b"ref: refs/heads/main\n")
    (root / "vendor").mkdir()
    (root / "vendor" / "lib.txt").write_bytes(b"lib\n")
    (root / "a.txt").write_bytes(b"keep me\n")
    return tree(root)


REFUSED: dict[str, tuple[dict[str, Any], str]] = {
    ".git, permanent": ({"path": ".git", "recursive": True, "permanent": True}, "access_denied"),
    "the root, recursive": ({"path": ".", "recursive": True}, "access_denied"),
    "read-only root, permanent": ({"path": "vendor/lib.txt", "permanent": True}, "read_only"),
}


@pytest.mark.parametrize("case", list(REFUSED))
async def test_a_delete_the_call_refuses_anyway_asks_nothing(connect: ClientFactory, root: Path, case: str) -> None:
    before = _seed(root)
    arguments, code = REFUSED[case]
    user = User()  # says yes to anything
    async with connect(elicitation_callback=user, read_only_roots=(root / "vendor",)) as client:
        result = await client.call_tool("delete_file", arguments)
    assert error_code(result) == code, text_of(result)
    assert user.asked == []
    assert tree(root) == before


async def test_a_question_about_several_paths_leaves_out_the_ones_the_call_refuses(
    connect: ClientFactory, root: Path
) -> None:
    before = _seed(root)
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"paths": [".git", "a.txt"], "permanent": True})
    assert error_code(result) == "declined", text_of(result)
    assert len(user.asked) == 1
    assert "Permanently delete 1 path" in user.asked[0]
    assert str(root / "a.txt") in user.asked[0]
    assert ".git" not in user.asked[0]
    assert tree(root) == before


async def test_a_permanent_delete_of_a_file_too_large_to_back_up_asks_nothing_and_is_refused(
    connect: ClientFactory, root: Path
) -> None:
    (root / "big.log").write_bytes(b"x" * 5000)
    before = tree(root)
    user = User()
    async with connect(elicitation_callback=user, max_file_size=1000) as client:
        result = await client.call_tool("delete_file", {"path": "big.log", "permanent": True})
        batch = await client.call_tool(
            "batch_operations", {"request_json": [{"type": "delete", "path": "big.log", "permanent": True}]}
        )
    assert error_code(result) == "too_large", text_of(result)
    assert error_code(batch) == "batch_failed", text_of(batch)
    assert user.asked == []
    assert tree(root) == before


async def test_a_delete_of_a_mount_point_asks_nothing_and_is_refused(
    connect: ClientFactory, root: Path, mount_tmpfs: Mount
) -> None:
    mount_tmpfs(root / "mnt")
    (root / "mnt" / "inside.txt").write_bytes(b"on the other filesystem\n")
    user = User()
    async with connect(elicitation_callback=user) as client:
        recursive = await client.call_tool("delete_file", {"path": "mnt", "recursive": True})
        permanent = await client.call_tool("delete_file", {"path": "mnt", "recursive": True, "permanent": True})
    assert (error_code(recursive), error_code(permanent)) == ("access_denied", "access_denied"), text_of(recursive)
    assert "mount point" in text_of(permanent)
    assert user.asked == []
    assert (root / "mnt" / "inside.txt").read_bytes() == b"on the other filesystem\n"


async def test_a_delete_of_a_bind_mount_of_the_same_filesystem_asks_nothing_and_is_refused(
    connect: ClientFactory, root: Path
) -> None:
    (root / "src").mkdir()
    (root / "src" / "keep.txt").write_bytes(b"kept\n")
    (root / "bound").mkdir()
    user = User()
    with bind_mounted(root / "src", root / "bound"):  # one device on both sides: only the mount table tells
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": "bound", "recursive": True, "permanent": True})
        assert (root / "bound" / "keep.txt").read_bytes() == b"kept\n"
    assert error_code(result) == "access_denied", text_of(result)
    assert "mount point" in text_of(result)
    assert user.asked == []
    assert (root / "src" / "keep.txt").read_bytes() == b"kept\n"


@pytest.mark.parametrize("hidden", ["deny rule", "read-only root"])
async def test_a_git_restore_the_call_refuses_anyway_asks_nothing_and_names_the_refusal(
    connect: ClientFactory, root: Path, hidden: str
) -> None:
    make_repo(root)
    (root / "vendor").mkdir()
    (root / "vendor" / "secret.txt").write_bytes(b"one\n")
    git(root, "add", "vendor")
    git(root, "commit", "-q", "-m", "vendor")
    (root / "a.txt").write_bytes(b"my work\n")
    (root / "vendor" / "secret.txt").write_bytes(b"its work\n")
    user = User()  # says yes to anything
    settings: dict[str, Any] = (
        {"deny": ("secret.txt",)} if hidden == "deny rule" else {"read_only_roots": (root / "vendor",)}
    )
    async with connect(elicitation_callback=user, **settings) as client:
        result = await client.call_tool("git", {"action": "restore", "paths": ["."]})
        forced = await client.call_tool("git", {"action": "restore", "paths": ["."], "force": True})
    code = "access_denied" if hidden == "deny rule" else "read_only"
    assert error_code(result) == code, text_of(result)
    assert error_code(forced) == code, text_of(forced)
    assert user.asked == []  # not asked to discard a.txt, then told the restore is refused
    assert (root / "a.txt").read_bytes() == b"my work\n"
    assert (root / "vendor" / "secret.txt").read_bytes() == b"its work\n"


async def test_without_elicitation_a_git_restore_refused_anyway_names_the_refusal_not_force(
    connect: ClientFactory, root: Path
) -> None:
    make_repo(root)
    (root / "secret.txt").write_bytes(b"one\n")
    git(root, "add", "secret.txt")
    git(root, "commit", "-q", "-m", "s")
    (root / "secret.txt").write_bytes(b"its work\n")
    async with connect(deny=("secret.txt",)) as client:
        result = await client.call_tool("git", {"action": "restore", "paths": ["."]})
    assert error_code(result) == "access_denied", text_of(result)  # force=true would not help: it is not advised
    assert (root / "secret.txt").read_bytes() == b"its work\n"


INVALID_BATCHES: dict[str, list[dict[str, Any]]] = {
    "a directory deleted for good, atomic": [
        {"type": "delete", "path": "vendor", "recursive": True, "permanent": True}
    ],
    "an unknown operation beside": [
        {"type": "delete", "path": "a.txt", "permanent": True},
        {"type": "bogus", "path": "x"},
    ],
    "an edit of a missing file beside": [
        {"type": "delete", "path": "vendor", "recursive": True},
        {"type": "edit", "path": "nope.txt", "old_text": "a", "new_text": "b"},
    ],
}


@pytest.mark.parametrize("case", list(INVALID_BATCHES))
async def test_a_batch_that_does_not_validate_asks_nothing_about_its_deletes(
    connect: ClientFactory, root: Path, case: str
) -> None:
    before = _seed(root)
    user = User()  # says yes to anything
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"request_json": {"operations": INVALID_BATCHES[case]}})
    assert error_code(result) == "invalid_params", text_of(result)
    assert "does not validate" in text_of(result)
    assert user.asked == []  # not asked to confirm the deletes of a batch refused whatever the answer
    assert tree(root) == before


async def test_a_delete_refused_for_its_arguments_asks_nothing(connect: ClientFactory, root: Path) -> None:
    before = _seed(root)
    stale = "sha256:" + "0" * 64
    user = User()  # says yes to anything
    async with connect(elicitation_callback=user) as client:
        changed = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True, "expected_hash": stale})
        folder = await client.call_tool("delete_file", {"path": "vendor", "recursive": True, "expected_hash": stale})
        both = await client.call_tool("delete_file", {"path": "a.txt", "paths": ["a.txt"], "permanent": True})
    assert error_code(changed) == "stale_edit", text_of(changed)
    assert error_code(folder) == "invalid_params", text_of(folder)
    assert error_code(both) == "invalid_params", text_of(both)
    assert user.asked == []  # not asked to confirm what is refused whatever the answer
    assert tree(root) == before


async def test_a_delete_whose_expected_hash_holds_is_asked_about_and_runs(connect: ClientFactory, root: Path) -> None:
    _seed(root)
    user = User()
    async with connect(elicitation_callback=user) as client:
        read = await client.call_tool("read_file", {"path": "a.txt"})
        digest = (read.structured_content or {})["content_hash"]
        result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True, "expected_hash": digest})
    assert not result.is_error, text_of(result)
    assert len(user.asked) == 1
    assert not (root / "a.txt").exists()


@pytest.mark.parametrize("fetched", [False, True], ids=["never fetched", "fetched, not taken in"])
async def test_a_push_the_lease_would_refuse_anyway_asks_nothing(
    connect: ClientFactory, root: Path, tmp_path: Path, fetched: bool
) -> None:
    # Confirmed, a push runs with --force-with-lease --force-if-includes: with no record of the remote's branch, or
    # one this branch never took in, git refuses it, so a yes could not make it run.
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    other = make_repo(tmp_path / "other")
    (other / "a.txt").write_bytes(b"theirs\n")
    git(other, "commit", "-q", "-a", "-m", "theirs")
    git(other, "push", "-q", str(remote), "main")
    repo = make_repo(root / "repo")
    (repo / "a.txt").write_bytes(b"mine\n")
    git(repo, "commit", "-q", "-a", "-m", "mine")
    git(repo, "remote", "add", "origin", str(remote))
    if fetched:
        git(repo, "fetch", "-q", "origin")
    theirs = git(remote, "rev-parse", "main")
    user = User()  # says yes to anything
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("git", {"action": "push", "path": "repo", "name": "main"})
    assert error_code(result) == "git_error", text_of(result)
    assert "force=true" not in text_of(result)  # refused too: the error names what works
    assert "git fetch" in text_of(result)
    assert user.asked == []
    assert git(remote, "rev-parse", "main") == theirs


def _risky_then_failing(root: Path, failing: str, *, trashed: bool = False) -> list[dict[str, Any]]:
    """A pipeline editing 120 files (risk CRITICAL), then editing ``failing``, which is not there; ``trashed``: a
    recursive delete of the non-empty vendor first."""
    names = [f"f{i:03}.txt" for i in range(120)]
    for name in names:
        (root / name).write_bytes(b"foo\n" * 5)
    steps = [
        {"id": "big", "action": "edit", "params": {"files": names, "old_text": "foo", "new_text": "bar"}},
        {"id": "bad", "action": "edit", "params": {"files": [failing], "old_text": "x", "new_text": "y"}},
    ]
    if trashed:
        (root / "vendor").mkdir()
        (root / "vendor" / "lib.txt").write_bytes(b"lib\n")
        steps.insert(0, {"id": "rm", "action": "delete", "params": {"files": ["vendor"], "recursive": True}})
    return steps


async def test_a_risky_pipeline_that_fails_at_a_later_step_anyway_asks_nothing(
    connect: ClientFactory, root: Path
) -> None:
    steps = _risky_then_failing(root, "missing.txt")
    before = tree(root)
    user = User()  # says yes to anything
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}})
    assert error_code(result) == "batch_failed", text_of(result)  # not asked, then 120 files edited and rolled back
    assert "risk CRITICAL, so it was blocked" in text_of(result)
    assert user.asked == []
    assert tree(root) == before


@pytest.mark.parametrize("case", ["a directory it trashes first", "a name a template fills"])
async def test_a_risky_pipeline_failing_later_is_still_asked_about_what_the_dry_run_cannot_settle(
    connect: ClientFactory, root: Path, case: str
) -> None:
    # Unforced, the delete before the risky step would run unasked (then be rolled back); a templated name is one the
    # dry run may fail on where the run does not.
    trashed = case == "a directory it trashes first"
    steps = _risky_then_failing(root, "missing.txt" if trashed else "missing-{{big.count}}.txt", trashed=trashed)
    before = tree(root)
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}})
    assert error_code(result) == "declined", text_of(result)
    assert len(user.asked) == 1
    assert tree(root) == before
