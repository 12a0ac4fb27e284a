"""What real clients send, end to end in both eras: nulls for blank fields, URIs and home paths, directory slashes.

Form-filling clients (the Inspector, VS Code's tool form, scripts built from a schema) send every field, null
for the blank ones; agents copy paths from other tools (file:// URIs from resource links and MCP roots, ``~``
from a shell). Each either works as meant or is refused with the fix named, never done as something else.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_null_for_an_optional_parameter_without_null_in_its_schema_is_its_default(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_text("old\n")
    (root / "sub").mkdir()
    blank = {"append": None, "create_dirs": None, "expected_hash": None, "encoding": None, "content_base64": None}
    written = await client.call_tool("write_file", {"path": "a.txt", "content": "new\n", **blank})
    listed = await client.call_tool(
        "list_directory", {"path": None, "max_depth": None, "offset": None, "include_hidden": None, "limit": None}
    )
    read = await client.call_tool("read_file", {"path": "a.txt", "mode": None, "start_line": None})
    assert structured(written)["bytes_written"] == 4
    assert (root / "a.txt").read_bytes() == b"new\n"
    assert "sub" in text_of(listed)
    assert text_of(read).startswith("new")


async def test_null_for_a_required_parameter_is_still_refused_and_writes_nothing(client: Client, root: Path) -> None:
    result = await client.call_tool("write_file", {"path": None, "content": "x"})
    assert error_code(result) == "invalid_params"
    assert list(root.iterdir()) == []
