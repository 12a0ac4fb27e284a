"""Bytes ↔ text: encodings and BOMs, line endings, binary detection, decoding and splitting into lines.

Pure functions on bytes and strings; reading and writing files is :mod:`fsguard.core.disk`'s business.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Literal

import charset_normalizer

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
    """Detect the encoding of ``data`` and decode it.

    Raises:
        BinaryFileError: ``data`` is binary.
        EncodingError: the bytes do not decode in the encoding their BOM or content indicates.
    """
    bom, encoding = split_bom(data)
    if is_binary(data):
        raise BinaryFileError(
            f"{path} is a binary file. Read it with encoding='base64', or inspect it with get_file_info.",
            path=str(path),
        )
    body = data[len(bom) :]
    if encoding is None:
        encoding = _guess_encoding(body)
    try:
        text = body.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise EncodingError(
            f"{path} does not decode as {encoding}: {exc}. Read it with encoding='base64' to see the raw bytes.",
            path=str(path),
        ) from exc
    crlf, lf, cr = _ending_counts(text)
    final_newline = text.endswith(("\n", "\r"))
    line_count = crlf + lf + cr + (0 if final_newline or not text else 1)
    return DecodedText(text, encoding, bom, _style(crlf, lf, cr), final_newline, line_count)


# charset-normalizer's language model often ranks a Baltic or Central European code page first for
# short Western text that cp1252 decodes just as cleanly; among near-equal candidates, prefer cp1252.
_NEAR_EQUAL_CHAOS = 0.12
_WESTERN_DEFAULT = "cp1252"


def _guess_encoding(body: bytes) -> str:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        matches = list(charset_normalizer.from_bytes(body))
        if not matches:
            return "utf-8"
        floor = min(match.chaos for match in matches)
        near = [match for match in matches if match.chaos <= floor + _NEAR_EQUAL_CHAOS]
        if any(_WESTERN_DEFAULT in match.could_be_from_charset for match in near):
            return _WESTERN_DEFAULT
        return matches[0].encoding
    return "utf-8"


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


def count_lines(text: str) -> int:
    """Lines in ``text``; a final line break adds no line."""
    crlf, lf, cr = _ending_counts(text)
    return crlf + lf + cr + (0 if not text or text.endswith(("\n", "\r")) else 1)


def line_ending_of(text: str) -> LineEnding:
    """The file's line-ending style; ``mixed`` when lines disagree."""
    return _style(*_ending_counts(text))


def _ending_counts(text: str) -> tuple[int, int, int]:
    """How many lines end in CRLF, LF and a lone CR."""
    cr = text.count("\r")
    if not cr:  # the common case: one scan instead of three
        return 0, text.count("\n"), 0
    crlf = text.count("\r\n")
    return crlf, text.count("\n") - crlf, cr - crlf


def _style(crlf: int, lf: int, cr: int) -> LineEnding:
    kinds = [name for name, count in (("lf", lf), ("crlf", crlf), ("cr", cr)) if count]
    if not kinds:
        return "none"
    return kinds[0] if len(kinds) == 1 else "mixed"  # type: ignore[return-value]
