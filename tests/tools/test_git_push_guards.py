"""What a push may send: a plain branch name, never a refspec git would read as a forced push or a deletion. Both
protocol eras."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio


@pytest.fixture
def published(root: Path) -> Path:
    """A repository whose bare remote (origin, in the root) has main and keep, main one commit ahead of the local."""
    repo = make_repo(root)
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    (repo / ".git" / "info" / "exclude").write_text("remote.git/\n", encoding="utf-8")
    git(repo, "push", "-q", "origin", "main:main", "main:keep")
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    return repo


@pytest.mark.parametrize("name", ["+main", ":keep", "main:keep", "+main:keep", "ma*n", "main^", "HEAD@{1}"])
async def test_push_refuses_a_name_git_would_read_as_a_refspec(client: Client, published: Path, name: str) -> None:
    remote = published / "remote.git"
    before = git(remote, "for-each-ref")
    result = await client.call_tool("git", {"action": "push", "name": name})
    assert error_code(result) == "invalid_params"
    assert "not a branch name" in text_of(result)
    assert git(remote, "for-each-ref") == before  # main not replaced, keep not deleted


async def test_push_of_a_plain_name_sets_its_upstream_and_replaces_only_with_the_lease(
    client: Client, published: Path
) -> None:
    remote = published / "remote.git"
    git(published, "fetch", "-q", "origin")
    forced = await client.call_tool("git", {"action": "push", "name": "main", "force": True})
    assert not forced.is_error, text_of(forced)
    assert git(remote, "rev-parse", "main") == git(published, "rev-parse", "main")
    assert git(published, "config", "branch.main.merge").strip() == "refs/heads/main"
    assert git(remote, "rev-parse", "keep") != git(published, "rev-parse", "main")


@pytest.mark.parametrize("name", ["main", None])
async def test_push_into_a_local_repository_refuses_history_holding_a_file_a_root_anchored_rule_hides(
    connect: ClientFactory, root: Path, name: str | None
) -> None:
    # In root/clone the file would be clone/config/secrets.yml, which the rule does not match.
    repo = make_repo(root)
    (repo / "config").mkdir()
    (repo / "config" / "secrets.yml").write_text("db_password: do-not-print\n", encoding="utf-8")
    git(repo, "add", "config/secrets.yml")
    git(repo, "commit", "-q", "-m", "secrets")
    git(repo, "rm", "-q", "config/secrets.yml")
    git(repo, "commit", "-q", "-m", "gone from the tip, not from the history")
    clone = root / "clone"
    git(root, "init", "-q", "--bare", str(clone))
    git(repo, "remote", "add", "origin", str(clone))
    pushed = {"action": "push", "remote": str(clone), **({"name": name} if name else {})}
    async with connect(deny=("config/secrets.yml",)) as client:
        result = await client.call_tool("git", pushed)
    assert error_code(result) == "access_denied"
    assert "1 file a deny rule hides" in text_of(result)
    assert "secrets" not in text_of(result)
    assert git(clone, "for-each-ref") == ""
    blob = git(repo, "rev-parse", "HEAD~1:config/secrets.yml").strip()
    assert subprocess.run(["git", "cat-file", "-e", blob], cwd=clone, check=False).returncode != 0


async def test_push_into_a_local_repository_goes_through_when_no_rule_hides_a_file_of_its_history(
    connect: ClientFactory, root: Path
) -> None:
    repo = make_repo(root)
    clone = root / "clone"
    git(root, "init", "-q", "--bare", str(clone))
    async with connect(deny=("config/secrets.yml",)) as client:
        result = await client.call_tool("git", {"action": "push", "remote": str(clone), "name": "main"})
    assert not result.is_error, text_of(result)
    assert git(clone, "rev-parse", "main") == git(repo, "rev-parse", "main")


@pytest.mark.parametrize("remote", ["origin", None])
async def test_push_of_a_branch_that_does_not_exist_names_how_to_make_it(
    client: Client, published: Path, remote: str | None
) -> None:
    """To a local remote it failed as "git log failed (exit 128): fatal: bad revision", naming no next step."""
    if remote is None:
        git(published, "remote", "remove", "origin")
    before = git(published / "remote.git", "for-each-ref")
    result = await client.call_tool("git", {"action": "push", "name": "fix/nope"})
    assert error_code(result) == "invalid_params"
    assert "no local branch 'fix/nope'" in text_of(result)
    assert 'git(action="branch", name="fix/nope", checkout=true)' in text_of(result)
    assert git(published / "remote.git", "for-each-ref") == before
