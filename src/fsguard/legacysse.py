"""The 2024-11-05 HTTP+SSE transport (GET /sse, POST /messages/) beside streamable HTTP at /mcp.

Clients of that era (the TypeScript SDK before 1.10, the Inspector's ``--transport sse``, hosts configured with an
``sse`` URL) open GET /sse and post to the endpoint it announces; without these routes they got a bare 404 and no
way to connect. The MCP spec's backwards-compatibility section asks a server that keeps old clients to serve both.
The SDK's transport serves them, under the same Host/Origin checks, body limit and bearer token as /mcp.
"""

from __future__ import annotations

from typing import Final

from mcp.server.sse import SseServerTransport
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fsguard.server import FsguardServer

SSE_PATH: Final = "/sse"
MESSAGES_PATH: Final = "/messages/"


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
            await self._transport.handle_post_message(scope, receive, send)
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
