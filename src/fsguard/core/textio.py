"""Bytes ↔ text: encodings and BOMs, line endings, binary detection, decoding and splitting into lines.

Pure functions on bytes and strings; reading and writing files is :mod:`fsguard.core.disk`'s business.
"""

from __future__ import annotations

import bisect
import codecs
import io
import itertools
import operator
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import AnyStr, Literal

from fsguard.core.charsets import bomless_utf16, legacy_codec
from fsguard.core.errors import BinaryFileError, EncodingError

LineEnding = Literal["lf", "crlf", "cr", "mixed", "none"]

BINARY_SNIFF_BYTES = 8192
# Longest BOM first: the UTF-32-LE BOM starts with the UTF-16-LE one.
_BOMS: tuple[tuple[bytes, str], ...] = (
    (b"\x00\x00\xfe\xff", "utf-32-be"),
    (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"\xff\xfe", "utf-16-le"),
    (b"\xfe\xff", "utf-16-be"),
)

# The BOM a file fsguard writes in a UTF-16/32 codec starts with: such a file is read by its BOM alone (without one its
# NULs make it binary), and Python's byte-ordered codecs write none (utf-16 and utf-32 write their own).
_WRITTEN_BOMS = {encoding: bom for bom, encoding in _BOMS if encoding != "utf-8"}


def written_bom(codec: str) -> bytes:
    """The BOM a new or converted file in the canonical ``codec`` takes (:data:`_WRITTEN_BOMS`), else none."""
    return _WRITTEN_BOMS.get(codec, b"")


_OWN_BOMS = frozenset({"utf-8-sig", "utf-16", "utf-32"})  # codecs that write a BOM of their own


def whole_file(text: str, codec: str, bom: bytes) -> bytes:
    """The bytes of a file whose whole text is ``text``, in ``codec`` after ``bom``. A leading U+FEFF, where the
    bytes carry a BOM (``bom`` or the codec's own), is that BOM and is written once: content typed, or copied from
    another file's bytes, with its BOM got a second one."""
    if text.startswith("\ufeff") and (bom or codec in _OWN_BOMS):
        text = text[1:]
    return bom + text.encode(codec)


@dataclass(frozen=True)
class DecodedText:
    """A file's text with everything needed to write it back byte for byte."""

    text: str
    encoding: str
    bom: bytes
    line_ending: LineEnding
    final_newline: bool
    line_count: int

    def encode(self, text: str) -> bytes:
        """``text`` in this file's encoding, with its BOM."""
        return self.bom + text.encode(self.encoding)


LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""A line break as fsguard counts them: CRLF, a lone CR or LF (never the other Unicode separators)."""


KEPT_ENDINGS: dict[LineEnding, str] = {"crlf": "\r\n", "cr": "\r"}
"""The styles whose line break text written into the file takes, whatever was typed (an LF file takes text as given)."""


def first_break(*texts: str) -> str:
    """The first line break of the first of ``texts`` that has one, else ``\\n``."""
    for text in texts:
        found = LINE_BREAK.search(text)
        if found:
            return found.group()
    return "\n"


def split_bom(data: bytes) -> tuple[bytes, str | None]:
    """The BOM at the start of ``data`` and the encoding it announces."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return bom, encoding
    return b"", None


def is_binary(data: bytes) -> bool:
    """Binary means a NUL byte in the first 8 KiB of a file that has no UTF-16/32 BOM."""
    _bom, encoding = split_bom(data)
    if encoding is not None and encoding != "utf-8":
        return False
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def decode(data: bytes, path: object = "file") -> DecodedText:
    """Detect the encoding of ``data`` and decode it: the BOM's, else UTF-8, else the legacy code page a person
    would read the bytes in (:func:`fsguard.core.charsets.legacy_codec`), always one whose text encodes back to
    exactly these bytes.

    Raises:
        BinaryFileError: ``data`` is binary.
        EncodingError: the bytes do not decode in the encoding their BOM indicates.
    """
    bom, encoding = split_bom(data)
    if is_binary(data):
        raise _binary(path, data)
    body = data[len(bom) :]
    text = None
    if encoding is None:
        try:
            text, encoding = body.decode("utf-8"), "utf-8"  # decoded once: the check is the decoding
        except UnicodeDecodeError:
            encoding = legacy_codec(body)
    try:
        if text is None:
            text = body.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise EncodingError(
            f"{path} does not decode as {encoding}: {exc}. Read it with read_file(encoding='base64') to see the raw "
            "bytes.",
            path=str(path),
        ) from exc
    crlf, lf, cr = _ending_counts(text, "\r", "\n")
    final_newline = text.endswith(("\n", "\r"))
    line_count = crlf + lf + cr + (0 if final_newline or not text else 1)
    return DecodedText(text, encoding, bom, _style(crlf, lf, cr), final_newline, line_count)


def _binary(path: object, data: bytes) -> BinaryFileError:
    return BinaryFileError(
        f"{path} is a binary file{bomless_utf16(data)}. Read it with read_file(encoding='base64') (a file up to "
        "--max-file-size), or inspect it with get_file_info.",
        path=str(path),
    )


def sniff(prefix: bytes, path: object = "file", *, whole: bool = False) -> tuple[str, bytes]:
    """The encoding and BOM of a file read in pieces, judged from its first bytes as :func:`decode` judges a
    whole file; a prefix ending inside a character (cut mid-line) is judged up to its last line break, unless it is
    the ``whole`` file.

    Raises:
        BinaryFileError: the prefix is binary.
    """
    bom, encoding = split_bom(prefix)
    if is_binary(prefix):
        raise _binary(path, prefix)
    if encoding is None and prefix.isascii():  # most files (every log): UTF-8 without decoding a character
        encoding = "utf-8"
    if encoding is None:
        body = prefix[len(bom) :]
        end = body.rfind(b"\n")
        whole_lines = body[: end + 1] if end >= 0 and not whole else body
        try:
            # Final when the prefix is the whole file: a character its end cuts (Latin-1 "caf\xe9") is no UTF-8.
            codecs.getincrementaldecoder("utf-8")().decode(body, final=whole)
        except UnicodeDecodeError:
            encoding = legacy_codec(whole_lines)
        else:
            encoding = "utf-8"
    return encoding, bom


@dataclass(frozen=True)
class Breaks:
    """Line breaks as bytes in one encoding: a 1-byte LF/CR in UTF-8 and every legacy code page fsguard reads
    (their multi-byte characters never use 0x0A/0x0D), 2 or 4 aligned bytes in UTF-16/32."""

    unit: int
    lf: bytes
    cr: bytes
    pattern: re.Pattern[bytes]
    encoding: str

    @classmethod
    @lru_cache(maxsize=64)  # per read: the same few encodings, each pattern built once
    def of(cls, encoding: str) -> Breaks:
        lf, cr = "\n".encode(encoding), "\r".encode(encoding)
        pattern = re.compile(re.escape(cr + lf) + b"|" + re.escape(cr) + b"|" + re.escape(lf))
        return cls(len(lf), lf, cr, pattern, encoding)

    def count(self, chunk: bytes) -> int:
        """Line breaks in ``chunk`` (which starts on a character boundary)."""
        return sum(self.kinds(chunk))

    def kinds(self, chunk: bytes) -> tuple[int, int, int]:
        """How many lines of ``chunk`` (which starts on a character boundary) end in CRLF, LF and a lone CR.

        Wider units are counted in the decoded text: the regex, which must drop the matches off the units, took
        13 s a gigabyte of UTF-16, the decoding and the counts take 1.3. A unit that does not decode becomes one
        U+FFFD, never a break, and no break is lost to it.
        """
        if self.unit == 1:
            return _ending_counts(chunk, self.cr, self.lf)
        return _ending_counts(chunk.decode(self.encoding, "replace"), "\r", "\n")

    def ends(self, chunk: bytes, base: int) -> list[int]:
        """The offset just after each line break of ``chunk`` (at offset ``base``): where the next line starts."""
        unit = self.unit
        return [base + found.end() for found in self.pattern.finditer(chunk) if found.start() % unit == 0]

    def last_starts(self, chunk: bytes, base: int, stop: int, count: int) -> tuple[int, int]:
        """Of the line starts :meth:`ends` finds in ``chunk`` (at offset ``base``) at or before offset ``stop``, the
        earliest of the last ``count`` and how many those are (at most ``count``; with none the offset means nothing).

        LFs alone around the lines found (most files) are split off in one C-level pass, with no list of offsets.
        """
        if self.unit == 1:
            head = chunk[: stop - base]  # a break ending before ``stop`` starts a line at or before it
            pieces = head.rsplit(self.lf, count)
            found, before = len(pieces) - 1, len(pieces[0])  # ``before``: where the earliest LF found is
            # A CR among the breaks taken (or, when fewer than ``count``, anywhere) makes them the general case's.
            if head.find(self.cr, before if found == count else 0) < 0:
                return base + before + 1, found
        # Cut one byte past ``stop``: a break across it (its CRLF) stays whole, and only it can start a line after.
        ends = self.last_ends(chunk[: stop - base + self.unit], base, count + 1)
        starts = ends[: bisect.bisect_right(ends, stop)]
        return (starts[-count], count) if len(starts) >= count else (starts[0] if starts else base, len(starts))

    def last_ends(self, chunk: bytes, base: int, count: int) -> list[int]:
        """The last ``count`` of :meth:`ends` (all of them if fewer), found from the right without a full scan.

        A CRLF at the very end of ``chunk`` may be cut (its LF beyond): then its CR reads as a lone CR.
        """
        if self.unit != 1:
            return self.ends(chunk, base)[-count:]
        if self.cr not in chunk:  # LFs alone (most files): the last lines split off in one C-level pass
            after = chunk.rsplit(self.lf, count)[:0:-1]  # what follows each of the last LFs, the last LF's first
            # The k-th LF from the end (from 0) has the k + 1 last pieces and the k LFs between them after it, so
            # the line after it starts that many bytes before the chunk's end (the sums made in C, not per line).
            behind = map(operator.add, itertools.accumulate(map(len, after)), itertools.count())
            return list(map(operator.sub, itertools.repeat(base + len(chunk)), behind))[::-1]
        found: list[int] = []
        pos = len(chunk)
        # Each kind of break is looked for again only once the last one found is passed: a file without CRs is
        # not scanned to its start for one at every line.
        lf_at, cr_at = chunk.rfind(self.lf, 0, pos), chunk.rfind(self.cr, 0, pos)
        while cr_at < 0 and lf_at >= 0 and len(found) < count:  # no CR at all: LFs alone, one search each
            found.append(base + lf_at + 1)
            lf_at = chunk.rfind(self.lf, 0, lf_at)
        while len(found) < count:
            at = max(lf_at, cr_at)
            if at < 0:
                break
            found.append(base + at + 1)
            crlf = at > 0 and chunk[at : at + 1] == self.lf and chunk[at - 1 : at] == self.cr
            pos = at - 1 if crlf else at
            if lf_at >= pos:
                lf_at = chunk.rfind(self.lf, 0, pos)
            if cr_at >= pos:
                cr_at = chunk.rfind(self.cr, 0, pos)
        found.reverse()
        return found


@dataclass
class BreakTally:
    """Line breaks counted over a file read in pieces that never split a CRLF: line count, style, final newline."""

    breaks: Breaks
    crlf: int = 0
    lf: int = 0
    cr: int = 0
    empty: bool = True
    final_newline: bool = False

    def add(self, chunk: bytes) -> None:
        if not chunk:
            return
        b = self.breaks
        crlf, lf, cr = b.kinds(chunk)
        self.crlf += crlf
        self.lf += lf
        self.cr += cr
        self.empty = False
        self.final_newline = chunk.endswith((b.lf, b.cr))

    @property
    def line_count(self) -> int:
        return self.crlf + self.lf + self.cr + (0 if self.final_newline or self.empty else 1)

    @property
    def line_ending(self) -> LineEnding:
        return _style(self.crlf, self.lf, self.cr)


def split_lines(text: str) -> list[str]:
    """Lines with their own endings kept; ``\\n``, ``\\r\\n`` and a lone ``\\r`` end a line, nothing else does."""
    return io.StringIO(text, newline="").readlines()


def head_lines(text: str, count: int) -> list[str]:
    """The first ``count`` lines of ``text`` (endings kept), without splitting the rest."""
    stream = io.StringIO(text, newline="")
    lines = []
    for _ in range(count):
        line = stream.readline()
        if not line:
            break
        lines.append(line)
    return lines


def tail_lines(text: str, count: int) -> list[str]:
    """The last ``count`` lines of ``text`` (endings kept), splitting only a suffix of it.

    A suffix may start inside a line (or between the ``\r`` and ``\n`` of one ending): its first piece is never
    returned unless the suffix is the whole text.
    """
    if count <= 0:
        return []
    size = max(4096, 128 * count)
    while True:
        start = max(len(text) - size, 0)
        pieces = split_lines(text[start:])
        if start == 0 or len(pieces) > count:
            return pieces[-count:]
        size *= 4


def count_lines(text: str) -> int:
    """Lines in ``text``; a final line break adds no line."""
    crlf, lf, cr = _ending_counts(text, "\r", "\n")
    return crlf + lf + cr + (0 if not text or text.endswith(("\n", "\r")) else 1)


def line_ending_of(text: str) -> LineEnding:
    """The file's line-ending style; ``mixed`` when lines disagree."""
    return _style(*_ending_counts(text, "\r", "\n"))


def _ending_counts(text: AnyStr, cr: AnyStr, lf: AnyStr) -> tuple[int, int, int]:
    """How many lines of ``text`` (decoded, or bytes of a one-byte-unit encoding) end in CRLF, LF and a lone CR."""
    if cr not in text:  # the common case: a memchr, then one count instead of three (a CRLF count is slower still)
        # A count walks a byte at a time, a memchr many: a 1 GB line without a break took 0.43 s to count, 0.05 to find
        return 0, text.count(lf) if lf in text else 0, 0
    crs = text.count(cr)
    crlf = text.count(cr + lf)
    return crlf, text.count(lf) - crlf, crs - crlf


def _style(crlf: int, lf: int, cr: int) -> LineEnding:
    kinds = [name for name, count in (("lf", lf), ("crlf", crlf), ("cr", cr)) if count]
    if not kinds:
        return "none"
    return kinds[0] if len(kinds) == 1 else "mixed"  # type: ignore[return-value]


class LineIndex:
    """Line numbers of offsets in a text (1-based); the split into lines is made only when needed."""

    def __init__(self, text: str) -> None:
        self._text = text
        # Line breaks are counted as LF when every CR is a CRLF's: a CRLF file is not split into lines (150 MB for
        # a 40 MB file of 1.3 million lines) to number an edit's one line.
        self.lf_breaks = "\r" not in text or text.count("\r") == text.count("\r\n")
        self._last = (0, 1)  # an offset asked about, and its line

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self._text)

    @cached_property
    def starts(self) -> list[int]:
        starts, offset = [], 0
        for line in self.lines:
            starts.append(offset)
            offset += len(line)
        return starts

    def line_of(self, offset: int) -> int:
        if self.lf_breaks:  # the common case, without splitting the file
            # Counted from the offset asked about last: callers ask in text order, and counting from the start each
            # time made a replace_all of 40,000 matches quadratic.
            at, line = self._last
            if offset >= at:
                line += self._text.count("\n", at, offset)
            else:
                line -= self._text.count("\n", offset, at)
            self._last = (offset, line)
            return line
        return max(bisect.bisect_right(self.starts, offset), 1)


def kept_breaks(text: str, current: DecodedText | None) -> str:
    """``text`` as a write over ``current`` stores it: a uniformly CRLF (or classic Mac CR) file keeps its line
    breaks whatever the agent (or a pre-write or pre-edit hook) typed."""
    if current is not None and current.line_ending in KEPT_ENDINGS:
        return LINE_BREAK.sub(KEPT_ENDINGS[current.line_ending], text)
    return text
