"""What a branch switch may not lose: files git does not track (ignored ones too) where the target puts a file, and
files a deny rule hides, from a branch with no commits too, or renamed; and what a restore checks first (a rename's
both names, a folder now a file). Both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, text_of
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio


@pytest.fixture
def repo(root: Path) -> Path:
    return make_repo(root)


def branch_with(repo: Path, name: str, text: str) -> None:
    """A branch ``feat`` that tracks ``name``, main left checked out, ignoring ``name``."""
    git(repo, "switch", "-q", "-c", "feat")
    (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", name)
    git(repo, "commit", "-q", "-m", name)
    git(repo, "switch", "-q", "main")
    (repo / ".gitignore").write_text(f"{name}\n{name}/\n", encoding="utf-8")
    git(repo, "add", ".gitignore")
    git(repo, "commit", "-q", "-m", "ignore")


async def test_a_switch_refuses_to_overwrite_an_ignored_file_the_target_tracks(client: Client, repo: Path) -> None:
    branch_with(repo, "out.log", "from feat\n")
    (repo / "out.log").write_text("precious\n", encoding="utf-8")
    result = await client.call_tool("git", {"action": "branch", "name": "feat", "checkout": True})
    assert error_code(result) == "invalid_params"
    assert "out.log" in text_of(result)
    assert (repo / "out.log").read_text(encoding="utf-8") == "precious\n"
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"


async def test_a_switch_refuses_to_delete_an_ignored_folder_where_the_target_has_a_file(
    client: Client, repo: Path
) -> None:
    branch_with(repo, "build", "a file on feat\n")
    (repo / "build" / "sub").mkdir(parents=True)
    (repo / "build" / "sub" / "data.db").write_text("user db\n", encoding="utf-8")
    (repo / "build" / ".env").write_text("SECRET=1\n", encoding="utf-8")
    result = await client.call_tool("git", {"action": "branch", "name": "feat", "checkout": True})
    assert error_code(result) == "invalid_params"
    assert "build/" in text_of(result)
    assert ".env" not in text_of(result)
    assert (repo / "build" / "sub" / "data.db").read_text(encoding="utf-8") == "user db\n"
    assert (repo / "build" / ".env").read_text(encoding="utf-8") == "SECRET=1\n"


@pytest.mark.parametrize(("name", "code"), [(".env", "access_denied"), ("out.log", "invalid_params")])
async def test_a_switch_from_a_branch_with_no_commits_keeps_an_ignored_file_the_target_tracks(
    client: Client, repo: Path, name: str, code: str
) -> None:
    # .env is hidden by the default deny rules; out.log only ignored.
    (repo / name).write_text("committed\n", encoding="utf-8")
    git(repo, "add", "-f", name)
    git(repo, "commit", "-q", "-m", "tracked on main")
    git(repo, "switch", "-q", "--orphan", "fresh")
    (repo / ".gitignore").write_text(f"{name}\n", encoding="utf-8")
    (repo / name).write_text("precious\n", encoding="utf-8")
    result = await client.call_tool("git", {"action": "branch", "name": "main", "checkout": True})
    assert error_code(result) == code
    assert (repo / name).read_text(encoding="utf-8") == "precious\n"
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "fresh"


async def test_a_switch_to_a_branch_that_renamed_a_hidden_file_is_refused(client: Client, repo: Path) -> None:
    # Read as a rename, the diff named only settings.txt, and the switch deleted .env unchecked.
    (repo / ".env").write_text("SECRET=hunter2\nA=1\nB=2\n", encoding="utf-8")
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-q", "-m", "env")
    git(repo, "switch", "-q", "-c", "renamed")
    git(repo, "mv", ".env", "settings.txt")
    git(repo, "commit", "-q", "-m", "rename")
    git(repo, "switch", "-q", "main")
    result = await client.call_tool("git", {"action": "branch", "name": "renamed", "checkout": True})
    assert error_code(result) == "access_denied"
    assert (repo / ".env").read_text(encoding="utf-8") == "SECRET=hunter2\nA=1\nB=2\n"
    assert git(repo, "symbolic-ref", "--short", "HEAD").strip() == "main"


async def test_unstaging_the_rename_of_a_hidden_file_is_refused(client: Client, repo: Path) -> None:
    (repo / ".env").write_text("SECRET=hunter2\nA=1\nB=2\n", encoding="utf-8")
    git(repo, "add", "-f", ".env")
    git(repo, "commit", "-q", "-m", "env")
    git(repo, "mv", ".env", "settings.txt")
    result = await client.call_tool("git", {"action": "restore", "paths": ["."], "staged": True})
    assert error_code(result) == "access_denied"
    assert git(repo, "ls-files", ".env") == ""


async def test_restoring_a_staged_rename_from_head_brings_the_old_file_back_as_git_does(
    client: Client, repo: Path
) -> None:
    (repo / "a.txt").write_text("1\n2\n3\n4\n", encoding="utf-8")
    git(repo, "commit", "-q", "-a", "-m", "four lines")
    git(repo, "mv", "a.txt", "b.txt")
    (repo / "b.txt").write_text("1\n2\n3\n4\nmine\n", encoding="utf-8")
    result = await client.call_tool("git", {"action": "restore", "paths": ["."], "rev": "HEAD", "force": True})
    assert not result.is_error, text_of(result)
    assert (repo / "a.txt").read_text(encoding="utf-8") == "1\n2\n3\n4\n"
    assert not (repo / "b.txt").exists()  # as git restore --source=HEAD leaves it (backed up first)


async def test_a_restore_where_a_tracked_folder_is_now_a_file_restores_nothing_and_says_so(
    client: Client, repo: Path
) -> None:
    (repo / "d").mkdir()
    (repo / "d" / "in.txt").write_text("in\n", encoding="utf-8")
    (repo / "z.txt").write_text("z\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "folder")
    (repo / "d" / "in.txt").unlink()
    (repo / "d").rmdir()
    (repo / "d").write_text("user file\n", encoding="utf-8")
    (repo / "z.txt").write_text("edit\n", encoding="utf-8")
    result = await client.call_tool("git", {"action": "restore", "paths": ["d", "z.txt"], "force": True})
    assert error_code(result) == "not_a_directory"
    assert "nothing was restored" in text_of(result)
    assert "leave it out of paths" in text_of(result)
    assert (repo / "d").read_text(encoding="utf-8") == "user file\n"
    assert (repo / "z.txt").read_text(encoding="utf-8") == "edit\n"
