"""help and server_info through the in-memory Client, in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_help_lists_exactly_the_registered_tools(client: Client) -> None:
    registered = sorted(tool.name for tool in (await client.list_tools()).tools)
    catalog = structured(await client.call_tool("help", {}))["tools"]
    assert [entry["name"] for entry in catalog] == registered
    assert all(entry["summary"].endswith(".") for entry in catalog)


async def test_help_for_a_tool_gives_its_schemas_annotations_and_examples(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    data = structured(await client.call_tool("help", {"tool": "read_file"}))
    assert data["input_schema"] == listed["read_file"].input_schema
    assert data["output_schema"] == listed["read_file"].output_schema
    assert data["annotations"]["readOnlyHint"] is True
    assert data["examples"]


async def test_every_tool_has_help_examples(client: Client) -> None:
    for tool in (await client.list_tools()).tools:
        assert structured(await client.call_tool("help", {"tool": tool.name}))["examples"], tool.name


async def test_help_for_an_unknown_tool_suggests_the_closest(client: Client) -> None:
    result = await client.call_tool("help", {"tool": "read_fil"})
    assert error_code(result) == "invalid_params"
    assert "'read_file'" in text_of(result)


async def test_read_only_help_describes_a_read_only_server(connect: ClientFactory) -> None:
    async with connect(read_only=True) as client:
        catalog = structured(await client.call_tool("help", {}))["tools"]
        overview = structured(await client.call_tool("server_info", {}))["text"]
    assert all(entry["read_only"] for entry in catalog)
    assert "read-only" in overview


async def test_server_info_help_topics_and_unknown_topic(client: Client, root: Path) -> None:
    overview = structured(await client.call_tool("server_info", {"action": "help"}))
    assert str(root) in overview["text"]
    assert "workflow" in overview["topics"]
    everything = structured(await client.call_tool("server_info", {"topic": "all"}))["text"]
    assert "## errors" in everything
    assert error_code(await client.call_tool("server_info", {"topic": "nonsense"})) == "invalid_params"


async def test_stats_count_calls_and_errors_by_code(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a", encoding="utf-8")
    await client.call_tool("read_file", {"path": "a.txt"})
    await client.call_tool("read_file", {"path": "missing"})
    await client.call_tool("get_file_info", {"path": "a.txt"})
    await client.call_tool("no_such_tool", {})
    stats = structured(await client.call_tool("server_info", {"action": "stats"}))["stats"]
    assert stats["by_tool"]["read_file"] == 2
    assert stats["errors_by_code"] == {"not_found": 1, "unknown_tool": 1}
    assert stats["operations"] >= 3
    assert stats["memory_mb"] > 0
    assert stats["backups"]["count"] == 0


async def test_artifact_capture_then_write_creates_the_file_with_those_bytes(client: Client, root: Path) -> None:
    content = "# Plan\n\n1. café\n"
    captured = structured(
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": content})
    )["artifact"]
    assert captured == {"captured": True, "bytes": len(content.encode()), "lines": 3}
    info = structured(await client.call_tool("server_info", {"action": "artifact"}))["artifact"]
    assert info["captured"] is True
    written = structured(
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "plan.md"})
    )["artifact"]
    assert written["path"] == str(root / "plan.md")
    assert (root / "plan.md").read_bytes() == content.encode()


async def test_artifact_write_never_replaces_an_existing_file(client: Client, root: Path) -> None:
    (root / "keep.md").write_bytes(b"precious")
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "new"})
    result = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "keep.md"})
    assert error_code(result) == "already_exists"
    assert (root / "keep.md").read_bytes() == b"precious"


async def test_artifact_write_before_capture_is_invalid(client: Client, root: Path) -> None:
    result = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "x.md"})
    assert error_code(result) == "invalid_params"
    assert not (root / "x.md").exists()


async def test_artifact_write_into_a_missing_directory_names_create_directory(client: Client, root: Path) -> None:
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x"})
    result = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "no/x.md"})
    assert error_code(result) == "not_a_directory"
    assert "create_directory" in text_of(result)


async def test_read_only_server_refuses_artifact_write(connect: ClientFactory, root: Path) -> None:
    async with connect(read_only=True) as client:
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x"})
        result = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "x.md"})
    assert error_code(result) == "read_only"
    assert not (root / "x.md").exists()
