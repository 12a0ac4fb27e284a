"""Media types are case-insensitive (RFC 9110 §8.3.1); the SDK's 2025-era POST path compares Content-Type exactly."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send


def folded_media_type(value: bytes) -> bytes:
    """``value`` with its media type (before any ``;``) in lower case; parameters, whose values may be
    case-sensitive, stay as sent."""
    media_type, separator, parameters = value.partition(b";")
    return media_type.lower() + separator + parameters


class MediaTypeCase:
    """Lower-cases the media type of a request's Content-Type before the SDK sees it.

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
            ]
            if headers != scope["headers"]:
                scope = {**scope, "headers": headers}
        await self._app(scope, receive, send)
