"""A copy or move this server makes onto a name its client read before (the file since removed by another process)
is the client's own doing: its next edit there is checked against what the copy or move put there, not refused (in
block mode) or warned about (in warn mode) as another process's change. The seed refreshed the destination's
baseline after a copy or move (catalog §2.2); other clients' memories stay as they were (to them it changed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio

WAYS = {
    "copy_file": ("copy_file", {"source_path": "new.txt", "dest_path": "old.txt"}),
    "move_file": ("move_file", {"source_path": "new.txt", "dest_path": "old.txt"}),
    "batch_copy": (
        "batch_operations",
        {"request_json": json.dumps({"operations": [{"type": "copy", "source": "new.txt", "destination": "old.txt"}]})},
    ),
    "batch_move": (
        "batch_operations",
        {"request_json": json.dumps({"operations": [{"type": "move", "source": "new.txt", "destination": "old.txt"}]})},
    ),
}


@pytest.mark.parametrize("way", list(WAYS))
async def test_an_edit_after_a_copy_or_move_onto_a_name_read_before_is_not_taken_for_another_process_change(
    connect: ClientFactory, root: Path, way: str
) -> None:
    (root / "old.txt").write_bytes(b"old\n")
    (root / "new.txt").write_bytes(b"new\n")
    tool, arguments = WAYS[way]
    async with connect(auto_occ="block") as client:
        structured(await client.call_tool("read_file", {"path": "old.txt"}))
        (root / "old.txt").unlink()  # another process removes it
        structured(await client.call_tool(tool, arguments))
        edited = await client.call_tool("edit_file", {"path": "old.txt", "old_text": "new", "new_text": "NEW"})
        assert not structured(edited).get("external_change")
    assert (root / "old.txt").read_bytes() == b"NEW\n"


async def test_a_directory_copied_over_names_read_before_lets_their_edits_through(
    connect: ClientFactory, root: Path
) -> None:
    (root / "dst").mkdir()
    (root / "dst" / "a.txt").write_bytes(b"old\n")
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_bytes(b"new\n")
    edit: dict[str, Any] = {"path": "dst/a.txt", "old_text": "new", "new_text": "NEW"}
    async with connect(auto_occ="block") as client:
        structured(await client.call_tool("read_file", {"path": "dst/a.txt"}))
        (root / "dst" / "a.txt").unlink()  # another process removes the tree
        (root / "dst").rmdir()
        structured(await client.call_tool("copy_file", {"source_path": "src", "dest_path": "dst"}))
        structured(await client.call_tool("edit_file", edit))
    assert (root / "dst" / "a.txt").read_bytes() == b"NEW\n"


async def test_a_file_moved_in_is_still_checked_against_what_the_move_put_there(
    connect: ClientFactory, root: Path
) -> None:
    """The baseline is refreshed, not dropped: another process's change after the move is still caught."""
    (root / "old.txt").write_bytes(b"old\n")
    (root / "new.txt").write_bytes(b"new\n")
    async with connect(auto_occ="block") as client:
        structured(await client.call_tool("read_file", {"path": "old.txt"}))
        (root / "old.txt").unlink()
        structured(await client.call_tool("move_file", {"source_path": "new.txt", "dest_path": "old.txt"}))
        (root / "old.txt").write_bytes(b"new from elsewhere\n")
        refused = await client.call_tool("edit_file", {"path": "old.txt", "old_text": "new", "new_text": "NEW"})
        assert refused.is_error
        assert (refused.meta or {})["fsguard/error"]["code"] == "external_change"
    assert (root / "old.txt").read_bytes() == b"new from elsewhere\n"
