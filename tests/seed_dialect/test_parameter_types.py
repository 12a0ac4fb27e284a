"""The seed's parameter types (catalog §0.1): a number is a JSON number, never a boolean.

Python reads ``true`` as 1 and ``false`` as 0, so without a check of its own the server took ``occurrence: true``
as "the first one", ``start_line: true`` as line 1 and ``max_lines: false`` as "not given", each without a word.
The seed refused a boolean where a number belongs; so does fsguard, naming the parameter, and nothing is written.
Both protocol eras, through ``client``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

ORIGINAL = b"one\ntwo\none\n"

BOOLEAN_NUMBERS = [
    ("edit_file", {"path": "lines.txt", "old_text": "one", "new_text": "ONE", "occurrence": True}, "occurrence"),
    ("edit_file", {"path": "lines.txt", "old_text": "one", "new_text": "ONE", "start_line": True}, "start_line"),
    ("read_file", {"path": "lines.txt", "start_line": True}, "start_line"),
    ("read_file", {"path": "lines.txt", "max_lines": False}, "max_lines"),
    ("search_files", {"path": ".", "pattern": "one", "include_content": True, "max_results": True}, "max_results"),
    ("search_files", {"path": ".", "pattern": "one", "include_content": True, "context_lines": True}, "context_lines"),
    ("list_directory", {"path": ".", "limit": True}, "limit"),
    ("backup", {"action": "list", "limit": False}, "limit"),
    (
        "edit_file",
        {"path": "lines.txt", "mode": "regex", "patterns_json": [{"pattern": "one", "replacement": "", "limit": True}]},
        "limit",
    ),
]


@pytest.fixture
def lines(root: Path) -> Path:
    path = root / "lines.txt"
    path.write_bytes(ORIGINAL)
    return path


IDS = [f"{tool}-{name}" for tool, _, name in BOOLEAN_NUMBERS]


@pytest.mark.parametrize(("tool", "arguments", "name"), BOOLEAN_NUMBERS, ids=IDS)
async def test_a_boolean_sent_for_a_number_is_refused_naming_the_parameter_and_nothing_changes(
    client: Client, lines: Path, tool: str, arguments: dict[str, Any], name: str
) -> None:
    refused = await client.call_tool(tool, arguments)
    assert error_code(refused) == "invalid_params"
    text = text_of(refused)
    assert f"'{name}'" in text
    assert "expected a number" in text
    assert "boolean" in text
    assert lines.read_bytes() == ORIGINAL


async def test_a_number_sent_as_a_number_still_works_where_a_boolean_was_refused(client: Client, lines: Path) -> None:
    edit = {"path": "lines.txt", "old_text": "one", "new_text": "ONE", "occurrence": 2}
    structured(await client.call_tool("edit_file", edit))
    assert lines.read_bytes() == b"one\ntwo\nONE\n"
    read = structured(await client.call_tool("read_file", {"path": "lines.txt", "start_line": 2, "end_line": 2}))
    assert read["content"] == "two\n"


async def test_a_boolean_for_a_boolean_parameter_is_still_taken(client: Client, lines: Path) -> None:
    edit = {"path": "lines.txt", "old_text": "two", "new_text": "TWO", "dry_run": True}
    assert structured(await client.call_tool("edit_file", edit))["dry_run"] is True
    assert lines.read_bytes() == ORIGINAL
