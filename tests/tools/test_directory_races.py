"""A directory deleted to the trash or moved while another call (or another fsguard) is editing a file inside it.

Each path's lock is taken with shared locks on the directories above it, so delete_file and move_file of a
directory wait for an edit that is between reading the file and renaming its new bytes into place, and that
edit's bytes go wherever the directory goes. Before, the directory call did not wait: with the trash on another
filesystem the tree was copied, the edit landed in the original, and the original was then removed, so an
acknowledged edit was lost. Here the edit in flight is a thread holding the file's lock (as the edit would) with
the directory open, which writes the new bytes once told to; it runs in both protocol eras.

Last, a directory trashed across filesystems whose original cannot be removed whole (another program adds a
file meanwhile) names the trash entry holding its copy.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.core import removal, transfer
from fsguard.core.errors import FsguardError
from fsguard.server import build_server
from tests.conftest import ClientFactory, Mount, structured, text_of

pytestmark = pytest.mark.anyio

WAIT_S = 30.0
EDITED = b"edited while the directory call waited\n"


@contextmanager
def edit_in_flight(locks: Any, directory: Path, name: str) -> Iterator[threading.Event]:
    """A thread holding the lock of ``directory/name`` with the directory open; setting the event it yields makes
    it write EDITED there (through the open directory, as a rename in a pinned directory does) and let go."""
    holding, finish = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def edit() -> None:
        with locks.hold(directory / name):
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
            try:
                holding.set()
                finish.wait(WAIT_S)
                written = os.open(name, os.O_WRONLY | os.O_TRUNC, dir_fd=fd)
                try:
                    os.write(written, EDITED)
                finally:
                    os.close(written)
            except BaseException as exc:
                failures.append(exc)
            finally:
                os.close(fd)

    thread = threading.Thread(target=edit, name="edit-in-flight", daemon=True)
    thread.start()
    try:
        assert holding.wait(WAIT_S)
        yield finish
    finally:
        finish.set()
        thread.join(WAIT_S)
    assert not thread.is_alive()
    assert not failures, f"the edit in flight failed: {failures[0]!r}"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("delete_file", {"path": "d", "recursive": True}),
        ("move_file", {"source_path": "d", "dest_path": "moved"}),
    ],
    ids=["delete-to-trash", "move"],
)
async def test_a_directory_call_waits_for_an_edit_inside_it_and_the_edited_bytes_go_with_the_directory(
    base_settings: Settings, root: Path, state_dir: Path, mode: str, tool: str, arguments: dict[str, Any]
) -> None:
    for name in ("d", "other"):
        (root / name).mkdir()
        (root / name / "f.txt").write_bytes(b"before\n")
    server = build_server(base_settings)
    results: dict[str, CallToolResult] = {}
    directory_done = anyio.Event()

    async def call(peer: Client) -> None:
        results["directory"] = await peer.call_tool(tool, arguments)
        directory_done.set()

    with anyio.fail_after(WAIT_S):
        async with Client(server, mode=mode) as peer:
            with edit_in_flight(server.services.locks, root / "d", "f.txt") as finish:
                async with anyio.create_task_group() as group:
                    group.start_soon(call, peer)
                    # The same call on a directory nobody edits finishes meanwhile: the first one had its chance.
                    unrelated: dict[str, Any] = {**arguments, "path": "other"}
                    if tool == "move_file":
                        unrelated = {"source_path": "other", "dest_path": "other-moved"}
                    structured(await peer.call_tool(tool, unrelated))
                    for _ in range(5):  # and a few calls more, each a turn for it to finish if it does not wait
                        structured(await peer.call_tool("list_directory", {"path": "."}))
                    finished_early = directory_done.is_set()
                    finish.set()  # before asserting: the waiting call must not keep the task group open
                    assert not finished_early, f"{tool} of the directory finished while an edit inside was in flight"
            structured(results["directory"])

    assert not (root / "d").exists()
    if tool == "move_file":
        assert (root / "moved" / "f.txt").read_bytes() == EDITED
    else:
        [home] = [
            meta.parent
            for meta in (state_dir / "trash").glob("*/meta.json")
            if json.loads(meta.read_text(encoding="utf-8"))["original_path"] == str(root / "d")
        ]
        assert (home / "item" / "f.txt").read_bytes() == EDITED


async def test_a_directory_trashed_across_filesystems_whose_original_cannot_all_be_removed_names_its_trash_entry(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Another program put a file into the directory while it was being removed (rmtree: "Directory not empty").
    # The copy is whole in the trash and stays; the error used to be a bare "I/O error on d", which reads as if
    # nothing had happened, though most of the directory was gone from the project.
    mount_tmpfs(state_dir, "4m")
    (root / "d").mkdir()
    for name in ("a.txt", "b.txt"):
        (root / "d" / name).write_bytes(b"kept\n")
    real_remove = removal.remove

    def remove_partly(entry: Any, **options: Any) -> None:
        if entry.path != root / "d":
            real_remove(entry, **options)
            return
        (root / "d" / "a.txt").unlink()
        raise FsguardError(f"I/O error on {entry.path}: Directory not empty.")

    monkeypatch.setattr(transfer, "remove", remove_partly)
    async with connect() as client:
        result = await client.call_tool("delete_file", {"path": "d", "recursive": True})
        [entry] = structured(await client.call_tool("backup", {"action": "list_trash"}))["trash"]
    assert result.is_error
    assert entry["sd_id"] in text_of(result)
    assert "still at" in text_of(result)
    assert sorted(p.name for p in (root / "d").iterdir()) == ["b.txt"]
    item = state_dir / "trash" / entry["sd_id"] / "item"
    assert sorted(p.name for p in item.iterdir()) == ["a.txt", "b.txt"]


async def test_a_directory_copy_waits_for_an_edit_inside_it_and_copies_neither_its_temp_file_nor_the_old_bytes(
    base_settings: Settings, root: Path, mode: str
) -> None:
    # copy_file locked only its destination: a tree copied while another fsguard's edit of a file inside had its
    # new bytes in a temp file beside it copied that temp file too (counted in files_copied), a stray
    # ".fsguard-tmp-…" in the copy no start-up sweep knows of (two servers, 4 rounds in 400).
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_bytes(b"before\n")
    server = build_server(base_settings)
    locks = server.services.locks
    holding, finish = threading.Event(), threading.Event()

    def edit() -> None:  # an edit in flight: its lock held, its new bytes in a temp file, renamed once told to
        with locks.hold(root / "d" / "f.txt"):
            temp = root / "d" / ".fsguard-tmp-0123456789abcdef0123456789abcdef"
            temp.write_bytes(EDITED)
            holding.set()
            finish.wait(WAIT_S)
            temp.replace(root / "d" / "f.txt")

    results: dict[str, CallToolResult] = {}
    copy_done = anyio.Event()

    async def copy(peer: Client) -> None:
        results["copy"] = await peer.call_tool("copy_file", {"source_path": "d", "dest_path": "copied"})
        copy_done.set()

    thread = threading.Thread(target=edit, name="edit-in-flight", daemon=True)
    thread.start()
    try:
        with anyio.fail_after(WAIT_S):
            assert holding.wait(WAIT_S)
            async with Client(server, mode=mode) as peer, anyio.create_task_group() as group:
                group.start_soon(copy, peer)
                for _ in range(5):  # a few turns for the copy to finish if it does not wait
                    structured(await peer.call_tool("list_directory", {"path": "."}))
                finished_early = copy_done.is_set()
                finish.set()
                assert not finished_early, "copy_file of the directory finished while an edit inside was in flight"
    finally:
        finish.set()
        thread.join(WAIT_S)
    assert structured(results["copy"])["files_copied"] == 1
    assert sorted(p.name for p in (root / "copied").iterdir()) == ["f.txt"]
    assert (root / "copied" / "f.txt").read_bytes() == EDITED
    assert sorted(p.name for p in (root / "d").iterdir()) == ["f.txt"]
