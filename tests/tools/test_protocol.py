"""Argument hygiene and error shape shared by every tool, in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, MCPError
from mcp.types import INVALID_PARAMS

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_unknown_parameter_is_refused_with_a_suggestion_and_the_valid_list(client: Client) -> None:
    result = await client.call_tool("list_directory", {"path": ".", "max_dept": 3})
    assert error_code(result) == "unknown_param"
    assert 'did you mean "max_depth"?' in text_of(result)
    valid = "include_hidden, limit, max_depth, offset, output_format, path, respect_gitignore"
    assert f"Valid parameters: {valid}." in text_of(result)
    assert (result.meta or {})["fsguard/error"]["param"] == "max_dept"


async def test_description_is_accepted_and_ignored_everywhere(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a", encoding="utf-8")
    for tool, args in [("read_file", {"path": "a.txt"}), ("help", {}), ("list_directory", {})]:
        assert not (await client.call_tool(tool, {**args, "description": "harness note"})).is_error


@pytest.mark.parametrize(("raw", "hidden_shown"), [("yes", True), ("0", False), ("false", False), ("TRUE", True)])
async def test_string_booleans_are_understood(client: Client, root: Path, raw: str, hidden_shown: bool) -> None:
    (root / ".hidden").write_text("", encoding="utf-8")
    data = structured(await client.call_tool("list_directory", {"include_hidden": raw}))
    assert (".hidden" in [e["name"] for e in data["entries"]]) is hidden_shown


async def test_paths_may_be_json_text_with_a_trailing_comma(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("A", encoding="utf-8")
    (root / "b.txt").write_text("B", encoding="utf-8")
    data = structured(await client.call_tool("read_file", {"paths": '["a.txt", "b.txt",]'}))
    assert [f["content"] for f in data["files"]] == ["A", "B"]


async def test_malformed_json_text_is_invalid_params(client: Client) -> None:
    result = await client.call_tool("read_file", {"paths": '["a.txt"'})
    assert error_code(result) == "invalid_params"
    assert "not valid JSON" in text_of(result)


async def test_wrong_types_are_invalid_params_without_pydantic_links(client: Client) -> None:
    result = await client.call_tool("read_file", {"path": "a", "start_line": "first"})
    assert error_code(result) == "invalid_params"
    assert "start_line" in text_of(result)
    assert "errors.pydantic.dev" not in text_of(result)


async def test_unknown_tool_is_a_protocol_error_with_a_suggestion(client: Client) -> None:
    with pytest.raises(MCPError) as raised:
        await client.call_tool("list_directroy", {})
    assert (raised.value.code, raised.value.message) == (INVALID_PARAMS, "Unknown tool: list_directroy")
    assert raised.value.data["did_you_mean"] == "list_directory"


async def test_bad_calls_in_a_row_do_not_stop_the_server(client: Client, root: Path) -> None:
    (root / "ok.txt").write_text("fine", encoding="utf-8")
    bad = [
        ("read_file", {"path": "missing.txt"}),
        ("read_file", {"pth": "ok.txt"}),
        ("read_file", {"path": "/etc/passwd"}),
        ("read_file", {"path": "ok\u202etxt"}),
        ("list_directory", {"path": "ok.txt"}),
        ("get_file_info", {"path": "CON"}),
    ]
    codes = [error_code(await client.call_tool(tool, args)) for tool, args in bad]
    with pytest.raises(MCPError):
        await client.call_tool("no_such_tool", {})
    assert codes == [
        "not_found",
        "unknown_param",
        "access_denied",
        "access_denied",
        "not_a_directory",
        "access_denied",
    ]
    assert structured(await client.call_tool("read_file", {"path": "ok.txt"}))["content"] == "fine"


async def test_errors_carry_one_text_block_and_no_structured_content(client: Client, root: Path) -> None:
    result = await client.call_tool("read_file", {"path": "missing.txt"})
    assert result.is_error
    assert result.structured_content is None
    assert [block.type for block in result.content] == ["text"]
    assert text_of(result).startswith("missing.txt does not exist.")
    assert "Error executing tool" not in text_of(result)


async def test_both_voices_carry_the_same_structured_content(connect: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_text("a\nb\n", encoding="utf-8")
    async with connect() as verbose, connect(compact_mode=True) as compact:
        for tool, args in [("get_file_info", {"path": "a.txt"}), ("list_directory", {})]:
            long = await verbose.call_tool(tool, args)
            short = await compact.call_tool(tool, args)
            assert structured(long) == {**structured(short), **_times(structured(long))}
            assert len(text_of(short)) < len(text_of(long))


def _times(data: dict[str, object]) -> dict[str, object]:
    """Access times may tick between two calls; compare everything else."""
    return {key: value for key, value in data.items() if key == "accessed"}
