"""RE2, the one regex engine agents' patterns run on: compiled in one place, refused with RE2's own reason.

RE2 matches in linear time (no catastrophic backtracking on an agent's pattern) and has no backreferences
or lookaround; every tool that takes a regex compiles it here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fsguard.core.errors import InvalidParamsError
from fsguard.core.oserrors import lone_surrogate, quoted, shorten


def compile_re2(
    pattern: str, *, case_sensitive: bool = True, as_bytes: bool = False, what: str = "regex", advice: str = "."
) -> Any:  # an re2 pattern: the wheel ships no type information
    """``pattern`` compiled (over UTF-8 bytes with ``as_bytes``, so offsets are byte offsets).

    Raises:
        InvalidParamsError: ``invalid <what> '<pattern>': <RE2's reason><advice>``.
    """
    import re2  # here, not at the top: start-up never pays for it

    options = re2.Options()
    options.log_errors = False
    options.case_sensitive = case_sensitive
    try:
        return re2.compile(pattern.encode("utf-8", "surrogateescape") if as_bytes else pattern, options)
    except UnicodeEncodeError as exc:  # a lone surrogate from JSON's \ud800 escape: no character, not internal_error
        bad = exc.object[exc.start]
        raise InvalidParamsError(
            f"invalid {what} {quoted(pattern)}: it {lone_surrogate(bad)}", pattern=pattern
        ) from exc
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        # A pattern of thousands of characters is named by its ends: RE2's reason quotes it (or its tail) again.
        raise InvalidParamsError(
            f"invalid {what} {quoted(pattern)}: {shorten(reason)}{advice}", pattern=pattern
        ) from exc


def go_matches(compiled: Any, text: str) -> Iterator[Any]:
    """The matches of the re2 pattern ``compiled`` in ``text`` as Go's regexp (the seed's) and ripgrep walk them:
    an empty match right after the previous match is skipped. The re2 wheel's own ``finditer`` and ``subn`` give an
    empty match found after another twice (``(?m)^`` in ``"a\\nb\\n"``: at 0, 2, 2, 4, 4): each insertion at a line's
    start landed twice on every line but the first."""
    last = -1
    for found in compiled.finditer(text):
        start, end = found.span()
        if start == end == last:
            continue
        last = end
        yield found


def go_substituted(compiled: Any, text: str, spell: Callable[[Any], str]) -> tuple[str, int]:
    """``text`` with each of :func:`go_matches` replaced by what ``spell`` makes of it, and how many there were."""
    return substituted(text, go_matches(compiled, text), spell)


def substituted(text: str, matches: Iterable[Any], spell: Callable[[Any], str]) -> tuple[str, int]:
    """``text`` with each of ``matches`` (in order, none overlapping) replaced by what ``spell`` makes of it, and how
    many there were."""
    pieces: list[str] = []
    kept = count = 0
    for found in matches:
        pieces += (text[kept : found.start()], spell(found))
        kept = found.end()
        count += 1
    pieces.append(text[kept:])
    return "".join(pieces), count


def compiles(pattern: str) -> bool:
    """Whether ``pattern`` is a valid RE2 regex (where a pattern that is not one is read as plain text)."""
    try:
        compile_re2(pattern)
    except InvalidParamsError:
        return False
    return True


def re2_text(text: str) -> str:
    """``text`` as RE2 takes it: UTF-8 only, so the lone surrogates Python reads a name that is not UTF-8 with
    (``caf\\udce9``) become U+FFFD, as the name is shown (``caf\ufffd``)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
