"""Paths in text blocks, named relative to the root they are under.

A text block is read by a model and paid for per byte, and every absolute path repeats the root; the
structured result keeps absolute paths, so nothing is lost. Paths are shown relative to the *first* root
only, because that is where a relative path resolves when the model types it back; a path under another
root stays absolute, so every path a text names can be passed to a tool as shown.

The roots are those of the server answering the current call: :class:`FsguardServer` sets them around each
call (:func:`naming_under`), so voices need no extra parameter. Outside a call (a voice called directly)
paths are shown as given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from fsguard.core.pathforms import escaped

__all__ = ["escaped", "naming_under", "shortened", "shown"]

_QUOTED_LINE = re.compile(r" *\d+: ")
# A relative path a tool reads as the home directory (core.paths): "~" alone or followed by "/".
_HOME_LIKE = re.compile(r"~(?:/|$|[\s'\"`),;:\]])")
_BASE: ContextVar[str | None] = ContextVar("fsguard_voice_base", default=None)


@contextmanager
def naming_under(roots: Sequence[Path]) -> Iterator[None]:
    """Within the block, :func:`shown` and :func:`shortened` name paths relative to ``roots[0]``."""
    # A first root of "/" names nothing shorter, and "/" alone would match inside URLs and prose.
    first = str(roots[0]) if roots else None
    base = first if first is not None and first != roots[0].anchor else None  # every call: no Path built
    token = _BASE.set(base)
    try:
        yield
    finally:
        _BASE.reset(token)


def shown(path: str | Path | None) -> str:
    """``path`` relative to the first root when it lies under it, else as given (the root itself too: it is
    named once, and says where the relative paths start), its invisible characters :func:`escaped`."""
    text = "" if path is None else str(path)
    base = _BASE.get()
    if base is None or not text:
        return escaped(text)
    prefix = base.rstrip(os.sep) + os.sep
    if not text.startswith(prefix):
        return escaped(text)
    relative = text[len(prefix) :]
    return escaped("./" + relative if _HOME_LIKE.match(relative) else relative)


def shortened(message: str | None) -> str:
    """A sentence with every absolute path under the first root made relative (for notes and hints).

    Only for messages: never for file content, where a path is data and must stay as written.
    """
    text = message or ""
    base = _BASE.get()
    if base is None or not text:
        return text
    prefix = base.rstrip(os.sep) + os.sep
    if prefix not in text:  # most hints name no path: no pattern to build and run
        return text
    # A path starts the message or follows a space, quote, bracket or "=": not in the middle of another path.
    return re.sub(rf"(?<![\w./\\-]){re.escape(prefix)}(?=[^\s])", _relative_start, text)


def _relative_start(match: re.Match[str]) -> str:
    """What replaces the first root in a shortened message: nothing, or ``./`` before a name a tool would take for
    the home directory (a directory called ``~`` directly under the root)."""
    return "./" if _HOME_LIKE.match(match.string, match.end()) else ""


def shortened_error(message: str) -> str:
    """:func:`shortened` on each line of an error except the numbered lines that quote the file (``   12: …``,
    the no_match evidence), which are content and must stay copyable as old_text."""
    return "\n".join(line if _QUOTED_LINE.match(line) else shortened(line) for line in message.split("\n"))
