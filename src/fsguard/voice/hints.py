"""The read-more hint after a read's lines: in full, or in compact as the span and where the rest starts."""

from __future__ import annotations

import re
from pathlib import Path

from fsguard.core.steady import unsteady_note
from fsguard.models import ReadFileEntry, ReadFileResult
from fsguard.voice.paths import shortened


def read_hint(read: ReadFileResult | ReadFileEntry, compact: bool) -> str:
    """The read-more hint; compact: ``lines 20-30 of 147; next: start_line=31``, the span and where the rest
    starts, without the sentence (a tail of 138-147: ``earlier: start_line=128 end_line=137``); a read the response
    budget cut says so and names the range its hint does (``earlier: start_line=11 end_line=20`` for a tail); kept
    whole for a line cut by the budget: a line span cannot say the column."""
    start, end, total = read.start_line, read.end_line, read.total_lines
    cut_line = "start_column=" in (read.hint or "")
    if not compact or start is None or end is None or total is None or cut_line:
        return shortened(read.hint)
    return _span(read, start, end, total) + _after_span(read)


def _span(read: ReadFileResult | ReadFileEntry, start: int, end: int, total: int) -> str:
    """The compact span and where the rest starts."""
    span = f"lines {start}-{end} of {total}"
    if "--max-response-bytes" in (read.hint or "") and (way := _READ_ON.search(read.hint or "")):
        # Cut by the budget, not by the lines asked: a tail's left-out lines come before it, so the span alone
        # (its end the file's) said neither that lines were missing nor which.
        first = int(way[1])
        where = "earlier" if first < start else "next"
        return f"{span}; response budget full; {where}: {way[0]}"
    if end < total:
        return f"{span}; next: start_line={end + 1}"
    if start > 1:  # a tail, or a range to the end: the lines left out come before it; as many again as shown
        return f"{span}; earlier: start_line={max(start - (end - start + 1), 1)} end_line={start - 1}"
    return span


_READ_ON = re.compile(r"start_line=(\d+)(?: end_line=\d+)?")
"""The range a budget-cut read's hint sends the agent to read next."""


def _after_span(read: ReadFileResult | ReadFileEntry) -> str:
    """A note core put after the span sentence, which compact keeps though it rewrites the span: that a file written
    to while it was read has no content_hash (an agent editing by a hash it was never given fails, and is not told
    why). A read above --max-file-size has no total_lines, so its note is kept by keeping the whole hint."""
    note = unsteady_note(Path(read.path or "").name)
    return f"; {note}" if (read.hint or "").endswith(note) else ""
