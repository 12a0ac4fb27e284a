"""An ignore file that is not a regular file (a FIFO rg would wait on for ever, a link to a device it would read
without end, a socket, a directory) never holds search_files or project_replace: each answers without the client
cancelling, reading that file as no rules, as list_directory and the Python walk do. In both eras."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio

BOUND_S = 30  # a bound on a call that hangs on the old code, not a timing assertion
FOUND = ["a.txt", "other/d.txt", "sub/b.txt", "sub/c.log"]  # other/e.log is left out by other/.gitignore


@pytest.fixture
def tree(root: Path) -> Path:
    """Files holding ``old`` beside the ignore file each test makes; ``other/.gitignore`` is a regular one."""
    for name in ["a.txt", "sub/b.txt", "sub/c.log", "other/d.txt", "other/e.log"]:
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_bytes(b"old\n")
    (root / "other" / ".gitignore").write_bytes(b"*.log\n")
    return root


def _fifo(path: Path) -> Iterator[None]:
    os.mkfifo(path)
    yield
    assert stat.S_ISFIFO(os.lstat(path).st_mode)  # still the FIFO: never opened for writing, never replaced


def _device(path: Path) -> Iterator[None]:
    path.symlink_to("/dev/zero")  # rg would read it without end
    yield


def _socket(path: Path) -> Iterator[None]:
    with socket.socket(socket.AF_UNIX) as bound:
        bound.bind(str(path))
        yield


def _directory(path: Path) -> Iterator[None]:
    path.mkdir()
    (path / "x").write_bytes(b"*.txt\n")  # never read as rules
    yield


MAKERS: dict[str, Callable[[Path], Iterator[None]]] = {
    "fifo": _fifo,
    "device": _device,
    "socket": _socket,
    "directory": _directory,
}
FIFOS = [".gitignore", "sub/.gitignore", "sub/.ignore", ".rgignore"]


@pytest.fixture(params=FIFOS)
def fifo(request: pytest.FixtureRequest, tree: Path) -> Iterator[Path]:
    """A FIFO under an ignore file's name, at the top of the tree or in a subdirectory."""
    path = tree / request.param
    for _ in _fifo(path):
        yield path


@pytest.fixture(params=MAKERS.keys())
def special(request: pytest.FixtureRequest, tree: Path) -> Iterator[None]:
    """``sub/.gitignore`` as each kind of file that is not a regular one."""
    yield from MAKERS[request.param](tree / "sub" / ".gitignore")


def _relative(root: Path, files: list[str]) -> list[str]:
    return [Path(file).relative_to(root).as_posix() for file in files]


async def _call(client: Client, tool: str, arguments: dict[str, object]) -> dict[str, Any]:
    with anyio.fail_after(BOUND_S):
        return structured(await client.call_tool(tool, arguments))


async def test_a_content_search_beside_a_fifo_ignore_file_finds_the_other_files(
    client: Client, tree: Path, fifo: Path
) -> None:
    found = await _call(client, "search_files", {"pattern": "old", "include_content": True})
    assert (found["mode"], found["total_matches"]) == ("content", 4)
    assert _relative(tree, [match["file"] for match in found["matches"]]) == FOUND


async def test_a_content_search_beside_a_gitignore_that_is_no_regular_file_reads_it_as_no_rules(
    client: Client, tree: Path, special: None
) -> None:
    found = await _call(client, "search_files", {"pattern": "old", "include_content": True})
    assert _relative(tree, found["files"]) == FOUND


async def test_a_name_search_beside_a_fifo_ignore_file_lists_the_other_files(
    client: Client, tree: Path, fifo: Path
) -> None:
    for _ in range(2):  # the first search of a tree looks for its skips before rg starts, a later one while it runs
        found = await _call(client, "search_files", {"pattern": "*"})
        assert (found["mode"], _relative(tree, found["files"])) == ("filename", FOUND)


async def test_a_name_search_taking_dependencies_in_beside_a_fifo_ignore_file_lists_the_other_files(
    client: Client, tree: Path, fifo: Path
) -> None:
    found = await _call(client, "search_files", {"pattern": "*", "include_dependencies": True})
    assert _relative(tree, found["files"]) == FOUND


async def test_a_count_beside_a_fifo_ignore_file_counts_the_other_files(client: Client, tree: Path, fifo: Path) -> None:
    found = await _call(client, "search_files", {"pattern": "old", "count_only": True})
    assert found["mode"] == "count"
    assert found["counts"] == {str(tree / name): 1 for name in FOUND}


async def test_a_project_replace_preview_beside_a_fifo_ignore_file_plans_the_other_files(
    client: Client, tree: Path, fifo: Path
) -> None:
    found = await _call(client, "project_replace", {"find": "old", "replace": "new", "preview": True})
    assert _relative(tree, [change["path"] for change in found["files"]]) == FOUND
    assert {(tree / name).read_bytes() for name in [*FOUND, "other/e.log"]} == {b"old\n"}


async def test_a_project_replace_beside_a_fifo_ignore_file_changes_the_other_files_and_leaves_the_fifo(
    client: Client, tree: Path, fifo: Path
) -> None:
    done = await _call(client, "project_replace", {"find": "old", "replace": "new"})
    assert (done["status"], done["files_changed"]) == ("applied", 4)
    assert {name: (tree / name).read_bytes() for name in [*FOUND, "other/e.log"]} == {
        **dict.fromkeys(FOUND, b"new\n"),
        "other/e.log": b"old\n",
    }


@pytest.mark.parametrize("include_content", [True, False])
async def test_a_search_below_a_root_whose_gitignore_is_a_fifo_finds_the_files_below(
    client: Client, tree: Path, include_content: bool
) -> None:
    os.mkfifo(tree / ".gitignore")  # rg walks from the root down, reading its .gitignore on the way
    pattern = "old" if include_content else "*"
    found = await _call(client, "search_files", {"pattern": pattern, "path": "sub", "include_content": include_content})
    assert _relative(tree, found["files"]) == ["sub/b.txt", "sub/c.log"]


async def test_a_project_replace_below_the_root_beside_a_fifo_gitignore_a_negation_lets_rg_reach_changes_those_below(
    client: Client, tree: Path
) -> None:
    (tree / ".gitignore").write_bytes(b"!beside/\n")  # rg's walk narrowed to sub gives way to it, and enters beside
    (tree / "beside").mkdir()
    os.mkfifo(tree / "beside" / ".gitignore")
    planned = await _call(client, "project_replace", {"find": "old", "replace": "new", "path": "sub", "preview": True})
    assert _relative(tree, [change["path"] for change in planned["files"]]) == ["sub/b.txt", "sub/c.log"]
    done = await _call(client, "project_replace", {"find": "old", "replace": "new", "path": "sub"})
    assert (done["status"], done["files_changed"]) == ("applied", 2)
    assert {name: (tree / name).read_bytes() for name in ["a.txt", "sub/b.txt", "sub/c.log", "other/d.txt"]} == {
        "a.txt": b"old\n",
        "sub/b.txt": b"new\n",
        "sub/c.log": b"new\n",
        "other/d.txt": b"old\n",
    }
    found = await _call(client, "search_files", {"pattern": "new", "path": "sub", "count_only": True})
    assert found["counts"] == {str(tree / "sub" / "b.txt"): 1, str(tree / "sub" / "c.log"): 1}
