"""A file's text as the looser matching tiers read it, each view built once per text.

A multi_edit tries every edit on the same text until one applies, and a failed edit climbs the whole ladder: the
views are built on first use and shared by every attempt on that text, so a batch of failing edits costs one
pass over the file, not one per edit. Each view maps back to offsets in the text without a per-character table
(a 10 MB file would need hundreds of megabytes for one).
"""

from __future__ import annotations

import bisect
import re
from array import array
from functools import cached_property

from fsguard.core.textio import LineIndex

_LOOSE = re.compile(r"\r\n?|\t")  # what the normal form rewrites
TAB_WIDTH = 4
DENSE = 10_000  # lines found by looking for their text, after which the rest are read one by one


def normal_text(text: str) -> str:
    """``text`` with tabs as four spaces and CRLF/CR as LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\t", " " * TAB_WIDTH)


class NormalForm:
    """:func:`normal_text` of a text, and where each of its characters came from in that text."""

    def __init__(self, text: str) -> None:
        self.text = normal_text(text)
        self._source = text
        # One mark per rewritten tab or line ending: where its output starts here, and where it sits in the source.
        self._normal_starts = array("q")
        self._source_starts = array("q")
        shift = 0  # offset here minus offset in the source, after the marks so far
        for found in _LOOSE.finditer(text):
            start, end = found.span()
            self._normal_starts.append(start + shift)
            self._source_starts.append(start)
            shift += self._output_length(start) - (end - start)

    def source(self, position: int) -> int:
        """The offset in the source of the character at ``position`` here (the source's length for the end)."""
        mark = bisect.bisect_right(self._normal_starts, position) - 1
        if mark < 0:
            return position
        normal, source = self._normal_starts[mark], self._source_starts[mark]
        produced = self._output_length(source)
        if position < normal + produced:
            return source
        return source + self._input_length(source) + position - normal - produced

    def starts_character(self, position: int) -> bool:
        """Whether ``position`` is the first character a source character produced (not inside a tab's spaces)."""
        mark = bisect.bisect_right(self._normal_starts, position) - 1
        if mark < 0:
            return True
        normal = self._normal_starts[mark]
        return position == normal or position >= normal + self._output_length(self._source_starts[mark])

    def _output_length(self, source: int) -> int:
        return TAB_WIDTH if self._source[source] == "\t" else 1

    def _input_length(self, source: int) -> int:
        return 2 if self._source.startswith("\r\n", source) else 1


class TextViews:
    """One text, its line index, and the views the whitespace-tolerant tiers search."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = LineIndex(text)

    @cached_property
    def normal(self) -> NormalForm:
        """Tabs as four spaces, line endings as LF, mapped back to the text."""
        return NormalForm(self.text)

    def lines_reading(self, content: str) -> list[int]:
        """Line numbers (0-based, ascending) of the lines that are ``content`` without surrounding whitespace: where a
        window of lines that match up to whitespace can start.

        Found by looking for ``content`` in the text, not by a table of every line: the table took 300 MB and 2 s
        for a 45 MB file of 1.5 million lines, for an edit whose old_text was not there at all. A blank
        ``content``, or a text with a lone CR (a line break ``\n`` does not show), reads every line instead, and so
        does a text where ``content`` is found on :data:`DENSE` lines: a window search splits a text where it finds
        a line anyway, and looking at each of 2.5 million lines by ``find`` took 13 s.
        """
        text = self.text
        if not content or not self.index.lf_breaks:
            return [number for number, line in enumerate(self.index.lines) if line.strip() == content]
        found: list[int] = []
        line, counted = 0, 0  # line numbers counted up to there
        position = text.find(content)
        while position != -1:
            start = text.rfind("\n", 0, position) + 1
            end = text.find("\n", position)
            end = len(text) if end < 0 else end
            if text[start:end].strip() == content:
                line += text.count("\n", counted, start)
                counted = start
                found.append(line)
                if len(found) == DENSE:
                    lines = self.index.lines
                    return found + [
                        number for number in range(line + 1, len(lines)) if lines[number].strip() == content
                    ]
            position = text.find(content, end)
        return found
