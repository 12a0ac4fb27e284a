"""The published surface, in both eras: schemas, annotations, descriptions, and annotations that are true."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import Tool

from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio

READ_ONLY_TOOLS = {
    "read_file",
    "get_file_info",
    "list_directory",
    "help",
    "server_info",
    "analyze_operation",
    "search_files",
}
TOOLS = READ_ONLY_TOOLS | {
    "create_directory",
    "write_file",
    "edit_file",
    "multi_edit",
    "backup",
    "delete_file",
    "move_file",
    "copy_file",
    "project_replace",
    "batch_operations",
    "git",
    "minify_js",
    "wsl",
}


async def listed(client: Client) -> dict[str, Tool]:
    return {tool.name: tool for tool in (await client.list_tools()).tools}


async def test_all_twenty_seed_tools_are_listed_with_schemas_and_help_names_each(client: Client) -> None:
    tools = await listed(client)
    assert len(tools) == 20
    assert all(tool.output_schema is not None for tool in tools.values())
    catalog = structured(await client.call_tool("help", {}))["tools"]
    assert sorted(entry["name"] for entry in catalog) == sorted(tools)
    for name in ("batch_operations", "git", "minify_js", "wsl"):
        detail = structured(await client.call_tool("help", {"tool": name}))
        assert detail["examples"], f"help(tool={name!r}) shows no example"


async def test_the_tools_of_this_release_are_listed(client: Client) -> None:
    assert set(await listed(client)) == TOOLS


async def test_every_tool_has_an_object_root_output_schema(client: Client) -> None:
    for name, tool in (await listed(client)).items():
        assert tool.output_schema is not None, name
        assert tool.output_schema["type"] == "object", name
        assert tool.input_schema["type"] == "object", name


def _nodes(schema: Any) -> list[dict[str, Any]]:
    """Every subschema object of ``schema``, itself included."""
    if isinstance(schema, list):
        return [node for value in schema for node in _nodes(value)]
    if not isinstance(schema, dict):
        return []
    return [schema, *(node for value in schema.values() for node in _nodes(value))]


async def test_input_schemas_are_self_contained_with_no_ref_for_clients_that_drop_defs(client: Client) -> None:
    for name, tool in (await listed(client)).items():
        nodes = _nodes(tool.input_schema)
        assert [node for node in nodes if "$ref" in node or "$defs" in node] == [], name
    edits = (await listed(client))["multi_edit"].input_schema["properties"]["edits"]["anyOf"][0]["items"]
    assert (edits["required"], edits["additionalProperties"]) == (["old_text", "new_text"], False)


async def test_every_tool_has_a_title_a_description_and_every_annotation(client: Client) -> None:
    for name, tool in (await listed(client)).items():
        assert tool.title, name
        assert tool.description, name
        assert len(tool.description) > 40, name
        hints = tool.annotations
        assert hints is not None, name
        assert hints.title == tool.title
        values = (hints.read_only_hint, hints.destructive_hint, hints.idempotent_hint, hints.open_world_hint)
        assert None not in values, name
        assert hints.open_world_hint is False, name


async def test_read_file_keeps_the_seed_schema(client: Client) -> None:
    schema = (await listed(client))["read_file"].output_schema
    assert schema is not None
    assert schema["required"] == ["content"]
    assert schema["properties"]["content"]["type"] == "string"
    assert "content_hash" in schema["properties"]


async def test_output_schemas_forbid_undeclared_keys(client: Client) -> None:
    for name, tool in (await listed(client)).items():
        assert tool.output_schema is not None
        assert tool.output_schema.get("additionalProperties") is False, name


def snapshot(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every entry under root with its bytes (files) and mtime: what a read-only tool must not change."""
    seen: dict[str, tuple[bytes | None, int]] = {}
    for base, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(base) / name
            seen[str(path)] = (path.read_bytes() if path.is_file() else None, path.lstat().st_mtime_ns)
    return seen


async def test_read_only_hints_are_true_the_examples_change_nothing(client: Client, root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n", encoding="utf-8")
    (root / "README.md").write_text("# hi\n", encoding="utf-8")
    before = snapshot(root)
    tools = await listed(client)
    for name, tool in tools.items():
        assert tool.annotations is not None
        if not tool.annotations.read_only_hint:
            continue
        examples = structured(await client.call_tool("help", {"tool": name}))["examples"]
        for example in examples:
            await client.call_tool(name, example["arguments"])
        assert snapshot(root) == before, name


async def test_idempotent_hint_is_true_for_create_directory(client: Client, root: Path) -> None:
    tool = (await listed(client))["create_directory"]
    assert tool.annotations is not None
    assert tool.annotations.idempotent_hint
    first = await client.call_tool("create_directory", {"path": "x/y"})
    state = snapshot(root)
    second = await client.call_tool("create_directory", {"path": "x/y"})
    assert not first.is_error
    assert not second.is_error
    assert snapshot(root) == state


async def test_destructive_hint_is_false_for_tools_that_never_replace_bytes(client: Client) -> None:
    for name in ("create_directory", "server_info"):
        hints = (await listed(client))[name].annotations
        assert hints is not None, name
        assert hints.destructive_hint is False, name


async def test_destructive_hint_is_true_for_every_tool_that_can_replace_or_remove_bytes(client: Client) -> None:
    # wsl sync replaces a Windows-side file whose bytes differ, git restore discards working-tree changes,
    # minify_js rewrites in place: each backs up first, but each does replace bytes.
    replacing = ("write_file", "edit_file", "multi_edit", "project_replace", "batch_operations", "git", "minify_js")
    for name in (*replacing, "wsl", "delete_file", "move_file", "backup"):
        hints = (await listed(client))[name].annotations
        assert hints is not None, name
        assert hints.destructive_hint is True, name


async def test_read_only_server_lists_only_read_only_tools(connect: ClientFactory) -> None:
    async with connect(read_only=True) as client:
        tools = await listed(client)
    assert set(tools) == READ_ONLY_TOOLS
    assert all(t.annotations is not None and t.annotations.read_only_hint for t in tools.values())


async def test_instructions_name_the_roots_and_point_at_help(client: Client, root: Path) -> None:
    text: Any = client.instructions
    assert str(root) in text
    assert "help()" in text


SEED_SCHEMAS = {
    "read_file": (["content"], {"content": "string", "content_hash": "string"}),
    "write_file": (
        ["path", "bytes_written", "verified", "message"],
        {
            "path": "string",
            "bytes_written": "integer",
            "verified": "boolean",
            "content_hash": "string",
            "backup_id": "string",
            "feedback": "string",
            "message": "string",
        },
    ),
    "edit_file": (
        ["path", "replacements", "lines_added", "lines_removed", "total_lines", "message"],
        {
            "path": "string",
            "replacements": "integer",
            "lines_added": "integer",
            "lines_removed": "integer",
            "total_lines": "integer",
            "content_hash": "string",
            "backup_id": "string",
            "parent_backup_id": "string",
            "risk_warning": "string",
            "structure_warning": "string",
            "integrity": "string",
            "external_change": "string",
            "message": "string",
        },
    ),
    "multi_edit": (
        ["path", "successful_edits", "total_edits", "message"],
        {
            "path": "string",
            "successful_edits": "integer",
            "total_edits": "integer",
            "lines_added": "integer",
            "lines_removed": "integer",
            "total_lines": "integer",
            "content_hash": "string",
            "backup_id": "string",
            "parent_backup_id": "string",
            "risk_warning": "string",
            "structure_warning": "string",
            "integrity": "string",
            "message": "string",
        },
    ),
}


def declared_types(prop: dict[str, Any]) -> set[str]:
    """The JSON types a property admits (through anyOf and enums)."""
    options = prop.get("anyOf", [prop])
    types = {str(option.get("type")) for option in options if "type" in option}
    if any("enum" in option for option in options):
        types.add("string")
    return types


@pytest.mark.parametrize("tool_name", sorted(SEED_SCHEMAS))
async def test_the_four_seed_schemas_keep_every_field_and_their_required_list(client: Client, tool_name: str) -> None:
    required, fields = SEED_SCHEMAS[tool_name]
    schema = (await listed(client))[tool_name].output_schema
    assert schema is not None
    assert sorted(schema["required"]) == sorted(required)
    for name, json_type in fields.items():
        assert json_type in declared_types(schema["properties"][name]), (tool_name, name)


async def test_tools_built_once_per_process_still_follow_each_servers_settings(connect: ClientFactory) -> None:
    # Tool schemas are reused across servers with the same signatures (tools/_params.py): a settings-dependent
    # description must still be each server's own, and each server's tools must act on its own root.
    descriptions = []
    for days in (3, 11):
        async with connect(backup_max_age_days=days) as client:
            schema = (await listed(client))["backup"].input_schema
            descriptions.append(schema["properties"]["older_than_days"]["description"])
    assert "default 3)" in descriptions[0]
    assert "default 11)" in descriptions[1]
