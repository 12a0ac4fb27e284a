"""Streamable HTTP: one endpoint at /mcp for both protocol eras, with a bearer token off loopback."""

from __future__ import annotations

import hmac
import logging
from typing import Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from fsguard.config import LOOPBACK_HOSTS, MCP_PATH, Settings
from fsguard.server import FsguardServer

logger = logging.getLogger(__name__)


class BearerTokenGate:
    """Refuses every HTTP request that does not carry ``Authorization: Bearer <token>`` (401)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                response = JSONResponse(
                    {"error": "unauthorized", "message": "send Authorization: Bearer <token> (--auth-token)"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await response(scope, receive, send)
                return
        await self._app(scope, receive, send)


def build_http_app(server: FsguardServer, settings: Settings) -> ASGIApp:
    """The ASGI app serving ``server`` at /mcp; gated by the token when one is configured."""
    security = None
    if settings.host not in LOOPBACK_HOSTS:
        # Off loopback the bearer token is the protection; Host allow-lists would only break real clients.
        security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=settings.host
    )
    if settings.auth_token:
        app = BearerTokenGate(app, settings.auth_token)
    return app


def uvicorn_config(server: FsguardServer, settings: Settings, **overrides: Any) -> uvicorn.Config:
    """The uvicorn configuration for serving ``server`` over HTTP."""
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": settings.log_level.lower(),
        "lifespan": "on",
        "log_config": None,  # use the process's logging: everything on stderr, access lines included
    }
    return uvicorn.Config(build_http_app(server, settings), **{**options, **overrides})
