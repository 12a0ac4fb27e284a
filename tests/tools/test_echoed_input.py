"""Errors that quote the caller's input (issue 13): thousands of unknown keys are listed ten at a time and counted,
a pattern or name of thousands of characters is quoted by its ends and its length; nothing runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, text_of

pytestmark = pytest.mark.anyio

KEYS = {f"k{n:04}": 1 for n in range(2000)}
LONG = "(" * 50_000
TEXT_BYTES = 3000  # ten items and the count; the whole input would pass 20 KB


async def test_thousands_of_unknown_parameters_are_listed_ten_and_counted(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("hello\n", encoding="utf-8")
    result = await client.call_tool("read_file", {"path": "a.txt", **KEYS})
    text = text_of(result)
    assert error_code(result) == "unknown_param"
    assert 'unknown parameter "k0009"; and 1,990 more unknown parameters. Valid parameters: ' in text
    assert len(text.encode()) < TEXT_BYTES


async def test_an_edit_of_thousands_of_keys_and_no_old_text_names_ten_of_them(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("hello\n", encoding="utf-8")
    result = await client.call_tool("multi_edit", {"path": "a.txt", "edits": [KEYS]})
    text = text_of(result)
    assert error_code(result) == "invalid_params"
    assert "got keys: k0000, k0001, k0002, k0003, k0004, k0005, k0006, k0007, k0008, k0009 and 1990 more)" in text
    assert len(text.encode()) < TEXT_BYTES
    assert (root / "a.txt").read_text(encoding="utf-8") == "hello\n"


@pytest.mark.parametrize(
    ("form", "request_text", "field"),
    [
        ("pipeline_json", {"name": "p", "steps": [{"id": "s", "action": "search", **KEYS}]}, "problems"),
        ("rename_json", {"path": ".", "mode": "to_lowercase", **KEYS}, "problems"),
    ],
    ids=["pipeline", "rename"],
)
async def test_a_batch_form_of_thousands_of_unknown_keys_lists_ten_problems(
    client: Client, root: Path, form: str, request_text: dict[str, object], field: str
) -> None:
    (root / "A.txt").write_text("hello\n", encoding="utf-8")
    result = await client.call_tool("batch_operations", {form: json.dumps(request_text)})
    text = text_of(result)
    assert error_code(result) == "invalid_params"
    assert f"of them failed (every one in the error's {field} field)" in text
    assert len(text.encode()) < TEXT_BYTES
    assert len((result.meta or {})["fsguard/error"][field]) >= 2000
    assert (root / "A.txt").read_text(encoding="utf-8") == "hello\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_files", {"pattern": LONG, "include_content": True, "regex": True}),
        ("edit_file", {"path": "a.txt", "mode": "regex", "pattern": LONG, "replacement": "x"}),
        ("help", {"tool": LONG}),
        ("server_info", {"action": "help", "topic": LONG}),
    ],
    ids=["search", "edit", "help", "topic"],
)
async def test_a_long_pattern_or_name_is_quoted_by_its_ends_and_its_length(
    client: Client, root: Path, tool: str, arguments: dict[str, object]
) -> None:
    (root / "a.txt").write_text("hello\n", encoding="utf-8")
    result = await client.call_tool(tool, arguments)
    text = text_of(result)
    assert error_code(result) == "invalid_params"
    assert "…" in text
    assert "(50,000 characters)" in text
    assert len(text.encode()) < TEXT_BYTES
    assert (root / "a.txt").read_text(encoding="utf-8") == "hello\n"
