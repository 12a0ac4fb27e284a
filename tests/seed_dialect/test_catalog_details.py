"""Details of the seed catalog's §1, tool by tool: defaults, parameter shapes and error wording a seed client relies on.

Each case is a call shaped as the seed's callers send it and the effect catalog §1 documents (or fsguard's
deliberate improvement of it, named in the test). Where a file changes, the bytes on disk are checked. Both
protocol eras, through ``client``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured

pytestmark = pytest.mark.anyio


@pytest.fixture
def lines(root: Path) -> Path:
    path = root / "lines.txt"
    path.write_bytes(b"one\ntwo\nthree\n")
    return path


async def test_zero_for_an_optional_line_number_or_limit_is_taken_as_not_given(client: Client, lines: Path) -> None:
    """The seed read 0 as "not given" (catalog §1.1: a range read starts only at start_line > 0)."""
    whole = structured(await client.call_tool("read_file", {"path": "lines.txt", "start_line": 0, "end_line": 0}))
    assert whole["content"] == "one\ntwo\nthree\n"
    head = structured(await client.call_tool("read_file", {"path": "lines.txt", "start_line": 0, "end_line": 2}))
    assert head["content"] == "one\ntwo\n"
    edit = {"path": "lines.txt", "old_text": "two", "new_text": "TWO", "start_line": 0, "end_line": 0}
    structured(await client.call_tool("edit_file", edit))
    assert lines.read_bytes() == b"one\nTWO\nthree\n"
    listed = structured(await client.call_tool("backup", {"action": "list", "limit": 0}))
    assert listed["total"] == 1
    tree = {"path": ".", "output_format": "tree", "max_depth": 0}
    assert structured(await client.call_tool("list_directory", tree))["tree"]["children"]
    search = {"path": ".", "pattern": "e", "include_content": True, "max_results": 0}
    assert structured(await client.call_tool("search_files", search))["returned_matches"] == 3


async def test_a_negative_line_number_is_still_refused(client: Client, lines: Path) -> None:
    refused = await client.call_tool("read_file", {"path": "lines.txt", "start_line": -1})
    assert error_code(refused) == "invalid_params"
