"""stdio without worker threads: the SDK's messages over asyncio pipe streams.

The SDK's ``stdio_server()`` reads and writes through ``anyio.wrap_file`` (three worker-thread hops per
request), and relays every request through a reader task. When stdin and stdout are pipes, sockets or
terminals (what every client spawning a server gives it), asyncio watches them directly, and the SDK's
loop reads its requests from stdin itself. The SDK still does all JSON-RPC parsing and serialisation (its
message adapter and models); only the byte pipes change. Anything else (a regular file as stdin) falls
back to the SDK's own transport.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, Protocol

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp.shared.message import SessionMessage


class StdioServable(Protocol):
    """What this transport serves: fsguard's server, or an MCPServer given ``serve_streams`` (the benchmarks' floor)."""

    async def serve_streams(self, read_stream: Any, write_stream: Any) -> None: ...

    async def run_stdio_async(self) -> None: ...


# One JSON-RPC frame per line; a write_file of a large file is one long line.
_MAX_LINE = 1 << 30


class _Frames:
    """The read stream the SDK's loop iterates: stdin's lines, each parsed by the SDK's own message adapter.

    An unreadable line becomes the exception the SDK's ``stdio_server`` would pass on for it.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _Frames:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        # A byte order mark is no JSON, but clients on .NET or PowerShell write one before their first frame; it
        # would make that frame (the initialize) unreadable, and the SDK drops unreadable frames without a word.
        text = line.decode("utf-8", errors="replace").removeprefix("\ufeff")
        try:
            return SessionMessage(types.jsonrpc_message_adapter.validate_json(text, by_name=False))
        except Exception as exc:  # the SDK's transports hand a bad frame on as an item, not a crash
            return exc

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self.__anext__()
        except StopAsyncIteration:
            raise anyio.EndOfStream from None

    def close(self) -> None:
        """Nothing to release: the pipe belongs to ``_serve``."""

    async def aclose(self) -> None:
        """As ``close``."""


async def _write_frames(answers: MemoryObjectReceiveStream[SessionMessage], writer: asyncio.StreamWriter) -> None:
    """Write each message the SDK's loop sends as one line on stdout, serialised as ``stdio_server`` does.

    A task of its own, as in the SDK: a handler hands its answer over and finishes its own work while this task
    serialises and writes. Writing from the handler's task measured slower for large answers (a 100 KB read:
    +0.2 ms), as the handler's remaining work then held up the end of the answer. When the client closes its
    end, the stream is closed: later answers are dropped by the SDK as for any closed connection.
    """
    with answers:
        async for item in answers:
            message = item.message
            frame = message.__pydantic_serializer__.to_json(message, by_alias=True, exclude_unset=True)
            try:
                writer.write(frame + b"\n")
                await writer.drain()
            except ConnectionError:
                return


def _is_stream(fd: int) -> bool:
    """A pipe, a socket or a terminal: what epoll can watch. Other character devices (/dev/null) cannot, and
    watching one failed with EPERM and left the server waiting for ever."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


@asynccontextmanager
async def _claimed_std_fds() -> AsyncIterator[tuple[int, int]]:
    """Private copies of fds 0 and 1; meanwhile 0 reads /dev/null and 1 writes to stderr.

    So a stray print() or a child process can neither read the protocol's input nor corrupt its output.
    """
    saved_in, saved_out = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(devnull, 0)
        os.dup2(2, 1)
        yield os.dup(saved_in), os.dup(saved_out)
    finally:
        os.close(devnull)
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)


async def serve_stdio(server: StdioServable) -> None:
    """Serve ``server`` on stdin/stdout until stdin closes, or until SIGTERM or SIGINT.

    A signal ends the connection as a closed stdin does: calls in flight are cancelled at their next await
    (a file is left old or new, as on any cancellation) and answered "Connection closed", and the process
    exits through its shutdown path (the audit metrics are written) instead of dying mid-call or printing a
    KeyboardInterrupt traceback.
    """
    with anyio.CancelScope() as scope, _ending_on_signals(scope):
        await _serve(server)


@contextmanager
def _ending_on_signals(scope: anyio.CancelScope) -> Iterator[None]:
    """SIGTERM and SIGINT cancel ``scope`` while the block runs; the previous handlers come back after it."""
    loop = asyncio.get_running_loop()
    previous = {number: signal.getsignal(number) for number in (signal.SIGTERM, signal.SIGINT)}
    for number in previous:
        loop.add_signal_handler(number, scope.cancel)
    try:
        yield
    finally:
        for number, handler in previous.items():
            loop.remove_signal_handler(number)
            if handler is not None:
                signal.signal(number, handler)


async def _serve(server: StdioServable) -> None:
    if not (_is_stream(0) and _is_stream(1)):
        await server.run_stdio_async()
        return
    loop = asyncio.get_running_loop()
    async with _claimed_std_fds() as (in_fd, out_fd):
        reader = asyncio.StreamReader(limit=_MAX_LINE)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(in_fd, "rb", 0))
        transport, protocol = await loop.connect_write_pipe(
            asyncio.streams.FlowControlMixin, os.fdopen(out_fd, "wb", 0)
        )
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        answers, unsent = anyio.create_memory_object_stream[SessionMessage]()
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_write_frames, unsent, writer)
                await server.serve_streams(_Frames(reader), answers)
        finally:
            writer.close()
