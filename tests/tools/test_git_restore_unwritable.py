"""git restore of several files, one of which may not be written (an immutable flag, a read-only mount).

The restore backed up and overwrote the files before it, then met that one and answered "nothing was written": the
discarded edits were gone unsaid, their backups named nowhere. Every file it rewrites is checked first now, and a
restore still stopped partway (a file made unwritable after that check) names what it had restored and the undo.
"""

from __future__ import annotations

import contextlib
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core import gitchanges, gitrestore
from fsguard.core.gitrepo import GitCall
from tests.conftest import bind_mounted, error_code, structured, text_of
from tests.tools.test_git import git, make_repo
from tests.tools.test_partial_moves import immutable

pytestmark = pytest.mark.anyio

DIRTY = b"uncommitted work\n"


@pytest.fixture
def repo(root: Path) -> Path:
    """a.txt (alpha) and ro/b.txt (beta) committed, both then edited."""
    make_repo(root)
    (root / "ro").mkdir()
    (root / "ro" / "b.txt").write_bytes(b"beta\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "b")
    for name in ("a.txt", "ro/b.txt"):
        (root / name).write_bytes(DIRTY)
    return root


async def undo_steps(client: Client, path: Path) -> list[object]:
    """The backups on ``path``'s undo chain, newest first."""
    listed = await client.call_tool("backup", {"action": "undo_chain", "file_path": str(path)})
    chain: list[object] = structured(listed)["backups"]
    return chain


async def test_a_restore_with_an_immutable_file_among_its_paths_restores_and_backs_up_none(
    client: Client, repo: Path
) -> None:
    with immutable(repo / "ro" / "b.txt"):
        result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt", "ro/b.txt"], "force": True})
        assert (repo / "ro" / "b.txt").read_bytes() == DIRTY
    assert error_code(result) == "access_denied", text_of(result)
    assert (repo / "a.txt").read_bytes() == DIRTY
    assert await undo_steps(client, repo / "a.txt") == []


async def test_a_restore_with_a_file_on_a_read_only_mount_among_its_paths_restores_none(
    client: Client, repo: Path
) -> None:
    directory = repo / "ro"
    with bind_mounted(directory, directory):
        subprocess.run(["mount", "-o", "remount,ro,bind", str(directory)], capture_output=True, check=True)
        result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt", "ro/b.txt"], "force": True})
    assert error_code(result) == "read_only_filesystem", text_of(result)
    assert (repo / "a.txt").read_bytes() == DIRTY
    assert (repo / "ro" / "b.txt").read_bytes() == DIRTY
    assert await undo_steps(client, repo / "a.txt") == []


async def test_a_restore_stopped_by_a_file_made_immutable_after_the_check_names_what_it_restored_and_the_undo(
    client: Client, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked = gitrestore.check_rewritable
    late = repo / "ro" / "b.txt"
    with immutable(late):
        pass  # skips here, not in the server's thread, where no file can be made immutable
    with contextlib.ExitStack() as stack:

        def then_locked(call: GitCall, names: list[str], entries: dict[str, tuple[str, str]]) -> None:
            checked(call, names, entries)
            stack.enter_context(immutable(late))  # another program's chattr +i, just after the check

        monkeypatch.setattr(gitchanges, "check_rewritable", then_locked)
        result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt", "ro/b.txt"], "force": True})
        assert late.read_bytes() == DIRTY
    assert error_code(result) == "access_denied", text_of(result)
    assert (repo / "a.txt").read_bytes() == b"alpha\n"
    assert "Before this, 1 of 2 files was restored and stay so (a.txt)" in text_of(result)
    fields = (result.meta or {})["fsguard/error"]
    assert fields["changed_files"] == [str(repo / "a.txt")]
    [backup_id] = fields["changed_backup_ids"]
    assert backup_id
    undone = await client.call_tool("backup", {"action": "undo_last", "file_path": str(repo / "a.txt")})
    assert not undone.is_error, text_of(undone)
    assert (repo / "a.txt").read_bytes() == DIRTY
