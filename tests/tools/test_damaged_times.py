"""State records whose time parses as a JSON number but is no date (NaN, Infinity, 1e300: a disk's or a hand's
damage): each is skipped as a damaged record, never an internal error that fails every listing, nor an undo that
reverts the file and answers that it failed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("time", [b"NaN", b"Infinity", b"1e300"])
async def test_a_backup_whose_time_is_no_date_is_skipped_and_the_rest_list_and_undo(
    client: Client, root: Path, state_dir: Path, time: bytes
) -> None:
    (root / "a.txt").write_bytes(b"a1\n")
    (root / "b.txt").write_bytes(b"b1\n")
    for name, old, new in [("a.txt", "a1", "a2"), ("b.txt", "b1", "b2"), ("b.txt", "b2", "b3")]:
        structured(await client.call_tool("edit_file", {"path": name, "old_text": old, "new_text": new}))
    for journal in (state_dir / "backups" / "journal").glob("*.jsonl"):
        raw = journal.read_bytes()
        if b"b.txt" in raw:  # the older of b.txt's two backups
            journal.write_bytes(re.sub(rb'"time":[0-9.]+', b'"time":' + time, raw, count=1))

    listed = structured(await client.call_tool("backup", {"action": "list"}))
    undone = structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "b.txt"}))

    assert sorted(Path(b["files"][0]).name for b in listed["backups"]) == ["a.txt", "b.txt"]
    assert undone["restored"][0]["verified"] is True
    assert "head_backup_id" not in undone  # no earlier step: the damaged one is out of the chain
    assert (root / "b.txt").read_bytes() == b"b2\n"
    assert (root / "a.txt").read_bytes() == b"a2\n"


@pytest.mark.parametrize("time", ["NaN", "Infinity", "1e300"])
async def test_a_trash_entry_whose_time_is_no_date_is_left_out_and_the_rest_list_and_restore(
    client: Client, root: Path, state_dir: Path, time: str
) -> None:
    for name in ["a.txt", "b.txt"]:
        (root / name).write_bytes(f"{name} bytes\n".encode())
    sd_ids = [
        structured(await client.call_tool("delete_file", {"path": name}))["results"][0]["sd_id"]
        for name in ["a.txt", "b.txt"]
    ]
    meta = state_dir / "trash" / sd_ids[0] / "meta.json"
    meta.write_bytes(re.sub(rb'"time": [0-9.]+', b'"time": ' + time.encode(), meta.read_bytes()))

    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_ids[1]}))
    purged = structured(await client.call_tool("backup", {"action": "purge_trash", "dry_run": False}))

    assert [entry["sd_id"] for entry in listed["trash"]] == [sd_ids[1]]
    assert (root / "b.txt").read_bytes() == b"b.txt bytes\n"
    assert purged["removed"] == 0
    assert (state_dir / "trash" / sd_ids[0] / "item").read_bytes() == b"a.txt bytes\n"
