"""restore_trash and purge_trash of one entry at once, from two fsguard processes sharing the state directory.

Nothing stopped a purge from removing an entry a restore was moving out: the restore put the file back, then
failed removing its emptied entry (internal_error: the agent was told the restore failed, yet the file was back),
and the purge reported the entry and its bytes as purged. Two servers racing the two calls hit it in about one
round in eight. Each entry is now locked while a restore, a purge or the delete filling it works on it; a purge
leaves an entry another call holds (it is being restored) and counts only what it removed. The race is made
exact: the purge runs from inside the restore, right after the item went back. Both protocol eras.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.config import Settings
from fsguard.core.inventory import Sweep, purge_trash
from fsguard.core.transfer import move_verified
from fsguard.core.trashentries import TrashEntry
from fsguard.server import build_server
from tests.conftest import structured, text_of

pytestmark = pytest.mark.anyio


async def test_a_purge_while_the_entry_is_being_restored_leaves_it_and_the_restore_succeeds(
    base_settings: Settings, root: Path, state_dir: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_bytes(b"kept\n")
    server, other = build_server(base_settings), build_server(base_settings)  # two fsguards, one state dir
    sweeps: list[Sweep[TrashEntry]] = []

    def moved_then_purged(source: Any, destination: Any, *args: Any, **kwargs: Any) -> None:
        move_verified(source, destination, *args, **kwargs)
        if destination.path == root / "a.txt":  # the restore, its item just moved back: the other purges it now
            trash = other.services.trash
            sweeps.append(purge_trash(trash, sd_id=sd_id, older_than_days=0.0, dry_run=False, limit=10))

    async with Client(server, mode=mode) as client:
        deleted = structured(await client.call_tool("delete_file", {"path": "a.txt"}))
        sd_id = deleted["results"][0]["sd_id"]
        monkeypatch.setattr("fsguard.core.trash.move_verified", moved_then_purged)
        result = await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id})
        assert not result.is_error, text_of(result)
        listed = structured(await client.call_tool("backup", {"action": "list_trash"}))

    assert (root / "a.txt").read_bytes() == b"kept\n"
    [sweep] = sweeps
    assert (sweep.removed, sweep.freed_bytes, sweep.shown) == (0, 0, [])
    assert listed["trash"] == []
    assert not (state_dir / "trash" / sd_id).exists()
