"""One id for a multi-file change: backup(action=info|compare|restore) expand a group id to every file it changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

ORIGINALS = {
    "a.txt": b"alpha TODO\n",
    "sub/b.txt": b"beta TODO\r\ngamma TODO\r\n",
    "sub/deep/c.md": "\ufeffdelta TODO — ünïcode\n".encode(),
}


@pytest.fixture
def project(root: Path) -> Path:
    for name, data in ORIGINALS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "untouched.txt").write_bytes(b"nothing to replace\n")
    return root


def on_disk(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in ORIGINALS}


async def test_restoring_a_project_replace_group_id_restores_every_file_it_changed(
    client: Client, project: Path
) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    assert applied["files_changed"] == 3
    changed = on_disk(project)
    assert all(b"TODO" not in data for data in changed.values())
    assert changed["sub/b.txt"] == b"beta DONE\r\ngamma DONE\r\n"

    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]}))

    assert on_disk(project) == ORIGINALS
    assert (project / "untouched.txt").read_bytes() == b"nothing to replace\n"
    assert sorted(r["path"] for r in restored["reverted"]) == sorted(str(project / n) for n in ORIGINALS)
    assert {r["status"] for r in restored["reverted"]} == {"reverted"}


async def test_a_group_restore_is_itself_undoable_file_by_file(client: Client, project: Path) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]}))
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "sub/b.txt"}))
    assert (project / "sub/b.txt").read_bytes() == b"beta DONE\r\ngamma DONE\r\n"
    assert (project / "a.txt").read_bytes() == ORIGINALS["a.txt"]


async def test_group_info_and_compare_list_every_file(client: Client, project: Path) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    info = structured(await client.call_tool("backup", {"action": "info", "backup_id": applied["backup_id"]}))
    group = info["group"]
    assert group["operation"] == "project_replace"
    assert sorted(group["files"]) == sorted(str(project / n) for n in ORIGINALS)
    assert {c["kind"] for c in group["changes"]} == {"modified"}
    assert all(c["backup_id"] for c in group["changes"])

    compared = await client.call_tool("backup", {"action": "compare", "backup_id": applied["backup_id"]})
    diff = structured(compared)["diff"]
    assert diff.count("-alpha TODO") == 1
    assert "+alpha DONE" in diff
    assert "gamma DONE" in diff
    assert applied["backup_id"] in text_of(compared)


async def test_a_group_restore_with_a_file_changed_since_reverts_nothing_unless_forced(
    client: Client, project: Path
) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    (project / "a.txt").write_bytes(b"edited by someone else\n")
    after_replace = on_disk(project)

    refused = await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]})
    assert error_code(refused) == "undo_conflict"
    assert "a.txt" in text_of(refused)
    assert on_disk(project) == after_replace

    dry = structured(
        await client.call_tool(
            "backup", {"action": "restore", "backup_id": applied["backup_id"], "force": True, "dry_run": True}
        )
    )
    assert dry["dry_run"] is True
    assert on_disk(project) == after_replace

    structured(
        await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"], "force": True})
    )
    assert on_disk(project) == ORIGINALS
    # the bytes the forced restore replaced are not lost: one undo brings them back
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert (project / "a.txt").read_bytes() == b"edited by someone else\n"


async def test_a_group_restore_refuses_file_path_and_names_the_whole_group(client: Client, project: Path) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    refused = await client.call_tool(
        "backup", {"action": "restore", "backup_id": applied["backup_id"], "file_path": "a.txt"}
    )
    assert error_code(refused) == "invalid_params"
    assert b"DONE" in (project / "a.txt").read_bytes()


async def test_an_unknown_id_of_the_right_shape_is_not_found(client: Client, project: Path) -> None:
    result = await client.call_tool("backup", {"action": "restore", "backup_id": "20261201-000000-0123456789abcdef"})
    assert error_code(result) == "not_found"
