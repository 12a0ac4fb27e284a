"""A 2025-11-25 HTTP request under the id of one still in flight in its session, refused before the SDK sees it.

The SDK's transport keys each POST's answer stream by the request's id: a second POST under the id of a request still
running took the stream over. The first POST then ended with no answer, the second was answered with the first
one's result (another file's write reported as its own), and both changes were made; so was a retry sent after its
client gave up on the first (a timeout), while that call ran on. The 2024-11-05 transport ran both and answered
both under the one id. Stdio refuses such a request (:func:`fsguard.frames.reused_id`); this does the same on /mcp
and /messages/. In flight means in fsguard's request middleware (``FsguardServer.running``), not the SDK's private
state: two POSTs under one id sent in the same instant can both pass, before either reaches it. A session with nothing
in flight, which is every call of a client that waits for each answer, costs nothing: its body is not read here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from urllib.parse import parse_qs

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fsguard.config import MCP_PATH, MESSAGES_PATH
from fsguard.frames import asked_id, reused_id
from fsguard.refusals import first_header

# The ids of the requests a session is running (``str(id)``, as the SDK keys their answer streams), by session id.
InFlightIds = Callable[[str], set[str]]


class RunningRequests:
    """The ids of the requests each 2025-11-25 HTTP session is running, by session id (``str(id)``, as the SDK keys
    them). A call whose client went away mid-call (a timeout) runs on with no answer stream: a retry under its id would
    have been made beside it and told the first one's result."""

    def __init__(self) -> None:
        self._ids: defaultdict[str, Counter[str]] = defaultdict(Counter)

    def started(self, session: str, ident: str) -> None:
        self._ids[session][ident] += 1

    def ended(self, session: str, ident: str) -> None:
        running = self._ids[session]
        running[ident] -= 1
        if running[ident] <= 0:
            del running[ident]
        if not running:
            del self._ids[session]

    def of(self, session: str) -> set[str]:
        """The ids ``session`` runs (none for a session unknown here)."""
        running = self._ids.get(session)
        return set(running) if running else set()


class ReusedIdRefusal:
    """Answers a 2025-11-25 POST to /mcp, or a post to /messages/, whose request reuses the id of one in flight in
    its session with 400 and -32600, nothing done; every other request passes through unread.

    ``in_flight`` names the ids in flight for a session id; ``body_limit`` is the transport's: a longer body is
    passed on for it to refuse (413), not held here.
    """

    def __init__(self, app: ASGIApp, in_flight: InFlightIds, body_limit: int) -> None:
        self._app = app
        self._in_flight = in_flight
        self._limit = body_limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        busy = self._busy(scope)
        if not busy:
            await self._app(scope, receive, send)
            return
        held: list[Message] = []
        size, more = 0, True
        while more and size <= self._limit:
            message = await receive()
            held.append(message)
            if message["type"] != "http.request":
                break
            size += len(message.get("body", b""))
            more = message.get("more_body", False)
        if not more and size <= self._limit:
            ident = asked_id(b"".join(message.get("body", b"") for message in held))
            # Asked again now: the first request may have been answered while this body arrived.
            if ident is not None and str(ident) in self._in_flight(_session(scope)):
                answer = reused_id(ident).model_dump(mode="json", by_alias=True, exclude_unset=True)
                await JSONResponse(answer, status_code=400)(scope, receive, send)
                return

        async def replayed() -> Message:
            return held.pop(0) if held else await receive()

        await self._app(scope, replayed, send)

    def _busy(self, scope: Scope) -> bool:
        """Whether ``scope`` is a 2025-era POST to /mcp, or a post to /messages/, in a session with a request in
        flight."""
        if scope["type"] != "http" or scope["method"] != "POST":
            return False
        if scope["path"] != MCP_PATH and not scope["path"].startswith(MESSAGES_PATH):
            return False
        version = first_header(scope, b"mcp-protocol-version").decode("latin-1")
        if version and version not in HANDSHAKE_PROTOCOL_VERSIONS:
            return False  # the 2026-07-28 era: each request an exchange of its own, no session to share ids in
        session = _session(scope)
        return bool(session and self._in_flight(session))


def _session(scope: Scope) -> str:
    """The session a request names: its Mcp-Session-Id header on /mcp, its ``session_id`` query on the 2024-11-05
    transport's message endpoint (as :func:`session_key` spells it); empty for none."""
    if scope["path"] == MCP_PATH:
        return first_header(scope, b"mcp-session-id").decode("latin-1")
    given = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("session_id")
    return session_key(None, given[0]) if given else ""


def session_key(header: str | None, query: str | None) -> str:
    """How :class:`RunningRequests` names the session of a request with Mcp-Session-Id ``header`` (/mcp) or the
    ``session_id`` ``query`` (/messages/); empty for neither."""
    return header or (f"sse:{query}" if query else "")
