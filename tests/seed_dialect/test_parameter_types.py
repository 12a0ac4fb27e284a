"""The seed's parameter types and names (catalog §0.1): a number is a JSON number, never a boolean; a name the
seed took as an alias, or did not take at all, is answered in the words the caller used.

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
    assert f'parameter "{name}": expected number, got boolean' in text
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


@pytest.mark.parametrize(
    ("sent", "counts"),
    [("content", False), ("files_with_matches", True), ("count", True), ("auto", False), ("text", False)],
)
async def test_search_output_modes_of_other_tools_run_the_content_search_they_name(
    client: Client, lines: Path, sent: str, counts: bool
) -> None:
    """ripgrep's and Claude Code's output modes, which the seed's usage doc listed for ``output`` (its code ran a
    content search for any value, catalog §1.7), and any output_format: the text is searched, not the names."""
    found = structured(await client.call_tool("search_files", {"path": ".", "pattern": "one", "output": sent}))
    assert found["mode"] == ("count" if counts else "content")
    assert found["total_matches"] == 2  # "one" on lines 1 and 3


async def test_search_output_outside_every_choice_is_refused_by_the_name_sent(client: Client, lines: Path) -> None:
    refused = await client.call_tool("search_files", {"path": ".", "pattern": "one", "output": "xml"})
    assert error_code(refused) == "invalid_params"
    assert 'parameter "output" (output_format): "xml" is not one of auto, text, json. Pass one of them' in (
        text_of(refused)
    )


async def test_list_output_outside_its_choices_is_refused_by_the_name_sent(client: Client, lines: Path) -> None:
    refused = await client.call_tool("list_directory", {"path": ".", "output": "long"})
    assert error_code(refused) == "invalid_params"
    assert 'parameter "output" (output_format): "long" is not one of compact, json, tree, text' in text_of(refused)


async def test_output_within_its_choices_is_still_taken_as_output_format(client: Client, lines: Path) -> None:
    listed = structured(await client.call_tool("list_directory", {"path": ".", "output": "json"}))
    assert [entry["name"] for entry in listed["entries"]] == ["lines.txt"]


async def test_dry_run_sent_to_project_replace_is_refused_with_preview_suggested(client: Client, lines: Path) -> None:
    arguments = {"path": ".", "find": "one", "replace": "1", "dry_run": True}
    refused = await client.call_tool("project_replace", arguments)
    assert error_code(refused) == "unknown_param"
    assert 'unknown parameter "dry_run" (did you mean "preview"?)' in text_of(refused)
    assert lines.read_bytes() == ORIGINAL


async def test_preview_sent_to_edit_file_is_refused_with_dry_run_suggested(client: Client, lines: Path) -> None:
    refused = await client.call_tool(
        "edit_file", {"path": "lines.txt", "old_text": "one", "new_text": "1", "preview": True}
    )
    assert 'unknown parameter "preview" (did you mean "dry_run"?)' in text_of(refused)
    assert lines.read_bytes() == ORIGINAL


@pytest.mark.parametrize(
    ("arguments", "line"),
    [
        ({"path": "lines.txt", "start_line": "two"}, 'parameter "start_line": expected number, got string "two"'),
        ({"path": "lines.txt", "start_line": [2]}, 'parameter "start_line": expected number, got array'),
        ({"path": ["lines.txt"]}, 'parameter "path": expected string, got array'),
    ],
)
async def test_a_value_of_the_wrong_type_is_refused_in_the_seed_s_words(
    client: Client, lines: Path, arguments: dict[str, Any], line: str
) -> None:
    refused = await client.call_tool("read_file", arguments)
    assert error_code(refused) == "invalid_params"
    assert f"• {line}" in text_of(refused)


async def test_a_number_sent_as_its_digits_is_still_taken(client: Client, lines: Path) -> None:
    """A deliberate step past the seed, which refused "2": the value is plain, and models send it."""
    read = structured(await client.call_tool("read_file", {"path": "lines.txt", "start_line": "2", "end_line": "2"}))
    assert read["content"] == "two\n"
