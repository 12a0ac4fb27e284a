"""Streamable HTTP: one endpoint at /mcp for both protocol eras, with a bearer token off loopback.

Request bodies may be as large as a write of ``--max-file-size`` needs (see :func:`request_body_limit`);
a larger one gets 413 with a JSON-RPC error that names the flag, instead of the SDK's bare 4 MiB refusal. A body
that is JSON but no JSON-RPC message (a batch array, an object without ``method``) gets -32600, as JSON-RPC 2.0
asks and as stdio answers it, instead of the SDK's -32602 holding a pydantic dump.
"""

from __future__ import annotations

import hmac
import json
import logging
from typing import Any

import uvicorn
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import INVALID_PARAMS, PARSE_ERROR
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fsguard.config import MCP_PATH, Settings, host_names, is_loopback
from fsguard.deadline import RequestDeadline as RequestDeadline  # the dashboard serves with it too
from fsguard.frames import BAD_ID_MESSAGE, asks_with_a_bad_id, unparsable_body
from fsguard.legacysse import LegacySseRoutes
from fsguard.mediatype import RequestHeaders
from fsguard.refusals import TransportRefusalNotice, error_response, invalid_request
from fsguard.requestids import ReusedIdRefusal
from fsguard.server import FsguardServer

logger = logging.getLogger(__name__)


# Room for everything in a request besides the file content: the other arguments, JSON-RPC framing, _meta.
BODY_ENVELOPE = 64 * 1024
_SMALL_BODY = 8 * 1024


def request_body_limit(settings: Settings) -> int:
    """The largest HTTP request body accepted: twice ``--max-file-size`` plus :data:`BODY_ENVELOPE`.

    Content travels as a JSON string or as ``content_base64``. Base64 is 4/3 of the bytes; JSON
    escaping at most doubles ordinary text (quotes, backslashes, newlines, tabs become two characters)
    and leaves UTF-8 as it is. Only text dense in other control characters (six characters each, as
    ``\\u0000``) or in ``\\u``-escaped non-ASCII can exceed twice its size: send that as ``content_base64``.
    """
    return 2 * settings.max_file_size + BODY_ENVELOPE


class BodyLimitNotice:
    """Replaces the transport's bare ``413 Request body too large`` with a JSON-RPC error naming the flag.

    The SDK enforces the limit (declared Content-Length and streamed bodies alike); this only rewrites its
    answer, as JSON so that clients surface the message instead of a generic HTTP failure.
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self._app = app
        limit = request_body_limit(settings)
        self._message = (
            f"Request body too large: the limit is {limit:,} bytes (twice --max-file-size {settings.max_file_size:,},"
            f" plus {BODY_ENVELOPE // 1024} KiB for the other arguments). Restart fsguard with a larger"
            " --max-file-size to send bigger content, or send less per call."
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        replaced = False

        async def relay(message: Message) -> None:
            nonlocal replaced
            if message["type"] == "http.response.start" and message["status"] == 413:
                replaced = True
                await invalid_request(self._message, 413)(scope, receive, send)
            elif not replaced:
                await send(message)

        await self._app(scope, receive, relay)


class InvalidRequestNotice:
    """Answers a body the SDK's message validation refused, or an MCP-Protocol-Version header naming no known
    revision, with -32600 Invalid Request and a readable message; a body that is no JSON keeps -32700, in words that
    say nothing was done and what to send.

    The transport validates each POST body as one JSON-RPC message and refuses the rest with 400 and -32602
    (invalid params) whose message is pydantic's dump of every union member it tried. The status stays; the
    error becomes the one JSON-RPC 2.0 gives a JSON value that is no request object.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        version = dict(scope["headers"]).get(b"mcp-protocol-version")
        if version is not None and version.decode("latin-1") not in KNOWN_PROTOCOL_VERSIONS:
            # The SDK takes an unknown version for the stateless era and asks for its _meta envelope instead.
            text = (
                f"Unsupported MCP-Protocol-Version {version.decode('latin-1')!r}: this server speaks "
                f"{', '.join(KNOWN_PROTOCOL_VERSIONS)}. Nothing was done; send one of them, or leave the header out "
                "of the initialize request."
            )
            await invalid_request(text, 400)(scope, receive, send)
            return
        if scope["method"] != "POST":
            await self._app(scope, receive, send)
            return
        first = b""  # the body's first bytes: enough to tell a batch array
        small = b""  # the whole body while it is small: a request with a bad id is a few hundred bytes
        held: list[Message] = []
        bad_id = False

        async def peeking() -> Message:
            nonlocal first, small
            message = await receive()
            if message["type"] == "http.request":
                chunk = message.get("body", b"")
                first += chunk[: max(0, 64 - len(first))]
                small = small + chunk if len(small) + len(chunk) <= _SMALL_BODY else b""
            return message

        async def relay(message: Message) -> None:
            nonlocal bad_id
            if message["type"] == "http.response.start" and message["status"] == 202:
                # 202 answers a notification; the SDK reads a request whose id is no string or integer as one.
                bad_id = b'"id"' in small and asks_with_a_bad_id(small)
            if bad_id:
                if message["type"] == "http.response.body" and not message.get("more_body", False):
                    await invalid_request(BAD_ID_MESSAGE, 400)(scope, receive, send)
                return
            if held or (message["type"] == "http.response.start" and message["status"] == 400):
                held.append(message)
                if message["type"] == "http.response.body" and not message.get("more_body", False):
                    await self._answer(held, first, scope, receive, send)
                return
            await send(message)

        await self._app(scope, peeking, relay)

    @staticmethod
    async def _answer(held: list[Message], first: bytes, scope: Scope, receive: Receive, send: Send) -> None:
        body = b"".join(message.get("body", b"") for message in held[1:])
        try:
            error = json.loads(body)["error"]
            said = str(error["message"])
            # pydantic's dump of the envelope union: the body is no message at all (params are judged later, and
            # a refusal of those is an answer to a request, not this transport error)
            refused = error["code"] == INVALID_PARAMS and "union[JSONRPCRequest" in said
            unparsed = error["code"] == PARSE_ERROR and said.startswith("Parse error")
        except (ValueError, KeyError, TypeError):
            refused = unparsed = False
        if unparsed:  # the SDK's words name no next step, and in the 2026-07-28 era not even where
            await error_response(None, PARSE_ERROR, unparsable_body(said), 400)(scope, receive, send)
            return
        if not refused:
            for message in held:
                await send(message)
            return
        what = (
            "a batch (a JSON array) is not taken"
            if first.lstrip().startswith(b"[")
            else "the body is JSON but no JSON-RPC 2.0 request, notification or response"
        )
        text = f"Invalid Request: {what}; nothing was done. Send one JSON-RPC message per request."
        await invalid_request(text, 400)(scope, receive, send)


class BearerTokenGate:
    """Refuses every HTTP request that does not carry ``Authorization: Bearer <token>`` (401).

    The scheme is case-insensitive and may be followed by more than one space (RFC 9110 §11.1, §11.4);
    only the token is compared, in constant time. The refusal is a JSON-RPC error, because MCP clients show
    that error's message and reduce any other 401 body to a generic "error response": the message is the only
    way to tell a user that the token is missing or wrong.
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self._app = app
        self._expected = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            values = [value for name, value in scope["headers"] if name == b"authorization"]
            # Authorization is a singleton field (RFC 9110 §5.3): with two, a proxy in front and this gate could
            # each judge a different one, so neither is taken.
            given = presented_token(values[0]) if len(values) == 1 else None
            if given is None or not hmac.compare_digest(given, self._expected):
                await unauthorized(given is not None, len(values))(scope, receive, send)
                return
        await self._app(scope, receive, send)


def unauthorized(presented: bool, headers: int) -> JSONResponse:
    """The 401 answer to a request without the token (``presented``: it carried a bearer token, not this one;
    ``headers``: how many Authorization headers it carried)."""
    if headers > 1:
        text = (
            f"Unauthorized: the request carried {headers} Authorization headers and none is taken; nothing was done."
            " Send exactly one: Authorization: Bearer <token>."
        )
        challenge = 'Bearer error="invalid_request"'  # RFC 6750 §3.1: a malformed request
    elif presented:
        text = (
            "Unauthorized: the bearer token sent is not this server's; nothing was done. Send the token fsguard was"
            " started with (--auth-token or FSGUARD_AUTH_TOKEN)."
        )
        challenge = 'Bearer error="invalid_token"'  # RFC 6750 §3: a token came and was refused
    else:
        text = (
            "Unauthorized: this server needs an Authorization: Bearer <token> header; nothing was done. Send the"
            " token fsguard was started with (--auth-token or FSGUARD_AUTH_TOKEN)."
        )
        challenge = "Bearer"
    response = invalid_request(text, 401)
    response.headers["WWW-Authenticate"] = challenge
    return response


def presented_token(header: bytes) -> bytes | None:
    """The token of a ``Bearer`` Authorization header value (any case of the scheme), else None."""
    parts = header.split(None, 1)
    if len(parts) != 2 or parts[0].lower() != b"bearer":
        return None
    return parts[1].strip()


def loopback_security(bound: str = "127.0.0.1") -> TransportSecuritySettings:
    """The SDK's loopback allow-lists, plus each name without a port, and pages served over https.

    Clients leave the port out of Host and Origin when it is the scheme's default (80), so on ``--port 80`` the SDK's
    ``127.0.0.1:*`` patterns refused every request. DNS rebinding forges the name, never the port: a bare loopback
    name is as safe as one with a port. A page at https://localhost (a dev server with a certificate) is as local as
    one at http://localhost, and its Origin was refused.
    """
    # The bound address itself too (127.0.0.2, LOCALHOST): a client reaching it names it so in Host.
    names = tuple(dict.fromkeys(("127.0.0.1", "localhost", "[::1]", *host_names(bound))))
    origins = [f"{scheme}://{name}" for scheme in ("http", "https") for name in names]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[form for name in names for form in (name, f"{name}:*")],
        allowed_origins=[form for origin in origins for form in (origin, f"{origin}:*")],
    )


def build_http_app(server: FsguardServer, settings: Settings) -> ASGIApp:
    """The ASGI app serving ``server`` at /mcp; gated by the token when one is configured."""
    # Off loopback the bearer token is the protection; Host allow-lists would only break real clients.
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    if is_loopback(settings.host):
        security = loopback_security(settings.host)
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        transport_security=security,
        host=settings.host,
        max_request_body_size=request_body_limit(settings),
    )
    # Outside InvalidRequestNotice, whose rewrites are of the /mcp transport's answers; inside RequestHeaders, as the
    # /sse transport checks Host and Origin against the same allow-lists.
    app = LegacySseRoutes(InvalidRequestNotice(app), server, security, request_body_limit(settings))
    app = ReusedIdRefusal(app, server.running.of, request_body_limit(settings))
    app = RequestHeaders(app)
    app = TransportRefusalNotice(BodyLimitNotice(app, settings), settings)
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
        "http": RequestDeadline,
    }
    return uvicorn.Config(build_http_app(server, settings), **{**options, **overrides})
