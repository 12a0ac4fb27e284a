"""git restore while another process swaps a directory of the working tree for a link to outside the roots.

git writes a restored file by its path after checking the directories on the way: a swap between the check and the
write made it overwrite a file outside the root. fsguard now writes what the source holds itself, through its pinned
walk, which refuses such a link. Both eras; the restore's other cases (a link, a removed file, an executable, a
revision) keep git's results.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core import gitchanges, gitrestore
from fsguard.core.backups import BackupRecord
from fsguard.core.gitrepo import GitCall
from tests.conftest import error_code, structured, text_of
from tests.tools.test_file_attributes import private_share
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio

OUTSIDE = b"OUTSIDE SECRET\n"


def umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@pytest.fixture
def repo(root: Path) -> Path:
    make_repo(root)
    (root / "swap" / "d0").mkdir(parents=True)
    (root / "swap" / "d0" / "f0.txt").write_bytes(b"committed\n")
    (root / "run.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (root / "run.sh").chmod(0o755)
    (root / "link").symlink_to("a.txt")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "more")
    return root


async def test_a_directory_swapped_for_a_link_before_the_write_is_refused_and_nothing_outside_changes(
    client: Client, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    (outside / "d0").mkdir(parents=True)
    (outside / "d0" / "f0.txt").write_bytes(OUTSIDE)
    (repo / "swap" / "d0" / "f0.txt").write_bytes(b"dirty inside\n")
    backed_up = gitrestore.back_up

    def swapped(call: GitCall, target: Path, name: str) -> BackupRecord | None:
        record = backed_up(call, target, name)
        (repo / "swap").rename(repo / "was-swap")  # after the checks and the backup, before the write
        (repo / "swap").symlink_to(outside)
        return record

    monkeypatch.setattr(gitchanges, "back_up", swapped)  # as gitchanges calls it
    result = await client.call_tool("git", {"action": "restore", "paths": ["swap/d0/f0.txt"], "force": True})
    assert error_code(result) == "access_denied", text_of(result)
    assert (outside / "d0" / "f0.txt").read_bytes() == OUTSIDE
    assert (repo / "was-swap" / "d0" / "f0.txt").read_bytes() == b"dirty inside\n"


async def test_a_restore_puts_back_bytes_modes_links_and_removed_files_as_git_would(client: Client, repo: Path) -> None:
    (repo / "a.txt").write_bytes(b"edited\n")
    (repo / "run.sh").unlink()
    (repo / "swap" / "d0" / "f0.txt").unlink()
    (repo / "swap" / "d0").rmdir()
    (repo / "link").unlink()
    (repo / "link").write_bytes(b"a file where the link was\n")
    paths = ["a.txt", "run.sh", "swap/d0/f0.txt", "link"]
    restored = structured(await client.call_tool("git", {"action": "restore", "paths": paths, "force": True}))
    assert len(restored["paths"]) == 4
    assert (repo / "a.txt").read_bytes() == b"alpha\n"
    assert (repo / "run.sh").read_bytes() == b"#!/bin/sh\necho hi\n"
    assert stat.S_IMODE((repo / "run.sh").stat().st_mode) & 0o111
    assert (repo / "swap" / "d0" / "f0.txt").read_bytes() == b"committed\n"
    assert (repo / "link").readlink() == Path("a.txt")
    assert git(repo, "status", "--porcelain") == ""


async def test_a_restore_from_a_revision_removes_a_file_the_revision_does_not_hold(client: Client, repo: Path) -> None:
    first = git(repo, "rev-list", "--max-parents=0", "HEAD").strip()
    result = structured(
        await client.call_tool("git", {"action": "restore", "paths": ["run.sh", "a.txt"], "rev": first, "force": True})
    )
    assert [Path(path).name for path in result["paths"]] == ["run.sh"]
    assert not (repo / "run.sh").exists()
    assert (repo / "a.txt").read_bytes() == b"alpha\n"


async def test_a_restored_file_takes_its_directorys_default_acl_as_gits_own_checkout_does(
    client: Client, repo: Path
) -> None:
    # The restore set 0644 after writing: a deleted file it brought back into a directory whose default ACL kept
    # others out was readable by all, where git's checkout leaves it as that ACL says.
    private_share(repo / "swap" / "d0")
    (repo / "run.sh").unlink()
    (repo / "swap" / "d0" / "f0.txt").unlink()
    git(repo, "checkout", "--", "swap/d0/f0.txt")
    by_git = (
        (repo / "swap" / "d0" / "f0.txt").stat().st_mode,
        os.getxattr(repo / "swap" / "d0" / "f0.txt", "system.posix_acl_access"),
    )
    (repo / "swap" / "d0" / "f0.txt").unlink()
    paths = ["swap/d0/f0.txt", "run.sh"]
    structured(await client.call_tool("git", {"action": "restore", "paths": paths, "force": True}))
    restored = repo / "swap" / "d0" / "f0.txt"
    assert restored.read_bytes() == b"committed\n"
    assert (restored.stat().st_mode, os.getxattr(restored, "system.posix_acl_access")) == by_git
    assert stat.S_IMODE(restored.stat().st_mode) == 0o660
    assert stat.S_IMODE((repo / "run.sh").stat().st_mode) == 0o777 & ~umask()
