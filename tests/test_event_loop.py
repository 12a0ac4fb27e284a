"""Where calls run: quick reads and a stdio server's edits on the event loop (no worker-thread hand-off; only an
edit's temp file is written by a filler thread, while the call backs up); an HTTP server's edits on worker
threads, so a write waiting on the disk never holds up another client's call."""

from __future__ import annotations

import dataclasses
import os
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from fsguard.config import Settings, Transport
from fsguard.server import build_server
from tests.conftest import structured

pytestmark = pytest.mark.anyio
WAIT_S = 30


@pytest.fixture
def fsync_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real = os.fsync

    def fsync(fd: Any) -> None:
        names.append(threading.current_thread().name)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return names


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_stdio_server_edits_on_its_event_loop_and_an_http_server_on_worker_threads(
    base_settings: Settings, root: Path, mode: str, transport: Transport, fsync_threads: list[str]
) -> None:
    (root / "f.txt").write_text("old\n", encoding="utf-8")
    server = build_server(dataclasses.replace(base_settings, transport=transport))
    async with Client(server, mode=mode) as client:
        loop_thread = threading.current_thread().name
        fsync_threads.clear()
        await client.call_tool("edit_file", {"path": "f.txt", "old_text": "old", "new_text": "new"})
    assert (root / "f.txt").read_text(encoding="utf-8") == "new\n"
    assert len(fsync_threads) == 3
    # The temp file is written and fsynced by a filler thread while the call's own thread backs up.
    fillers = [name for name in fsync_threads if name.startswith("fsguard-fill")]
    callers = [name for name in fsync_threads if not name.startswith("fsguard-fill")]
    assert len(fillers) == 1
    assert {name == loop_thread for name in callers} == {transport == "stdio"}


async def test_a_write_paused_on_the_disk_does_not_hold_up_another_clients_read_over_http(
    base_settings: Settings, root: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "slow.txt").write_text("old\n", encoding="utf-8")
    (root / "other.txt").write_text("other\n", encoding="utf-8")
    paused, go = threading.Event(), threading.Event()
    real = os.fsync

    def slow_fsync(fd: Any) -> None:
        if not paused.is_set():
            paused.set()
            go.wait(timeout=WAIT_S)  # the disk takes its time
        real(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    server = build_server(dataclasses.replace(base_settings, transport="http"))
    written: list[Any] = []

    async def write(peer: Client) -> None:
        written.append(await peer.call_tool("write_file", {"path": "slow.txt", "content": "new\n"}))

    with anyio.fail_after(WAIT_S):
        async with (
            Client(server, mode=mode) as writer,
            Client(server, mode=mode) as reader,
            anyio.create_task_group() as group,
        ):
            group.start_soon(write, writer)
            try:
                assert await anyio.to_thread.run_sync(paused.wait, WAIT_S)
                read = await reader.call_tool("read_file", {"path": "other.txt"})
                assert structured(read)["content"] == "other\n"
                assert not written  # the write is still waiting on the disk: the read went past it
            finally:
                go.set()
    assert not written[0].is_error
    assert (root / "slow.txt").read_text(encoding="utf-8") == "new\n"
