"""A purge of the trash and a cleanup of old backups report their progress to a client that passes a progress token,
and a purge cancelled partway stops there: the entries it had not reached stay listed, and restorable byte for byte."""

from __future__ import annotations

import asyncio
from contextlib import suppress
from pathlib import Path

import anyio
import pytest
from mcp import Client

import fsguard.core.trash
from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio

PURGE = {"action": "purge_trash", "dry_run": False, "force": True, "older_than_days": 0}


def until_cancelled() -> None:
    """Return once the call this worker thread runs is cancelled, the event loop running between the checks (it
    delivers the client's cancellation)."""
    with suppress(asyncio.CancelledError):
        while True:
            anyio.from_thread.check_cancelled()
            anyio.from_thread.run(anyio.lowlevel.checkpoint)


async def test_a_purge_of_the_trash_reports_its_progress_entry_by_entry_and_inside_a_tree(
    client: Client, root: Path
) -> None:
    (root / "tree").mkdir()
    for i in range(250):
        (root / "tree" / f"{i}.txt").write_bytes(b"x")
    for i in range(3):
        (root / f"f{i}.txt").write_bytes(b"y")
    await client.call_tool("delete_file", {"paths": ["f0.txt", "f1.txt", "f2.txt"]})
    await client.call_tool("delete_file", {"path": "tree", "recursive": True})
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    purged = structured(await client.call_tool("backup", PURGE, progress_callback=on_progress))
    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
    assert (purged["removed"], listed["total"]) == (4, 0)
    assert seen[-1] == (253, 253)  # files: the tree's 250 and three more
    assert (100, 253) in seen  # the newest entry, the tree, reported as it goes
    assert [p for p, _ in seen] == sorted({p for p, _ in seen})  # each report further than the last


async def test_a_purge_cancelled_partway_leaves_the_entries_it_had_not_reached_listed_and_restorable(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    contents = {f"f{i}.txt": f"file {i}\n".encode() * (i + 1) for i in range(6)}
    for name, data in contents.items():
        (root / name).write_bytes(data)
    remove_item = fsguard.core.trash._remove_item
    removals: list[int] = []

    def held_until_cancelled(fd: int, *args: object) -> None:
        # The client cancels at the first report, sent once the first entry is gone: the purge waits for that
        # cancellation at its second entry's removal, so the cancellation always reaches it there.
        removals.append(fd)
        if len(removals) == 2:
            until_cancelled()
        remove_item(fd, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(fsguard.core.trash, "_remove_item", held_until_cancelled)
    async with connect() as client:
        for name in contents:  # one call each, f5 the newest: the purge goes newest first
            await client.call_tool("delete_file", {"path": name})
        with anyio.fail_after(30), anyio.CancelScope() as scope:

            async def cancel_on_first_report(progress: float, total: float | None, message: str | None) -> None:
                scope.cancel()

            await client.call_tool("backup", PURGE, progress_callback=cancel_on_first_report)
        assert scope.cancelled_caught
    # A new server, once the cancelled call's thread ended with the first one's
    async with connect() as client:
        listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
        for entry in listed["trash"]:
            structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": entry["sd_id"]}))
    assert sorted(Path(entry["original_path"]).name for entry in listed["trash"]) == [f"f{i}.txt" for i in range(4)]
    assert {name: (root / name).read_bytes() for name in contents if (root / name).exists()} == {
        name: contents[name] for name in ("f0.txt", "f1.txt", "f2.txt", "f3.txt")
    }
    assert len(removals) == 2  # f5, and f4 the cancellation reached


async def test_a_cleanup_of_old_backups_reports_its_progress_file_by_file(client: Client, root: Path) -> None:
    for i in range(3):
        (root / f"f{i}.txt").write_bytes(b"old\n")
        await client.call_tool("edit_file", {"path": f"f{i}.txt", "old_text": "old", "new_text": "new"})
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    cleanup = {"action": "cleanup", "older_than_days": 0, "dry_run": False}
    cleaned = structured(await client.call_tool("backup", cleanup, progress_callback=on_progress))
    listed = structured(await client.call_tool("backup", {"action": "list"}))
    assert (cleaned["removed"], listed["total"]) == (3, 0)
    assert seen == [(1, 3), (2, 3), (3, 3)]
    assert all((root / f"f{i}.txt").read_bytes() == b"new\n" for i in range(3))
