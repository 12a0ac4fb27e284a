"""The git tool on a repository holding entries the server's user may not read, in both eras.

git carries on past a directory it may not open and a tracked file it may not reach, with a warning and a zero exit:
status listed nothing there and add staged nothing there, as if nothing had changed. Calls run as a user permission
bits stop (tests.tools.test_permissions); the repository is that user's, else git refuses it as another's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_git import git, make_repo
from tests.tools.test_permissions import call_as_a_user, reachable, users

pytestmark = pytest.mark.anyio

__all__ = ["reachable"]  # the fixture, used by name


@pytest.fixture(autouse=True)
def home(reachable: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home the user may read, holding no git config: git fails on one it may not read (root's)."""
    monkeypatch.setenv("HOME", str(reachable))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)


def locked_repo(root: Path) -> Path:
    """A repository ``root``/repo, the user's, with a.txt and sec.txt edited, sec.txt then mode 000, ``locked/`` (a
    tracked, edited file inside) and the untracked ``newdir/``, both directories mode 000."""
    root = make_repo(root / "repo")  # made as this process's user: git refuses a repository of another's
    (root / "locked").mkdir()
    (root / "locked" / "t.txt").write_bytes(b"tracked\n")
    (root / "sec.txt").write_bytes(b"secret\n")
    git(root, "add", "locked", "sec.txt")
    git(root, "commit", "-q", "-m", "locked")
    for name in ("a.txt", "locked/t.txt", "sec.txt"):
        (root / name).write_bytes(b"edited\n")
    (root / "sec.txt").chmod(0o000)
    (root / "newdir").mkdir()
    (root / "newdir" / "n.txt").write_bytes(b"new\n")
    users(root, *root.rglob("*"))
    for name in ("locked", "newdir"):
        (root / name).chmod(0o000)
    return root


async def test_status_names_the_directories_git_may_not_open_and_is_not_clean(
    connect: ClientFactory, reachable: Path
) -> None:
    # git warned "could not open directory 'newdir/'" and fsguard said nothing: its files were no untracked ones,
    # locked/t.txt's edit no unstaged one, and with nothing else changed the status read "Clean".
    repo = locked_repo(reachable / "root")
    result = await call_as_a_user(connect, reachable, "git", {"action": "status", "path": "repo"})
    found = structured(result)
    assert found["unstaged"] == [f"{repo}/a.txt", f"{repo}/sec.txt"]  # changed, git says, unable to read it
    assert found["unreadable"] == [f"{repo}/locked/", f"{repo}/newdir/"]
    assert found["clean"] is False
    assert "Not looked into by git, as the server's user may not read them: locked/, newdir/." in text_of(result)
    for name in ("locked", "newdir"):
        (repo / name).chmod(0o755)


@pytest.mark.parametrize(
    ("paths", "named"),
    [(["newdir"], "newdir/"), (["a.txt", "newdir"], "newdir/"), (["."], "locked/, newdir/")],
    ids=["the-directory", "with-a-readable-file", "the-whole-tree"],
)
async def test_add_of_a_directory_git_may_not_open_is_access_denied_and_stages_nothing(
    connect: ClientFactory, reachable: Path, paths: list[str], named: str
) -> None:
    # git add warned and staged nothing there: the answer was "Nothing staged: the paths have no changes".
    repo = locked_repo(reachable / "root")
    result = await call_as_a_user(connect, reachable, "git", {"action": "add", "path": "repo", "paths": paths})
    for name in ("locked", "newdir"):
        (repo / name).chmod(0o755)
    assert error_code(result) == "access_denied", text_of(result)
    assert f"may not read {named} (permission denied)" in text_of(result)
    assert "Nothing was staged" in text_of(result)
    assert git(repo, "-c", "safe.directory=*", "diff", "--cached", "--name-only") == ""


@pytest.mark.parametrize("rev", [None, "HEAD"], ids=["unstaged", "against-HEAD"])
async def test_a_diff_of_the_working_tree_shows_the_files_the_user_may_read_and_names_the_others(
    connect: ClientFactory, reachable: Path, rev: str | None
) -> None:
    # One edited file the user may not read made the whole diff access_denied; one in a directory it may not search
    # git left out unsaid.
    repo = locked_repo(reachable / "root")
    arguments = {"action": "diff", "path": "repo", "output": "full"} | ({"rev": rev} if rev else {})
    result = await call_as_a_user(connect, reachable, "git", arguments)
    for name in ("locked", "newdir"):
        (repo / name).chmod(0o755)
    found = structured(result)
    assert [change["path"] for change in found["files"]] == [f"{repo}/a.txt"]
    assert found["unreadable"] == [f"{repo}/locked/t.txt", f"{repo}/sec.txt"]
    assert found["patch"].startswith("diff --git a/a.txt b/a.txt\n")
    assert "-alpha\n+edited\n" in found["patch"]
    assert "Left out of the diff, as the server's user may not read them: locked/t.txt, sec.txt." in text_of(result)
