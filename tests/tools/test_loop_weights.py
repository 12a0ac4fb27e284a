"""A stdio server reads on its event loop, except what is megabytes to read: that goes to a worker thread, so the
server still answers meanwhile (a ping, tools/list, the cancellation of that very read)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from fsguard.core.metadata import MetadataReader
from fsguard.core.reading import FileReader
from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio

BIG = b"".join(b"%07d some text on a line\n" % number for number in range(64_000))  # 2 MiB


class Held:
    """Holds each call of a method made off the event loop until released; notes the calls made on it."""

    def __init__(self) -> None:
        self.entered, self.release = threading.Event(), threading.Event()
        self.on_loop: list[str] = []

    def wrap(self, original: Any, name: str) -> Any:
        def held(*args: Any, **kwargs: Any) -> Any:
            try:
                asyncio.get_running_loop()
            except RuntimeError:  # a worker thread
                self.entered.set()
                self.release.wait(10)
            else:  # the test's own loop: never blocked here, or nothing could fail
                self.on_loop.append(name)
            return original(*args, **kwargs)

        return held


async def _answers_while_held(client: Client, held: Held, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}

    async def call() -> None:
        found["result"] = await client.call_tool(tool, arguments)

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        with anyio.fail_after(10):
            reached = await anyio.to_thread.run_sync(held.entered.wait, 5)
            assert reached, f"{tool} ran on the event loop: {held.on_loop}"
            assert (await client.list_tools()).tools  # answered while the read is held on its thread
            held.release.set()
    held.entered.clear()
    held.release.clear()
    return structured(found["result"])


async def test_a_whole_read_of_megabytes_runs_on_a_thread_and_the_server_answers_meanwhile(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "big.log").write_bytes(BIG)
    (root / "small.txt").write_bytes(b"one\n")
    held = Held()
    monkeypatch.setattr(FileReader, "read_one", held.wrap(FileReader.read_one, "read_file"))
    async with connect(transport="stdio") as client:
        read = await _answers_while_held(client, held, "read_file", {"path": "big.log"})
        assert (read["size"], read["total_lines"]) == (len(BIG), 64_000)  # its content cut at the response budget
        assert BIG.startswith(read["content"].encode())
        small = structured(await client.call_tool("read_file", {"path": "small.txt"}))
        assert small["content"] == "one\n"
        assert held.on_loop == ["read_file"]  # a small read stays on the loop: a thread hop costs more than it


async def test_a_tail_of_a_file_above_the_limit_stays_on_the_loop_and_info_of_a_big_file_does_not(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "big.log").write_bytes(BIG)
    held = Held()
    monkeypatch.setattr(FileReader, "read_one", held.wrap(FileReader.read_one, "read_file"))
    monkeypatch.setattr(MetadataReader, "describe", held.wrap(MetadataReader.describe, "get_file_info"))
    async with connect(transport="stdio", max_file_size=1 << 20) as client:
        tail = structured(await client.call_tool("read_file", {"path": "big.log", "mode": "tail", "max_lines": 2}))
        assert tail["content"] == "0063998 some text on a line\n0063999 some text on a line\n"
        assert held.on_loop == ["read_file"]  # streamed: a few pieces read from the end
        info = await _answers_while_held(client, held, "get_file_info", {"path": "big.log"})
        assert info["size"] == len(BIG)
