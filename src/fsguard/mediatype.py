"""Request headers as the SDK's transport can take them: a media type and a host name in any case, and no
resumption asked of a server that keeps no events.

Media types are case-insensitive (RFC 9110 §8.3.1); the SDK's 2025-era POST path compares Content-Type exactly.
So are host names and URI schemes (RFC 9110 §4.2.3, RFC 3986 §3.1), but the SDK matches Host and Origin against
its loopback allow-lists exactly: ``Host: LOCALHOST:8765`` was refused as DNS rebinding in both eras.
The SDK's first check takes any Content-Type starting ``application/json``: its 2026-07-28 path then served
``application/jsonx`` while its 2025-era path refused it with 415, so one such type is refused here, in both eras.
A GET carrying ``Last-Event-ID`` (a client resuming its stream) made the SDK look for an event store fsguard does
not keep and return without an answer: HTTP 500. Without the header the GET opens the session's stream, which is
what a server without resumption answers (the events it would replay were never kept).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from fsguard.refusals import content_type_message, first_header, invalid_request

_RESUME = b"last-event-id"
# Host is a name and a port; Origin a scheme, a name and a port: lower case changes only what is case-insensitive.
_CASELESS = frozenset({b"host", b"origin"})


def folded_media_type(value: bytes) -> bytes:
    """``value`` with its media type (before any ``;``) in lower case; parameters, whose values may be
    case-sensitive, stay as sent."""
    media_type, separator, parameters = value.partition(b";")
    return media_type.lower() + separator + parameters


def takes_media_type(value: bytes) -> bool:
    """Whether the SDK's 2025-era path takes Content-Type ``value``: application/json, in any case, with any
    parameters (or as one of a comma list, which that path also takes)."""
    media_type = value.partition(b";")[0]
    return any(part.strip().lower() == b"application/json" for part in media_type.split(b","))


def folded(name: bytes, value: bytes) -> bytes:
    """Header ``name``'s ``value`` with what HTTP compares case-insensitively in lower case."""
    if name == b"content-type":
        return folded_media_type(value)
    return value.lower() if name in _CASELESS else value


class RequestHeaders:
    """Lower-cases the media type of a request's Content-Type and its Host and Origin, and drops ``Last-Event-ID``,
    before the SDK sees them; refuses a POST whose Content-Type is some other type than application/json (400).

    The SDK's transport security check takes ``Application/JSON`` and its 2026-07-28 path serves it, but its
    2025-era path then refuses the same header with 415: a client that spells the type in capitals could
    use one era and not the other. Folding the case here makes both take it, as HTTP says they must. A refusal still
    names the value as sent: the notice that words it reads the request's headers before this.
    """

    def __init__(self, app: ASGIApp) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = first_header(scope, b"content-type")  # the one the SDK judges; none is the SDK's to refuse
            if scope["method"] == "POST" and given and not takes_media_type(given):
                await invalid_request(content_type_message(given.decode("latin-1")), 400)(scope, receive, send)
                return
            headers = [(name, folded(name, value)) for name, value in scope["headers"] if name != _RESUME]
            if headers != scope["headers"]:
                scope = {**scope, "headers": headers}
        await self._app(scope, receive, send)
