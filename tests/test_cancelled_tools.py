"""More tools that change files one after another, each under its own lock (a group restore, a delete of several
paths, a WSL tree sync): cancelled while another process holds a later file's lock, they change that file and every
later one no more once it frees; what they did before stays (and a restore's own undo group is saved for it)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from fsguard.server import build_server
from tests.conftest import Contention, structured
from tests.test_cancelled_steps import cancelled_with

pytestmark = pytest.mark.anyio


def saved_groups(state_dir: Path, operation: str) -> list[dict[str, Any]]:
    """The change groups of ``operation`` saved in ``state_dir``."""
    found = [json.loads(path.read_bytes()) for path in (state_dir / "backups" / "groups").glob("*.json")]
    return [group for group in found if group["operation"] == operation]


async def test_a_group_restore_cancelled_while_it_waits_for_a_later_files_lock_restores_no_more_and_saves_its_group(
    contention: Contention,
    root: Path,
    state_dir: Path,
) -> None:
    # A restore reverts the group newest first, each file under its own lock: the first lock (c.txt's) used up the
    # cancellation check, so a restore cancelled while another process held b.txt restored b.txt and a.txt once it
    # let go.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"old\n")
    with anyio.fail_after(30):
        async with Client(build_server(contention.settings), mode=contention.mode) as client:
            replaced = structured(await client.call_tool("project_replace", {"find": "old", "replace": "new"}))
    restore = ("backup", {"action": "restore", "backup_id": replaced["backup_id"]})
    await cancelled_with(contention, restore, root / "b.txt")
    assert [(root / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [b"new\n", b"new\n", b"old\n"]
    # What it did is its own group, as a whole restore's: restoring that group takes the restore back.
    [undo] = saved_groups(state_dir, "restore")
    assert [change["path"] for change in undo["changes"]] == [str(root / "c.txt")]
    with anyio.fail_after(30):
        async with Client(build_server(contention.settings), mode=contention.mode) as client:
            structured(await client.call_tool("backup", {"action": "restore", "backup_id": undo["group_id"]}))
    assert [(root / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [b"new\n", b"new\n", b"new\n"]


@pytest.mark.parametrize("permanent", [False, True])
async def test_a_delete_of_several_paths_cancelled_while_it_waits_for_a_later_paths_lock_deletes_no_more(
    contention: Contention,
    root: Path,
    permanent: bool,
) -> None:
    # Each path is deleted under its own lock: the first used up the cancellation check, so a delete cancelled while
    # another process held b.txt deleted it (and c.txt) once it let go.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(name.encode())
    delete = ("delete_file", {"paths": ["a.txt", "b.txt", "c.txt"], "permanent": permanent})
    await cancelled_with(contention, delete, root / "b.txt")
    # Deleted before the cancellation: it stays deleted (in the trash, or backed up).
    assert {path.name: path.read_bytes() for path in root.iterdir()} == {"b.txt": b"b.txt", "c.txt": b"c.txt"}


async def test_a_wsl_tree_sync_cancelled_while_it_waits_for_a_later_targets_lock_syncs_no_more(
    contention: Contention,
    root: Path,
) -> None:
    # Each file of a tree is written under its target's lock: the first used up the cancellation check, so a sync
    # cancelled while another process held the second target wrote it (and the third) once it let go.
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    source, target = home / "site", win / "site"
    source.mkdir(parents=True)
    target.mkdir(parents=True)
    for name in ("a.txt", "b.txt", "c.txt"):
        (source / name).write_bytes(b"new " + name.encode())
        (target / name).write_bytes(b"old " + name.encode())
    settings = dataclasses.replace(
        contention.settings,
        wsl=True,
        wsl_mount_root=root / "mnt",
        wsl_home=home,
        wsl_windows_home="C:\\Users\\me",
    )
    sync = ("wsl", {"action": "sync", "wsl_path": str(source)})
    await cancelled_with(contention, sync, target / "b.txt", settings)
    assert [(target / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [
        b"new a.txt",  # synced before the cancellation: it stays, backed up
        b"old b.txt",
        b"old c.txt",
    ]
