"""Results built from names that are not UTF-8 still reach the client: lone surrogates become U+FFFD."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import example, given
from mcp import Client
from mcp.types import CallToolResult, TextContent

from fsguard.tools._wire import wire_result, wire_value
from tests.conftest import structured, text_of
from tests.strategies import JsonValue, os_name_values
from tests.test_protocol_edges import exchange, frame, handshake

pytestmark = pytest.mark.anyio

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
LATIN1_NAME = os.fsdecode(b"caf\xe9")  # "caf\udce9": how Python names a directory whose bytes are Latin-1


def _encodes(value: JsonValue) -> bool:
    try:
        json.dumps(value, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@given(os_name_values())
@example([-22291])  # marshalled, its bytes hold 0xED: the byte search's false alarm copied the list
def test_a_wired_value_always_encodes_as_utf8_and_a_clean_one_is_returned_as_is(value: JsonValue) -> None:
    wired = wire_value(value)

    assert _encodes(wired)
    assert json.dumps(wired, ensure_ascii=False) == LONE_SURROGATE.sub("\ufffd", json.dumps(value, ensure_ascii=False))
    if _encodes(value):
        assert wired is value


def test_wire_result_replaces_each_lone_surrogate_in_text_and_structured_content() -> None:
    result = CallToolResult(
        content=[TextContent(type="text", text=f"DIR {LATIN1_NAME}/")],
        structured_content={"entries": [{"name": LATIN1_NAME, "size": 3}], LATIN1_NAME: [LATIN1_NAME]},
    )

    wired = wire_result(result)

    assert wired.content[0].text == "DIR caf\ufffd/"  # type: ignore[union-attr]
    assert wired.structured_content == {"entries": [{"name": "caf\ufffd", "size": 3}], "caf\ufffd": ["caf\ufffd"]}
    wired.model_dump_json()  # what the transports do: it raised before


def _latin1_tree(root: Path) -> Path:
    directory = root / LATIN1_NAME
    directory.mkdir()
    (directory / "menu.txt").write_bytes(b"soup\n")
    (root / "plain.txt").write_bytes(b"plain\n")
    return directory


async def test_listing_and_searching_a_tree_with_a_latin1_name_serialise(client: Client, root: Path) -> None:
    _latin1_tree(root)

    listed = await client.call_tool("list_directory", {"path": "."})
    found = await client.call_tool("search_files", {"path": ".", "pattern": "*.txt"})

    for result in (listed, found):
        result.model_dump_json()
    assert "caf\ufffd" in [entry["name"] for entry in structured(listed)["entries"]]
    assert "caf\ufffd/menu.txt" in text_of(found)
    assert (root / LATIN1_NAME / "menu.txt").read_bytes() == b"soup\n"


async def test_stdio_lists_a_latin1_name_and_keeps_answering(root: Path, tmp_path: Path) -> None:
    _latin1_tree(root)
    start = [
        *handshake("legacy", 1),
        frame(2, "tools/call", {"name": "list_directory", "arguments": {"path": "."}}),
        frame(3, "tools/call", {"name": "read_file", "arguments": {"path": "plain.txt"}}),
    ]

    answers = await exchange(root, tmp_path / "state", start)

    names = [entry["name"] for entry in answers[2]["result"]["structuredContent"]["entries"]]
    assert names == ["caf\ufffd", "plain.txt"]
    assert answers[3]["result"]["structuredContent"]["content"] == "plain\n"


async def test_a_name_regex_search_and_a_regex_rename_pass_over_a_latin1_name(client: Client, root: Path) -> None:
    (root / LATIN1_NAME).write_bytes(b"menu\n")
    (root / "f.txt").write_bytes(b"hi\n")

    found = structured(await client.call_tool("search_files", {"pattern": "^caf.$", "path": ".", "regex": True}))
    assert [Path(name).name for name in found["files"]] == ["caf\ufffd"]
    found = structured(await client.call_tool("search_files", {"pattern": "f.txt", "path": "."}))
    assert [Path(name).name for name in found["files"]] == ["f.txt"]
    rename = {"mode": "regex_rename", "pattern": "^f", "replacement": "g", "path": ".", "preview": True}
    renamed = structured(await client.call_tool("batch_operations", {"rename_json": rename}))
    assert [Path(item["destination"]).name for item in renamed["renames"]] == ["g.txt"]


async def test_stdio_answers_a_miss_beside_a_latin1_name_offering_no_name_that_cannot_be_sent_back(
    root: Path, tmp_path: Path
) -> None:
    (root / f"{LATIN1_NAME}.txt").write_bytes(b"menu\n")
    start = [
        *handshake("legacy", 1),
        frame(2, "tools/call", {"name": "read_file", "arguments": {"path": "cafe.txt"}}),
        frame(3, "tools/call", {"name": "read_file", "arguments": {"path": "caf\ufffd.txt", "max_lines": 1}}),
    ]

    answers = await exchange(root, tmp_path / "state", start)

    # "caf\ufffd.txt" was offered: sent back, it names no file, and was offered again
    for answer in (answers[2], answers[3]):
        assert "did_you_mean" not in answer["result"]["_meta"]["fsguard/error"]
        assert not LONE_SURROGATE.search(json.dumps(answer, ensure_ascii=False))
    assert "is how a name that is not UTF-8 is shown" in answers[3]["result"]["content"][0]["text"]


async def test_per_file_counts_of_a_latin1_name_are_keyed_by_the_path_its_file_is_listed_under(
    client: Client, root: Path, tool_engine: str
) -> None:
    (root / f"{LATIN1_NAME}.txt").write_bytes(b"soup soup\n")
    call = {"pattern": "soup", "path": ".", "include_content": True}

    counted = structured(await client.call_tool("search_files", {**call, "count_only": True, "return_lines": True}))
    found = structured(await client.call_tool("search_files", call))

    shown = [str(root / "caf\ufffd.txt")]
    assert (counted["files"], list(counted["counts"]), list(counted["lines"])) == (shown, shown, shown)
    assert list(found["counts"]) == shown  # not three U+FFFD, one per byte of the surrogate
    assert {match["file"] for match in found["matches"]} == set(shown)
