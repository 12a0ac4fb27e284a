"""The dashboard's token, when it has one (required off loopback, as for the MCP endpoint).

A script sends ``Authorization: Bearer <token>`` as to /mcp; a browser opens ``/?token=<token>`` once, gets the
token back as an HttpOnly, SameSite=Strict cookie, and is redirected to the same page without it in the address.
"""

from __future__ import annotations

import hmac
from enum import Enum
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import RedirectResponse

from fsguard.http import presented_token

COOKIE = "fsguard_dashboard_token"


class Verdict(Enum):
    """What a request's credentials amount to."""

    ALLOWED = "allowed"
    FROM_QUERY = "from_query"  # a valid ?token=: set the cookie, redirect without it
    REFUSED = "refused"


def check(request: Request, token: str | None) -> Verdict:
    """Whether ``request`` may be served, when the dashboard requires ``token`` (None: no token needed)."""
    if token is None:
        return Verdict.ALLOWED
    expected = token.encode()
    headers = request.headers.getlist("authorization")
    if len(headers) > 1:  # a singleton field (RFC 9110 §5.3): a proxy in front may have judged the other one
        return Verdict.REFUSED
    given = presented_token(headers[0].encode()) if headers else None
    if given is not None and hmac.compare_digest(given, expected):
        return Verdict.ALLOWED
    cookie = request.cookies.get(COOKIE, "").encode()
    if cookie and hmac.compare_digest(cookie, expected):
        return Verdict.ALLOWED
    query = request.query_params.get("token", "").encode()
    if query and request.method == "GET" and hmac.compare_digest(query, expected):
        return Verdict.FROM_QUERY
    return Verdict.REFUSED


def cookie_redirect(request: Request, token: str) -> RedirectResponse:
    """A redirect to the same page without ``?token=``, setting the cookie that replaces it."""
    rest = [(key, value) for key, value in request.query_params.multi_items() if key != "token"]
    # One leading slash: "//evil.example" (the request line "GET //evil.example/?token=…") is another site to a browser.
    target = "/" + request.url.path.lstrip("/") + (f"?{urlencode(rest)}" if rest else "")
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https", path="/")
    return response
