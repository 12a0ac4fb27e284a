"""read_file of a file above :data:`fsguard.core.ranges.STREAM_ABOVE`: the lines a selection names, streamed; and
the head+tail answer of any file, its two parts fitted to the response budget.

Files within --max-file-size get the whole-file facts (content_hash, total_lines, line_ending) from one
streamed pass, cached by file identity; above it a ranged read touches only the bytes it returns, so those
facts are not given (hashing a gigabyte takes a second; the file cannot be edited anyway, edits load it whole).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

from fsguard.core.confirmation import plural
from fsguard.core.errors import InvalidParamsError
from fsguard.core.hashing import Fingerprint
from fsguard.core.ranges import Excerpt, Layout, excerpt, forward, line_offset, tail_offset, texts, utf8_size
from fsguard.models import ReadFileResult

DEFAULT_MAX_LINES = 100
_ALL = 1 << 62
KEEP_READING = "Use mode=all or increase max_lines"
"""How a head or tail window of a file with more lines reads on."""


@dataclass(frozen=True)
class Window:
    """What to take: from ``start_line``, ``count`` lines, ``skip_columns`` in."""

    start_line: int = 1
    count: int = _ALL
    skip_columns: int = 0


def take(lay: Layout, window: Window, budget: int, name: str, known: Fingerprint | None) -> tuple[Excerpt, int]:
    """The excerpt and the number of its first line."""
    first = window.start_line
    offset = line_offset(lay, first)
    if offset is None:
        total = known.line_count if known is not None else None
        last = plural(total, "line") if total is not None else "fewer lines"
        raise InvalidParamsError(
            f"start_line {first} is past the end of {name} ({last}). Use a smaller start_line, or mode=tail.",
            start_line=first,
        )
    reads = _Reads(lay, offset)
    chunks = texts(lay, offset, reads)
    ex = excerpt(chunks, max_lines=window.count, budget=budget, skip_columns=window.skip_columns)
    if ex.short_line is not None:
        raise column_past_end(first, ex.short_line, window.skip_columns + 1, name, known.line_count if known else None)
    if ex.ended is None:
        # The lines asked for end where the chunks read so far do. Bytes left unread always decode to more text;
        # with none left, the last piece is the decoder's flush, no read: so the file's end is known at no cost,
        # and a head of all its lines says, as a whole read does, that nothing follows (not "read line N+1").
        ex = replace(ex, ended=reads.end >= lay.size and not any(chunks))
    return ex, first


class _Reads:
    """:func:`forward`'s chunks from ``offset``, and where the last one taken ends."""

    def __init__(self, lay: Layout, offset: int) -> None:
        self.end = offset
        self._chunks = forward(lay, offset)

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        for at, data in self._chunks:
            self.end = at + len(data)
            yield at, data


def column_past_end(line: int, length: int, column: int, name: str, total: int | None) -> InvalidParamsError:
    """The refusal of a start_column past the end of line ``line`` of ``name`` (``length`` characters; ``total``
    lines in the file, None when not counted): as a start_line past the file's end is refused. The column right
    after the last character is the line's end, and read (its break and the lines after it), so the limit named is
    one past the length."""
    following = f", or start_line={line + 1} for the next line" if total is None or line < total else ""
    return InvalidParamsError(
        f"start_column {column:,} is past the end of line {line} of {name} ({plural(length, 'character')}). "
        f"Use start_column <= {length + 1:,} (right after its last character){following}.",
        start_column=column,
    )


def take_last(lay: Layout, count: int, budget: int, known: Fingerprint | None) -> tuple[Excerpt, int | None]:
    """Of the last ``count`` lines, the most of the last ones that fit ``budget`` whole: the very end of the file,
    never lines from before it followed by nothing. A window the budget cuts is halved, then grown or shrunk by
    halves (the more lines, the more bytes): a read of at most four budgets per try, log2(count) tries at most,
    and one when the window fits, as it mostly does.

    No line starting more than four budgets of bytes from the end can fit (no character takes more than four
    bytes in any encoding read here), so no further back is read: in a file of a few huge lines, a search for
    the start of a hundred lines back was a read of all of it.
    """
    fits, too_many = 0, count + 1  # the last ``fits`` lines fit the budget; the last ``too_many`` do not
    best: tuple[Excerpt, int] | None = None
    tried = count
    while fits < tried < too_many:
        offset = tail_offset(lay, tried, reach=4 * budget + 4)
        if offset >= lay.size > lay.start:  # no line starts within reach: the last one alone is too long
            break
        ex = excerpt(texts(lay, offset), max_lines=tried, budget=budget)
        if ex.full:
            too_many = tried
        else:
            best = ex, offset
            if ex.lines < tried:  # no more lines start within reach (or in the file): no more can fit
                break
            fits = tried
        tried = (fits + too_many) // 2
    if best is None:
        return Excerpt("", 0, None, True), None
    ex, offset = best
    return ex, _first_of_last(lay, offset, ex, known)


def _first_of_last(lay: Layout, offset: int, ex: Excerpt, known: Fingerprint | None) -> int | None:
    """The number of the first of the last lines ``ex`` holds, from ``offset`` to the end (None: not counted)."""
    if offset == lay.start:
        return 1
    return known.line_count - ex.lines + 1 if known is not None and known.line_count is not None else None


def finish(
    base: ReadFileResult,
    ex: Excerpt,
    first: int,
    wanted: int,
    budget: int,
    name: str,
    *,
    ranged: bool = False,
    then: str | None = None,
    until: int | None = None,
) -> ReadFileResult:
    """Content, line numbers and the read-more hint of an excerpt starting at line ``first`` (tails:
    :mod:`fsguard.core.tails`), in the words a read of the whole text uses: ``ranged``, a line range, whose hint names
    its lines even when they are the whole file; ``then``, a head window's way on (its lines all taken, more after
    them: "Truncated: showing first N of T lines"); ``until``, the end_line asked, which the way on past the budget
    names too: start_line alone read on past the range asked."""
    total = base.total_lines
    # Uncounted (above --max-file-size): fewer lines than asked for, the budget not reached, means the text ran out;
    # so does a last line without a break, which only the end of a file can leave, or the end :func:`take` saw
    # right after the lines asked for (a head of exactly the file's lines).
    ran_out = not ex.full and (ex.ended is True or ex.lines < wanted or not ex.content.endswith(("\n", "\r")))
    hint: str | None
    last = first + ex.lines - 1 if ex.lines else None
    content = ex.content
    asked_end = f" end_line={until}" if until is not None else ""
    if ex.cut_column is not None:
        content += f"… [line {first} cut at {ex.cut_column:,} characters]"
        hint = (
            f"Line {first} of {name} cut at {ex.cut_column:,} characters (--max-response-bytes {budget:,}): "
            f"read on with start_line={first} start_column={ex.cut_column + 1}{asked_end}"
        )
    elif ex.full and last is not None:
        hint = (
            f"Lines {first}-{last}: the response budget (--max-response-bytes {budget:,}) is reached; "
            f"read on with start_line={last + 1}{asked_end}"
        )
    elif then is not None and total is not None and last is not None and ex.lines == wanted and last < total:
        hint = window_hint("first", wanted, total, then)
    else:
        more = ex.lines >= wanted and not (total is None and ran_out)
        hint = lines_hint(first, last, total, name, wanted - 1 if more else None)
    truncated = ex.full or first != 1 or ((last or 0) < total if total is not None else not ran_out)
    if not truncated and not ranged:
        hint = None
    return base.model_copy(
        update={"content": content, "start_line": first, "end_line": last, "truncated": truncated, "hint": hint}
    )


def read_on_from(line: int) -> str:
    """The way on of a head+tail read as its first ``line - 1`` lines: its first line filled half the budget."""
    return f"Read on with start_line={line}"


def window_hint(end: Literal["first", "last"], count: int, total: int, then: str = KEEP_READING) -> str:
    """What a head or tail of ``count`` of a file's ``total`` lines says, in the seed's words."""
    return f"Truncated: showing {end} {count} of {total} lines. {then} to see more"


def lines_hint(first: int, last: int | None, total: int | None, name: str, span: int | None) -> str:
    """ "Lines a-b of T total lines in NAME"; when lines follow and ``span`` is given, where to read the next
    ``span + 1`` of them (up to the last line, when the lines are counted)."""
    of = f" of {total} total lines" if total is not None else ""
    hint = f"Lines {first}-{last}{of} in {name}"
    if span is not None and (total is None or (last or 0) < total):
        following = (last or 0) + 1
        end = following + span if total is None else min(following + span, total)
        hint += f" — use start_line/end_line to read more, e.g. start_line={following} end_line={end}"
    return hint


def above_limit_note(name: str, size: int, limit: int) -> str:
    """Why a big file's read gives no content_hash and how (not) to edit it."""
    return (
        f"{name} is {size:,} bytes, above --max-file-size ({limit:,}): it is read in ranges only, without "
        "content_hash or total_lines (get_file_info counts its lines), and it cannot be edited, since an edit "
        "loads the whole file; restart with a larger --max-file-size to edit it"
    )


def spliced(top: str, head: int, bottom: str, tail: int, count: int, total: int | None, budget: int) -> tuple[str, str]:
    """``head`` first and ``tail`` last lines (of the ``count`` asked) around an omission marker, and the hint that
    says what is shown."""
    omitted = f"{total - head - tail} lines" if total else "lines"
    of = f" of {total}" if total else ""
    hint = f"Truncated: showing {head + tail}{of} lines ({head} head + {tail} tail"
    if head + tail < count:
        hint += f"; {count:,} asked: the response budget (--max-response-bytes {budget:,}) holds no more"
    hint += "). Use mode=head/tail or start_line/end_line"
    return top + on_own_line(f"... [{omitted} omitted] ...\n", [top]) + bottom, hint


def fitting_lines(lines: list[str], room: int) -> int:
    """How many of ``lines``, from the first, fit ``room`` UTF-8 bytes together."""
    used = 0
    for index, line in enumerate(lines):
        used += utf8_size(line)
        if used > room:
            return index
    return len(lines)


def on_own_line(marker: str, before: list[str]) -> str:
    """The omission marker on a line of its own even when the head's last line has no newline."""
    if before and not before[-1].endswith(("\n", "\r")):
        return "\n" + marker
    return marker
