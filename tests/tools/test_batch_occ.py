"""batch_operations under --auto-occ: an operation or a pipeline step that changes a file this session saw, changed on
disk since, reports it (warn) as edit_file does, or is refused with advice that works in that form (block)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

CHANGED = b"one\nchanged by another process\n"


async def test_warn_mode_fills_external_change_for_each_batch_operation_on_a_file_changed_since_it_was_read(
    connect: ClientFactory, root: Path
) -> None:
    # A batch said nothing, in text or structure, while edit_file reported the same change.
    for name in ("a.txt", "b.txt", "c.txt", "d.txt", "fresh.txt"):
        (root / name).write_bytes(b"one\n")
    async with connect(auto_occ="warn") as client:
        for name in ("a.txt", "b.txt", "c.txt", "d.txt", "fresh.txt"):
            structured(await client.call_tool("read_file", {"path": name}))
        for name in ("a.txt", "b.txt", "c.txt", "d.txt"):
            (root / name).write_bytes(CHANGED)
        operations = [
            {"type": "edit", "path": "a.txt", "old_text": "one", "new_text": "1"},
            {"type": "write", "path": "b.txt", "content": "written\n"},
            {"type": "write", "path": "c.txt", "content": "appended\n", "append": True},
            {"type": "extract", "path": "d.txt", "destination": "out.txt", "start_line": 1, "end_line": 1},
            {"type": "edit", "path": "fresh.txt", "old_text": "one", "new_text": "1"},
        ]
        result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    data = structured(result)
    assert ["external_change" in op for op in data["operations"]] == [True, True, True, True, False]
    assert "known hash" in data["operations"][0]["external_change"]
    assert "Changed on disk since this session last saw them (another process): a.txt, b.txt, c.txt, d.txt." in (
        text_of(result)
    )
    assert (root / "a.txt").read_bytes() == b"1\nchanged by another process\n"
    assert (root / "b.txt").read_bytes() == b"written\n"
    assert (root / "c.txt").read_bytes() == CHANGED + b"appended\n"
    assert (root / "d.txt").read_bytes() == b"changed by another process\n"
    assert (root / "fresh.txt").read_bytes() == b"1\n"


async def test_warn_mode_fills_external_change_for_a_pipeline_step_that_edits_files_changed_since_they_were_read(
    connect: ClientFactory, root: Path
) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"one\n")
    async with connect(auto_occ="warn") as client:
        for name in ("a.txt", "b.txt", "c.txt"):
            structured(await client.call_tool("read_file", {"path": name}))
        for name in ("a.txt", "b.txt", "c.txt"):
            (root / name).write_bytes(CHANGED)
        steps = [
            {"id": "one", "action": "edit", "params": {"files": ["a.txt"], "old_text": "one", "new_text": "1"}},
            {
                "id": "two",
                "action": "edit",
                "params": {"files": ["b.txt", "c.txt"], "old_text": "one", "new_text": "1"},
            },
            {"id": "none", "action": "edit", "params": {"files": ["c.txt"], "old_text": "1", "new_text": "I"}},
        ]
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": steps}})
    data = structured(result)
    notes = [step.get("external_change", "") for step in data["steps"]]
    assert "known hash" in notes[0]
    assert notes[0].endswith(f"{root / 'a.txt'}.")
    assert notes[1].startswith("2 files changed on disk since this session last saw them")
    assert notes[1].endswith(f"{root / 'b.txt'}, {root / 'c.txt'}.")
    assert notes[2] == ""
    assert "Note: file changed on disk since this session last saw it" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"1\nchanged by another process\n"
    assert (root / "b.txt").read_bytes() == b"1\nchanged by another process\n"
    assert (root / "c.txt").read_bytes() == b"I\nchanged by another process\n"


async def test_block_mode_refuses_a_pipeline_edit_with_advice_a_pipeline_can_follow(
    connect: ClientFactory, root: Path
) -> None:
    # The refusal said "pass expected_hash='…'", which a pipeline step refuses as an unknown key.
    (root / "a.txt").write_bytes(b"one\n")
    steps = [{"id": "e", "action": "edit", "params": {"files": ["a.txt"], "old_text": "one", "new_text": "1"}}]
    async with connect(auto_occ="block") as client:
        structured(await client.call_tool("read_file", {"path": "a.txt"}))
        (root / "a.txt").write_bytes(CHANGED)
        refused = await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": steps}})
        assert error_code(refused) == "batch_failed"
        assert (refused.meta or {})["fsguard/error"]["error_code"] == "external_change"
        assert "expected_hash" not in text_of(refused)
        assert "Re-read it with read_file" in text_of(refused)
        assert (root / "a.txt").read_bytes() == CHANGED

        structured(await client.call_tool("read_file", {"path": "a.txt"}))
        structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": steps}}))
    assert (root / "a.txt").read_bytes() == b"1\nchanged by another process\n"
