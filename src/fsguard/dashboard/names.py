"""File names that are not UTF-8, on pages and in links and forms.

Python reads such a name with ``surrogateescape`` (``b"caf\\xe9"`` is ``"caf\\udce9"``). A page is UTF-8, so it
shows the name with U+FFFD, as the tools do; a link or a form carries the name's own bytes, percent-encoded, and the
handler reads them back with ``surrogateescape``, so the page it leads to acts on that very file.
"""

from __future__ import annotations

import os
import re
from typing import Any
from urllib.parse import parse_qs, quote_from_bytes, unquote_to_bytes

import jinja2.filters
from markupsafe import Markup
from starlette.requests import Request

from fsguard.core.pathforms import escaped
from fsguard.models.wire import LONE_SURROGATE, wire_text


def shown(value: Any) -> Any:
    """What a page prints for ``value``: a string or path with each lone surrogate as U+FFFD, anything else as it is.

    Markup stays Markup (a diff rendered to HTML): the replacement character needs no escaping.
    """
    if isinstance(value, Markup):
        for char in set(LONE_SURROGATE.findall(value)):
            value = value.replace(char, "\ufffd")  # Markup.replace keeps it Markup
        return value
    if isinstance(value, os.PathLike):  # printed as str(path), which keeps the surrogates
        return wire_text(os.fspath(value))
    return wire_text(value) if isinstance(value, str) else value


def visible(value: Any) -> Any:
    """A name as a page prints it: each invisible character (a bidi override, a zero-width space, a control) written
    ``\\uXXXX``, as the tools' text blocks write it, so that no name disguises itself (``x\\u202etxt.exe`` shows as
    ``xexe.txt``). File content is not passed through this: its tabs and line breaks are content."""
    return escaped(os.fspath(value)) if isinstance(value, (str, os.PathLike)) else value


def revealed(value: Any) -> Any:
    """File content as a page prints it (a diff, a trash preview): each invisible character but a tab or a line break
    written ``\\uXXXX``, as :func:`visible` writes a name's. A bidi override in a line showed the reviewer other code
    than the file holds (``"none": # Check if admin`` where the comment is inside the string compared: "Trojan
    Source", CVE-2021-42574)."""
    if not isinstance(value, str) or (value.isascii() and not _ASCII_HIDDEN.search(value)):
        return value
    return escaped(value, keep=_LAYOUT)


_LAYOUT = "\t\n\r"  # what content is laid out with: kept as it is
_ASCII_HIDDEN = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def urlencode(value: Any) -> str:
    """Jinja's ``urlencode``, with each string's own bytes encoded (jinja's would refuse a lone surrogate)."""
    if isinstance(value, dict):
        return jinja2.filters.do_urlencode(
            {key: os.fsencode(item) if isinstance(item, str) else item for key, item in value.items()}
        )
    if isinstance(value, str):
        return token(value)  # what jinja does with a string: its bytes, "/" kept
    return jinja2.filters.do_urlencode(value)


def token(path: str | os.PathLike[str]) -> str:
    """``path``'s bytes (``os.fsencode``: UTF-8, and a name's own bytes where it was not), percent-encoded: a form
    field that survives the browser whatever the name holds."""
    return quote_from_bytes(os.fsencode(path), safe="/")


def from_token(value: str) -> str:
    """The path a :func:`token` stands for."""
    return os.fsdecode(unquote_to_bytes(value))


def query_value(request: Request, name: str) -> str:
    """A query parameter, with the bytes of a name that is not UTF-8 read back as they were (Starlette's own
    parsing turns them into U+FFFD, which names no file)."""
    query = request.scope.get("query_string", b"").decode("latin-1")
    values = parse_qs(query, keep_blank_values=True, encoding="utf-8", errors="surrogateescape").get(name)
    return values[0] if values else ""
