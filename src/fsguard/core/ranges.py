"""Big files read in pieces: line offsets found by counting line breaks in bytes (seeking back from the end
for tails), only the lines returned decoded, and the whole-file facts (hash, lines) taken in one streamed pass.

Memory stays at a chunk or two whatever the file's size. What is returned is bounded by :func:`excerpt`.
"""

from __future__ import annotations

import codecs
import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from itertools import chain
from pathlib import Path

from fsguard.core.beneath import Pinned
from fsguard.core.charsets import legacy_codec
from fsguard.core.disk import open_pinned, read_all, special_file
from fsguard.core.errors import ExternalChangeError
from fsguard.core.hashing import Fingerprint, StreamHash
from fsguard.core.oserrors import from_os_error
from fsguard.core.textio import LINE_BREAK, Breaks, BreakTally, LineEnding, decode, sniff, split_bom

CHUNK = 1 << 20
FIRST_CHUNK = 64 << 10
"""The first read of a pass forward or back (each next one four times bigger, up to :data:`CHUNK`): the first or
last lines of a gigabyte file are a few KB. Like CHUNK, a multiple of 4: whole UTF-16/32 units, so break matches
stay aligned."""
TAIL_FIRST = 4 << 10  # the least a tail reads first
TEXT_SNIFF_BYTES = 64 << 10  # the first bytes a text's encoding is judged by, when it is read in pieces
STREAM_ABOVE = 4 << 20
"""Files up to this size are read whole (one decode, encoding judged on every byte); bigger ones in pieces."""
_COUNTED_LINE = 256  # characters a line may average for a span's LFs to be counted first (a count reads it all)


@dataclass(frozen=True)
class Layout:
    """An open file read in pieces: where its text starts (after the BOM), its encoding, its line breaks."""

    fd: int
    size: int
    start: int
    encoding: str
    breaks: Breaks
    sniffed: bool = False  # the encoding was judged from the first bytes alone, no BOM: the bytes read may differ


class Misread(Exception):
    """Bytes read from ``offset`` on are not in the encoding a sniffed layout judged from the file's first bytes
    (an ASCII start, then Latin-1): the read starts again in the encoding those bytes give (:func:`rejudged`)."""

    def __init__(self, offset: int) -> None:
        super().__init__(f"bytes at {offset} are not in the sniffed encoding")
        self.offset = offset


@dataclass(frozen=True)
class Survey:
    """Whole-file facts from one streamed pass."""

    line_count: int
    line_ending: LineEnding
    fingerprint: Fingerprint | None  # None when the pass took no hash
    encoding: str  # the fingerprint's, or above the limit the one the first bytes past ASCII give


@contextmanager
def opened(entry: Pinned) -> Iterator[tuple[int, os.stat_result]]:
    """The pinned regular file open for reading, and its stat; the last component is never followed."""
    fd = open_pinned(entry)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise from_os_error(IsADirectoryError(errno.EISDIR, "is a directory"), entry.path)
        if not stat.S_ISREG(st.st_mode):
            raise special_file(entry.path)
        yield fd, st
    finally:
        os.close(fd)


def layout(fd: int, size: int, path: object, known: Fingerprint | None = None, head: bytes | None = None) -> Layout:
    """Judge the encoding from the first :data:`TEXT_SNIFF_BYTES` (binary files are refused here), or take the one a
    whole pass of the unchanged file judged (``known``, a text's fingerprint): then only its BOM is looked at. The
    bytes come from ``head`` (the file's first bytes, read already for another check) when it holds enough."""
    if known is not None and known.line_count is not None:
        start = head[:4] if head is not None else _pread(fd, 4, 0)
        return Layout(fd, size, len(split_bom(start)[0]), known.encoding, Breaks.of(known.encoding))
    prefix = head if head is not None and len(head) >= min(TEXT_SNIFF_BYTES, size) else _pread(fd, TEXT_SNIFF_BYTES, 0)
    encoding, bom = sniff(prefix, path, whole=len(prefix) >= size)
    return Layout(fd, size, len(bom), encoding, Breaks.of(encoding), sniffed=not bom and len(prefix) < size)


def rejudged(lay: Layout, offset: int) -> Layout:
    """``lay`` in the encoding of the lines around ``offset`` (see :class:`Misread`), as a whole-file read would
    judge them; undecodable bytes met later in the read become U+FFFD."""
    begin = max(offset - TEXT_SNIFF_BYTES // 2, lay.start)
    data = _pread(lay.fd, TEXT_SNIFF_BYTES, begin)
    first = data.find(b"\n", 0, offset - begin) + 1 if begin > lay.start else 0  # from a line's start: whole chars
    last = data.rfind(b"\n")
    sample = data[first : last + 1] if last >= offset - begin else data[first:]
    encoding = legacy_codec(sample)
    return Layout(lay.fd, lay.size, lay.start, encoding, Breaks.of(encoding))


def decoded(lay: Layout, data: bytes, offset: int) -> str:
    """``data`` (read at ``offset``) as text; undecodable bytes become U+FFFD, or raise :class:`Misread` when the
    layout was sniffed."""
    if not lay.sniffed:
        return data.decode(lay.encoding, "replace")
    try:
        return data.decode(lay.encoding)
    except UnicodeDecodeError as exc:
        raise Misread(offset + exc.start) from exc


def _pread(fd: int, length: int, offset: int) -> bytes:
    try:
        return os.pread(fd, length, offset)
    except OSError as exc:
        raise from_os_error(exc, f"fd {fd}") from exc


def unshrunk(lay: Layout, path: Path) -> None:
    """Raise if the file is now shorter than the size it was read by: cut under the read (a log truncated by its
    rotation), what was taken is not what the file holds, and a tail's short read looked like a last line longer
    than the budget with nothing of it shown."""
    if os.fstat(lay.fd).st_size < lay.size:
        raise ExternalChangeError(
            f"{path.name} shrank while it was read (truncated, as a log rotation does): nothing of it is shown. "
            "Read it again.",
            path=str(path),
        )


def bytes_at(lay: Layout, offset: int, length: int) -> bytes:
    """Up to ``length`` bytes of the file from ``offset``."""
    return _pread(lay.fd, length, offset)


def forward(lay: Layout, offset: int) -> Iterator[tuple[int, bytes]]:
    """Chunks from ``offset`` to the end; a chunk ending in the CR of a CRLF takes its LF too, so no CRLF is split.

    The first chunk is :data:`FIRST_CHUNK` and each next one four times bigger, up to :data:`CHUNK`: decoding a
    whole CHUNK for the first lines of a gigabyte file cost a millisecond.
    """
    cr, lf, unit = lay.breaks.cr, lay.breaks.lf, lay.breaks.unit
    length = FIRST_CHUNK
    while offset < lay.size:
        # Never past the size the read goes by: bytes appended meanwhile were hashed and counted as lines while a
        # tail, found back from that size, numbered its lines by that count (lines 1-3 shown as 4-6).
        data = _pread(lay.fd, min(length, lay.size - offset), offset)
        if offset + len(data) < lay.size:  # a part of a unit is cut off only before the end: every byte is hashed
            data = data[: len(data) - len(data) % unit]
        if not data:
            return
        # Only an LF is taken: a CR taken after a CR could be the first half of a CRLF in turn ("\r\r\n").
        if data.endswith(cr) and offset + len(data) < lay.size and _pread(lay.fd, unit, offset + len(data)) == lf:
            data += lf
        yield offset, data
        offset += len(data)
        length = min(length * 4, CHUNK)


def line_offset(lay: Layout, line: int) -> int | None:
    """Where 1-based ``line`` starts, or None when the file has fewer lines."""
    need = line - 1
    if need == 0:
        return lay.start if lay.size > lay.start else None
    for offset, data in forward(lay, lay.start):
        found = lay.breaks.count(data)
        if found < need:
            need -= found
            continue
        start = lay.breaks.ends(data, offset)[need - 1]
        return start if start < lay.size else None
    return None


def tail_offset(lay: Layout, count: int, reach: int | None = None) -> int:
    """Where the last ``count`` lines start (the text's start when there are fewer); no line is decoded.

    With ``reach``, nothing further back than ``reach`` bytes from the end is read: when fewer than ``count``
    lines start there, the earliest of them is returned (the end of the file when none does).
    """
    unit, end, need = lay.breaks.unit, lay.size, count
    floor = lay.start if reach is None else max(lay.start, lay.size - reach)
    earliest = lay.start if floor == lay.start else lay.size
    span = min(CHUNK, FIRST_CHUNK, max(TAIL_FIRST, count * 128))  # the lines asked for, if they average 128 bytes
    while end > floor:
        begin = max(floor, end - span)
        begin -= (begin - lay.start) % unit
        span = min(span * 4, CHUNK)
        # One unit past the end: a CRLF across the boundary is matched whole, and left to the later chunk.
        data = _pread(lay.fd, end - begin + unit, begin)
        # A break at the very end of the file closes the last line; it does not start another.
        first, found = lay.breaks.last_starts(data, begin, min(end, lay.size - 1), need)
        if found >= need:
            return first
        if found and floor > lay.start:
            earliest = first
        need -= found
        end = begin
    return earliest


def texts(lay: Layout, offset: int, reads: Iterable[tuple[int, bytes]] | None = None) -> Iterator[str]:
    """The text from ``offset`` (of ``reads``, :func:`forward`'s chunks from there unless given) decoded chunk by
    chunk; undecodable bytes become U+FFFD, or raise :class:`Misread` when the layout was sniffed."""
    decoder = codecs.getincrementaldecoder(lay.encoding)(errors="strict" if lay.sniffed else "replace")
    for at, data in chain(forward(lay, offset) if reads is None else reads, [(lay.size, b"")]):
        pending = decoder.getstate()[0]  # the bytes of a character the last chunk cut, which this one ends
        try:
            yield decoder.decode(data, final=not data)
        except UnicodeDecodeError as exc:
            # The text before the byte is good, and comes first: a read whose lines end before it (the chunk read
            # ahead past them) never meets the byte, and reads them as every other window does.
            good = (pending + data)[: exc.start]
            with suppress(UnicodeDecodeError):
                yield good.decode(lay.encoding)
            raise Misread(at - len(pending) + exc.start) from exc


def survey(lay: Layout, *, hashed: bool) -> Survey:
    """Count every line break (and hash every byte when ``hashed``) in one pass of :data:`CHUNK` reads.

    A hashed file (one within --max-file-size) without a BOM is decoded to the end in the encoding its first bytes
    gave: one that does not decode in it after all (not UTF-8 past them, or a byte cp1252 leaves undefined) gets
    the encoding a whole-file read gives it (the one edits write it back in), so a ranged read shows its text as
    an edit will match it, not with U+FFFD where the first such byte is. One with a BOM whose bytes do not decode
    in the encoding it names gets no line count and the encoding "binary", as :meth:`Fingerprint.of` gives it (a
    whole read refuses it). Above the limit only the first chunk past ASCII is decoded (all of a gigabyte would
    double the pass): the encoding a ranged read there would be judged in.
    """
    tally = BreakTally(lay.breaks)
    digest = StreamHash() if hashed else None
    if digest is not None and lay.start:
        digest.update(_pread(lay.fd, lay.start, 0))
    checker = codecs.getincrementaldecoder(lay.encoding)() if hashed else None
    encoding = lay.encoding
    looking = not hashed and lay.sniffed  # for the first bytes past ASCII: a read would be judged again there
    for offset, data in forward(lay, lay.start):
        tally.add(data)
        if digest is not None:
            digest.update(data)
        if checker is not None and not _decodes(checker, data):
            checker, encoding = None, _whole_encoding(lay)
        if looking and not data.isascii():  # the chunks before were ASCII: this one starts a character
            looking = False
            # With the bytes ending the chunk's last character, final at the end of the file: a Latin-1 byte
            # left last ("caf\xe9") is not UTF-8 cut short, as a read there finds it.
            end = offset + len(data)
            whole = data + _pread(lay.fd, min(3, lay.size - end), end)
            try:
                codecs.getincrementaldecoder(lay.encoding)().decode(whole, final=offset + len(whole) >= lay.size)
            except UnicodeDecodeError as exc:
                encoding = rejudged(lay, offset + exc.start).encoding
    if checker is not None and not _decodes(checker, b"", final=True):
        encoding = _whole_encoding(lay)
    fingerprint = None
    if digest is not None and encoding == "binary":
        fingerprint = Fingerprint(digest.hexdigest(), None, encoding)
    elif digest is not None:
        fingerprint = Fingerprint(digest.hexdigest(), tally.line_count, encoding, tally.line_ending)
    return Survey(tally.line_count, tally.line_ending, fingerprint, encoding)


def _whole_encoding(lay: Layout) -> str:
    """The encoding a whole read judges the file in, or "binary" when its BOM names one it does not decode in."""
    return "binary" if lay.start else decode(read_all(lay.fd, lay.size)).encoding


def _decodes(decoder: codecs.IncrementalDecoder, data: bytes, *, final: bool = False) -> bool:
    try:
        decoder.decode(data, final)
    except UnicodeDecodeError:
        return False
    return True


@dataclass(frozen=True)
class Excerpt:
    """Lines taken from a text until a line count or a byte budget ran out."""

    content: str
    lines: int  # lines begun in content (the last may be cut or lack its break)
    cut_column: int | None  # when the last line was cut by the budget: the characters of it before the cut
    full: bool  # the budget stopped it before the lines asked for
    short_line: int | None = None  # the characters of a first line ending before its skipped columns do: nothing read
    # The text ended right after the lines taken; None: they end where the chunks taken so far do, only the next tells
    ended: bool | None = False


CUT_ROOM = 64  # bytes a cut line leaves for the marker after it: "… [line N cut at C characters]"
CUT_FLOOR = 2 * CUT_ROOM  # a budget no larger cuts a line where it ends, leaving its marker no room: progress first


def cut_line_room(budget: int) -> int:
    """UTF-8 bytes of a line a read cut by ``budget`` shows: the budget less its marker's room, but all of a budget
    too small to spare it."""
    return budget - CUT_ROOM if budget > CUT_FLOOR else budget


def utf8_size(text: str) -> int:
    # surrogatepass: a path from a name that is not UTF-8 holds lone surrogates, each 3 bytes as the wire's U+FFFD
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def excerpt(chunks: Iterable[str], *, max_lines: int, budget: int, skip_columns: int = 0) -> Excerpt:
    """Up to ``max_lines`` lines of ``chunks`` (text never splitting a CRLF) in at most ``budget`` UTF-8 bytes.

    The first line starts ``skip_columns`` characters in. A line that does not fit is left out whole, unless
    it is the first: then it is cut where the budget ends, so every call makes progress.
    """
    parts: list[str] = []
    used = lines = column = 0
    mark = (0, 0)  # parts and bytes when the current line began
    for text in chunks:
        pos, runs = 0, True
        while pos < len(text) and lines < max_lines:
            # Look no further than the budget allows: a 45 MB line is not scanned to its end.
            limit = min(len(text), pos + skip_columns + budget - used + 2)
            if runs and not skip_columns:  # whole LF lines that fit, taken at once: a tail of 100 log lines
                end, taken = _lf_run(text, pos, max_lines - lines, limit)
                run = text[pos:end]
                size = utf8_size(run)
                if taken and used + size <= budget and "\r" not in run:
                    parts.append(run)
                    pos, used, lines, column = end, used + size, lines + taken, 0
                    mark = (len(parts), used)
                    continue
                runs = False  # line by line from here: a run tried once per chunk keeps this linear
            found = _next_break(text, pos, limit)
            body = text[pos : found.start()] if found else text[pos:limit]
            brk = found.group() if found else ""
            pos = found.end() if found else limit
            if skip_columns:
                dropped = min(skip_columns, len(body))
                body, skip_columns, column = body[dropped:], skip_columns - dropped, column + dropped
                if brk and skip_columns:  # a start_column past the line's end, which gave the next lines
                    return Excerpt("", 0, None, False, short_line=column)
            cost = utf8_size(body) + len(brk)
            if used + cost > budget:
                if lines:
                    return Excerpt("".join(parts[: mark[0]]), lines, None, True)
                # The first line, cut: the marker a read adds after it ("… [line N cut at C characters]") must fit
                # the budget too. ``column`` counts the characters skipped as well as those in ``parts``.
                shown = "".join(parts) + body
                fit = _fitting(shown, cut_line_room(budget))
                return Excerpt(fit, 1, column - len(shown) + len(body) + len(fit), True)
            parts.append(body + brk)
            used += cost
            column += len(body)
            if brk:
                lines += 1
                column = 0
                mark = (len(parts), used)
        if lines >= max_lines:
            ended = None if pos == len(text) else False
            break
    else:
        ended = True
    if skip_columns:  # past the end of a last line without a break
        return Excerpt("", 0, None, False, short_line=column)
    begun = lines + (1 if len(parts) > mark[0] else 0)
    return Excerpt("".join(parts), begun, None, False, ended=ended)


def _next_break(text: str, pos: int, limit: int) -> re.Match[str] | None:
    """The first line break in ``text[pos:limit]``, found by two plain searches before the regex is run where it
    is: the regex engine walks text a hundred times slower, and a line read on far into by start_column has
    hundreds of megabytes before the column."""
    first = min((at for at in (text.find("\n", pos, limit), text.find("\r", pos, limit)) if at >= 0), default=-1)
    return LINE_BREAK.search(text, first, limit) if first >= 0 else None


def _lf_run(text: str, pos: int, count: int, limit: int) -> tuple[int, int]:
    """Where up to ``count`` lines of ``text`` from ``pos``, each ended by an LF before ``limit``, end, and how many
    there are: one C-level search per line, or two in all when the span holds no more LFs than asked for and is
    short enough to count them (a tail: its text is the lines asked for)."""
    if limit - pos <= count * _COUNTED_LINE:
        found = text.count("\n", pos, limit)
        if found <= count:
            return (text.rfind("\n", pos, limit) + 1 if found else pos), found
    end, taken = pos, 0
    while taken < count and (found := text.find("\n", end, limit)) >= 0:
        end, taken = found + 1, taken + 1
    return end, taken


def _fitting(body: str, room: int) -> str:
    """The longest start of ``body`` within ``room`` UTF-8 bytes, never splitting a character."""
    if body.isascii():
        return body[: max(room, 0)]
    return body.encode("utf-8")[: max(room, 0)].decode("utf-8", "ignore")
