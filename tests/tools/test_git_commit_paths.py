"""A commit with paths is made onto the commit its index was read from (core/gitcommit.py), as git commit makes it.

It reads HEAD into an index of fsguard's, then commits that index: ``git commit`` read HEAD again when it started,
so another process committing in between got its change silently reverted by fsguard's commit (its parent that
commit, its tree the one before). HEAD now moves only if it is still where the index was read from. What
``git commit -m`` does besides (message cleanup, hooks when allowed, the reflog entry) is held to git itself: a twin
repository outside the roots, committed by ``git commit -- paths``. Both eras.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core.gitprocess import GitOutput, GitProcess
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio


def other_process_commits_once_the_index_is_read(monkeypatch: pytest.MonkeyPatch, repo: Path) -> list[str]:
    """Another process commits its edit of ``other.txt`` right after fsguard fills its scratch index (the first
    ``update-index`` on one): after fsguard read HEAD, before it commits. The ids of the commits it made."""
    run = GitProcess.run
    made: list[str] = []

    def racing(self: GitProcess, directory: Path, args: Sequence[str], **kwargs: Any) -> GitOutput:
        out = run(self, directory, args, **kwargs)
        if not made and args[0] == "update-index" and kwargs.get("scratch") is not None:
            (repo / "other.txt").write_bytes(b"the other process's change\n")
            git(repo, "add", "other.txt")
            git(repo, "commit", "-q", "-m", "other process")
            made.append(git(repo, "rev-parse", "HEAD").strip())
        return out

    monkeypatch.setattr(GitProcess, "run", racing)
    return made


@pytest.mark.parametrize("born", [True, False], ids=["onto a commit", "the first commit"])
async def test_a_commit_with_paths_is_refused_when_another_process_commits_meanwhile_and_its_change_stays(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch, born: bool
) -> None:
    repo = make_repo(root, commit=born)
    if born:
        (repo / "other.txt").write_bytes(b"other\n")
        git(repo, "add", "other.txt")
        git(repo, "commit", "-q", "-m", "other")
    else:
        (repo / "a.txt").write_bytes(b"alpha\n")
        git(repo, "add", "a.txt")  # a commit with paths takes tracked files: staged, on a branch with no commit
    (repo / "a.txt").write_bytes(b"the agent's change\n")
    made = other_process_commits_once_the_index_is_read(monkeypatch, repo)
    result = await client.call_tool("git", {"action": "commit", "message": "agent", "paths": ["a.txt"]})
    assert error_code(result) == "external_change", text_of(result)
    assert "another process committed" in text_of(result)
    assert 'git(action="status"), then commit again' in text_of(result)
    assert git(repo, "rev-parse", "HEAD").strip() == made[0]
    assert git(repo, "show", "HEAD:other.txt") == "the other process's change\n"
    assert git(repo, "log", "--format=%s") == ("other process\nother\ninit\n" if born else "other process\n")
    assert (repo / "a.txt").read_bytes() == b"the agent's change\n"


@pytest.mark.parametrize("cleanup", ["unset", "whitespace", "strip", "verbatim"])
async def test_a_commit_with_paths_words_its_message_and_reflog_as_git_commit_does(
    client: Client, root: Path, tmp_path: Path, cleanup: str
) -> None:
    twins = (make_repo(root), make_repo(tmp_path / "twin"))
    message = "  Subject line   \n\n\n# a comment line\nbody   \n\n"
    for each in twins:
        if cleanup != "unset":
            git(each, "config", "commit.cleanup", cleanup)
        (each / "a.txt").write_bytes(b"edited\n")
    repo, twin = twins
    structured(await client.call_tool("git", {"action": "commit", "message": message, "paths": ["a.txt"]}))
    git(twin, "commit", "-q", "-m", message, "--", "a.txt")
    reflogs = (["reflog", "-1", "--format=%gs"], ["reflog", "-1", "--format=%gs", "main"])
    for read in (["cat-file", "commit", "HEAD"], *reflogs):
        assert _without_identity(git(repo, *read)) == _without_identity(git(twin, *read)), read
    assert git(repo, "rev-parse", "HEAD^{tree}") == git(twin, "rev-parse", "HEAD^{tree}")


@pytest.mark.parametrize("paths", [["a.txt", "r.txt"], ["d"]], ids=["both-names", "their-directory"])
async def test_a_commit_with_paths_takes_a_rename_whole_as_git_commit_does(
    client: Client, root: Path, tmp_path: Path, paths: list[str]
) -> None:
    twins = (make_repo(root), make_repo(tmp_path / "twin"))
    for each in twins:
        (each / "d").mkdir()
        (each / "d" / "c.txt").write_bytes(b"gamma\n")
        git(each, "add", "d")
        git(each, "commit", "-q", "-m", "d")
        git(each, "mv", "a.txt", "r.txt")
        git(each, "mv", "d/c.txt", "d/e.txt")
    repo, twin = twins
    structured(await client.call_tool("git", {"action": "commit", "message": "rename", "paths": paths}))
    git(twin, "commit", "-q", "-m", "rename", "--", *paths)
    for read in (["ls-tree", "-r", "--name-only", "HEAD"], ["status", "--porcelain"]):
        assert git(repo, *read) == git(twin, *read), read
    gone = "a.txt" if "a.txt" in paths else "d/c.txt"  # the old name's removal went in with the new name
    assert gone not in git(repo, "ls-tree", "-r", "--name-only", "HEAD").split()


async def test_a_commit_with_paths_whose_message_cleans_up_to_nothing_is_refused_and_commits_nothing(
    client: Client, root: Path
) -> None:
    repo = make_repo(root)
    git(repo, "config", "commit.cleanup", "strip")
    (repo / "a.txt").write_bytes(b"edited\n")
    head = git(repo, "rev-parse", "HEAD")
    result = await client.call_tool("git", {"action": "commit", "message": "# only a comment", "paths": ["a.txt"]})
    assert error_code(result) == "invalid_params", text_of(result)
    assert "message is empty" in text_of(result)
    assert git(repo, "rev-parse", "HEAD") == head


async def test_a_commit_with_paths_runs_the_hooks_git_commit_runs_on_the_index_it_commits_when_allowed(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    twins = (make_repo(root), make_repo(tmp_path / "twin"))
    for each in twins:
        (each / "b.txt").write_bytes(b"beta\n")
        git(each, "add", "b.txt")
        git(each, "commit", "-q", "-m", "b")
        (each / "b.txt").write_bytes(b"staged, not in this commit\n")
        git(each, "add", "b.txt")
        (each / "a.txt").write_bytes(b"edited\n")
        hooks = each / ".git" / "hooks"
        record = f"'{each.parent / (each.name + '-hooks.log')}'"
        scripts = {
            "pre-commit": f"echo pre-commit $(git diff --cached --name-only) >> {record}",
            "prepare-commit-msg": f'echo prepare-commit-msg "$2" >> {record}',
            "commit-msg": f'echo commit-msg >> {record}; printf "\\n\\nChecked-by: hook  \\n" >> "$1"',
            "post-commit": f"echo post-commit $(git log -1 --format=%s) >> {record}",
        }
        for name, script in scripts.items():
            (hooks / name).write_text(f"#!/bin/sh\n{script}\n", encoding="utf-8")
            (hooks / name).chmod(0o755)
    repo, twin = twins
    async with connect(git_hooks=True) as client:
        structured(await client.call_tool("git", {"action": "commit", "message": "only a", "paths": ["a.txt"]}))
    git(twin, "commit", "-q", "-m", "only a", "--", "a.txt")
    logged = [(each.parent / (each.name + "-hooks.log")).read_text(encoding="utf-8") for each in twins]
    assert logged[0] == logged[1] == ("pre-commit a.txt\nprepare-commit-msg message\ncommit-msg\npost-commit only a\n")
    assert git(repo, "log", "-1", "--format=%B") == git(twin, "log", "-1", "--format=%B")
    assert "Checked-by: hook" in git(repo, "log", "-1", "--format=%B")
    assert git(repo, "status", "--porcelain") == git(twin, "status", "--porcelain")


async def test_a_commit_with_paths_that_a_pre_commit_hook_refuses_commits_nothing(
    connect: ClientFactory, root: Path
) -> None:
    repo = make_repo(root)
    hook = repo / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho 'lint: a.txt is not formatted' >&2\nexit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    (repo / "a.txt").write_bytes(b"edited\n")
    head = git(repo, "rev-parse", "HEAD")
    async with connect(git_hooks=True) as client:
        result = await client.call_tool("git", {"action": "commit", "message": "m", "paths": ["a.txt"]})
    assert error_code(result) == "git_error", text_of(result)
    assert "lint: a.txt is not formatted" in text_of(result)
    assert git(repo, "rev-parse", "HEAD") == head
    assert subprocess.run(["git", "diff", "--quiet", "--cached"], cwd=repo, check=False).returncode == 0


def _without_identity(said: str) -> str:
    """A commit with its ids, names and times left out (each repository has its own)."""
    identity = ("tree ", "parent ", "author ", "committer ")
    return "".join(line for line in said.splitlines(True) if not line.startswith(identity))
