"""The SDK's HTTP refusals, reworded: what was refused and what to send instead, as a JSON-RPC error.

MCP clients show a JSON-RPC error's message and reduce a plain-text 4xx to a generic "error response"; and where the
SDK does answer in JSON-RPC, its words ("Bad Request: Missing session ID") name no next step.
"""

from __future__ import annotations

import json
from typing import Final

from mcp_types import INVALID_REQUEST
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fsguard.config import MCP_PATH, Settings
from fsguard.frames import request_id
from fsguard.heldanswers import body_of, holding, send_all

# The SDK's refusals (status, what it said: a plain-text body or a JSON-RPC error's message) and what each judged:
# a request header by its name, else the session a request lacked.
_SDK_REFUSALS: Final = {
    (421, "Invalid Host header"): "host",
    (403, "Invalid Origin header"): "origin",
    (400, "Invalid Content-Type header"): "content-type",
    (406, ""): "accept",  # the 2026-07-28 path's bare 406; the legacy path's names what to accept
    (400, "Bad Request: Missing session ID"): "session",  # 2025-11-25: no Mcp-Session-Id, and no initialize
    (404, "Session not found"): "ended-session",  # an Mcp-Session-Id naming no open session (clients act on the 404)
    (503, "Too many open sessions"): "sessions",  # the SDK's cap on 2025-11-25 sessions (idle ones kept 30 minutes)
    (400, "mcp-method header does not match the request body's method"): "mcp-method",
    (400, "mcp-name header does not match the request body's 'name' parameter"): "mcp-name",
    # the 2024-11-05 transport's message endpoint, posted to without the URL its GET /sse stream announced
    (400, "session_id is required"): "sse-session",
    (400, "Invalid session ID"): "sse-session",
    (404, "Could not find session"): "sse-session",
    # a URL naming no endpoint (a client given the server's base URL), and a method a path does not take (a streamable
    # HTTP client given the /sse URL posts there; a GET or DELETE of the 2026-07-28 path)
    (404, "Not Found"): "path",
    (405, ""): "method",
    (405, "Method Not Allowed"): "method",
}
_HEADERS: Final = frozenset({"host", "origin", "content-type", "accept", "mcp-method", "mcp-name"})


def invalid_request(message: str, status: int) -> JSONResponse:
    """A JSON-RPC -32600 answer to a request the transport refused (no id can be trusted: null)."""
    return error_response(None, INVALID_REQUEST, message, status)


def error_response(ident: str | int | None, code: int, message: str, status: int) -> JSONResponse:
    """A JSON-RPC error answer under ``ident`` with HTTP ``status``."""
    return JSONResponse(
        {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}, status_code=status
    )


def content_type_message(value: str) -> str:
    """The refusal of a POST whose Content-Type ``value`` (empty: none) is not application/json."""
    value = value if len(value) <= 80 else value[:80] + "…"
    given = f"Unsupported Content-Type {value!r}" if value else "No Content-Type"
    return f"{given}: nothing was done. Send the JSON-RPC message as Content-Type: application/json."


def first_header(scope: Scope, name: bytes) -> bytes:
    """The first value of header ``name`` (empty if absent): the one Starlette's ``headers.get``, so the SDK, judged.
    A dict of the headers would keep the last, and a refusal could name a value that was never judged."""
    return next((value for key, value in scope["headers"] if key == name), b"")


def said(body: bytes) -> tuple[str, str | int | None, int]:
    """What a refusal said (its JSON-RPC error's message, else its plain text), and the id and code to keep."""
    try:
        answer = json.loads(body)
        error = answer["error"]
        return str(error["message"]), request_id(answer.get("id")), int(error["code"])
    except (ValueError, KeyError, TypeError):
        return body.decode("utf-8", "replace"), None, INVALID_REQUEST


class TransportRefusalNotice:
    """Replaces the SDK's refusals of a request's Host, Origin, Content-Type, Accept, Mcp-Method or Mcp-Name header,
    or of a request without a session, with JSON-RPC errors that say what was refused and what to do.

    A client that reaches a loopback server by another name (a container's ``host.docker.internal``, the machine's
    name), a script posting a form, or a curl user who skipped ``initialize`` learnt nothing. Only the SDK's own
    refusals are rewritten; the status, and a JSON-RPC error's id and code, stay.
    """

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self._app = app
        self._url = settings.mcp_url

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return

        async def finish(held: list[Message]) -> None:
            status = held[0]["status"]
            text, ident, code = said(body_of(held))
            what = _SDK_REFUSALS.get((status, text))
            if what is None:
                await send_all(send, held)
                return
            value = first_header(scope, what.encode()).decode("latin-1") if what in _HEADERS else ""
            allow = dict(held[0].get("headers", ())).get(b"allow", b"").decode("latin-1")
            message = (
                _url_message(scope, status, allow, self._url)
                if what in ("path", "method")
                else self._message(what, value)
            )
            # A new answer, not the SDK's headers: a refused opening request's Mcp-Session-Id names no kept session.
            answer = error_response(ident, code, message, status)
            if allow:
                answer.headers["Allow"] = allow
            await answer(scope, receive, send)

        await self._app(scope, receive, holding(send, {status for status, _ in _SDK_REFUSALS}, finish))

    def _message(self, what: str, value: str) -> str:
        value = value if len(value) <= 80 else value[:80] + "…"
        if what == "host":
            return (
                f"Misdirected request: Host {value!r} is not this loopback server's address (refused against DNS"
                f" rebinding); nothing was done. Connect to {self._url}, or serve another address with --host and"
                " --auth-token."
            )
        if what == "origin":
            return (
                f"Forbidden: a web page at Origin {value!r} may not call this server (only pages served from"
                " localhost, 127.0.0.1 or [::1] may, against DNS rebinding); nothing was done. Call it from a program"
                " or from such a page."
            )
        if what == "accept":
            return (
                f"Not Acceptable: Accept {value!r} does not list both application/json and text/event-stream;"
                " nothing was done. Send Accept: application/json, text/event-stream."
            )
        if what == "content-type":
            return content_type_message(value)
        return _session_message(what, value)


def _url_message(scope: Scope, status: int, allow: str, url: str) -> str:
    """The words for a request to a path that serves nothing (404), or that takes no request by its method (405;
    ``allow``: the methods it takes)."""
    path, method = str(scope["path"]), str(scope["method"])
    shown = path if len(path) <= 80 else path[:80] + "…"
    if status == 404:
        return (
            f"Not Found: nothing is served at {shown!r}; nothing was done. Connect to {url} (streamable HTTP, both"
            f" eras), or to {url.removesuffix(MCP_PATH)}/sse for a 2024-11-05 HTTP+SSE client."
        )
    refused = f"Method Not Allowed: {method} {shown!r} (it takes {allow or 'another method'}); nothing was done."
    if path == "/sse":
        return f"{refused} /sse is the 2024-11-05 transport's stream: streamable HTTP clients connect to {url}."
    if path == MCP_PATH and allow == "POST":
        return f"{refused} A 2026-07-28 request is one POST answered in full: it opens no stream and ends no session."
    return f"{refused} Send {allow}." if allow else refused


def _session_message(what: str, value: str) -> str:
    """The words for a request that lacked a session, or a 2026-07-28 header naming what its body asks."""
    if what == "session":
        return (
            "Bad Request: no Mcp-Session-Id header, and the request is no initialize; nothing was done. For"
            " 2025-11-25, send initialize first, then the Mcp-Session-Id header its answer carries with every request;"
            " or use 2026-07-28, which has no sessions: an MCP-Protocol-Version: 2026-07-28 header and the version in"
            " each request's params._meta (io.modelcontextprotocol/protocolVersion)."
        )
    if what == "ended-session":
        return (
            "Session not found: the Mcp-Session-Id header names no open session (it was ended by a DELETE or a server"
            " restart, or never opened here); nothing was done. Send initialize without Mcp-Session-Id to open a new"
            " session, then send the id its answer carries."
        )
    if what == "sessions":
        return (
            "Service Unavailable: as many 2025-11-25 sessions are open as this server keeps (an idle one is kept 30"
            " minutes); nothing was done. End the sessions you no longer use (DELETE with their Mcp-Session-Id) and"
            " send initialize again, or use 2026-07-28, which has no sessions."
        )
    if what == "sse-session":
        return (
            "No open session at this URL (its session_id is missing, malformed, or of a stream that closed); nothing"
            " was done. Open GET /sse and post each message to the endpoint URL its first event names, while that"
            " stream stays open."
        )
    header, part, example = (
        ("Mcp-Method", "method", "Mcp-Method: tools/call for a tools/call")
        if what == "mcp-method"
        else ("Mcp-Name", "params.name", "Mcp-Name: read_file to call read_file")
    )
    if not value:
        return (
            f"Missing {header} header: a 2026-07-28 request carries its {part} in {header} too; nothing was done."
            f" Send it again with {header} set to its {part} ({example})."
        )
    return (
        f"{header} {value!r} is not the request's {part}; nothing was done. Send it again with {header} set to its"
        f" {part} ({example})."
    )
