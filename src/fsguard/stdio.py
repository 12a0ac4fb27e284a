"""stdio without worker threads: the SDK's framing over asyncio pipe streams.

The SDK's ``stdio_server()`` reads and writes through ``anyio.wrap_file``: three worker-thread hops
per request, which is most of a small call's latency over stdio. When stdin and stdout are pipes,
sockets or terminals (what every client spawning a server gives it), asyncio can watch them
directly; the SDK still does all JSON-RPC parsing and serialisation, only the byte pipes change.
Anything else (a regular file as stdin) falls back to the SDK's own transport.
"""

from __future__ import annotations

import asyncio
import os
import signal
import stat
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import TYPE_CHECKING, cast

import anyio
from mcp.server.stdio import stdio_server

if TYPE_CHECKING:
    from fsguard.server import FsguardServer

# One JSON-RPC frame per line; a write_file of a large file is one long line.
_MAX_LINE = 1 << 30


class _LineReader:
    """Async iteration over stdin's lines, as ``stdio_server`` consumes them."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    def __aiter__(self) -> _LineReader:
        return self

    async def __anext__(self) -> str:
        line = await self._reader.readline()
        if not line:
            raise StopAsyncIteration
        # A byte order mark is no JSON, but clients on .NET or PowerShell write one before their first frame; it
        # would make that frame (the initialize) unreadable, and the SDK drops unreadable frames without a word.
        return line.decode("utf-8", errors="replace").removeprefix("\ufeff")


class _LineWriter:
    """write/flush over an asyncio pipe, with the pipe's back-pressure."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def write(self, text: str) -> None:
        self._writer.write(text.encode("utf-8"))

    async def flush(self) -> None:
        await self._writer.drain()


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


async def serve_stdio(server: FsguardServer) -> None:
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


async def _serve(server: FsguardServer) -> None:
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
        try:
            # stdio_server types its streams as anyio.AsyncFile; it only iterates lines and calls write/flush.
            stdin = cast("anyio.AsyncFile[str]", _LineReader(reader))
            stdout = cast("anyio.AsyncFile[str]", _LineWriter(writer))
            async with stdio_server(stdin, stdout) as (read_stream, write_stream):
                await server.serve_streams(read_stream, write_stream)
        finally:
            writer.close()
