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
    line, else ``default`` (the file's first). The break after a match is looked for once per line, not per match: a
    replace_all of 40,000 matches sliced the rest of the file for each one (quadratic). Each new text is spelled in a
    line ending once, not per match."""

    def __init__(self, text: str, default: str | None = None) -> None:
        self._text = text
        self._file = default or first_break(text)
        self._after = (-1, -1, "")  # searched from, where the break found starts (end of text: none), the break
        self._spelled: dict[tuple[str, str], str] = {}
        self._breaks: dict[str, bool] = {}
        self._put = (-1, "")  # where the last text spelled ends in the text, and its last character

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

    def spell(self, replacement: str, start: int, end: int) -> str:
        """``replacement`` for ``text[start:end]``, each line break typed in it spelled as :func:`respelled` does:
        one ending for a match whose breaks agree (spelled once per text), line by line in a match of mixed ones."""
        if not self.types_break(replacement):
            return replacement
        text = self._text
        after_cr, before_lf = between_breaks(text, start, end)
        if start == self._put[0]:  # right after the text spelled for the match before, not after the text's own
            after_cr = self._put[1] == "\r"
        crlf, cr, lf = text.count("\r\n", start, end), text.count("\r", start, end), text.count("\n", start, end)
        if crlf == cr == lf or (not crlf and not (cr and lf)):  # one kind of break inside, or none
            spelled = one_break_each(self.spelled(replacement, self.near(start, end)), after_cr, before_lf)
        else:
            spelled = respelled(
                text[start:end], replacement, self.near(start, end), after_cr=after_cr, before_lf=before_lf
            )
        self._put = (end, spelled[-1:])
        return spelled

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


def respelled(matched: str, replacement: str, default: str, *, after_cr: bool = False, before_lf: bool = False) -> str:
    """``replacement`` for ``matched``, each line break typed in it spelled as the ending of the line it stands for
    (``default`` where ``matched`` holds no break: the ending of its line), and as one break on disk
    (:func:`unfused`: ``after_cr`` and ``before_lf`` say what :func:`between_breaks` says of the match).

    In a stretch of one ending that is every typed break. In one of mixed endings, line i of the replacement takes
    the break of line i of the match: spelling every break as the match's first turned ``a\\nb\\r\\n`` edited to
    ``a\\nB\\r\\n`` into ``a\\nB\\n``. Lines are paired from both ends while they read alike, the rest in order;
    a line the replacement adds takes the break of the line before it, or the one it typed where that is one of
    the match's and the replacement types a CR (it spelled the file's bytes).
    """
    old_breaks = LINE_BREAK.findall(matched)
    new_lines, new_breaks = LINE_BREAK.split(replacement), LINE_BREAK.findall(replacement)
    if len(set(old_breaks)) < 2:
        ends = [old_breaks[0] if old_breaks else default] * len(new_breaks)
        return unfused(new_lines, ends, after_cr=after_cr, before_lf=before_lf)
    old_lines = LINE_BREAK.split(matched)
    old_count, new_count = len(old_breaks), len(new_breaks)
    head = 0
    while head < min(old_count, new_count) and _alike(new_lines[head], old_lines[head]):
        head += 1
    tail = 0
    while tail < min(old_count, new_count) - head and _alike(new_lines[-2 - tail], old_lines[-2 - tail]):
        tail += 1
    middle = old_breaks[head : old_count - tail]
    typed_bytes = "\r" in replacement
    ends = old_breaks[:head]
    for offset, typed in enumerate(new_breaks[head : new_count - tail]):
        if offset < len(middle):
            ends.append(middle[offset])
        elif typed_bytes and typed in old_breaks:
            ends.append(typed)
        else:  # an added line: the line before it is the last of the middle, of the head, or the line it precedes
            ends.append(middle[-1] if middle else old_breaks[head - 1] if head else old_breaks[old_count - tail])
    ends += old_breaks[old_count - tail :]
    return unfused(new_lines, ends, after_cr=after_cr, before_lf=before_lf)


def unfused(lines: list[str], ends: list[str], *, after_cr: bool, before_lf: bool) -> str:
    """``lines`` joined by ``ends`` (one fewer), each end one line break on disk: a CR that an LF would follow
    directly (the next line is empty and ends in LF, or ``before_lf``: the text after starts with one) reads as one
    CRLF with it, so that CR is spelled LF, as the break it meets; an LF at the very start after the file's CR
    (``after_cr``) is spelled CR, or CRLF where an LF follows it too. Line i's CR followed by a blank line's LF lost
    the blank line (``a\\rb\\nc\\n`` edited from ``a\\nb\\n`` to ``A\\n\\n`` wrote ``A\\r\\nc\\n``)."""

    def meets_lf(index: int) -> bool:
        if lines[index + 1]:
            return False
        return ends[index + 1] == "\n" if index + 1 < len(ends) else before_lf

    for index in reversed(range(len(ends))):  # from the end, so a CR spelled LF is seen by the CR before it
        if ends[index] == "\r" and meets_lf(index):
            ends[index] = "\n"
    if after_cr and ends and not lines[0] and ends[0] == "\n":
        ends[0] = "\r\n" if meets_lf(0) else "\r"
    return "".join(line + end for line, end in zip(lines, [*ends, ""], strict=True))


def one_break_each(spelled: str, after_cr: bool, before_lf: bool) -> str:
    """``spelled``, its breaks all of one ending, as :func:`unfused` spells it: breaks of one ending fuse with none
    but the text's at its edges (an LF after a CR, a CR before an LF), so it is only split where one would."""
    if (after_cr and spelled.startswith("\n")) or (before_lf and spelled.endswith("\r")):
        lines, ends = LINE_BREAK.split(spelled), LINE_BREAK.findall(spelled)
        return unfused(lines, ends, after_cr=after_cr, before_lf=before_lf)
    return spelled


def between_breaks(text: str, start: int, end: int) -> tuple[bool, bool]:
    """Whether ``text[start:end]`` comes right after a lone CR and whether right before a lone LF: a replacement
    starting with an LF (ending with a CR) would fuse with it into one CRLF. A match that splits a CRLF has
    neither: a break typed there stands for the one it splits."""
    after_cr = start > 0 and text[start - 1] == "\r" and not text.startswith("\n", start)
    before_lf = text.startswith("\n", end) and not (end > 0 and text[end - 1] == "\r")
    return after_cr, before_lf


def _alike(new_line: str, old_line: str) -> bool:
    """Whether a line of the replacement is a line of the match retyped (indentation and trailing blanks aside, as
    the matching tiers allow)."""
    return new_line.strip() == old_line.strip()


def retypes_breaks(found: str, typed: str, *, literal: bool = True) -> bool:
    """Whether ``typed`` differs from ``found`` in line breaks alone (for a regex, ``literal=False``: whether it
    types a break): every mode spells those in the file's own endings, so such a replacement changes nothing."""
    if not literal:
        return LINE_BREAK.search(typed) is not None
    return bool(found) and found != typed and LINE_BREAK.sub("\n", found) == LINE_BREAK.sub("\n", typed)


def in_line_endings(text: str, template: str, default: str | None = None) -> Callable[[Any], str]:
    """A ``sub`` callback for matches in ``text``, in order: ``template`` with each line break typed in it spelled
    as the matched line's ending (a CRLF file gets CRLF for a typed LF, mixed files the ending of the line at hand:
    :meth:`LineEnds.spell`). ``default`` spells them where ``text`` holds no break (the file's first otherwise).

    Only the breaks typed in ``template`` are spelled: text a regex group carries over from the file keeps its own.
    """
    if not LINE_BREAK.search(template):
        return lambda _match: template
    ends = LineEnds(text, default)
    return lambda match: ends.spell(template, match.start(), match.end())


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
