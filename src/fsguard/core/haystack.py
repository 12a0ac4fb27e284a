"""The text a content search reads in one file, and the lines of it a query matches: the Python engine's work on
each file, and the ripgrep engine's on the files ripgrep cannot read as text (the rules: :mod:`fsguard.core.search`).

A file's searched text is UTF-8 with ``\\n`` line breaks, so that both engines match, count columns and show lines
on the same bytes. ripgrep reads a file in one encoding for the whole run (UTF-8, or what a BOM names), so a file in
a legacy code page (Latin-1, cp1251, Shift-JIS…) reaches it as invalid UTF-8; such a file is searched here instead,
as the text :func:`fsguard.core.textio.decode` gives read_file.

Its lines are read_file's (:data:`fsguard.core.textio.LINE_BREAK`): ``\\r\\n``, ``\\n`` and a lone ``\\r`` each end
one. rg --crlf matches so too (``^``, ``$`` and every class take a ``\\r`` for a line's end), but it numbers, shows
and counts columns in lines that only ``\\n`` ends: a file holding a lone ``\\r`` is searched here too when its lines
are shown (:func:`read_otherwise`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from threading import Lock

from fsguard.core.errors import FsguardError
from fsguard.core.query import Query, find_all
from fsguard.core.textio import decode

# Per file with matches, in walk order: (path, match count, [(line number, byte spans)], the lines by number).
# Files past the first ``max_results`` matches come with their count only.
Hit = tuple[str, int, Sequence[tuple[int, list[tuple[int, int]]]], Mapping[int, bytes]]
Found = tuple[list[tuple[int, list[tuple[int, int]]]], dict[int, bytes]]  # a file's matches and its lines

_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = {b"\xff\xfe": "utf-16-le", b"\xfe\xff": "utf-16-be"}
_LONE_CR = re.compile(rb"\r(?!\n)")
_READ_FLAGS = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW
# The code page textio chose for content seen before (by digest): guessing one costs 1-20 ms a file, a search of a
# legacy tree would pay it for every file at every search.
_CODECS: OrderedDict[bytes, str] = OrderedDict()
_CODECS_KEPT = 16_384  # a few MB; a tree of more legacy files than this pays the guesses at every search
_CODECS_LOCK = Lock()


def searched_text(data: bytes) -> bytes | None:
    """The text a search reads in a file holding ``data``, None for a binary file (a NUL in that text).

    A UTF-8 BOM is dropped, a UTF-16 one transcodes the file, bytes that are not UTF-8 are read as read_file reads
    them; ``\\r\\n`` and a lone ``\\r`` become ``\\n``.
    """
    text = transcoded(data)
    return None if b"\0" in text else _lf(text)


def _lf(text: bytes) -> bytes:
    """``text`` with every line break read_file counts (CRLF, then a lone CR) made ``\\n``: ``\\r\\r\\n`` is two."""
    return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def transcoded(data: bytes) -> bytes:
    """``data`` as UTF-8, as a search reads it (see :func:`searched_text`), NUL and line breaks as they are: the
    bytes where a binary file's match is looked for, a UTF-16 one's after its BOM transcodes it, as in rg."""
    if data.startswith(_UTF8_BOM):
        return data[len(_UTF8_BOM) :]
    if encoding := _UTF16_BOMS.get(data[:2]):
        return data[2:].decode(encoding, "replace").encode()
    if is_legacy(data):
        return _legacy_text(data).encode()
    return data


def read_otherwise(data: bytes) -> bool:
    """Whether rg reads the text file of bytes ``data`` otherwise than a search does: in a legacy code page (see
    :func:`is_legacy`), or holding a lone ``\\r``, which rg leaves inside a numbered line."""
    if is_legacy(data):
        return True
    if b"\r" not in data:
        return False
    text = transcoded(data)
    return b"\0" not in text and _LONE_CR.search(text) is not None


def is_legacy(data: bytes) -> bool:
    """Whether ``data`` is text in a legacy code page: not UTF-8, no BOM, no NUL (which would make it binary)."""
    if data.isascii() or data.startswith((_UTF8_BOM, *_UTF16_BOMS)) or b"\0" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def _legacy_text(data: bytes) -> str:
    """``data`` decoded as :func:`fsguard.core.textio.decode` decodes it, its choice of code page remembered."""
    key = hashlib.blake2b(data, digest_size=16).digest()
    with _CODECS_LOCK:
        codec = _CODECS.get(key)
        if codec is not None:
            _CODECS.move_to_end(key)
    if codec is not None:
        return data.decode(codec)
    try:
        decoded = decode(data)
    except FsguardError:  # not reached for BOM-less text without NUL; read as ripgrep would if it were
        return data.decode("utf-8", "replace")
    with _CODECS_LOCK:
        _CODECS[key] = decoded.encoding
        while len(_CODECS) > _CODECS_KEPT:
            _CODECS.popitem(last=False)
    return decoded.text


def matching_lines(query: Query, text: bytes) -> Found:
    """The lines of ``text`` (a searched text) that ``query`` matches, with the spans of its matches; and, when
    there are any, every line of ``text`` by number (for context), else none."""
    found: list[tuple[int, list[tuple[int, int]]]] = []
    start, number = 0, 1
    while start < len(text):
        if query.prefilter is not None:  # no line before the first whole-text match can match
            hit = query.prefilter.search(text, start)
            line_start = text.rfind(b"\n", 0, hit.start()) + 1 if hit else len(text)
            if line_start >= len(text):
                break
            number += text.count(b"\n", start, line_start)
            start = line_start
        end = text.find(b"\n", start)
        last = end < 0
        end = len(text) if last else end
        spans = find_all(query, text[start:end])
        if last and spans and spans[-1][0] == end - start:
            # An empty match at the end of a last line no line break ends is no match: rg neither counts nor shows
            # it (``$`` finds one match in ``one\ntwo``).
            spans.pop()
        if spans:
            found.append((number, spans))
        start, number = end + 1, number + 1
    if not found:
        return found, {}
    lines = text.split(b"\n")
    return found, dict(enumerate(lines[:-1] if text.endswith(b"\n") else lines, 1))


def decoded_matches(query: Query, cwd: Path | int, files: Iterable[bytes]) -> dict[bytes, Found]:
    """The matches of ``query`` in those of ``files`` (paths relative to ``cwd``, a directory or its open fd) that
    ripgrep reads otherwise (:func:`read_otherwise`): one entry per such file, with no matches if it has none."""
    decoded: dict[bytes, Found] = {}
    for relative in files:
        data = _read_below(cwd, relative)
        if data is not None and read_otherwise(data):
            text = searched_text(data)
            decoded[relative] = matching_lines(query, text) if text is not None else ([], {})
    return decoded


def _read_below(cwd: Path | int, relative: bytes) -> bytes | None:
    """The bytes of the regular file ``relative`` below ``cwd``; None if it is gone or no longer a regular file.

    Opened by name below ``cwd`` as ripgrep opens it: the lines found are confirmed through the pinned walk later.
    Bare system calls: a search may check thousands of files here, and a file object costs a third more.
    """
    try:
        if isinstance(cwd, int):
            fd = os.open(relative, _READ_FLAGS, dir_fd=cwd)
        else:
            fd = os.open(os.fsencode(cwd) + b"/" + relative, _READ_FLAGS)
    except OSError:
        return None
    try:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            return None
        data = os.read(fd, found.st_size + 1)
        if len(data) != found.st_size:  # changed since, or a short read: on to the end
            chunks = [data]
            while chunk := os.read(fd, 1 << 20):
                chunks.append(chunk)
            data = b"".join(chunks)
        return data
    except OSError:
        return None
    finally:
        os.close(fd)


def binary_match(query: Query, data: bytes) -> bool:
    """Whether the binary file of bytes ``data`` holds a match, as rg --binary --crlf reads it: a NUL is a line
    break as a lone ``\\r`` is, and a ``\\r`` before one is no part of the line (``needle$`` holds in
    ``needle\\r\\n``)."""
    return bool(matching_lines(query, _lf(transcoded(data).replace(b"\0", b"\n")))[0])
