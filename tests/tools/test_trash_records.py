"""Trash descriptions (meta.json) edited or copied by hand: the entry's directory, not its text, says which entry it
is, so a purge or restore never reaches another directory; a description the listing cannot show is left out."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio


async def trashed(client: Client, root: Path, name: str, data: bytes) -> str:
    (root / name).write_bytes(data)
    result = structured(await client.call_tool("delete_file", {"path": name}))
    return str(result["results"][0]["sd_id"])


async def test_a_description_naming_another_directory_purges_only_its_own_entry(
    client: Client, root: Path, state_dir: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    (elsewhere / "item").mkdir(parents=True)
    (elsewhere / "keep.txt").write_bytes(b"not fsguard's\n")
    sd_id = await trashed(client, root, "notes.txt", b"old notes\n")
    meta = state_dir / "trash" / sd_id / "meta.json"
    fields = json.loads(meta.read_bytes())
    meta.write_text(json.dumps({**fields, "sd_id": "../../elsewhere"}), encoding="utf-8")

    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
    purged = structured(
        await client.call_tool("backup", {"action": "purge_trash", "dry_run": False, "older_than_days": 0})
    )

    assert [entry["sd_id"] for entry in listed["trash"]] == [sd_id]
    assert [entry["sd_id"] for entry in purged["trash"]] == [sd_id]
    assert (elsewhere / "keep.txt").read_bytes() == b"not fsguard's\n"
    assert (elsewhere / "item").is_dir()
    assert not (state_dir / "trash" / sd_id).exists()


async def test_a_copied_entry_restores_its_own_item_not_the_one_its_description_names(
    client: Client, root: Path, state_dir: Path
) -> None:
    first = await trashed(client, root, "a.txt", b"first a\n")
    second = await trashed(client, root, "b.txt", b"second b\n")
    meta = state_dir / "trash" / second / "meta.json"
    fields = json.loads(meta.read_bytes())
    meta.write_text(
        json.dumps({**fields, "sd_id": first}), encoding="utf-8"
    )  # as a copy of the first entry's directory would say

    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": second}))

    assert (root / "b.txt").read_bytes() == b"second b\n"
    assert not (root / "a.txt").exists()
    assert (state_dir / "trash" / first / "item").read_bytes() == b"first a\n"


async def test_a_purge_removes_the_entry_directories_a_killed_server_left_without_their_item(
    client: Client, root: Path, state_dir: Path
) -> None:
    kept = await trashed(client, root, "kept.txt", b"still in the trash\n")
    killed = await trashed(client, root, "gone.txt", b"restored before the kill\n")
    (state_dir / "trash" / killed / "item").unlink()  # as a restore killed before it removed the description
    os.utime(state_dir / "trash" / killed, (1, 1))
    filling = state_dir / "trash" / "sd-20261207-120000-0123456789abcdef"
    filling.mkdir()  # a delete filling its entry right now, in another server
    (filling / "meta.json").write_bytes((state_dir / "trash" / kept / "meta.json").read_bytes())

    purged = structured(await client.call_tool("backup", {"action": "purge_trash", "dry_run": False}))
    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))

    assert purged["removed"] == 0
    assert [entry["sd_id"] for entry in listed["trash"]] == [kept]
    assert sorted(p.name for p in (state_dir / "trash").iterdir()) == sorted([kept, filling.name])
    assert (state_dir / "trash" / kept / "item").read_bytes() == b"still in the trash\n"
