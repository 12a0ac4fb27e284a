"""Where an RE2 pattern matches a file's text as search_files reads it: in lines, each line break (CRLF, LF or a
lone CR) read as ``\\n`` and no part of its line, the matches placed back in the text as the file holds it.

Every tool that replaces what a regex matches (edit_file's regex mode, a pipeline's regex step, project_replace)
walks its matches here, so ``(?m);$`` finds the line ends of a CRLF file as of an LF one and ``(?m)\\s+$`` takes a
CRLF whole or not at all (it ate the CR of each, turning the file LF while the rest stayed CRLF). A pattern that
names a CR (``\\r``) is matched on the text as it is: it is looking for the file's own bytes.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterator
from typing import Any

from fsguard.core.patterns import go_matches
from fsguard.core.query import names_carriage_return

_CRLF = re.compile("\r\n")


def line_matches(compiled: Any, pattern: str, text: str, *, at_end: bool) -> Iterator[Any]:
    """The matches of the re2 pattern ``compiled`` (compiled from ``pattern``) in ``text`` read as lines, each with
    ``start``, ``end``, ``span`` and ``group`` in ``text`` itself (a CRLF a match or group spans is carried whole).

    An empty match right after the previous match is skipped, as Go's regexp and ripgrep walk them (the re2 wheel's
    own ``finditer`` gives one twice); so is an empty match at the very end of the text unless ``at_end``: Go's
    ReplaceAll replaces it (edit_file), search sees no line there (project_replace counts what search counts).
    """
    lines, crlfs = (text, []) if "\r" not in text or names_carriage_return(pattern) else _read_as_lines(text)
    for found in go_matches(compiled, lines):
        if not at_end and found.start() == found.end() == len(lines):
            continue
        yield found if lines is text else _Placed(found, text, crlfs)


def _read_as_lines(text: str) -> tuple[str, list[int]]:
    """``text`` with each line break ``\\n``, and where in it each that was a CRLF stands."""
    crlfs = [at - number for number, at in enumerate(found.start() for found in _CRLF.finditer(text))]
    return text.replace("\r\n", "\n").replace("\r", "\n"), crlfs


class _Placed:
    """A match in the text read as lines (:func:`_read_as_lines`), placed in the text itself: its offsets, and
    its groups as the text holds them (a CRLF a group spans is carried over whole)."""

    def __init__(self, found: Any, text: str, crlfs: list[int]) -> None:
        self._found, self._text, self._crlfs = found, text, crlfs

    def _placed(self, at: int) -> int:
        return at + bisect_left(self._crlfs, at)

    def start(self) -> int:
        return self._placed(self._found.start())

    def end(self) -> int:
        return self._placed(self._found.end())

    def span(self) -> tuple[int, int]:
        return self.start(), self.end()

    def group(self, key: int | str = 0) -> str | None:
        start, end = self._found.span(key if isinstance(key, int) else self._found.re.groupindex[key])
        return None if start < 0 else self._text[self._placed(start) : self._placed(end)]
