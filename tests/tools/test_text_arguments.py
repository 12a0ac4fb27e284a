"""A text argument reaches the tool as the text sent, even when it reads as JSON: a package.json, "null", "42".

The SDK reads a string argument as JSON whenever the parameter's type is not exactly ``str`` (for clients that
send a list as JSON text), ``str | None`` included: ``write_file`` of ``{"a": 1}`` got a dict and was refused,
and ``"null"`` became no content at all.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio

READS_AS_JSON = ['{"name": "x", "version": "1.0.0"}\n', '["a", "b"]', "null", "true", "42", "3.5", '"quoted"', "{}"]


@pytest.mark.parametrize("text", READS_AS_JSON)
async def test_write_file_writes_text_that_reads_as_json_byte_for_byte(client: Client, root: Path, text: str) -> None:
    structured(await client.call_tool("write_file", {"path": "data.json", "content": text}))
    assert (root / "data.json").read_bytes() == text.encode()


async def test_edits_take_old_and_new_text_that_read_as_json(client: Client, root: Path) -> None:
    (root / "p.json").write_bytes(b'{"a": 1}\n')
    edit = {"path": "p.json", "old_text": '{"a": 1}', "new_text": '{"a": [1, 2]}'}
    structured(await client.call_tool("edit_file", edit))
    assert (root / "p.json").read_bytes() == b'{"a": [1, 2]}\n'
    # A list parameter sent as JSON text is still read as the list (clients do send it so).
    edits = '[{"old_text": "[1, 2]", "new_text": "null"}]'
    structured(await client.call_tool("multi_edit", {"path": "p.json", "edits": edits}))
    assert (root / "p.json").read_bytes() == b'{"a": null}\n'
