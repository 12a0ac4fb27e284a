"""Where a request comes from: the checks that keep other web pages from driving the dashboard.

A page on another site can make the browser send a form POST here (cross-site request forgery), and a name
that resolves to 127.0.0.1 can make the browser treat the dashboard as that site (DNS rebinding). So:

- a state-changing request (anything but GET/HEAD/OPTIONS) is refused when it carries an ``Origin`` that is not
  the dashboard's own, or ``Sec-Fetch-Site: cross-site``/``same-site`` (browsers send both on a form POST);
- on a loopback bind, a request whose ``Host`` is not a loopback name is refused (no token protects it there).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fsguard.config import LOOPBACK_HOSTS, host_names, is_loopback, url_host

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_FOREIGN_FETCH_SITES = frozenset({"cross-site", "same-site"})


def forgery_refusal(method: str, headers: dict[str, str], scheme: str) -> str | None:
    """Why a request must be refused as cross-site, or None when it may go on.

    Args:
        method: The HTTP method.
        headers: Request headers with lower-case names.
        scheme: ``http`` or ``https``, as the request arrived.
    """
    if method.upper() in SAFE_METHODS:
        return None
    site = headers.get("sec-fetch-site", "").lower()
    if site in _FOREIGN_FETCH_SITES:
        return (
            f"the browser marked this request as {site} (Sec-Fetch-Site): only the dashboard's own pages may "
            "change files"
        )
    origin = headers.get("origin")
    if origin is not None and origin != own_origin(headers, scheme):
        return f"the request comes from {origin}, not from the dashboard's own origin {own_origin(headers, scheme)}"
    return None


def own_origin(headers: dict[str, str], scheme: str) -> str:
    """The dashboard's origin as the browser addressed it: scheme and ``Host``."""
    return f"{scheme}://{headers.get('host', '')}"


def host_refusal(headers: dict[str, str], bind_host: str) -> str | None:
    """On a loopback bind, why ``Host`` is refused (a name that is not loopback), else None."""
    if not is_loopback(bind_host):
        return None  # off loopback the token is the protection, and any name may reach the machine
    name = urlsplit("//" + headers.get("host", "")).hostname or ""  # lower case, without an IPv6 address's brackets
    bound = {form.removeprefix("[").removesuffix("]") for form in host_names(bind_host)}
    if name in LOOPBACK_HOSTS or name in bound:
        return None
    return (
        f"Host {headers.get('host', '')!r} is not a loopback name; open the dashboard at http://{url_host(bind_host)}"
    )
