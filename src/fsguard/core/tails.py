"""read_file's ``mode=tail`` within the response budget: the end of the file, always.

A tail is asked for the end: the latest entries of a log. When the lines asked for do not fit the budget, the last
ones that fit whole are shown; when not even the last line fits (a one-line log, a minified bundle), the end of
that line is shown behind a marker saying how much of it comes before, and how to read that part by column.
Showing the start of the window instead, as a head would, left the newest lines of a log out of its tail.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from functools import cache

from fsguard.core.excerpts import (
    Window,
    finish,
    fitting_lines,
    read_on_from,
    spliced,
    take,
    take_last,
    window_hint,
)
from fsguard.core.hashing import Fingerprint
from fsguard.core.ranges import (
    Excerpt,
    Layout,
    bytes_at,
    cut_line_room,
    decoded,
    forward,
    line_offset,
    tail_offset,
    texts,
    utf8_size,
)
from fsguard.core.textio import tail_lines
from fsguard.models import ReadFileResult

FRONT_ROOM = 128
"""Bytes of the budget kept for the marker in front of a line's end."""
COUNTED_BELOW = 64 << 20
"""The characters of a line before its shown end are counted (so a column can be given) up to this many bytes."""
LOOKED_BACK = 1 << 30
"""How far back from the end a tail looks for the start of a last line too long for the budget; one that starts
further back is shown without it (a one-line file of 8 GB took 24 s to find its line's start)."""
NUMBERED_BELOW = 256 << 20
"""Above --max-file-size (lines not counted), a long last line starting within this many bytes of the file's start
gets its number, from the breaks before it; one further in is not numbered: counting would read the whole file."""
MARKER_ROOM = 64  # bytes kept for the "... [N lines omitted] ..." line between a head and a tail
_BREAK = "\r\n"  # the characters a last line may end with


@dataclass(frozen=True)
class LineEnd:
    """The end of a line too long for the budget: the characters shown and what of the line comes before them."""

    line: int | None  # the line's number (None: the lines before it were not counted)
    shown: str
    left_chars: int | None  # characters of the line before ``shown``; None when it was too long to count
    left_bytes: int | None  # the same part of the line in the file's bytes; None: more than LOOKED_BACK
    prior: str = ""  # the end of that part, at least what a read by column shows (when left_chars is known)


def streamed_tail(
    lay: Layout, base: ReadFileResult, count: int, known: Fingerprint | None, budget: int, setting: int, name: str
) -> ReadFileResult:
    """The last ``count`` lines of a file read in pieces, within ``budget`` bytes (``setting`` is the flag's value,
    named in hints). A file whose lines were not counted (above --max-file-size) gets unnumbered lines."""
    ex, first = take_last(lay, count, budget, known)
    if ex.lines or lay.size <= lay.start:
        return finish_tail(base, ex, first, count, setting, name)
    # A multi-byte code page is decoded from the line's start, wherever it is.
    reach = LOOKED_BACK if _resumable(lay.encoding) else None
    start: int | None = tail_offset(lay, 1, reach)
    if start == lay.size:
        start = None  # no line starts within reach: the last line is longer than that
    line = known.line_count if known is not None else None
    if line is None and start is not None and start <= NUMBERED_BELOW:
        line = line_at(lay, start)
    return finish_line_end(base, _line_end(lay, start, line, budget, cut_line_room(setting)), setting, name)


def head_and_tail(
    lay: Layout, base: ReadFileResult, count: int, known: Fingerprint | None, name: str, budget: int, setting: int
) -> ReadFileResult:
    """A streamed read's first and last lines of ``count`` (``mode=all`` with max_lines) within ``budget``;
    ``setting`` is --max-response-bytes, which the hints name."""
    head, tail = count // 2, count - count // 2
    # All the lines asked for when they are counted, as a whole read answers: from line 1, read on by
    # start_line where the budget ends (a head and tail around "[N lines omitted]" told apart the two reads).
    whole = known is not None and known.line_count is not None and count >= known.line_count
    # The head and the tail shown (at most a budget of text each, at most 4 bytes a character in the file)
    # cannot meet in a file of more than 8 budgets: no line is searched for, which in a file of a few huge
    # lines is a read of all of it.
    if not whole and lay.size - lay.start <= 8 * budget:
        head_end = line_offset(lay, head + 1)
        whole = head_end is None or tail_offset(lay, tail) <= head_end
    if whole:
        ex, first = take(lay, Window(1, count), budget, name, known)
        return finish(base, ex, first, count, setting, name)
    top, _ = take(lay, Window(1, head), budget // 2, name, known)
    if top.cut_column is not None:  # the first line alone fills half the budget: it is read on by column
        ex, first = take(lay, Window(1, count), budget, name, known)
        return finish(base, ex, first, count, setting, name, then=read_on_from(count + 1))
    if not top.lines:  # max_lines=1: the tail's one line alone, whose end is shown when it is too long
        return streamed_tail(lay, base, tail, known, budget, setting, name)
    bottom, _ = take_last(lay, tail, budget - utf8_size(top.content) - MARKER_ROOM, known)
    total = known.line_count if known is not None else None
    content, hint = spliced(top.content, top.lines, bottom.content, bottom.lines, count, total, setting)
    return base.model_copy(update={"content": content, "truncated": True, "hint": hint})


def text_tail(base: ReadFileResult, text: str, total: int, count: int, budget: int, setting: int) -> ReadFileResult:
    """The last ``count`` lines of ``text`` (``total`` lines, held whole), within ``budget`` bytes."""
    if count >= total and utf8_size(text) <= budget:
        return base.model_copy(update={"content": text, "start_line": 1 if total else None, "end_line": total or None})
    name = (base.path or "").rsplit("/", 1)[-1]
    lines = tail_lines(text, count)
    kept = fitting_lines(lines[::-1], budget)
    if kept:
        ex = Excerpt("".join(lines[len(lines) - kept :]), kept, None, kept < len(lines))
        return finish_tail(base, ex, total - kept + 1, count, setting, name)
    last = lines[-1]
    shown = _last_fitting(last, max(budget - FRONT_ROOM, 1))
    left = last[: len(last) - len(shown)]
    prior = left[-cut_line_room(setting) :]
    return finish_line_end(base, LineEnd(total, shown, len(left), utf8_size(left), prior), setting, name)


def finish_tail(
    base: ReadFileResult, ex: Excerpt, first: int | None, wanted: int, setting: int, name: str
) -> ReadFileResult:
    """Content, line numbers and hint of the last ``ex.lines`` lines, the first of them line ``first`` (None: not
    counted); fewer than ``wanted`` from a window not reaching line 1 means the budget held no more."""
    total = base.total_lines
    last = first + ex.lines - 1 if first is not None and ex.lines else None
    if first is None:
        hint = f"Last {ex.lines} lines of {name}"
        earlier = "get_file_info counts the lines, to read the earlier ones by start_line"
    else:
        of = f" of {total} total lines" if total is not None else ""
        hint = f"Lines {first}-{last}{of} in {name}"
        # The asked-for lines left out, not end_line alone: that read from line 1, the far end from the tail.
        earlier = f"read the earlier ones with start_line={max(first - wanted + ex.lines, 1)} end_line={first - 1}"
    if ex.lines < wanted and first != 1:
        hint += f" ({wanted:,} asked: the response budget (--max-response-bytes {setting:,}) holds no more; {earlier})"
    elif total is not None and first is not None and ex.lines == wanted:
        hint = window_hint("last", wanted, total)  # the lines asked for, all: a read of the whole text's words
    truncated = first != 1  # from line 1 to the end: the whole file, counted or not
    return base.model_copy(
        update={
            "content": ex.content,
            "start_line": first if ex.lines else None,
            "end_line": last,
            "truncated": truncated,
            "hint": hint if truncated and ex.lines else None,  # no lines: an empty file, a BOM at most
        }
    )


def finish_line_end(base: ReadFileResult, end: LineEnd, setting: int, name: str) -> ReadFileResult:
    """The end of the last line behind a marker, and a hint naming the columns to read the rest of it by."""
    number = end.line if end.line is not None else "?"
    by_number = f"start_line={number}" if end.line is not None else "start_line (get_file_info counts the lines)"
    shown = f"its last {len(end.shown.rstrip(_BREAK)):,} characters are shown"  # the line's, not its break
    if end.left_chars is not None:
        left = f"its first {end.left_chars:,} characters"
        # A read by column shows as many characters as fit its room in UTF-8 bytes: started that many back from the
        # shown part, it ends where the shown part begins, or a character into it when that one fits the bytes the
        # character before the column did not (a column a room of characters back ended 2 to 4 times too early in
        # text of 2- to 4-byte characters).
        before = max(end.left_chars + 1 - len(_last_fitting(end.prior, cut_line_room(setting))), 1)
        shown += f", from column {end.left_chars + 1:,}. Read the part before them with {by_number} "
        shown += f"start_column={before}, or the line from its start with start_column=1"
    elif end.left_bytes is not None:
        left = f"its first {end.left_bytes:,} bytes"
        shown += f", after {end.left_bytes:,} bytes of it. Read the line from its start with {by_number} start_column=1"
    else:
        left = f"over {LOOKED_BACK:,} bytes of it"
        shown += (
            f"; it starts more than {LOOKED_BACK:,} bytes before them, further back than a tail looks. Read it "
            f"from its start with {by_number} start_column=1, or the file's start with mode='head'"
        )
    what = f"Line {number}" if end.line is not None else "The last line"
    hint = f"{what} of {name} is longer than the response budget (--max-response-bytes {setting:,}): {shown}"
    return base.model_copy(
        update={
            "content": f"[line {number} cut: {left} left out] …" + end.shown,
            "start_line": end.line,
            "end_line": end.line,
            "truncated": True,
            "hint": hint,
        }
    )


def _line_end(lay: Layout, start: int | None, line: int | None, budget: int, before: int) -> LineEnd:
    """The end of the line from ``start`` (None: further back than it was looked for) to the end of the file that
    fits ``budget`` (less the marker's room), with the ``before`` characters ahead of it (the most a read by column
    shows): about four times as many bytes read from the end, and the line's characters before the end counted
    when it has fewer than :data:`COUNTED_BELOW` bytes, with the decoding a read by start_column counts them with.
    In a multi-byte code page the whole line is decoded, from its start (always looked for): no later byte is known
    to start a character."""
    room = max(budget - FRONT_ROOM, 1)
    if not _resumable(lay.encoding):
        assert start is not None  # looked for without a reach
        end, count = _decoded_end(lay, start, room + before)
        shown = _last_fitting(end, room)
        left_bytes = max(lay.size - len(shown.encode(lay.encoding, "replace")) - start, 0)
        return LineEnd(line, shown, count - len(shown), left_bytes, end[: len(end) - len(shown)])
    unit = lay.breaks.unit
    begin = max(lay.start if start is None else start, lay.size - 4 * (room + before) - 4)
    begin -= (begin - lay.start) % unit
    data = bytes_at(lay, begin, lay.size - begin)
    if start is None or begin > start:
        inside = _inside(data, lay.encoding)  # the end may begin inside a character: drop that one's rest
        data, begin = data[inside:], begin + inside
    text = decoded(lay, data, begin)
    shown = _last_fitting(text, room)
    if start is None:
        return LineEnd(line, shown, None, None)
    size = len(shown.encode(lay.encoding, "replace"))
    left_bytes = max(lay.size - size - start, 0)
    left_chars = None
    if left_bytes <= COUNTED_BELOW:
        left_chars = max(sum(len(part) for part in texts(lay, start)) - len(shown), 0)
    return LineEnd(line, shown, left_chars, left_bytes, text[: len(text) - len(shown)])


def _resumable(encoding: str) -> bool:
    """Whether text in ``encoding`` decodes right from any code unit once :func:`_inside` drops a character's
    rest: UTF-8, UTF-16, UTF-32 and the one-byte code pages. A multi-byte code page (Shift-JIS, GBK, Big5, EUC)
    does not: its trail bytes are lead bytes too, so a read begun inside a character pairs every byte after it
    with the wrong one (a line of Shift-JIS kana showed as other kanji)."""
    return encoding.startswith(("utf-8", "utf-16", "utf-32")) or _one_byte(encoding)


@cache
def _one_byte(encoding: str) -> bool:
    """Whether every byte is a character of its own in ``encoding``."""
    decoder = codecs.getincrementaldecoder(encoding)(errors="replace")
    return len(decoder.decode(bytes(range(256)), final=True)) == 256


def _decoded_end(lay: Layout, start: int, room: int) -> tuple[str, int]:
    """The last ``room`` characters of the text from ``start`` (no more can fit ``room`` bytes) and how many
    characters it has: decoded from ``start``, the only place a multi-byte code page is known to start a character."""
    end, count = "", 0
    for text in texts(lay, start):
        count += len(text)
        end = (end + text)[-room:]
    return end, count


def _last_fitting(text: str, room: int) -> str:
    """The longest end of ``text`` within ``room`` UTF-8 bytes, never splitting a character."""
    if text.isascii():
        return text[max(len(text) - room, 0) :]
    data = text.encode("utf-8", "surrogatepass")[-room:]
    return data[_continuations(data) :].decode("utf-8", "surrogatepass")


def _inside(data: bytes, encoding: str) -> int:
    """How many bytes at the start of ``data`` (cut at a code unit) belong to a character begun before it."""
    if encoding == "utf-8":
        return _continuations(data)
    if encoding in ("utf-16-le", "utf-16-be") and len(data) >= 2:
        unit = int.from_bytes(data[:2], "little" if encoding.endswith("le") else "big")
        return 2 if 0xDC00 <= unit <= 0xDFFF else 0  # the second half of a surrogate pair
    return 0  # UTF-32 and the one-byte code pages: every unit is a character


def _continuations(data: bytes) -> int:
    """How many bytes at the start of ``data`` continue a UTF-8 character begun before it (at most three)."""
    count = 0
    while count < min(3, len(data)) and 0x80 <= data[count] < 0xC0:
        count += 1
    return count


def line_at(lay: Layout, offset: int) -> int:
    """The 1-based number of the line starting at ``offset`` (just after a break): the breaks before it counted."""
    if offset <= lay.start:
        return 1
    breaks = 0
    for start, data in forward(lay, lay.start):
        if start >= offset:
            break
        breaks += lay.breaks.count(data[: offset - start])  # a line start never falls inside a CRLF
    return breaks + 1
