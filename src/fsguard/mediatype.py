"""Request headers as the SDK's transport can take them: a media type in any case, and no resumption asked of a
server that keeps no events.

Media types are case-insensitive (RFC 9110 §8.3.1); the SDK's 2025-era POST path compares Content-Type exactly.
A GET carrying ``Last-Event-ID`` (a client resuming its stream) made the SDK look for an event store fsguard does
not keep and return without an answer: HTTP 500. Without the header the GET opens the session's stream, which is
what a server without resumption answers (the events it would replay were never kept).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

_RESUME = b"last-event-id"


def folded_media_type(value: bytes) -> bytes:
    """``value`` with its media type (before any ``;``) in lower case; parameters, whose values may be
    case-sensitive, stay as sent."""
    media_type, separator, parameters = value.partition(b";")
    return media_type.lower() + separator + parameters


class RequestHeaders:
    """Lower-cases the media type of a request's Content-Type, and drops ``Last-Event-ID``, before the SDK sees them.

    The SDK's transport security check takes ``Application/JSON`` and its 2026-07-28 path serves it, but its
    2025-era path then refuses the same header with 415: a client that spells the type in capitals could
    use one era and not the other. Folding the case here makes both take it, as HTTP says they must.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = [
                (name, folded_media_type(value) if name == b"content-type" else value)
                for name, value in scope["headers"]
                if name != _RESUME
            ]
            if headers != scope["headers"]:
                scope = {**scope, "headers": headers}
        await self._app(scope, receive, send)
