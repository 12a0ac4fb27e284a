"""help and server_info through the in-memory Client, in both protocol eras."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_help_lists_exactly_the_registered_tools(client: Client) -> None:
    registered = sorted(tool.name for tool in (await client.list_tools()).tools)
    catalog = structured(await client.call_tool("help", {}))["tools"]
    assert [entry["name"] for entry in catalog] == registered
    assert all(entry["summary"].endswith(".") for entry in catalog)


@pytest.mark.parametrize("blank", ["", " "])
async def test_help_with_a_blank_tool_is_the_catalog(client: Client, blank: str) -> None:
    """A blank tool (a form field left empty) was "no tool named \"\" registered on this server"."""
    result = await client.call_tool("help", {"tool": blank})
    assert not result.is_error, text_of(result)
    assert len(structured(result)["tools"]) == len((await client.list_tools()).tools)


async def test_tool_descriptions_carry_no_docstring_indentation(client: Client) -> None:
    """Python 3.11 keeps a docstring's source indentation; the model would read 8 spaces before every line."""
    for tool in (await client.list_tools()).tools:
        description = tool.description or ""
        assert not any(line.startswith(" ") for line in description.splitlines()), tool.name
        shown = structured(await client.call_tool("help", {"tool": tool.name}))["description"]
        assert shown == description, tool.name


async def test_help_summaries_are_the_first_sentence_only_never_the_next_paragraph(client: Client) -> None:
    catalog = {entry["name"]: entry["summary"] for entry in structured(await client.call_tool("help", {}))["tools"]}
    assert catalog["server_info"] == (
        "Usage guides by topic, counters since start-up (stats), or keep and save a text (artifact)."
    )
    assert catalog["create_directory"] == (
        "Create a directory and its parents (write_file makes a file's parents itself)."
    )
    for name, summary in catalog.items():
        assert "\n" not in summary, name
        assert "  " not in summary, name
        assert ". " not in summary, name


async def test_help_for_a_tool_gives_its_schemas_annotations_and_examples(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    data = structured(await client.call_tool("help", {"tool": "read_file"}))
    assert data["input_schema"] == listed["read_file"].input_schema
    assert data["output_schema"] == listed["read_file"].output_schema
    assert data["annotations"]["readOnlyHint"] is True
    assert data["examples"]


async def test_help_for_a_tool_prints_its_schemas_as_unindented_json_that_parses_back(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    text = text_of(await client.call_tool("help", {"tool": "backup"}))
    parameters = text.split("### Parameters\n", 1)[1].split("\n", 1)[0]
    result = text.split("### Result\n", 1)[1].split("\n", 1)[0]
    assert json.loads(parameters) == listed["backup"].input_schema
    assert json.loads(result) == listed["backup"].output_schema
    assert "\n  " not in text  # no indentation: a third of a large tool's help was spaces


async def test_compact_help_for_a_tool_names_every_parameter_with_its_type_and_stars_the_required_ones(
    connect: ClientFactory,
) -> None:
    async with connect(compact_mode=True) as client:
        for tool in (await client.list_tools()).tools:
            result = await client.call_tool("help", {"tool": tool.name})
            line = next(row for row in text_of(result).splitlines() if row.startswith("Parameters (* required): "))
            required = set(tool.input_schema.get("required") or ())
            for name in tool.input_schema["properties"]:
                assert f"{name}{'*' if name in required else ''}: " in line, (tool.name, name)
        edit = text_of(await client.call_tool("help", {"tool": "edit_file"}))
        catalog = await client.call_tool("help", {})
    assert "path*: str, old_text: str, " in edit
    assert "position: before|after, start_line: int, " in edit
    tools = len(structured(catalog)["tools"])
    assert text_of(catalog).startswith(f'{tools} tools on the real host filesystem; help(tool="name"): parameters')


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


SEED_TOPICS = [
    "overview", "workflow", "tools", "read", "write", "edit", "search", "batch", "errors", "examples", "tips",
    "recovery", "all",
]  # fmt: skip


@pytest.mark.parametrize("topic", SEED_TOPICS)
async def test_every_help_topic_of_the_seed_exists_and_is_listed(client: Client, topic: str) -> None:
    answer = await client.call_tool("server_info", {"action": "help", "topic": topic})
    result = structured(answer)
    assert result["topic"] == topic
    assert topic in result["topics"]
    assert result["text"].strip()
    assert text_of(answer) == result["text"]


async def test_the_tools_topic_lists_every_registered_tool_with_its_help_summary(client: Client) -> None:
    registered = sorted(tool.name for tool in (await client.list_tools()).tools)
    text = structured(await client.call_tool("server_info", {"topic": "tools"}))["text"]
    catalog = structured(await client.call_tool("help", {}))["tools"]
    listed = [line.split(":")[0].removeprefix("- ").removesuffix(" (writes)") for line in text.splitlines()[1:]]
    assert listed == registered
    for entry in catalog:
        assert entry["summary"] in text


async def test_the_examples_topic_shows_every_help_example_of_the_registry(client: Client) -> None:
    text = structured(await client.call_tool("server_info", {"topic": "examples"}))["text"]
    for tool in (await client.list_tools()).tools:
        for example in structured(await client.call_tool("help", {"tool": tool.name}))["examples"]:
            assert f"# {example['description']}" in text, (tool.name, example)
        assert f"{tool.name}(" in text


async def test_a_tool_topic_shows_the_examples_of_its_tools(client: Client) -> None:
    edit = structured(await client.call_tool("server_info", {"topic": "edit"}))["text"]
    assert 'edit_file({"path": "src/app.py"' in edit
    assert "multi_edit(" in edit
    recovery = structured(await client.call_tool("server_info", {"topic": "recovery"}))["text"]
    assert 'backup({"action": "undo_last"' in recovery


async def test_on_a_read_only_server_the_write_topic_says_write_file_is_not_there(connect: ClientFactory) -> None:
    async with connect(read_only=True) as client:
        write = structured(await client.call_tool("server_info", {"topic": "write"}))["text"]
        tools = structured(await client.call_tool("server_info", {"topic": "tools"}))["text"]
        examples = structured(await client.call_tool("server_info", {"topic": "examples"}))["text"]
    assert write.startswith("Not registered on this server (read-only): write_file, edit_file.")
    assert "write_file({" not in write  # no example of a tool that is not there
    assert "write_file" not in tools
    assert "edit_file({" not in examples
    assert "read_file({" in examples


async def test_on_a_read_only_server_every_topic_naming_a_missing_tool_says_it_is_missing(
    connect: ClientFactory,
) -> None:
    async with connect() as client:
        every = {tool.name for tool in (await client.list_tools()).tools}
        whole = structured(await client.call_tool("server_info", {"topic": "all"}))["text"]
    async with connect(read_only=True) as client:
        left_out = every - {tool.name for tool in (await client.list_tools()).tools}
        topics = structured(await client.call_tool("server_info", {"topic": "overview"}))["topics"]
        texts = {topic: structured(await client.call_tool("server_info", {"topic": topic}))["text"] for topic in topics}
    told = {}
    for topic, text in texts.items():
        first, _, rest = text.partition("\n")
        named = {tool for tool in left_out if re.search(rf"\b{tool}\b", rest)}
        if topic not in ("all", "examples", "tools") and named:
            assert first.startswith("Not registered on this server (read-only): "), topic
            told[topic] = set(first.removesuffix(".").split(": ")[1].split(", "))
            assert told[topic] == named, topic
    assert told["workflow"] == {"edit_file", "multi_edit", "write_file"}
    assert told["tips"] == {"edit_file", "multi_edit", "write_file", "project_replace", "git"}
    assert told["write"] == {"write_file", "edit_file"}
    assert "Not registered on this server (read-only): edit_file, multi_edit, write_file.\n1." in texts["all"]
    assert "Not registered" not in whole  # a server with every tool notes none


async def test_topic_names_ignore_case_and_spaces(client: Client) -> None:
    result = structured(await client.call_tool("server_info", {"topic": " Recovery "}))
    assert result["topic"] == "recovery"


async def test_stats_count_calls_and_errors_by_code(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a", encoding="utf-8")
    await client.call_tool("read_file", {"path": "a.txt"})
    await client.call_tool("read_file", {"path": "missing"})
    await client.call_tool("get_file_info", {"path": "a.txt"})
    with pytest.raises(MCPError, match="Unknown tool"):
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


async def test_artifact_write_with_content_writes_that_content_not_the_text_held_before(
    client: Client, root: Path
) -> None:
    """write ignored the content sent with it and wrote whatever an earlier capture held."""
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "OLD\n"})
    arguments = {"action": "artifact", "sub_action": "write", "content": "NEW\n", "path": "n.md"}
    written = structured(await client.call_tool("server_info", arguments))["artifact"]
    assert written["path"] == str(root / "n.md")
    assert (root / "n.md").read_bytes() == b"NEW\n"


async def test_artifact_without_sub_action_does_what_content_and_path_say(client: Client, root: Path) -> None:
    """No sub_action was info: the content and path sent were dropped and nothing said so."""
    arguments = {"action": "artifact", "content": "# Notes\n", "path": "notes.md"}
    written = structured(await client.call_tool("server_info", arguments))["artifact"]
    assert written["path"] == str(root / "notes.md")
    assert (root / "notes.md").read_bytes() == b"# Notes\n"
    held = structured(await client.call_tool("server_info", {"action": "artifact", "content": "kept"}))["artifact"]
    assert held == {"captured": True, "bytes": 4, "lines": 1}
    assert sorted(p.name for p in root.iterdir()) == ["notes.md"]


@pytest.mark.parametrize(
    "extra",
    [
        {"sub_action": "info", "content": "x"},
        {"sub_action": "info", "path": "x.md"},
        {"sub_action": "capture", "content": "x", "path": "x.md"},
    ],
)
async def test_artifact_step_ignoring_an_argument_is_refused_naming_the_step_that_takes_it(
    client: Client, root: Path, extra: dict[str, str]
) -> None:
    result = await client.call_tool("server_info", {"action": "artifact", **extra})
    assert error_code(result) == "invalid_params"
    assert "sub_action='write'" in text_of(result)
    assert not (root / "x.md").exists()


async def test_artifact_write_before_capture_is_invalid(client: Client, root: Path) -> None:
    result = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "x.md"})
    assert error_code(result) == "invalid_params"
    assert not (root / "x.md").exists()


async def test_artifact_write_creates_missing_parent_directories(client: Client, root: Path) -> None:
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x\n"})
    arguments = {"action": "artifact", "sub_action": "write", "path": "no/such/dir/x.md"}
    written = structured(await client.call_tool("server_info", arguments))["artifact"]
    assert written["path"] == str(root / "no" / "such" / "dir" / "x.md")
    assert (root / "no" / "such" / "dir" / "x.md").read_bytes() == b"x\n"


async def test_artifact_write_through_a_file_in_the_path_is_not_a_directory(client: Client, root: Path) -> None:
    (root / "plain.txt").write_bytes(b"keep")
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x"})
    arguments = {"action": "artifact", "sub_action": "write", "path": "plain.txt/x.md"}
    result = await client.call_tool("server_info", arguments)
    assert error_code(result) == "not_a_directory"
    assert (root / "plain.txt").read_bytes() == b"keep"


async def test_artifact_write_never_writes_into_git_internals(client: Client, root: Path) -> None:
    (root / ".git").mkdir()
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "#!/bin/sh\n"})
    arguments = {"action": "artifact", "sub_action": "write", "path": ".git/hooks/pre-commit"}
    result = await client.call_tool("server_info", arguments)
    assert error_code(result) == "access_denied"
    assert not (root / ".git" / "hooks").exists()


async def test_read_only_server_refuses_artifact_write(connect: ClientFactory, root: Path) -> None:
    async with connect(read_only=True) as client:
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x"})
        result = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "x.md"})
    assert error_code(result) == "read_only"
    assert not (root / "x.md").exists()
