"""A text argument reaches the tool as the text sent, even when it reads as JSON: a package.json, "null", "42".

The SDK reads a string argument as JSON whenever the parameter's type is not exactly ``str`` (for clients that
send a list as JSON text), ``str | None`` included: ``write_file`` of ``{"a": 1}`` got a dict and was refused,
and ``"null"`` became no content at all.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

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


LONE_SURROGATE_CALLS = [
    ("write_file", {"path": "w.txt", "content": "x\ud800"}, "content"),
    ("write_file", {"path": "w\udfff.txt", "content": "x"}, "path"),
    ("edit_file", {"path": "a.txt", "old_text": "hello", "new_text": "h\udbff"}, "new_text"),
    ("multi_edit", {"path": "a.txt", "edits": [{"old_text": "hello", "new_text": "h\ud800"}]}, "edits"),
    ("create_directory", {"path": "d\udc00"}, "path"),
    ("read_file", {"path": "a\ud800"}, "path"),
    ("move_file", {"source_path": "a.txt", "dest_path": "b\ud800"}, "dest_path"),
    ("search_files", {"pattern": "*\ud800"}, "pattern"),
]


@pytest.mark.parametrize(("tool", "arguments", "named"), LONE_SURROGATE_CALLS)
async def test_half_a_surrogate_pair_in_any_argument_is_invalid_params_and_changes_nothing(
    client: Client, root: Path, tool: str, arguments: dict[str, object], named: str
) -> None:
    (root / "a.txt").write_bytes(b"hello world\n")

    result = await client.call_tool(tool, arguments)

    assert error_code(result) == "invalid_params"
    assert f"{named} holds U+" in text_of(result)
    assert [entry.name for entry in root.iterdir()] == ["a.txt"]
    assert (root / "a.txt").read_bytes() == b"hello world\n"


async def test_a_name_that_is_not_utf8_is_still_reached_through_its_surrogateescape_spelling(
    client: Client, root: Path
) -> None:
    name = os.fsdecode(b"caf\xe9.txt")  # "caf\udce9.txt": how Python spells the name's byte 0xE9

    structured(await client.call_tool("write_file", {"path": name, "content": "ok\n"}))

    assert (root / name).read_bytes() == b"ok\n"
    assert [os.fsencode(entry.name) for entry in root.iterdir()] == [b"caf\xe9.txt"]


async def test_content_holding_a_byte_surrogate_is_encoding_error_that_points_to_content_base64(
    client: Client, root: Path
) -> None:
    result = await client.call_tool("write_file", {"path": "w.txt", "content": "caf\udce9\n"})

    assert error_code(result) == "encoding_error"
    assert "send the bytes with content_base64" in text_of(result)
    assert not (root / "w.txt").exists()


@pytest.mark.parametrize(("choice", "lines"), [("tail", "c\n"), ("head", "a\n")])
async def test_a_choice_reaches_the_tool_as_that_choice(client: Client, root: Path, choice: str, lines: str) -> None:
    (root / "abc.txt").write_bytes(b"a\nb\nc\n")
    result = await client.call_tool("read_file", {"path": "abc.txt", "mode": choice, "max_lines": 1})
    assert structured(result)["content"] == lines


async def test_a_list_sent_for_a_choice_is_invalid_params(client: Client, root: Path) -> None:
    (root / "abc.txt").write_bytes(b"a\nb\nc\n")
    result = await client.call_tool("read_file", {"path": "abc.txt", "mode": ["tail"], "max_lines": 1})
    assert error_code(result) == "invalid_params"
    assert "mode" in text_of(result)
