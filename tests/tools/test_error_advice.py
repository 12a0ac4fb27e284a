"""Error copy names what exists: the examples and parameters an error advises are the failing tool's own."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import ElicitResult

from fsguard.core.confirmation import declined
from tests.conftest import ClientFactory, error_code, text_of

pytestmark = pytest.mark.anyio


async def _schema(client: Client, tool: str) -> dict[str, Any]:
    listed = await client.list_tools()
    return next(t.input_schema for t in listed.tools if t.name == tool)


async def _unreal_advice(client: Client, tool: str, text: str) -> list[str]:
    """Every ``param=`` the text advises that the tool it names does not take: inside ``other(...)`` the params of
    that tool (which must exist), elsewhere the failing tool's own."""
    schemas = {t.name: _takes(t.input_schema) for t in (await client.list_tools()).tools}
    wrong = []
    for name, inner in re.findall(r"\b([a-z_]+)\(([^()]*)\)", text):
        if name not in schemas:
            wrong.append(f"{name}()")
        wrong += [f"{name}({param}=)" for param in re.findall(r"\b([a-z_]+)=", inner) if param not in schemas[name]]
    bare = re.sub(r"\b[a-z_]+\([^()]*\)", "", text)
    return wrong + [f"{param}=" for param in re.findall(r"\b([a-z_]+)=", bare) if param not in schemas[tool]]


def _takes(schema: dict[str, Any]) -> set[str]:
    """The names a call of the tool can carry: its parameters, the fields of their array items (an edit's
    occurrence), and the keys their descriptions quote (a rename_json's "preview")."""
    names = set(schema.get("properties", {}))
    for prop in schema.get("properties", {}).values():
        names |= _item_fields(prop)
        names |= set(re.findall(r'"([a-z_]+)"', str(prop.get("description", ""))))
    return names


def _item_fields(prop: dict[str, Any]) -> set[str]:
    """The field names the items of an array parameter take."""
    for option in prop.get("anyOf", [prop]):
        if option.get("type") == "array":
            return set(option.get("items", {}).get("properties", {}))
    return set()


@pytest.mark.parametrize(
    ("tool", "arguments", "param"),
    [
        ("multi_edit", {"path": "a.txt", "edits_json": '[{"old_text": "a"'}, "edits_json"),
        ("multi_edit", {"path": "a.txt", "edits": "[{old_text: a}]"}, "edits"),
        ("edit_file", {"path": "a.txt", "mode": "regex", "patterns_json": "[{"}, "patterns_json"),
    ],
)
async def test_a_list_of_edits_that_is_not_json_gets_an_example_of_edits_not_of_paths_and_leaves_the_file(
    client: Client, root: Path, tool: str, arguments: dict[str, Any], param: str
) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "invalid_params"
    text = text_of(result)
    assert f'parameter "{param}" is not valid JSON' in text
    assert '"a.txt", "b.txt"' not in text
    found = re.search(r"JSON text such as (\[.*\])\.", text)
    assert found is not None
    example = json.loads(found.group(1))
    fields = _item_fields((await _schema(client, tool))["properties"][param])
    assert set(example[0]) <= fields  # every field the example names is one an item takes
    assert (root / "a.txt").read_bytes() == b"a\n"


async def test_a_request_that_is_not_json_points_to_help_for_its_shape_not_to_a_list_of_paths(client: Client) -> None:
    result = await client.call_tool("batch_operations", {"request_json": '{"operations": ['})
    assert error_code(result) == "invalid_params"
    assert "help(tool='batch_operations')" in text_of(result)
    assert '"a.txt", "b.txt"' not in text_of(result)


async def test_a_list_of_paths_that_is_not_json_still_gets_a_list_of_paths(client: Client) -> None:
    result = await client.call_tool("read_file", {"paths": '["a.txt"'})
    assert error_code(result) == "invalid_params"
    assert 'JSON text such as ["a.txt", "b.txt"]' in text_of(result)


@pytest.mark.parametrize(
    "arguments",
    [
        {"request_json": {"operations": [{"type": "edit", "path": "a.txt", "old_text": "zebra", "new_text": "y"}]}},
        {
            "pipeline_json": {
                "name": "p",
                "steps": [
                    {"id": "s", "action": "search", "params": {"pattern": "hello", "path": "."}},
                    {"id": "e", "action": "edit", "input_from": "s", "params": {"old_text": "zebra", "new_text": "y"}},
                ],
            }
        },
        {
            "pipeline_json": {
                "name": "p",
                "steps": [
                    {"id": "s", "action": "search", "params": {"pattern": "hello", "path": "."}},
                    {
                        "id": "m",
                        "action": "multi_edit",
                        "input_from": "s",
                        "params": {"edits": [{"old_text": "zebra", "new_text": "y"}]},
                    },
                ],
            }
        },
    ],
    ids=["batch-edit", "pipeline-edit", "pipeline-multi_edit"],
)
async def test_a_batch_or_pipeline_edit_that_finds_nothing_advises_no_tolerant_whitespace_it_cannot_take(
    client: Client, root: Path, arguments: dict[str, Any]
) -> None:
    (root / "a.txt").write_bytes(b"hello\nworld\n")
    result = await client.call_tool("batch_operations", arguments)
    assert error_code(result) == "batch_failed"
    assert "was not found in a.txt" in text_of(result)
    assert "from read_file" in text_of(result)  # the advice that applies is kept
    assert "tolerant_whitespace" not in text_of(result)
    assert (root / "a.txt").read_bytes() == b"hello\nworld\n"


async def test_edit_file_that_finds_nothing_still_advises_tolerant_whitespace(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"hello\nworld\n")
    result = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "zebra", "new_text": "y"})
    assert error_code(result) == "no_match"
    assert "pass tolerant_whitespace=true" in text_of(result)
    assert "tolerant_whitespace" in (await _schema(client, "edit_file"))["properties"]


async def test_project_replace_with_an_empty_find_advises_its_own_literal_flag_and_changes_nothing(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"hello\n")
    result = await client.call_tool("project_replace", {"find": "", "replace": "x", "preview": False})
    assert error_code(result) == "invalid_params"
    advised = set(re.findall(r"\b([a-z_]+)=", text_of(result)))
    assert advised == {"literal"}
    assert advised <= set((await _schema(client, "project_replace"))["properties"])
    assert (root / "a.txt").read_bytes() == b"hello\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "b.bin", "old_text": "abc", "new_text": "x"}),
        ("minify_js", {"path": "b.bin"}),
        ("analyze_operation", {"operation": "edit", "path": "b.bin", "old_text": "abc", "new_text": "x"}),
        ("read_file", {"path": "b.bin"}),
    ],
)
async def test_a_binary_file_is_refused_with_advice_every_named_tool_takes(
    client: Client, root: Path, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "b.bin").write_bytes(b"\0\1abc")
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "binary_file"
    assert "read_file(encoding='base64')" in text_of(result)
    assert await _unreal_advice(client, tool, text_of(result)) == []
    assert (root / "b.bin").read_bytes() == b"\0\1abc"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "big.txt", "old_text": "line", "new_text": "row"}),
        ("minify_js", {"path": "big.txt"}),
        ("read_file", {"path": "big.txt"}),
    ],
)
async def test_a_file_over_the_size_limit_is_refused_with_advice_every_named_tool_takes(
    connect: ClientFactory, root: Path, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "big.txt").write_bytes(b"line\n" * 400)
    async with connect(max_file_size=1000) as client:
        result = await client.call_tool(tool, arguments)
        assert error_code(result) == "too_large"
        assert await _unreal_advice(client, tool, text_of(result)) == []
    assert (root / "big.txt").read_bytes() == b"line\n" * 400


async def test_project_replace_with_a_bad_regex_says_how_to_replace_the_text_as_typed_and_that_works(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"call (x here\n")
    refused = await client.call_tool("project_replace", {"find": "(x", "replace": "y", "literal": False})
    assert error_code(refused) == "invalid_params"
    assert "drop literal=false" in text_of(refused)
    assert await _unreal_advice(client, "project_replace", text_of(refused)) == []
    assert (root / "a.txt").read_bytes() == b"call (x here\n"
    followed = await client.call_tool("project_replace", {"find": "(x", "replace": "y", "preview": True})
    assert not followed.is_error, text_of(followed)


@pytest.mark.parametrize(
    ("tool", "arguments", "meant"),
    [
        ("read_file", {"file_path": "a.txt"}, "path"),
        ("move_file", {"source": "a.txt", "dest_path": "b.txt"}, "source_path"),
        ("copy_file", {"source_path": "a.txt", "destination": "b.txt"}, "dest_path"),
        ("search_files", {"query": "a"}, "pattern"),
        ("list_directory", {"dir": "."}, "path"),
    ],
)
async def test_a_parameter_named_as_other_file_tools_name_it_is_refused_with_the_name_to_use(
    client: Client, root: Path, tool: str, arguments: dict[str, Any], meant: str
) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "unknown_param"
    assert f'(did you mean "{meant}"?)' in text_of(result)
    assert meant in (await _schema(client, tool))["properties"]
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]


async def _decline(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="decline")


async def test_a_declined_delete_advises_looking_first_with_tools_that_exist_and_deletes_nothing(
    connect: ClientFactory, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"keep\n")
    async with connect(elicitation_callback=_decline) as client:
        result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True})
        assert error_code(result) == "declined"
        assert "list_directory or get_file_info" in text_of(result)
        assert "dry_run" not in text_of(result)  # delete_file has none
        assert await _unreal_advice(client, "delete_file", text_of(result)) == []
    assert (root / "a.txt").read_bytes() == b"keep\n"


@pytest.mark.parametrize("operation", ["delete_file", "git", "project_replace", "backup", "batch_operations"])
async def test_every_operation_that_asks_is_declined_with_advice_its_tool_takes(client: Client, operation: str) -> None:
    text = declined(operation, "declined").message
    assert await _unreal_advice(client, operation, text) == []


BROKEN_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("read_file", {"path": "nope.txt"}),
    ("read_file", {"path": "dir"}),
    ("read_file", {"path": "a.txt/x"}),
    ("read_file", {"path": "a.txt", "start_line": 99}),
    ("write_file", {"path": "a.txt", "content": "x", "expected_hash": "deadbeef"}),
    ("write_file", {"path": "new.txt", "content": "é", "encoding": "ascii"}),
    ("write_file", {"path": "a.txt", "content_base64": "YQ==", "append": True}),
    ("edit_file", {"path": "a.txt", "old_text": "zebra", "new_text": "y"}),
    ("edit_file", {"path": "a.txt", "old_text": "hello", "new_text": "y"}),
    ("edit_file", {"path": "dir", "old_text": "a", "new_text": "y"}),
    ("edit_file", {"path": "a.txt", "mode": "insert", "anchor": "zebra", "new_text": "x"}),
    ("multi_edit", {"path": "a.txt", "edits": [{"old_text": "hello", "new_text": "x"}]}),
    ("multi_edit", {"path": "a.txt"}),
    ("delete_file", {"path": "dir"}),
    ("delete_file", {"path": "a.txt", "expected_hash": "abc"}),
    ("move_file", {"source_path": "dir", "dest_path": "dir/sub"}),
    ("copy_file", {"source_path": "a.txt", "dest_path": "dir/b.txt"}),
    ("create_directory", {"path": "a.txt"}),
    ("list_directory", {"path": "a.txt"}),
    ("list_directory", {"path": ".", "offset": 99}),
    ("search_files", {"pattern": "(", "regex": True}),
    ("search_files", {"pattern": "([", "include_content": True}),
    ("project_replace", {"find": "", "replace": "x"}),
    ("backup", {"action": "restore"}),
    ("backup", {"action": "undo_last", "file_path": "a.txt"}),
    ("backup", {"action": "restore_trash", "sd_id": "zzz"}),
    ("batch_operations", {}),
    ("batch_operations", {"rename_json": {"path": "dir", "mode": "find_replace"}}),
    ("git", {"action": "status"}),
    ("minify_js", {"path": "app.js", "output_path": "a.txt"}),
    ("server_info", {"action": "artifact", "sub_action": "write", "path": "x.txt"}),
    ("help", {"tool": "explode"}),
]


@pytest.mark.parametrize(("tool", "arguments"), BROKEN_CALLS)
async def test_every_error_names_only_tools_and_parameters_that_exist(
    client: Client, root: Path, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "a.txt").write_bytes(b"hello\nworld\nhello\n")
    (root / "app.js").write_bytes(b"var  a = 1 ;\n")
    (root / "dir").mkdir()
    (root / "dir" / "b.txt").write_bytes(b"bee\n")
    before = sorted((p.relative_to(root), p.read_bytes() if p.is_file() else None) for p in root.rglob("*"))
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    assert error_code(result) not in ("internal_error", "error")
    assert await _unreal_advice(client, tool, text_of(result)) == []
    assert len(text_of(result)) < 600
    assert sorted((p.relative_to(root), p.read_bytes() if p.is_file() else None) for p in root.rglob("*")) == before


async def test_a_risky_preview_names_the_force_its_run_needs_and_that_run_applies(client: Client, root: Path) -> None:
    # "Run again without preview" alone led to risk_blocked, whose advice was to preview: round and round.
    for n in range(60):
        (root / f"m{n:02}.txt").write_text("old\n", encoding="utf-8")
    asked = {"find": "old", "replace": "new", "path": str(root)}
    preview = text_of(await client.call_tool("project_replace", {**asked, "preview": True}))
    assert "Run again without preview and with force=true to apply (risk HIGH)." in preview
    applied = await client.call_tool("project_replace", {**asked, "force": True})
    assert not applied.is_error, text_of(applied)
    assert {(root / f"m{n:02}.txt").read_text(encoding="utf-8") for n in range(60)} == {"new\n"}


async def test_the_closest_lines_of_a_missed_edit_are_the_block_most_like_it_not_the_first_of_a_repeated_line(
    client: Client, root: Path
) -> None:
    # Fourteen functions open with the same line: the first of them was shown, and an agent copying it edited func1.
    body = "".join(f"def func{n}(a):\n    if a:\n        return {n}\n    return None\n\n" for n in range(1, 15))
    (root / "m.py").write_text(body, encoding="utf-8")
    missed = {"path": "m.py", "old_text": "    if a:\n        return 99\n", "new_text": "    if a:\n        return 0\n"}
    said = text_of(await client.call_tool("edit_file", missed))
    shown = said.split("Closest lines:\n", 1)[1]
    assert "return 9\n" in shown
    assert "return 1\n" not in shown
    assert (root / "m.py").read_text(encoding="utf-8") == body
