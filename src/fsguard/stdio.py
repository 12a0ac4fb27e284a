"""stdio without worker threads: the SDK's messages over asyncio pipe streams.

The SDK's ``stdio_server()`` reads and writes through ``anyio.wrap_file`` (three worker-thread hops per
request), and relays every request through a reader task. When stdin and stdout are pipes, sockets or
terminals (what every client spawning a server gives it), asyncio watches them directly, and the SDK's
loop reads its requests from stdin itself. The SDK still does all JSON-RPC parsing and serialisation (its
message adapter and models); only the byte pipes change. Anything else (a regular file, /dev/null) is relayed
through a pipe by a thread (fsguard.relays), and served as a pipe is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import signal
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any, Protocol

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic_core import PydanticSerializationError

from fsguard.frames import BAD_ID_ERROR, asks_with_a_bad_id, refusal, request_id, reused_id
from fsguard.relays import relayed


class StdioServable(Protocol):
    """What this transport serves: fsguard's server, or an MCPServer given ``serve_streams`` (the benchmarks' floor)."""

    async def serve_streams(self, read_stream: Any, write_stream: Any) -> None: ...


# One JSON-RPC frame per line; a write_file of a large file is one long line.
_MAX_LINE = 1 << 30
# The largest frame written by the task that sends it (a pipe's buffer); larger ones go to the writer task.
_INLINE_BYTES = 64 << 10
# How long requests in flight when stdin closes have to finish and be answered before they are cancelled.
EOF_GRACE_SECONDS = 30.0
# How long the last answers have to reach the pipe once the server is done (a client that stopped reading holds it).
FLUSH_SECONDS = 10.0


class _InFlight:
    """The ids of the requests read from stdin and not yet answered, and of the server's own requests to the client
    (roots/list, elicitation/create) the client has not answered.

    A client may write its requests and close stdin at once (``printf … | fsguard``, a harness, the spec's shutdown:
    close stdin, then wait for the server to exit). The SDK's loop ends at end of input and cancels what is still in
    flight, so those requests went unanswered; the reference server and the SDK's own transport answered them.
    """

    def __init__(self) -> None:
        self._ids: set[types.RequestId] = set()
        self._asking: set[types.RequestId] = set()
        self._changed = anyio.Event()

    def __contains__(self, ident: types.RequestId) -> bool:
        return ident in self._ids

    def _change(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def asked(self, ident: types.RequestId) -> None:
        self._ids.add(ident)

    def settled(self, ident: types.RequestId) -> None:
        """``ident`` was answered, or cancelled by the client (a cancelled request gets no answer)."""
        self._ids.discard(ident)
        self._change()

    def unanswerable(self) -> None:
        """stdout is gone: nothing in flight can be answered any more."""
        self._ids.clear()
        self._change()

    def asking(self, ident: types.RequestId) -> None:
        """The server sent the client request ``ident``."""
        self._asking.add(ident)
        self._change()

    def told(self, ident: object) -> None:
        """The client answered the server's request ``ident``, or the server gave up on it."""
        self._asking.discard(ident)

    def unheard(self) -> types.RequestId | None:
        """A request of the server's the client has not answered, taken off the list; None when there is none."""
        return self._asking.pop() if self._asking else None

    async def drained(self, deadline: float) -> None:
        """Until every request read has been answered or the server waits on the client (which closed its input and
        can answer nothing more), at most until ``deadline`` (a call may wait on a FIFO)."""
        with anyio.move_on_after(max(deadline - anyio.current_time(), 0)):
            while self._ids and not self._asking:
                await self._changed.wait()


# The answer, in the client's stead, to a request of the server's the client can no longer answer: it closed stdin.
_CLOSED_BEFORE_ANSWERING = types.JSONRPCError(
    jsonrpc="2.0",
    id=0,
    error=types.ErrorData(code=types.CONNECTION_CLOSED, message="Connection closed: the client closed stdin"),
)


class _Stdout(asyncio.streams.FlowControlMixin):
    """stdout's protocol. When the client closes its end (it exited, or crashed), nothing in flight can be answered:
    a closed stdin then ends the server at once, cancelling its calls, instead of waiting for them to finish."""

    def __init__(self, in_flight: _InFlight) -> None:
        super().__init__()
        self._in_flight = in_flight
        self._gone: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        self._in_flight.unanswerable()
        if not self._gone.done():
            self._gone.set_result(None)

    def _get_close_waiter(self, stream: asyncio.StreamWriter) -> asyncio.Future[None]:
        """What ``StreamWriter.wait_closed`` waits for (the mixin has none): the pipe closed, its buffer written."""
        return self._gone


class _Frames:
    """The read stream the SDK's loop iterates: stdin's lines, each parsed by the SDK's own message adapter.

    A line that is no JSON-RPC message is answered here, as JSON-RPC 2.0 asks (-32700 for bytes that are not UTF-8
    JSON, -32600 for JSON that is no message, under the frame's id when one can be read and no request in flight has
    it, else null), and skipped: the SDK's loop drops such a frame without a word, which leaves a client waiting for
    its answer until it times out.
    Bytes that are not UTF-8 are refused, never replaced: a write_file would put U+FFFD on disk for them.
    """

    def __init__(self, reader: asyncio.StreamReader, answers: _Answers, in_flight: _InFlight) -> None:
        self._reader = reader
        self._answers = answers
        self._in_flight = in_flight
        self._ended: float | None = None  # when stdin ended, the grace period's end

    def __aiter__(self) -> _Frames:
        return self

    async def __anext__(self) -> SessionMessage:
        while True:
            line = await self._reader.readline()
            if not line:
                return await self._ending()
            # A byte order mark is no JSON, but clients on .NET or PowerShell write one before their first frame;
            # it would make that frame (the initialize) unreadable.
            line = line.removeprefix(b"\xef\xbb\xbf")
            if not line.strip():
                continue  # a blank line between frames: nothing was asked
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception as exc:  # any frame the adapter refuses is answered, never a crash
                error = refusal(line, exc)
                if error.id is not None and error.id in self._in_flight:
                    # Under that id it would pass for the answer to the request in flight, and settle it.
                    error = error.model_copy(update={"id": None})
                await self._refuse(error)
                continue
            if isinstance(message, types.JSONRPCNotification) and b'"id"' in line and asks_with_a_bad_id(line):
                await self._refuse(BAD_ID_ERROR)
                continue
            if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                self._in_flight.told(message.id)
            elif isinstance(message, types.JSONRPCRequest):
                if message.id in self._in_flight:
                    await self._refuse(reused_id(message.id))
                    continue
                self._in_flight.asked(message.id)
            elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
                # A notice naming no request ({}, a list, true) settles nothing.
                cancelled = request_id((message.params or {}).get("requestId"))
                if cancelled is not None:
                    self._in_flight.settled(cancelled)
            return SessionMessage(message)

    async def _ending(self) -> SessionMessage:
        """At the end of stdin: once the requests in flight are answered, the end (StopAsyncIteration); before that,
        while the server waits on an answer of the client's, which can answer nothing more, that answer refused in
        its stead: the call waiting on it hears so now, where it waited out the grace period (an elicitation: 30 s
        before an exit that changed nothing)."""
        if self._ended is None:
            self._ended = anyio.current_time() + EOF_GRACE_SECONDS
        await self._in_flight.drained(self._ended)
        unheard = self._in_flight.unheard()
        if unheard is None:
            raise StopAsyncIteration
        return SessionMessage(_CLOSED_BEFORE_ANSWERING.model_copy(update={"id": unheard}))

    async def _refuse(self, error: types.JSONRPCError) -> None:
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await self._answers.send(SessionMessage(error))

    async def receive(self) -> SessionMessage:
        try:
            return await self.__anext__()
        except StopAsyncIteration:
            raise anyio.EndOfStream from None

    def close(self) -> None:
        """Nothing to release: the pipe belongs to ``_serve``."""

    async def aclose(self) -> None:
        """As ``close``."""


_Frame = tuple[bytes, types.RequestId | None]  # a message's line, and the id of the request it answers (or None)


class _Answers:
    """The stream the SDK's loop sends its messages on: each becomes one line on stdout, in the order sent.

    A frame up to :data:`_INLINE_BYTES` is written by the task that sends it, unless frames are still waiting for
    the writer task: relaying every answer through a task, as the SDK's own transport does, cost each one a turn of
    the event loop (a ping 0.45 → 0.40 ms, the tail of a log 1.38 → 1.22 ms). A larger frame goes to the writer task,
    which measured faster for them (a 100 KB read 2.60 → 2.41 ms, calls alternating with another server's).
    An answer settles its request once the pipe has taken all but the last of it (``drain``): a closed stdin ends
    the server once every request is settled. When the client closes its end, later answers are dropped, as the
    SDK drops them on any closed connection.
    """

    def __init__(self, writer: asyncio.StreamWriter, in_flight: _InFlight) -> None:
        self._writer = writer
        self._in_flight = in_flight
        self._closed = False
        self._queued = 0  # frames handed to the writer task and not written yet
        # Unbounded, so that handing a frame over never waits: a sender waits on the pipe alone, as the inline ones do.
        self._to_writer, self._for_writer = anyio.create_memory_object_stream[_Frame](math.inf)

    async def send(self, item: SessionMessage, /) -> None:
        if self._closed:
            raise anyio.ClosedResourceError
        if self._writer.transport.is_closing():
            self._in_flight.unanswerable()
            raise anyio.BrokenResourceError
        message = item.message
        answered = message.id if isinstance(message, types.JSONRPCResponse | types.JSONRPCError) else None
        if isinstance(message, types.JSONRPCRequest):
            self._in_flight.asking(message.id)
        elif isinstance(message, types.JSONRPCNotification) and message.method == "notifications/cancelled":
            self._in_flight.told((message.params or {}).get("requestId"))  # the server gave up on its request
        frame = _serialised(message) + b"\n"
        if self._queued or len(frame) > _INLINE_BYTES:
            self._to_writer.send_nowait((frame, answered))
            self._queued += 1
            return
        await self._write(frame, answered)

    async def write_queued(self) -> None:
        """The writer task: write the frames :meth:`send` handed over, in order, until the SDK closes the stream."""
        with self._for_writer:
            async for frame, answered in self._for_writer:
                try:
                    await self._write(frame, answered)
                except anyio.BrokenResourceError:
                    return
                finally:
                    self._queued -= 1

    async def _write(self, frame: bytes, answered: types.RequestId | None) -> None:
        self._writer.write(frame)
        try:
            await self._writer.drain()
        except ConnectionError as exc:
            self._in_flight.unanswerable()
            raise anyio.BrokenResourceError from exc
        finally:
            if answered is not None:
                self._in_flight.settled(answered)

    async def aclose(self) -> None:
        """The SDK is done sending: the writer task writes what it holds, then ends."""
        self._closed = True
        self._to_writer.close()

    async def __aenter__(self) -> _Answers:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()


def _serialised(message: types.JSONRPCMessage) -> bytes:
    """``message`` as one line of JSON, as ``stdio_server`` writes it.

    A string holding a lone surrogate has no UTF-8, and pydantic refuses it: a request id the client sent as
    ``"\\ud800"`` (valid JSON), echoed in its answer, ended the server. JSON's escapes carry it back as it was sent.
    """
    serializer = message.__pydantic_serializer__
    try:
        return serializer.to_json(message, by_alias=True, exclude_unset=True)
    except PydanticSerializationError:
        fields = serializer.to_python(message, by_alias=True, exclude_unset=True, mode="json")
        return json.dumps(fields, separators=(",", ":")).encode("ascii")


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

    A closed stdin first lets the requests read before it be answered (for up to :data:`EOF_GRACE_SECONDS`). A
    signal ends the connection at once: calls in flight are cancelled at their next await (a file is left old or
    new, as on any cancellation) and answered "Connection closed", and the process exits through its shutdown path
    (the audit metrics are written) instead of dying mid-call or printing a KeyboardInterrupt traceback.
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
    loop = asyncio.get_running_loop()
    async with _claimed_std_fds() as claimed, relayed(*claimed, FLUSH_SECONDS) as (in_fd, out_fd):
        reader = asyncio.StreamReader(limit=_MAX_LINE)
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(in_fd, "rb", 0))
        in_flight = _InFlight()
        transport, protocol = await loop.connect_write_pipe(lambda: _Stdout(in_flight), os.fdopen(out_fd, "wb", 0))
        writer = asyncio.StreamWriter(transport, protocol, reader, loop)
        answers = _Answers(writer, in_flight)
        try:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(answers.write_queued)
                await server.serve_streams(_Frames(reader, answers, in_flight), answers)
        finally:
            await closed_flushed(writer)


async def closed_flushed(writer: asyncio.StreamWriter) -> None:
    """Close stdout once the pipe has taken what its transport still holds, for up to :data:`FLUSH_SECONDS`.

    An answer settles its request once the pipe has taken all but the last of it (``drain`` waits down to the
    transport's low-water mark, 16 KiB), and a closing transport writes the rest only while the event loop runs:
    ending the loop right after ``close`` cut the last answer to a client that read slowly and had closed stdin.
    """
    writer.close()
    # Shielded: after a signal's cancel too, what was answered is flushed. A client gone has nothing left to flush.
    with anyio.CancelScope(shield=True), anyio.move_on_after(FLUSH_SECONDS), contextlib.suppress(ConnectionError):
        await writer.wait_closed()
