"""What a branch switch may not lose: files git does not track (ignored ones too) where the target puts a file, and
files a deny rule hides, from a branch with no commits too. Both protocol eras."""

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
