"""How long an HTTP client may keep a connection waiting on its side of an exchange: uvicorn's HTTP/1.1 protocol
with a deadline (:class:`RequestDeadline`), which fsguard and its dashboard both serve with."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

import h11
from mcp_types import INVALID_REQUEST
from uvicorn.protocols.http.h11_impl import H11Protocol

logger = logging.getLogger(__name__)


class RequestDeadline(H11Protocol):
    """uvicorn's HTTP/1.1 connection with a deadline for the client's side of each exchange.

    uvicorn waits for a request's headers for ever, and a client that sends them a byte at a time keeps cancelling its
    keep-alive timer: such a client (or one that sends nothing, or trickles a body the app already answered with 401)
    holds a connection and a file descriptor as long as it likes, before any token is checked. Enough of them exhaust
    the open-file limit, and then every tool call fails. So a connection on which no request is being served closes
    once :attr:`seconds` have passed since it opened or since its last answer, and a request whose body stops
    arriving (nothing more for :attr:`seconds`, on a loopback server without a token too) is answered 408 and closed.
    A body that keeps arriving, however slowly, and a request the app is answering (a call, a stream) are never cut.
    """

    seconds = 30.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._deadline: asyncio.TimerHandle | None = None
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        # Headers sent a byte at a time never push the deadline back; a body's bytes do (an upload in progress).
        if self._awaiting_body():
            self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.transport.is_closing():
            self._disarm()
        else:
            self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.seconds, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _awaiting_body(self) -> bool:
        """The app waits for more of the request's body and has answered nothing yet."""
        cycle = self.cycle
        return cycle is not None and cycle.more_body and not (cycle.response_started or cycle.disconnected)

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing():
            return
        if self._awaiting_body():
            if self.flow.read_paused:
                self._arm()  # the app has not taken what came yet: the wait is the server's, not the client's
            else:
                self._body_timed_out()
            return
        if self.cycle is not None and not self.cycle.response_complete:
            return  # being answered: on_response_complete arms the next deadline
        with contextlib.suppress(h11.LocalProtocolError):  # mid-request on the client's side: just close the socket
            self.conn.send(h11.ConnectionClosed())
        self.transport.close()

    def _body_timed_out(self) -> None:
        """Answer 408 with a JSON-RPC error (what MCP clients show) and close; the app's request ends as one whose
        client went away."""
        assert self.cycle is not None  # _awaiting_body
        self.cycle.disconnected = True  # from now on the app's answer goes nowhere, not onto this finished exchange
        message = (
            f"Request Timeout: the request body stopped arriving (nothing more came for {self.seconds:g} s); nothing "
            "was done. Send the whole body the Content-Length announces, without pausing."
        )
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {"code": INVALID_REQUEST, "message": message}})
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=408, headers=headers, reason=b"Request Timeout"),
            h11.Data(data=body.encode()),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        logger.info("%s: %s %s: its body stopped arriving; answered 408", self.client, *self._request_line())
        self.transport.close()

    def _request_line(self) -> tuple[str, str]:
        scope = self.scope
        return str(scope.get("method", "")), str(scope.get("path", ""))
