"""The 2024-11-05 HTTP+SSE transport (GET /sse, POST /messages/) beside streamable HTTP at /mcp.

Clients of that era (the TypeScript SDK before 1.10, the Inspector's ``--transport sse``, hosts configured with an
``sse`` URL) open GET /sse and post to the endpoint it announces; without these routes they got a bare 404 and no
way to connect. The MCP spec's backwards-compatibility section asks a server that keeps old clients to serve both.
The SDK's transport serves them, under the same Host/Origin checks, body limit and bearer token as /mcp.
"""

from __future__ import annotations

import json
from typing import Final

from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import INVALID_REQUEST, PARSE_ERROR
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fsguard.config import MESSAGES_PATH
from fsguard.frames import BAD_ID_MESSAGE, asks_with_a_bad_id, too_deep
from fsguard.heldanswers import body_of, holding, send_all
from fsguard.server import FsguardServer

SSE_PATH: Final = "/sse"
_SMALL_BODY = 8 * 1024  # a request with a bad id worth naming is a few hundred bytes
_SDK_PARSE_REFUSAL = b"Could not parse message"


class LegacySseRoutes:
    """Sends GET /sse and POST /messages/ to the SDK's SSE transport, every other request (and lifespan) to ``app``."""

    def __init__(
        self, app: ASGIApp, server: FsguardServer, security: TransportSecuritySettings, body_limit: int
    ) -> None:
        self._app = app
        self._server = server
        self._transport = SseServerTransport(
            MESSAGES_PATH, security_settings=security, max_request_body_size=body_limit
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
        elif scope["path"].startswith(MESSAGES_PATH):
            await self._post(scope, receive, send)
        elif scope["path"] == SSE_PATH and scope["method"] == "GET":
            await self._stream(scope, receive, send)
        elif scope["path"] == SSE_PATH:
            await Response(status_code=405, headers={"Allow": "GET"})(scope, receive, send)
        else:
            await self._app(scope, receive, send)

    async def _stream(self, scope: Scope, receive: Receive, send: Send) -> None:
        """One session for as long as the client holds its GET /sse stream open."""
        opened = False
        try:
            async with self._transport.connect_sse(scope, receive, send) as (read_stream, write_stream):
                opened = True
                await self._server.serve_streams(read_stream, write_stream)
        except ValueError:
            # The SDK answers a refused Host or Origin (421/403) and then raises, which uvicorn would log as a crash.
            if opened:
                raise

    async def _post(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The SDK's message endpoint, with two of its answers replaced by JSON-RPC errors, as /mcp and stdio give.

        It accepts (202) a request whose id is no string or integer as a notification, which is never answered, and
        refuses a body that is no JSON-RPC message with the plain text "Could not parse message".
        """
        # The body's parts as they came (the transport's own objects, not copies), held while the SDK validates the
        # body: a refused one of any size is told apart as JSON or not (one over 8 KiB was "no JSON-RPC message").
        parts: list[bytes] = []

        async def peeking() -> Message:
            message = await receive()
            if message["type"] == "http.request":
                parts.append(message.get("body", b""))
            return message

        async def finish(held: list[Message]) -> None:
            await _answer(held, parts, scope, receive, send)
            parts.clear()  # an accepted message is still handed to its session: its body is the SDK's to keep

        await self._transport.handle_post_message(scope, peeking, holding(send, (202, 400), finish))


async def _answer(held: list[Message], parts: list[bytes], scope: Scope, receive: Receive, send: Send) -> None:
    answer = body_of(held)
    if held[0]["status"] == 202 and sum(map(len, parts)) <= _SMALL_BODY and asks_with_a_bad_id(b"".join(parts)):
        await _error(INVALID_REQUEST, BAD_ID_MESSAGE)(scope, receive, send)
    elif held[0]["status"] == 400 and answer == _SDK_PARSE_REFUSAL:
        body = b"".join(parts)
        try:
            json.loads(body)
        except (ValueError, RecursionError) as exc:  # json reads by recursion: 2,000 open brackets exhaust it
            if body:
                text = (
                    too_deep("body")
                    if isinstance(exc, RecursionError)
                    else "Parse error: the body is not JSON; nothing was done. Send one JSON-RPC message per request."
                )
                await _error(PARSE_ERROR, text)(scope, receive, send)
                return
        what = "a batch (a JSON array) is not taken" if body.lstrip().startswith(b"[") else "no JSON-RPC message"
        text = f"Invalid Request: {what}; nothing was done. Send one JSON-RPC 2.0 message per request."
        await _error(INVALID_REQUEST, text)(scope, receive, send)
    else:
        await send_all(send, held)


def _error(code: int, message: str) -> JSONResponse:
    """A 400 with a JSON-RPC error (no id can be trusted: null), which the SDK's SSE client shows in full."""
    return JSONResponse({"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}, status_code=400)
