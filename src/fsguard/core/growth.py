"""How large the text an edit builds may grow: refused before it is built, not after.

A replace-all multiplies: 1,000 matches of ``x`` with a 10 MB ``new_text`` is a 10 GB string, which took the
server some 10 GB and 100 s before a later guard refused it. An edit whose result would pass ``--max-file-size``
could never be read or edited again anyway, so such a result is refused while it is planned: from the sizes of
the matches (:func:`check_result`), as the substitution runs (:func:`bounded`), or for a fixed replacement from a
pass that drops the matches (:func:`replace_all`), in memory at most the limit.

The limit is held for the duration of one change (:func:`results_up_to`, which :func:`fsguard.core.mutation.mutation`
opens) so planners, built long before the settings are at hand, need no parameter for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from fsguard.core.errors import TooLargeError

# The longest fixed replacement handed to the regex engine, which keeps each in its cache of 512 templates.
_ENGINE_REPLACEMENT_CHARS = 4096
# (limit in characters, the path named in the refusal); None outside a change: nothing is bounded.
_LIMIT: ContextVar[tuple[int, str] | None] = ContextVar("fsguard_result_limit", default=None)


@contextmanager
def results_up_to(limit: int | None, path: object) -> Iterator[None]:
    """Bound every edit result planned inside the block to ``limit`` characters (None: unbounded)."""
    token = _LIMIT.set((limit, str(path)) if limit is not None else None)
    try:
        yield
    finally:
        _LIMIT.reset(token)


def check_result(size: int) -> None:
    """Refuse an edit result of ``size`` characters above the limit in force.

    Raises:
        TooLargeError: above the limit; nothing has been built or written.
    """
    held = _LIMIT.get()
    if held is None:
        return
    limit, path = held
    if size > limit:
        raise TooLargeError(
            f"this change would make {path} at least {size:,} characters, above the {limit:,}-byte limit "
            "(--max-file-size); nothing was written. Replace fewer occurrences or use a shorter replacement.",
            path=path,
        )


def bounded(replace: Callable[[Any], str], text_size: int) -> Callable[[Any], str]:
    """``replace`` (a ``sub`` callback) that refuses, as soon as it is passed, a result above the limit in force.

    ``text_size`` is the length of the text being substituted; each match adds its replacement's length
    minus its own, so the check runs before ``sub`` joins anything larger than the limit.
    """
    if _LIMIT.get() is None:
        return replace
    size = text_size

    def counted(match: Any) -> str:
        nonlocal size
        replacement = replace(match)
        size += len(replacement) - (match.end() - match.start())
        check_result(size)
        return replacement

    return counted


def replace_all(finder: re.Pattern[str], text: str, replacement: str | Callable[[Any], str]) -> tuple[str, int]:
    """``finder.subn(replacement, text)``, a str ``replacement`` taken literally, refused before a result above the
    limit in force is built.

    A fixed text is put in by the regex engine alone: the result's size is known from a first pass that only drops
    the matches, so no Python runs per match (a project_replace of 800,000 matches spent 0.4 s calling back).
    """
    if callable(replacement):
        return finder.subn(bounded(replacement, len(text)), text)
    if len(replacement) > _ENGINE_REPLACEMENT_CHARS:
        fixed = replacement
        return finder.subn(bounded(lambda _match: fixed, len(text)), text)
    if not replacement:
        return finder.subn("", text)
    held = _LIMIT.get()
    # Fewer than len(text) + 1 matches, each taking at least nothing: under this bound no result can pass.
    if held is not None and len(text) + (len(text) + 1) * len(replacement) > held[0]:
        rest, count = finder.subn("", text)  # the same matches as the pass below
        check_result(len(rest) + count * len(replacement))
    return finder.subn(replacement.replace("\\", "\\\\"), text)  # no group references or escapes in it
