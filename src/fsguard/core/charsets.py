"""Which encoding names a file's text may be written in: real text encodings only, by canonical name."""

from __future__ import annotations

import codecs

from fsguard.core.errors import InvalidParamsError
from fsguard.core.oserrors import shorten

_EXAMPLES = "Use a text encoding such as utf-8, utf-16-le, cp1252 or latin-1, or encoding='base64' for raw bytes."
# Text codecs by Python's flag that still cannot hold a file: 'undefined' refuses every string, and
# 'idna' encodes host names (it raises on an empty label, so on ordinary text like "a..b").
_NOT_FOR_FILES = frozenset({"undefined", "idna"})


def text_codec(name: str) -> str:
    """The canonical codecs name of the text encoding ``name`` (``latin-1`` → ``iso8859-1``).

    Raises:
        InvalidParamsError: ``name`` is no codec Python knows, or one that is not a text encoding
            (bytes-to-bytes codecs such as base64_codec, hex, zlib, bz2, uu, quopri; rot13 is str-to-str).
    """
    shown = shorten(name, 60)
    try:
        info = codecs.lookup(name)
    except (LookupError, ValueError, TypeError) as exc:  # ValueError: e.g. an embedded NUL
        raise InvalidParamsError(f"unknown encoding {shown!r}. {_EXAMPLES}", encoding=shown) from exc
    if not getattr(info, "_is_text_encoding", True) or info.name in _NOT_FOR_FILES:
        raise InvalidParamsError(
            f"{shown!r} names Python's {info.name} codec, not a text encoding a file can be written in. {_EXAMPLES}",
            encoding=shown,
        )
    return info.name
