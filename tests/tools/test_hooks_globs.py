"""A hook's path glob judges the files a call reaches, not only the path it names: a folder deleted, moved or copied
takes the files inside with it, so a glob naming one of them keeps the folder where it is, in both eras."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_hooks import hook_config

pytestmark = pytest.mark.anyio

_DENY = "echo 'locks stay' >&2; exit 2"


def _denying(*events: str) -> dict[str, list[dict[str, Any]]]:
    return {event: [{"path": "**/*.lock", "hooks": [{"type": "command", "command": _DENY}]}] for event in events}


def _tree(root: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(root)): None if p.is_dir() else p.read_bytes() for p in sorted(root.rglob("*"))}


def _batch(*operations: dict[str, Any]) -> dict[str, str]:
    return {"request_json": json.dumps({"operations": list(operations)})}


_TREE_CALLS = [
    ("delete", "delete_file", {"path": "d", "recursive": True}),
    ("delete", "delete_file", {"path": "d", "recursive": True, "permanent": True}),
    ("move", "move_file", {"source_path": "d", "dest_path": "d2"}),
    ("copy", "copy_file", {"source_path": "d", "dest_path": "d2"}),
    ("move", "batch_operations", _batch({"type": "move", "source": "d", "destination": "d2"})),
    ("delete", "batch_operations", _batch({"type": "delete", "path": "d", "recursive": True})),
]


@pytest.mark.parametrize(("family", "tool", "arguments"), _TREE_CALLS)
async def test_a_path_glob_naming_a_file_inside_a_folder_keeps_the_folder_from_being_deleted_moved_or_copied(
    connect: ClientFactory, root: Path, tmp_path: Path, family: str, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "d" / "sub").mkdir(parents=True)
    (root / "d" / "sub" / "x.lock").write_bytes(b"LOCK\n")
    (root / "d" / "y.txt").write_bytes(b"y\n")
    before = _tree(root)
    async with connect(hooks_config=hook_config(tmp_path, _denying(f"pre-{family}"))) as client:
        result = await client.call_tool(tool, arguments)
    assert error_code(result) in ("hook_denied", "batch_failed")
    assert "x.lock" in text_of(result)
    assert "locks stay" in text_of(result)
    assert _tree(root) == before


async def test_a_path_glob_matching_nothing_in_a_folder_runs_no_hook_for_it(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    hooks = {"pre-delete": [{"path": "**/*.lock", "hooks": [{"type": "command", "command": f"touch {ran}"}]}]}
    (root / "d").mkdir()
    (root / "d" / "y.txt").write_bytes(b"y\n")
    async with connect(hooks_config=hook_config(tmp_path, hooks)) as client:
        structured(await client.call_tool("delete_file", {"path": "d", "recursive": True}))
    assert not (root / "d").exists()
    assert not ran.exists()


def _secret_tree(root: Path) -> None:
    (root / "secret").mkdir()
    (root / "secret" / "s.txt").write_bytes(b"SECRETDATA\n")
    (root / "open.txt").write_bytes(b"SECRETDATA\n")


_KEEP_OUT = [{"path": "secret/**", "hooks": [{"type": "command", "command": "echo 'secret folder' >&2; exit 2"}]}]


@pytest.mark.parametrize("event", ["pre-read", "pre-search"])
async def test_a_path_glob_keeps_the_files_it_names_out_of_a_content_search_of_their_parent(
    connect: ClientFactory, root: Path, tmp_path: Path, event: str
) -> None:
    _secret_tree(root)
    async with connect(hooks_config=hook_config(tmp_path, {event: _KEEP_OUT})) as client:
        found = structured(await client.call_tool("search_files", {"pattern": "SECRETDATA", "include_content": True}))
        counted = structured(await client.call_tool("search_files", {"pattern": "SECRETDATA", "count_only": True}))
    assert [match["file"] for match in found["matches"]] == [str(root / "open.txt")]
    assert found["total_matches"] == 1
    assert found["skipped_by_hook_paths"] == ["secret/s.txt"]
    assert counted["counts"] == {str(root / "open.txt"): 1}
    assert counted["skipped_by_hook"] == 1


async def test_a_path_glob_keeps_the_names_it_matches_out_of_a_name_search_of_their_parent(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    _secret_tree(root)
    async with connect(hooks_config=hook_config(tmp_path, {"pre-search": _KEEP_OUT})) as client:
        found = structured(await client.call_tool("search_files", {"pattern": "*.txt"}))
    assert found["files"] == [str(root / "open.txt")]
    assert found["skipped_by_hook_paths"] == ["secret/s.txt"]


async def test_a_path_glob_keeps_the_files_it_names_out_of_a_pipeline_search_of_their_parent(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    _secret_tree(root)
    step = {"id": "s", "action": "search", "params": {"path": ".", "pattern": "SECRETDATA"}}
    async with connect(hooks_config=hook_config(tmp_path, {"pre-read": _KEEP_OUT})) as client:
        done = await client.call_tool("batch_operations", {"pipeline_json": json.dumps({"name": "p", "steps": [step]})})
    (searched,) = structured(done)["steps"]
    assert searched["files"] == [str(root / "open.txt")]
    assert searched["not_searched"]["skipped_by_hook_paths"] == ["secret/s.txt"]
    assert "secret/s.txt" not in text_of(done).split("Not searched")[0]


async def test_a_path_glob_matching_no_file_found_runs_no_hook_for_a_search(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    ran = tmp_path / "ran"
    hooks = {"pre-read": [{"path": "**/*.lock", "hooks": [{"type": "command", "command": f"touch {ran}"}]}]}
    _secret_tree(root)
    async with connect(hooks_config=hook_config(tmp_path, hooks)) as client:
        found = structured(await client.call_tool("search_files", {"pattern": "SECRETDATA", "include_content": True}))
    assert found["total_matches"] == 2
    assert not ran.exists()


async def test_a_path_glob_pre_read_hook_refuses_a_project_replace_preview_naming_a_file_it_keeps_out(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    _secret_tree(root)
    before = _tree(root)
    async with connect(hooks_config=hook_config(tmp_path, {"pre-read": _KEEP_OUT})) as client:
        refused = await client.call_tool("project_replace", {"find": "SECRETDATA", "replace": "x", "preview": True})
    assert error_code(refused) == "hook_denied"
    assert "secret/s.txt" in text_of(refused)
    assert _tree(root) == before
