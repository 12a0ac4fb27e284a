"""A failed edit of a classic Mac (CR-only) file, or one whose lines end in a lone CR among others, whose new_text
already sits on a later line: the miss names that line (as line numbers count a lone CR) and writes nothing. It used
to look the line up in the text split at LF only and answer internal_error, and a pipeline stopped so left its
earlier steps' edits in place. Both eras; the bytes on disk decide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, text_of

pytestmark = pytest.mark.anyio

CLASSIC_MAC = "caf\u00e9\rdone\rend\r".encode("latin-1")


@pytest.mark.parametrize(("data", "line"), [(CLASSIC_MAC, 2), (b"top\r\nnext\rdone\nend", 3)], ids=["cr-only", "mixed"])
async def test_edit_file_whose_new_text_sits_on_a_cr_ended_line_says_it_looks_applied_and_writes_nothing(
    client: Client, root: Path, data: bytes, line: int
) -> None:
    target = root / "notes.txt"
    target.write_bytes(data)

    refused = await client.call_tool("edit_file", {"path": str(target), "old_text": "todo", "new_text": "done"})

    assert error_code(refused) == "no_match"
    assert (refused.meta or {})["fsguard/error"]["line"] == line
    assert 'if that line is where it goes: "done"' in text_of(refused)
    assert target.read_bytes() == data


async def test_a_pipeline_step_missing_in_a_cr_file_rolls_back_the_steps_before_it(client: Client, root: Path) -> None:
    first, second = root / "first.txt", root / "second.txt"
    first_bytes = "\ufeffalpha\r\nbeta\r\n".encode("utf-16-le")
    first.write_bytes(first_bytes)
    second.write_bytes(CLASSIC_MAC)
    steps = [
        {
            "id": "a",
            "action": "regex_transform",
            "params": {"path": str(first), "pattern": "(alpha)", "replacement": "$1\n$1"},
        },
        {"id": "b", "action": "edit", "params": {"path": str(second), "old_text": "todo", "new_text": "done"}},
    ]

    failed = await client.call_tool(
        "batch_operations", {"pipeline_json": json.dumps({"name": "p", "force": True, "steps": steps})}
    )

    assert error_code(failed) == "batch_failed"
    assert "looks already applied" in text_of(failed)
    assert first.read_bytes() == first_bytes
    assert second.read_bytes() == CLASSIC_MAC
