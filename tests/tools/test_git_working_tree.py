"""git add, a commit with paths and a diff of the working tree use bytes fsguard reads through its pinned walk
(core/gitstage.py, core/gitworktree.py).

git reads a working-tree file by its path after checking the directories on the way: another process swapping one
for a link to outside the roots in between made ``git add`` stage, a commit with paths commit, and ``git diff``
show a file outside (the race below did within a few calls). Both eras. Every other case is held to git itself: the
same changes made in a twin repository and run there by ``git add``, ``git commit -- paths`` or ``git diff`` leave
the same index and tree, or print the same patch.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from mcp import Client

from fsguard.core import gitchanges, gitstage, gitworktree
from fsguard.core.gitprocess import Scratch
from fsguard.core.gitrepo import GitCall
from tests.conftest import error_code, structured, text_of
from tests.swaps import exchange, swapped_after_the_look
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio

OUTSIDE = b"OUTSIDE SECRET\n"
# Per era, so 100 calls of each action in all: the old git add and commit leaked within 1 to 65 calls of this race
# here (14 runs).
RACE_CALLS = 50


def prepared(repo: Path) -> Path:
    """A committed tree with a file to change, a script, a link, a file to delete and one under a directory."""
    make_repo(repo)
    (repo / "swap" / "d0").mkdir(parents=True)
    (repo / "swap" / "d0" / "f0.txt").write_bytes(b"committed\n")
    (repo / "run.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (repo / "gone.txt").write_bytes(b"to delete\n")
    (repo / "link").symlink_to("a.txt")
    (repo / ".gitattributes").write_bytes(b"*.txt text eol=lf\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "more")
    return repo


def change(repo: Path) -> None:
    """The same working-tree changes in each repository: every kind of entry git add stages."""
    (repo / "a.txt").write_bytes(b"alpha\r\nedited with CRLF\r\n")  # the attributes make git store LF
    (repo / "run.sh").chmod(0o755)
    (repo / "gone.txt").unlink()
    (repo / "link").unlink()
    (repo / "link").symlink_to("swap/d0/f0.txt")
    (repo / "new dir").mkdir()
    (repo / "new dir" / "n\u00e9.bin").write_bytes(bytes(range(256)))
    (repo / "swap" / "d0" / "f0.txt").write_bytes(b"changed\n")


@pytest.fixture
def twins(root: Path, tmp_path: Path) -> tuple[Path, Path]:
    """The server's root and a twin outside it, both prepared and changed alike (same commits, same HEAD tree)."""
    return prepared(root), prepared(tmp_path / "twin")


@pytest.mark.parametrize("autocrlf", ["unset", "true"])
async def test_add_stages_what_git_add_stages_modes_links_removals_and_filters_included(
    client: Client, twins: tuple[Path, Path], autocrlf: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, twin = twins
    monkeypatch.setattr(gitstage, "_BATCH", 3)  # several batches of files read through their descriptors
    for each in twins:
        if autocrlf != "unset":
            git(each, "config", "core.autocrlf", autocrlf)
        change(each)
        (each / "plain.md").write_bytes(b"no attribute\r\nCRLF\r\n")  # converted by autocrlf only
    paths = [".gitattributes", "a.txt", "run.sh", "gone.txt", "link", "new dir", "swap", "plain.md"]
    data = structured(await client.call_tool("git", {"action": "add", "paths": paths}))
    git(twin, "add", "--", *paths)
    assert git(repo, "ls-files", "-s") == git(twin, "ls-files", "-s")
    assert git(repo, "cat-file", "blob", ":a.txt") == "alpha\nedited with CRLF\n"
    assert git(repo, "status", "--porcelain") == git(twin, "status", "--porcelain")
    assert len(data["paths"]) == 7  # .gitattributes is unchanged


async def test_add_keeps_the_index_mode_where_the_repository_ignores_the_executable_bit(
    client: Client, twins: tuple[Path, Path]
) -> None:
    repo, twin = twins
    for each in twins:
        git(each, "config", "core.fileMode", "false")
        (each / "run.sh").chmod(0o755)
        (each / "run.sh").write_bytes(b"#!/bin/sh\necho changed\n")
        (each / "fresh.sh").write_bytes(b"#!/bin/sh\n")
        (each / "fresh.sh").chmod(0o755)
    structured(await client.call_tool("git", {"action": "add", "paths": ["run.sh", "fresh.sh"]}))
    git(twin, "add", "--", "run.sh", "fresh.sh")
    assert git(repo, "ls-files", "-s", "run.sh", "fresh.sh") == git(twin, "ls-files", "-s", "run.sh", "fresh.sh")
    assert git(repo, "ls-files", "-s", "fresh.sh").startswith("100644 ")


async def test_add_adds_a_repository_inside_this_one_as_git_does(client: Client, twins: tuple[Path, Path]) -> None:
    repo, twin = twins
    for each in twins:
        make_repo(each / "inner")
    structured(await client.call_tool("git", {"action": "add", "paths": ["inner"]}))
    subprocess.run(["git", "add", "--", "inner"], cwd=twin, check=True, capture_output=True)  # it warns
    # Each inner repository's commit has its own time, so its own id: the index records the one it is at.
    for each in twins:
        assert (
            git(each, "ls-files", "-s", "inner")
            == f"160000 {git(each / 'inner', 'rev-parse', 'HEAD').strip()} 0\tinner\n"
        )
    assert git(repo, "ls-files") == git(twin, "ls-files")


async def test_add_of_a_path_that_matches_nothing_is_git_s_refusal_and_stages_nothing(
    client: Client, twins: tuple[Path, Path]
) -> None:
    repo, _twin = twins
    (repo / "a.txt").write_bytes(b"edited\n")
    result = await client.call_tool("git", {"action": "add", "paths": ["a.txt", "missing.txt"]})
    assert error_code(result) == "git_error", text_of(result)
    assert "did not match any files" in text_of(result)
    assert git(repo, "diff", "--cached", "--name-only") == ""


async def test_a_commit_with_paths_commits_their_working_tree_bytes_and_leaves_other_staged_changes_staged(
    client: Client, twins: tuple[Path, Path]
) -> None:
    repo, twin = twins
    for each in twins:
        change(each)
        git(each, "add", "run.sh")  # staged, not named: stays staged, not committed
        (each / "a.txt").write_bytes(b"staged first\n")
        git(each, "add", "a.txt")
        (each / "a.txt").write_bytes(b"then edited again\r\n")  # the commit takes these bytes
    named = ["a.txt", "gone.txt", "link", "swap"]
    data = structured(await client.call_tool("git", {"action": "commit", "message": "partial", "paths": named}))
    git(twin, "commit", "-q", "-m", "partial", "--", *named)
    assert git(repo, "rev-parse", "HEAD^{tree}") == git(twin, "rev-parse", "HEAD^{tree}")
    assert git(repo, "ls-files", "-s") == git(twin, "ls-files", "-s")
    assert git(repo, "status", "--porcelain") == git(twin, "status", "--porcelain")
    assert git(repo, "cat-file", "blob", "HEAD:a.txt") == "then edited again\n"
    assert data["files_changed"] == 4
    assert git(repo, "diff", "--cached", "--name-only") == "run.sh\n"


async def test_a_commit_with_paths_refuses_an_untracked_path_and_a_merge_in_progress(
    client: Client, twins: tuple[Path, Path]
) -> None:
    repo, _twin = twins
    (repo / "a.txt").write_bytes(b"edited\n")
    (repo / "untracked.txt").write_bytes(b"new\n")
    head = git(repo, "rev-parse", "HEAD")
    unknown = await client.call_tool("git", {"action": "commit", "message": "m", "paths": ["a.txt", "untracked.txt"]})
    assert error_code(unknown) == "git_error", text_of(unknown)
    assert "did not match any file(s) known to git" in text_of(unknown)
    git(repo, "update-ref", "MERGE_HEAD", "HEAD")  # what a merge in progress leaves
    merging = await client.call_tool("git", {"action": "commit", "message": "m", "paths": ["a.txt"]})
    assert error_code(merging) == "invalid_params", text_of(merging)
    assert "partial commit during a merge" in text_of(merging)
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "diff", "--cached", "--name-only") == ""


async def test_a_directory_swapped_for_a_link_before_the_staging_is_refused_and_nothing_outside_is_staged(
    client: Client, twins: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _twin = twins
    outside = swapped_before(monkeypatch, gitchanges, repo, tmp_path)
    result = await client.call_tool("git", {"action": "add", "paths": ["swap/d0/f0.txt"]})
    assert error_code(result) == "access_denied", text_of(result)
    assert git(repo, "cat-file", "blob", ":swap/d0/f0.txt") == "committed\n"
    assert not stored(repo, outside / "d0" / "f0.txt")


async def test_a_diff_of_the_working_tree_is_the_patch_git_diff_prints_and_leaves_no_object_behind(
    client: Client, twins: tuple[Path, Path]
) -> None:
    repo, twin = twins
    for each in twins:
        change(each)
        git(each, "add", "run.sh")  # staged: not in the unstaged diff, in the diff against HEAD
    objects = git(repo, "count-objects", "-v")
    for rev in (None, "HEAD", "HEAD~1"):
        arguments = {"action": "diff", "output": "full", "max_lines": 1000, **({"rev": rev} if rev else {})}
        data = structured(await client.call_tool("git", arguments))
        flags = ["--no-ext-diff", "--no-textconv", "--no-color", "-M"]
        assert data["patch"] == git(twin, "diff", *flags, *([rev] if rev else []), "--"), rev
        assert "OUTSIDE" not in data["patch"]
    assert git(repo, "count-objects", "-v") == objects


async def test_a_diff_of_the_working_tree_names_a_submodule_with_uncommitted_changes_as_git_diff_does(
    client: Client, root: Path, tmp_path: Path
) -> None:
    inner = make_repo(tmp_path / "inner")
    twins = (make_repo(root), make_repo(tmp_path / "twin"))
    for each in twins:
        (each / "z.txt").write_bytes(b"zed\n")
        git(each, "add", "z.txt")
        git(each, "commit", "-q", "-m", "z")
        git(each, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(inner), "sub")
        git(each, "commit", "-q", "-m", "sub")
        (each / "a.txt").write_bytes(b"before the submodule\n")
        (each / "z.txt").write_bytes(b"after it\n")
        (each / "sub" / "a.txt").write_bytes(b"edited inside\n")  # the submodule's commit is the same: -dirty
    repo, twin = twins
    for rev in (None, "HEAD", "HEAD~1"):
        arguments = {"action": "diff", "output": "full", **({"rev": rev} if rev else {})}
        data = structured(await client.call_tool("git", arguments))
        flags = ["--no-ext-diff", "--no-textconv", "--no-color", "-M"]
        assert data["patch"] == git(twin, "diff", *flags, *([rev] if rev else []), "--"), rev
        assert "-dirty\n" in data["patch"], rev
        assert [file["path"] for file in data["files"]] == [
            str(repo / name) for name in ([".gitmodules"] if rev == "HEAD~1" else []) + ["a.txt", "sub", "z.txt"]
        ], rev
        named = structured(await client.call_tool("git", {**arguments, "paths": ["sub"]}))
        assert named["patch"] == git(twin, "diff", *flags, *([rev] if rev else []), "--", "sub"), rev
        whole = git(twin, "diff", *flags, *([rev] if rev else []), "--").splitlines(keepends=True)
        cut = structured(await client.call_tool("git", {**arguments, "max_lines": 9}))  # inside the submodule's
        assert (cut["patch"], cut["total_lines"]) == ("".join(whole[:9]), len(whole)), rev


async def test_a_directory_swapped_for_a_link_before_the_diff_reads_it_is_refused(
    client: Client, twins: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _twin = twins
    swapped_before(monkeypatch, gitworktree, repo, tmp_path)
    result = await client.call_tool("git", {"action": "diff", "output": "full", "paths": ["swap/d0/f0.txt"]})
    assert error_code(result) == "access_denied", text_of(result)
    assert "OUTSIDE" not in text_of(result)


@pytest.mark.parametrize("action", ["add", "commit", "diff"])
async def test_a_directory_swapped_back_and_forth_never_gets_an_outside_file_staged_committed_or_shown(
    client: Client, twins: tuple[Path, Path], tmp_path: Path, action: str
) -> None:
    repo, _twin = twins
    outside = outside_tree(tmp_path)
    (repo / "swaplink").symlink_to(outside)
    with swapping(lambda: exchange(repo / "swap", repo / "swaplink")):
        for number in range(RACE_CALLS):
            arguments = {"action": action, "paths": ["swap/d0/f0.txt"]}
            if action == "commit":
                arguments["message"] = f"call {number}"
            if action == "diff":
                arguments["output"] = "full"
            result = await client.call_tool("git", arguments)  # refused, or done, as the swap falls
            assert "OUTSIDE" not in text_of(result) + str(result.structured_content), f"call {number}"
            assert not stored(repo, outside / "d0" / "f0.txt"), f"call {number}"


def swapped_before(monkeypatch: pytest.MonkeyPatch, caller: ModuleType, repo: Path, tmp_path: Path) -> Path:
    """A dirty tracked ``swap/d0/f0.txt``, and ``caller``'s ``stage`` made to swap ``swap/`` for a link to an outside
    tree first: after git named the file, before fsguard reads it. The outside tree."""
    outside = outside_tree(tmp_path)
    (repo / "swap" / "d0" / "f0.txt").write_bytes(b"dirty inside\n")

    def swapped(
        call: GitCall, names: list[bytes], scratch: Scratch | None = None, unreadable: list[bytes] | None = None
    ) -> list[bytes]:
        swap_out(repo, outside)
        return gitstage.stage(call, names, scratch, unreadable)

    monkeypatch.setattr(caller, "stage", swapped)
    return outside


def swap_out(repo: Path, outside: Path) -> None:
    """The working tree's ``swap/`` becomes a link to ``outside`` (the real directory kept as ``was-swap/``)."""
    (repo / "swap").rename(repo / "was-swap")
    (repo / "swap").symlink_to(outside)


def outside_tree(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "d0").mkdir(parents=True)
    (outside / "d0" / "f0.txt").write_bytes(OUTSIDE)
    return outside


def stored(repo: Path, file: Path) -> bool:
    """The repository holds an object with ``file``'s bytes (as a blob git add would have written)."""
    object_id = git(repo, "hash-object", "--no-filters", str(file)).strip()
    return subprocess.run(["git", "cat-file", "-e", object_id], cwd=repo, check=False).returncode == 0


class swapping:
    """Run ``swap`` over and over on a thread for the duration of the block."""

    def __init__(self, swap: Callable[[], None]) -> None:
        self._swap = swap
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._swap()

    def __enter__(self) -> None:
        self._thread.start()

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join()


@pytest.mark.parametrize("action", ["add", "diff"])
async def test_a_link_swapped_for_a_file_between_its_lstat_and_its_readlink_is_refused_as_changed(
    client: Client, twins: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    """The readlink's EINVAL (the name holds a file now) was an untyped I/O error naming no next action."""
    repo, _twin = twins
    (repo / "link").unlink()
    (repo / "link").symlink_to("swap/d0/f0.txt")  # a changed link: git names it to stage or diff
    (repo / "plain").write_bytes(b"a file\n")
    monkeypatch.setattr(gitstage, "lstat_at", swapped_after_the_look(repo / "link", repo / "plain"))
    index = (repo / ".git" / "index").read_bytes()
    result = await client.call_tool("git", {"action": action, "paths": ["link"]})

    assert error_code(result) == "access_denied", text_of(result)
    assert "changed while it was being read" in text_of(result)
    assert "Retry" in text_of(result)
    assert (repo / ".git" / "index").read_bytes() == index
    assert (repo / "link").read_bytes() == b"a file\n"
    assert (repo / "plain").readlink() == Path("swap/d0/f0.txt")
