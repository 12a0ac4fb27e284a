"""Edges where the ripgrep and Python engines once answered differently, through the tools in both eras and with
both engines: a search of one file whose name ends in whitespace."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio

# rg reads a --glob as a .gitignore line, whose trailing whitespace it drops: Rust's whitespace, NBSP included.
ENDINGS = ["y ", "nb\u00a0", "em\u2003", "t\t", "c\r", "n\n"]


def files_of(found: dict[str, object], root: Path) -> list[str]:
    listed = found["files"]
    assert isinstance(listed, list)
    paths = [entry["path"] if isinstance(entry, dict) else entry for entry in listed]
    return sorted(Path(str(path)).relative_to(root).as_posix() for path in paths)


@pytest.mark.parametrize("name", ENDINGS, ids=repr)
async def test_a_search_of_one_file_whose_name_ends_in_whitespace_finds_its_matches(
    client: Client, root: Path, tool_engine: str, name: str
) -> None:
    (root / name).write_bytes(b"needle\n")
    (root / name.rstrip()).write_bytes(b"other\n")  # the name rg searched instead
    (root / "link").symlink_to(name)
    # A path argument may not hold a control character: such a name is reached through the link.
    paths = ["link"] if name[-1] < " " else [name, "link"]
    for path in paths:
        found = structured(
            await client.call_tool("search_files", {"path": path, "pattern": "needle", "include_content": True})
        )
        assert (files_of(found, root), found["total_matches"]) == ([name], 1), path
    replaced = structured(
        await client.call_tool("project_replace", {"path": "link", "find": "needle", "replace": "thread"})
    )
    assert files_of(replaced, root) == [name]
    assert (root / name).read_bytes() == b"thread\n"
