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
