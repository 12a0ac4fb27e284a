"""stdio without worker threads or relay tasks: the SDK's message streams, read from and written to the pipes.

The SDK's ``stdio_server()`` reads and writes through ``anyio.wrap_file`` (three worker-thread hops per request,
which were most of a small call's latency over stdio) and passes each message through a memory stream to or from
a task of its own. When stdin and stdout are pipes, sockets or terminals (what every client spawning a server
gives it), asyncio watches them directly and the SDK's serving loop reads and writes them through the stream
protocols it defines (``ReadStream``, ``WriteStream``); the SDK still does all JSON-RPC parsing and serialisation.
Anything else (a regular file as stdin) falls back to the SDK's own transport.
"""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Self

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

if TYPE_CHECKING:
    from fsguard.server import FsguardServer

# One JSON-RPC frame per line; a write_file of a large file is one long line.
_MAX_LINE = 1 << 30


class _PipeEnd:
    """What both streams share: the pipes belong to serve_stdio, which closes them, so the loop's close does nothing."""

    async def aclose(self) -> None:
        return None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        return None


class _PipeMessages(_PipeEnd):
    """The SDK's ``ReadStream`` of JSON-RPC messages, parsed straight from stdin's lines.

    ``stdio_server`` reads in a task of its own and hands each message over through a memory stream: an event
    loop round per message, in front of the one the SDK's serving loop adds itself. Parsing is the SDK's own
    (``jsonrpc_message_adapter``), and a line that does not parse is handed on as the exception, as it does.
    """

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self._reader = reader

    async def receive(self) -> SessionMessage | Exception:
        line = await self._reader.readline()
        if not line:
            raise anyio.EndOfStream
        try:
            # Decoded as stdio_server does: a byte that is not UTF-8 becomes U+FFFD, never a refused frame.
            text = line.decode("utf-8", errors="replace")
            return SessionMessage(jsonrpc_message_adapter.validate_json(text, by_name=False))
        except Exception as exc:  # what stdio_server does: the serving loop answers it
            return exc

    def __aiter__(self) -> _PipeMessages:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


class _PipeFrames(_PipeEnd):
    """The SDK's ``WriteStream``: each message serialised by the SDK's model and written to stdout as one line,
    with the pipe's back-pressure, in the task that sends it (a frame is one write, so two never interleave)."""

    def __init__(self, writer: asyncio.StreamWriter) -> None:
        self._writer = writer

    async def send(self, item: SessionMessage, /) -> None:
        frame = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        self._writer.write(frame.encode("utf-8") + b"\n")
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
    """Serve ``server`` on stdin/stdout until stdin closes."""
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
            await server.serve_streams(_PipeMessages(reader), _PipeFrames(writer))
        finally:
            writer.close()
