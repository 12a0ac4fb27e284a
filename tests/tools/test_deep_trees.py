"""A directory nested deeper than Python's recursion limit inside a root is walked like any other."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fsguard.core.rmtree import remove_tree
from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio


def _nest(root: Path, top: str) -> Path:
    """root/<top>/d/d/…/d/needle.txt, more levels than Python has frames (paths stay under PATH_MAX)."""
    parent = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    name = top
    for _ in range(sys.getrecursionlimit() + 100):
        os.mkdir(name, dir_fd=parent)
        inner = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=parent)
        os.close(parent)
        parent, name = inner, "d"
    fd = os.open("needle.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=parent)
    os.write(fd, b"needle\n")
    os.close(fd)
    os.close(parent)
    return root / top


@pytest.fixture
def deep(root: Path, tmp_path: Path) -> Iterator[Path]:
    yield _nest(root, "deep")
    # pytest's removal of old temp dirs recurses once a level and would fail on this tree (in the root, or in the
    # trash of the state dir) at a later session: it goes now, by fd, as the server removes trees.
    with os.scandir(tmp_path) as entries:
        names = [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
    parent = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            remove_tree(parent, name)
    finally:
        os.close(parent)


@pytest.mark.parametrize(
    ("tool", "args", "field"),
    [
        ("search_files", {"pattern": "needle", "path": ".", "include_content": True}, "total_matches"),
        ("search_files", {"pattern": "needle", "path": "."}, "total_matches"),
        ("project_replace", {"find": "needle", "replace": "pin", "path": ".", "preview": True}, "files_changed"),
        ("copy_file", {"source_path": "deep", "dest_path": "copy"}, "files_copied"),
    ],
)
async def test_a_tree_deeper_than_the_recursion_limit_is_searched_replaced_and_copied(
    connect: ClientFactory, deep: Path, tool: str, args: dict[str, object], field: str
) -> None:
    async with connect() as client:
        assert structured(await client.call_tool(tool, args))[field] == 1


async def test_a_tree_deeper_than_the_recursion_limit_is_analyzed_and_trashed(
    connect: ClientFactory, deep: Path
) -> None:
    async with connect() as client:
        analysis = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "deep"}))
        assert "1 file, 7 bytes" in analysis["risk_factors"]
        structured(await client.call_tool("delete_file", {"path": "deep", "recursive": True}))
    assert not deep.exists()


async def test_a_tree_deeper_than_the_recursion_limit_is_deleted_permanently_and_purged_from_the_trash(
    connect: ClientFactory, root: Path, deep: Path
) -> None:
    _nest(root, "twin")
    async with connect() as client:
        structured(await client.call_tool("delete_file", {"path": "deep", "recursive": True, "permanent": True}))
        trashed = structured(await client.call_tool("delete_file", {"path": "twin", "recursive": True}))
        purge = {"action": "purge_trash", "sd_id": trashed["results"][0]["sd_id"], "dry_run": False, "force": True}
        structured(await client.call_tool("backup", purge))
        trash = structured(await client.call_tool("backup", {"action": "list_trash"}))
    assert list(root.iterdir()) == []
    assert trash.get("trash", []) == []
