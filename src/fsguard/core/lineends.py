"""Which line ending a replacement takes where it lands: the SPEC's "replacement text takes the line ending of the
lines it replaces", for every mode that puts typed text into a file (the matching ladder, search_replace, regex,
project_replace)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fsguard.core.textio import LINE_BREAK, first_break


class LineEnds:
    """The line ending of each match, asked in text order: the line break inside the match, else the one ending its
    line, else the file's first. The break after a match is looked for once per line, not per match: a replace_all
    of 40,000 matches sliced the rest of the file for each one (quadratic). Each new text is spelled in a line
    ending once, not per match."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._file = first_break(text)
        self._after = (-1, -1, "")  # searched from, where the break found starts (end of text: none), the break
        self._spelled: dict[tuple[str, str], str] = {}
        self._breaks: dict[str, bool] = {}

    def near(self, start: int, end: int) -> str:
        inside = LINE_BREAK.search(self._text, start, end)
        if inside:
            return inside.group()
        origin, at, _ = self._after
        if not origin <= end <= at:  # no break lies between origin and at, so the one found there ends this line too
            after = LINE_BREAK.search(self._text, end)
            if after:
                self._after = (end, after.start(), after.group())
            else:
                self._after = (end, len(self._text), self._file)
        return self._after[2]

    def spelled(self, replacement: str, eol: str) -> str:
        key = (replacement, eol)
        if key not in self._spelled:
            self._spelled[key] = LINE_BREAK.sub(eol, replacement) if self.types_break(replacement) else replacement
        return self._spelled[key]

    def types_break(self, replacement: str) -> bool:
        """Whether ``replacement`` holds a line break, which :meth:`spelled` would spell."""
        if replacement not in self._breaks:
            self._breaks[replacement] = LINE_BREAK.search(replacement) is not None
        return self._breaks[replacement]


def in_line_endings(text: str, template: str) -> Callable[[Any], str]:
    """A ``sub`` callback for matches in ``text``, in order: ``template`` with each line break typed in it spelled
    as the matched line's ending (a CRLF file gets CRLF for a typed LF, mixed files the ending of the line at hand).

    Only the breaks typed in ``template`` are spelled: text a regex group carries over from the file keeps its own.
    """
    if not LINE_BREAK.search(template):
        return lambda _match: template
    ends = LineEnds(text)
    return lambda match: ends.spelled(template, ends.near(match.start(), match.end()))


def literal_replacement(text: str, template: str) -> str | Callable[[Any], str]:
    """What a literal ``template`` puts in at each match in ``text``: the template itself where it types no line
    break (every match takes the same text, so the regex engine can put it in alone), else
    :func:`in_line_endings`' callback."""
    return in_line_endings(text, template) if LINE_BREAK.search(template) else template


# One line break of a file, whole: a CR is one only where no LF follows, an LF only where no CR comes before.
ONE_BREAK = "(?:\r\n|\r(?!\n)|(?<!\r)\n)"


@dataclass(frozen=True)
class LiteralFind:
    """A text found literally, as search_replace, batch search_and_replace and project_replace find theirs.

    Never half a CRLF: a leading LF takes the CR before it and a trailing CR the LF after it, so deleting ``"\\nx"``
    from a CRLF file leaves no lone CR (an extra line break); text made only of CRs is after the CRs themselves
    (deleting them turns a CRLF file LF). The exact tier of the matching ladder finds old_text so too. Where the
    text finds nothing as typed, its line breaks each find any one (CRLF, LF or CR): a text typed in LF lines finds
    a CRLF or CR file's lines, as the ladder's later tiers do, and one spelling the file's own breaks never changes
    meaning. Each typed break finds one whole break of the file (:data:`ONE_BREAK`), never a CRLF's CR and then its
    LF: ``"a\\n\\nb"`` found ``a\\r\\nb``, a file with no blank line.
    """

    as_typed: re.Pattern[str]
    any_break: re.Pattern[str] | None  # None: the text holds no line break

    @classmethod
    def of(cls, text: str, flags: int = 0) -> LiteralFind:
        pieces = LINE_BREAK.split(text)
        any_break = ONE_BREAK.join(map(re.escape, pieces)) if len(pieces) > 1 else None
        return cls(literal_pattern(text, flags), None if any_break is None else re.compile(any_break, flags))

    def finder(self, text: str) -> tuple[re.Pattern[str], bool]:
        """The pattern to find in ``text`` with, and whether it is the one whose breaks find any."""
        if self.any_break is None or self.as_typed.search(text):
            return self.as_typed, False
        return self.any_break, True


def literal_pattern(text: str, flags: int = 0) -> re.Pattern[str]:
    """``text`` found as typed, widened to whole CRLFs at its ends (:class:`LiteralFind`)."""
    pattern = re.escape(text)
    if text.startswith("\n"):
        pattern = "\r?" + pattern
    if text.endswith("\r") and text.strip("\r"):
        pattern += "\n?"
    return re.compile(pattern, flags)
