"""stdin or stdout that is no pipe (a regular file, /dev/null), relayed through a pipe by a thread of its own.

``fsguard ROOT < requests.jsonl > answers.jsonl``: epoll cannot watch a regular file or /dev/null (watching one
failed with EPERM and left the server waiting for ever), and the SDK's own transport, which served them instead,
ended at end of input with the calls still in flight cancelled ("Connection closed", their writes not made) and the
last answers unwritten. Relayed, they are pipes to the stdio transport, which answers the requests read before end
of input and writes every answer whole, as it does for a client's pipes. Pipes, sockets and terminals are not
relayed: the thread would cost each frame two copies, and they are what every client spawning a server gives it.
"""

from __future__ import annotations

import logging
import os
import stat
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio

logger = logging.getLogger(__name__)

_CHUNK = 1 << 16  # a pipe's buffer
_FAILED = {
    "stdin": "stdin could not be read (%s): taken as the end of the requests.",
    "stdout": "stdout could not be written (%s): the answers from here on are dropped.",
}


def is_stream(fd: int) -> bool:
    """A pipe, a socket or a terminal: what epoll can watch. Other character devices (/dev/null) cannot, and
    watching one failed with EPERM and left the server waiting for ever."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (stat.S_ISCHR(mode) and os.isatty(fd))


@asynccontextmanager
async def relayed(in_fd: int, out_fd: int, flush_seconds: float) -> AsyncIterator[tuple[int, int]]:
    """``in_fd`` and ``out_fd`` (owned by the caller from here on, as pipes or as given) as fds asyncio can watch: one
    that is no stream becomes a pipe a thread copies it into (stdin) or out of (stdout), closing it at the end.

    On exit stdout's relay has up to ``flush_seconds`` to write what the pipe still holds once the caller closed its
    end (the pipe's buffer, and the transport's): the file gets every answer the server wrote.
    """
    writing: threading.Thread | None = None
    if not is_stream(in_fd):
        read_end, write_end = os.pipe()
        _started(in_fd, write_end, "stdin")
        in_fd = read_end
    if not is_stream(out_fd):
        read_end, write_end = os.pipe()
        writing = _started(read_end, out_fd, "stdout")
        out_fd = write_end
    try:
        yield in_fd, out_fd
    finally:
        if writing is not None:
            # Shielded: after a signal's cancel too, what was answered reaches the file.
            with anyio.CancelScope(shield=True):
                await anyio.to_thread.run_sync(writing.join, flush_seconds)


def _started(source: int, target: int, name: str) -> threading.Thread:
    # A daemon: a relay still copying when the server is done (stdin read on after a signal) never holds up its exit.
    relay = threading.Thread(target=_copied, args=(source, target, name), name=f"fsguard-{name}", daemon=True)
    relay.start()
    return relay


def _copied(source: int, target: int, name: str) -> None:
    """Copy ``source`` into ``target`` until it ends, then close both.

    A failure ends the copy as an end of input would: stdin's pipe then ends the requests, and stdout's closed pipe
    fails every later answer as a client that left does (a full disk under the answers' file). stdin's pipe closed
    by the server (it is done) is no failure.
    """
    try:
        while chunk := os.read(source, _CHUNK):
            rest = memoryview(chunk)
            while rest:
                rest = rest[os.write(target, rest) :]
    except BrokenPipeError:
        pass  # the server closed stdin's pipe: it reads no more requests
    except OSError as exc:
        logger.warning(_FAILED[name], exc)
    finally:
        os.close(source)
        os.close(target)
