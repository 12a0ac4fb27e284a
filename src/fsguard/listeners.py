"""The HTTP server's listening sockets, bound before anything is printed, and the uvicorn server that serves them.

Bound by fsguard, not by uvicorn: uvicorn binds after start-up, so a port already taken was found only after the
banner had printed a URL and a client config for it (which another program answers), and it exited 3. Bound first,
such a port is a start-up error (exit 2) with nothing printed but what to do, and no other process can take the
port between the check and the serving.

Told to stop, the server cancels the stateless calls in flight (:class:`StatelessCalls`): uvicorn's graceful shutdown
waits for every request to end, and a 2026-07-28 call runs in its request, so a write waiting on a pre-hook waited
for the hook and then was made, after the signal. A 2025-11-25 call's event stream, which the stop ends before the call
answers, gets the same error as its last event (:class:`StoppedStreams`): it ended with no answer, which a client
cannot tell from a dropped connection.
"""

from __future__ import annotations

import errno
import json
import logging
import socket
from collections.abc import Callable
from typing import Final, cast

import anyio
import mcp_types as types
import uvicorn
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fsguard.config import MCP_PATH, Settings
from fsguard.frames import asked_id

logger = logging.getLogger("uvicorn.error")  # where uvicorn says it is running, when it binds itself


def listening_sockets(settings: Settings) -> list[socket.socket]:
    """Sockets listening on every address ``settings.host`` names, at ``settings.port``.

    Bound as asyncio's ``create_server`` binds a host and port (what uvicorn asked of it): one socket per address
    (``localhost`` is 127.0.0.1 and ::1), ``SO_REUSEADDR``, IPv6 sockets IPv6 only, and an address family this
    machine lacks skipped. They listen at once, so a client that connects before uvicorn serves waits, never refused.

    Raises:
        OSError: An address could not be bound (:func:`listen_refusal` words it); none is left open.
    """
    found = socket.getaddrinfo(settings.host, settings.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    sockets: list[socket.socket] = []
    unavailable = OSError(errno.EADDRNOTAVAIL, f"{settings.host} names no address of this machine")
    try:
        for family, kind, protocol, _, address in dict.fromkeys(found):
            try:
                sock = socket.socket(family, kind, protocol)
            except OSError:
                continue  # a family this machine cannot open, as create_server skips it
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                sock.bind(address)
            except OSError as exc:
                sockets.pop().close()
                if exc.errno != errno.EADDRNOTAVAIL:
                    raise
                unavailable = exc  # ::1 on a machine with IPv6 off: the other addresses serve
                continue
            sock.listen()
        if not sockets:
            raise unavailable
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def listen_refusal(settings: Settings, exc: OSError, program: str = "fsguard") -> str:
    """What to tell the user whose ``--host``/``--port`` could not be listened on (``program``: who says it)."""
    where = f"{settings.host or repr(settings.host)} port {settings.port}"
    if exc.errno == errno.EADDRINUSE:
        return (
            f"{program}: cannot listen on {where}: another process is listening there. Pass another port with --port, "
            "or stop that process."
        )
    if exc.errno == errno.EACCES:
        return (
            f"{program}: cannot listen on {where}: permission denied (ports below 1024 need privileges). Pass "
            "--port 1024 or above."
        )
    if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
        return (
            f"{program}: cannot listen on {where}: {exc.strerror or exc}. Pass --host an address of this machine "
            "(127.0.0.1 is the default)."
        )
    return f"{program}: cannot listen on {where}: {exc.strerror or exc}. Pass another --host or --port."


STOPPED_MESSAGE: Final = (
    "Server stopping: fsguard was stopped (SIGTERM or Ctrl+C) during this call, which was cancelled at its next "
    "step: its change may or may not have been made. Read what it changes before calling again once fsguard runs."
)


class StatelessCalls:
    """Runs each stateless-era request (an MCP-Protocol-Version header naming a revision without a handshake, which
    the SDK serves in the request itself) in a cancel scope that :meth:`cancel` cancels, and answers it 503 then.

    The handshake era's calls run in the session manager's task group, which the lifespan's shutdown cancels, and
    their streams end on uvicorn's exit signal; a stateless call had nothing that ended it but its own end.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app
        self._running: set[anyio.CancelScope] = set()
        self._stopped = False

    def cancel(self) -> None:
        """Cancel the stateless calls in flight, and each one that starts from now on."""
        self._stopped = True
        for running in list(self._running):
            running.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The first header, as the SDK routes by it.
        headers = scope["headers"] if scope["type"] == "http" else ()
        version = next((value for name, value in headers if name == b"mcp-protocol-version"), None)
        if version is None or version.decode("latin-1") in HANDSHAKE_PROTOCOL_VERSIONS:
            await self._app(scope, receive, send)
            return
        started = ended = False

        async def watched(message: Message) -> None:
            nonlocal started, ended
            started = True
            ended = message["type"] == "http.response.body" and not message.get("more_body", False)
            await send(message)

        with anyio.CancelScope() as running:
            self._running.add(running)
            if self._stopped:
                running.cancel()
            try:
                await self._app(scope, receive, watched)
            finally:
                self._running.discard(running)
        if not running.cancelled_caught or ended:
            return
        if started:  # an event stream: ended without an answer, which the client reports as a closed connection
            await send({"type": "http.response.body", "body": b"", "more_body": False})
            return
        await JSONResponse(stopped_answer(None), status_code=503)(scope, receive, send)


def stopped_answer(ident: str | int | None) -> dict[str, object]:
    """The JSON-RPC error answering request ``ident`` that the server's stop cut (``"id": null`` kept)."""
    answer = types.JSONRPCError(
        jsonrpc="2.0", id=ident, error=types.ErrorData(code=types.CONNECTION_CLOSED, message=STOPPED_MESSAGE)
    )
    return answer.model_dump(mode="json", by_alias=True, exclude_unset=True)


class StoppedStreams:
    """Ends a 2025-11-25 POST's event stream that the server's stop (``stopping``) closes before its call answered
    with the error the stateless era gets, under the request's id, as its last event.

    The transport ends its streams on uvicorn's exit signal, before the lifespan's shutdown cancels the calls: the
    client saw the stream end with no answer, as on a dropped connection. The call is cancelled after that, at its
    next step, so whether it made its change is not known here: the message says so.
    """

    def __init__(self, app: ASGIApp, stopping: Callable[[], bool]) -> None:
        self._app = app
        self._stopping = stopping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != MCP_PATH:
            await self._app(scope, receive, send)
            return
        body: list[bytes] = []  # read only if the stop cuts the stream
        streaming = False
        last = b""  # the last event sent: the answer, when the call answered

        async def peeking() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                body.append(message.get("body", b""))
            return message

        async def watched(message: Message) -> None:
            nonlocal streaming, last
            if message["type"] == "http.response.start":
                kind = dict(message.get("headers", ())).get(b"content-type", b"")
                streaming = message["status"] == 200 and kind.startswith(b"text/event-stream")
            elif message["type"] == "http.response.body" and streaming:
                chunk = message.get("body", b"")
                if b"data:" in chunk:
                    last = chunk
                elif not message.get("more_body", False) and self._stopping():
                    ident = asked_id(b"".join(body))
                    if ident is not None and not _answers(last, ident):
                        data = json.dumps(stopped_answer(ident), separators=(",", ":")).encode()
                        await send(
                            {
                                "type": "http.response.body",
                                "body": b"event: message\r\ndata: " + data + b"\r\n\r\n",
                                "more_body": True,
                            }
                        )
            await send(message)

        await self._app(scope, peeking, watched)


def _answers(event: bytes, ident: str | int) -> bool:
    """Whether the event stream chunk ``event`` holds the answer to request ``ident``."""
    data = b"\n".join(line[5:].strip() for line in event.splitlines() if line.startswith(b"data:"))
    try:
        message = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and message.get("id") == ident and ("result" in message or "error" in message)


class PreboundServer(uvicorn.Server):
    """uvicorn's server, told where it runs when it serves sockets it was handed (it says so only when it binds), that
    cancels its stateless calls when it is told to stop."""

    def __init__(self, config: uvicorn.Config, url: str) -> None:
        # uvicorn_config's app, an ASGI 3 one
        self._calls = StatelessCalls(StoppedStreams(cast(ASGIApp, config.app), lambda: self.should_exit))
        config.app = self._calls
        super().__init__(config)
        self._url = url

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            logger.info("Uvicorn running on %s (Press CTRL+C to quit)", self._url)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        self._calls.cancel()
        await super().shutdown(sockets)
