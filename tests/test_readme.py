"""README.md against the code: the flag table, the tool reference and the error codes name what exists, all of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from mcp import Client

from fsguard.cli import parser
from fsguard.config import Settings
from fsguard.core import errors
from fsguard.server import build_server

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def section(start: str, end: str) -> str:
    """The README's text from the heading ``start`` to the next ``end`` heading."""
    return README.split(start, 1)[1].split(end, 1)[0]


def test_the_command_line_table_and_synopsis_name_every_flag_and_only_those() -> None:
    text = section("\n## Command line\n", "\n## ")
    synopsis, table = text.split("```")[1], text.split("```")[2]
    rows = {flag for line in table.splitlines() if line.startswith("| `") for flag in re.findall(r"`(--[a-z-]+)", line)}
    shown = set(re.findall(r"[\[|] ?(--[a-z-]+)", synopsis))
    flags = {option for action in parser()._actions for option in action.option_strings if option.startswith("--")}
    flags.discard("--help")
    assert rows == flags
    assert shown == flags


def test_every_error_code_is_in_the_readme_list() -> None:
    listed = set(re.findall(r"`([a-z_]+)`", README.split("Error codes this release produces:", 1)[1].split("\n\n")[0]))
    codes = {
        value.code
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, errors.FsguardError)
    }
    assert codes <= listed


@pytest.mark.anyio
async def test_every_tool_has_a_row_and_a_reference_section(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    async with Client(build_server(Settings(roots=(root,), state_dir=tmp_path / "state"))) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
    rows = set(re.findall(r"^\| `(\w+)` \|", section("\n## Tools\n", "\n### "), re.M))
    sections = set(re.findall(r"^#### `(\w+)`$", section("\n### Tool reference\n", "\n### Parameters"), re.M))
    assert rows == names
    assert sections == names


def properties(schema: object, defs: dict[str, object]) -> set[str]:
    """Every property name anywhere in ``schema``, its ``$ref``s followed."""
    if isinstance(schema, list):
        return set().union(*(properties(item, defs) for item in schema))
    if not isinstance(schema, dict):
        return set()
    found = set(schema.get("properties", {}))
    ref = schema.get("$ref")
    if isinstance(ref, str):
        found |= properties(defs.get(ref.rsplit("/", 1)[-1], {}), {k: v for k, v in defs.items() if k not in ref})
    return found | set().union(*(properties(value, defs) for key, value in schema.items() if key != "$defs"))


# Names a "Structured result" line gives that are no field: project_replace's "(each with `_paths`)", and multi_edit
# naming edit_file's `replacements` as one it lacks.
NOT_FIELDS = {"paths", "replacements"}


@pytest.mark.anyio
async def test_every_field_a_structured_result_line_names_is_in_that_tools_output_schema(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    async with Client(build_server(Settings(roots=(root,), state_dir=tmp_path / "state"))) as client:
        schemas = {tool.name: tool.output_schema or {} for tool in (await client.list_tools()).tools}
    reference = section("\n### Tool reference\n", "\n### Parameters")
    for name, text in re.findall(r"^#### `(\w+)`\n(.*?)(?=^#### |\Z)", reference, re.M | re.S):
        lines = re.search(r"^Structured result[^:]*:(.*?)(?:\n\n|\Z)", text, re.M | re.S)
        assert lines, f"{name}: no Structured result line"
        # `files[{path, status}]` names three fields; `read_only: true` one; `--read-only` none
        chunks = [re.sub(r":[^,{}\[\]]*", "", c) for c in re.findall(r"`([^`]*)`", lines[1]) if not c.startswith("-")]
        named = set(re.findall(r"[a-z][a-z_]*", " ".join(chunks))) - NOT_FIELDS
        schema = schemas[name]
        assert named <= properties(schema, schema.get("$defs", {})), name
