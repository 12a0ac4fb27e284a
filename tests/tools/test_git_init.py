"""git init while another process swaps a directory on the way for a link to outside the roots; what init finds there.

git turns the directory it runs in into an absolute path and makes the repository by that path: a swap while it ran
made it create the repository outside (a race probe, 1 in 447 calls). The fake git here does what git does, with
the swap in between, so the window is hit every time: fsguard now runs git in a fresh directory of a random name
inside the target and moves the ``.git`` it made into place through the fds it holds. Both eras.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of
from tests.tools.test_git import git

pytestmark = pytest.mark.anyio

# What git does (its directory as an absolute path, then the repository made by it), with another process's swap of
# a directory on that path in between.
SWAPPING_GIT = """#!/bin/sh
case " $* " in *" init "*)
    here=$(pwd -P)
    mv "$SWAP_DIR" "$SWAP_DIR.was" && ln -s "$SWAP_TO" "$SWAP_DIR"
    cd "$here" 2>/dev/null || { echo "fatal: cannot change to '$here': No such file or directory" >&2; exit 128; }
esac
exec "$REAL_GIT" "$@"
"""


def _swapping_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swapped: Path, outside: Path) -> None:
    real = shutil.which("git")
    assert real is not None
    bin_dir = tmp_path / "fake-bin"
    bin_dir.mkdir()
    (bin_dir / "git").write_text(SWAPPING_GIT, encoding="utf-8")
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("REAL_GIT", real)
    monkeypatch.setenv("SWAP_DIR", str(swapped))
    monkeypatch.setenv("SWAP_TO", str(outside))


async def test_a_directory_swapped_for_a_link_while_git_init_runs_never_gets_a_repository_outside(
    client: Client, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "project" / "sub").mkdir(parents=True)
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)  # what the path names once project is a link to outside
    _swapping_git(tmp_path, monkeypatch, root / "project", outside)
    result = await client.call_tool("git", {"action": "init", "path": "project/sub"})
    assert error_code(result) == "git_error", text_of(result)
    assert list((outside / "sub").iterdir()) == []
    assert list((root / "project.was" / "sub").iterdir()) == []  # git's directory is gone, nothing made


async def test_init_makes_the_repository_in_place_with_no_directory_of_its_own_left(client: Client, root: Path) -> None:
    (root / "project").mkdir()
    (root / "project" / "keep.txt").write_bytes(b"kept\n")
    made = structured(await client.call_tool("git", {"action": "init", "path": "project"}))
    assert made["repository"] == str(root / "project")
    assert sorted(path.name for path in (root / "project").iterdir()) == [".git", "keep.txt"]
    assert git(root / "project", "status", "--porcelain") == "?? keep.txt\n"
    assert (root / "project" / "keep.txt").read_bytes() == b"kept\n"


async def test_a_second_init_leaves_the_repository_as_it_is_and_says_so(client: Client, root: Path) -> None:
    await client.call_tool("git", {"action": "init", "path": "project"})
    (root / "project" / ".git" / "description").write_bytes(b"mine\n")
    again = await client.call_tool("git", {"action": "init", "path": "project"})
    assert structured(again)["reinitialized"] is True
    assert "already in project; it was left as it is" in text_of(again)
    assert (root / "project" / ".git" / "description").read_bytes() == b"mine\n"


async def test_init_of_a_worktree_or_submodule_takes_its_gitdir_file_as_a_repository(
    client: Client, root: Path
) -> None:
    (root / "main").mkdir()
    git(root / "main", "init", "-q")
    (root / "linked").mkdir()
    (root / "linked" / ".git").write_text(f"gitdir: {root / 'main' / '.git'}\n", encoding="utf-8")
    found = structured(await client.call_tool("git", {"action": "init", "path": "linked"}))
    assert found["reinitialized"] is True
    assert (root / "linked" / ".git").read_text(encoding="utf-8") == f"gitdir: {root / 'main' / '.git'}\n"


@pytest.mark.parametrize("kind", ["empty directory", "file", "link"])
async def test_a_dot_git_that_holds_no_repository_is_left_alone_and_named(
    client: Client, root: Path, tmp_path: Path, kind: str
) -> None:
    (root / "project").mkdir()
    dot_git = root / "project" / ".git"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if kind == "empty directory":
        dot_git.mkdir()
    elif kind == "file":
        dot_git.write_bytes(b"not a repository\n")
    else:
        dot_git.symlink_to(elsewhere)
    result = await client.call_tool("git", {"action": "init", "path": "project"})
    assert error_code(result) == "already_exists"
    assert "holds no git repository" in text_of(result)
    assert os.path.lexists(dot_git)
    assert list(elsewhere.iterdir()) == []
    assert sorted(path.name for path in (root / "project").iterdir()) == [".git"]


async def test_init_of_a_file_is_not_a_directory_and_changes_nothing(client: Client, root: Path) -> None:
    (root / "notes.txt").write_bytes(b"notes\n")
    result = await client.call_tool("git", {"action": "init", "path": "notes.txt"})
    assert error_code(result) == "not_a_directory"
    assert "init needs a directory" in text_of(result)
    assert (root / "notes.txt").read_bytes() == b"notes\n"
