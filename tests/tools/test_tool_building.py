"""Each server builds its tools anew; their schemas come from a per-process copy (tools/_params._built).

The copy must be exactly what the SDK builds from the function itself, and two functions that would publish
different schemas (another default, other hints) must never share one.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import pytest
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.types import ToolAnnotations
from pydantic import Field

from fsguard.config import Settings
from fsguard.server import build_server
from fsguard.tools._params import _built
from tests.conftest import ClientFactory, structured


def test_every_tool_of_a_later_server_is_what_the_sdk_builds_from_its_function(base_settings: Settings) -> None:
    build_server(base_settings).build_tools()
    later = build_server(base_settings)
    later.build_tools()
    tools = later._tool_manager.list_tools()
    assert len(tools) == 20
    for tool in tools:
        function = inspect.unwrap(tool.fn)
        fresh = Tool.from_function(
            function,
            title=tool.title,
            description=inspect.cleandoc(function.__doc__ or ""),
            annotations=tool.annotations,
        )
        assert (tool.name, tool.description) == (fresh.name, fresh.description)
        assert tool.parameters == fresh.parameters, tool.name
        assert tool.output_schema == fresh.output_schema, tool.name


def probe_with_default(limit: int) -> Callable[..., str]:
    def probe(count: Annotated[int, Field(description="How many.")] = limit) -> str:
        """Count."""
        return str(count)

    return probe


def test_functions_from_one_def_with_other_defaults_or_hints_get_schemas_of_their_own() -> None:
    hints = ToolAnnotations(title="Probe", read_only_hint=True)
    five = _built(probe_with_default(5), hints, str)
    again = _built(probe_with_default(5), hints, str)
    seven = _built(probe_with_default(7), hints, str)
    writing = _built(probe_with_default(5), ToolAnnotations(title="Probe", read_only_hint=False), str)
    assert five.parameters["properties"]["count"]["default"] == 5
    assert again.parameters == five.parameters
    assert seven.parameters["properties"]["count"]["default"] == 7
    assert writing.annotations is not None
    assert writing.annotations.read_only_hint is False
    assert (again.fn, seven.fn) == (str, str)  # each copy calls the function it was given


@pytest.mark.anyio
async def test_a_tools_structured_content_reaches_the_client_without_a_second_validation_on_the_server(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_bytes(b"one\ntwo\n")

    def validated_again(_self: FuncMetadata, _model: type) -> None:
        raise AssertionError("the SDK validated fsguard's own dump of its output model again")

    monkeypatch.setattr(FuncMetadata, "_output_adapter", validated_again)
    async with connect() as client:
        result = await client.call_tool("read_file", {"path": "a.txt"})
    assert not result.is_error, result.content
    assert structured(result)["content"] == "one\ntwo\n"  # and the client validated it against the published schema
