"""How a backup's bytes are kept in its file's journal: as they are, or zlib-compressed when that saves enough.

Every backup holds the whole file, so 20 edits of a 40 MB log made an 846 MB journal, and the default 100 backups
a file could reach 4 GB. Text compresses several times over at zlib's fastest level (about 200 MB/s here, a
sixth of the bytes to append and fsync), so a file of a megabyte or more is kept compressed, unless its first
bytes show it will not shrink (images, archives: compressing those costs time and saves nothing). Smaller files
stay as they are: an edit of them would pay more for the compression than for the bytes it saves.
"""

from __future__ import annotations

import functools
import os
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import NamedTuple

PACK_FROM = 1 << 20  # bytes: a smaller backup is stored as it is
ZLIB = "zlib"
_PROBE = 64 * 1024  # bytes compressed first, to tell whether the rest is worth compressing
_WORTH = 0.8  # kept compressed only at this fraction of the size or less
_LEVEL = 1  # the fastest: level 6 saved a tenth more and took 2.5 times as long
_PIECE = 4 << 20  # bytes compressed as one zlib stream; the pieces of a version are compressed side by side


class Payload(NamedTuple):
    """Where a backup's bytes sit in its journal, and how they are stored there."""

    offset: int
    stored: int  # bytes in the journal
    codec: str  # "" as they are, ZLIB compressed


def packed(data: bytes) -> tuple[bytes, str]:
    """``data`` as the journal stores it, and its codec."""
    if len(data) < PACK_FROM or len(zlib.compress(data[:_PROBE], _LEVEL)) > _WORTH * _PROBE:
        return data, ""
    view = memoryview(data)
    pieces = [view[start : start + _PIECE] for start in range(0, len(data), _PIECE)]
    stored = b"".join(_compressors().map(_deflated, pieces))
    return (stored, ZLIB) if len(stored) <= _WORTH * len(data) else (data, "")


def unpacked(stored: bytes, codec: str, size: int) -> bytes | None:
    """The ``size`` bytes that ``stored`` holds in ``codec``, or None when they are damaged (or of a codec this
    version does not know); never more than ``size + 1`` bytes are inflated, whatever the stored bytes say."""
    if not codec:
        return stored
    if codec != ZLIB:
        return None
    data = bytearray()
    rest = stored
    while rest:  # one zlib stream after another, each a piece of the version
        room = size + 1 - len(data)
        if room <= 0:  # (a max_length of 0 would inflate without a limit)
            return None
        inflater = zlib.decompressobj()
        try:
            data += inflater.decompress(rest, room)
        except zlib.error:
            return None
        if not inflater.eof or inflater.unconsumed_tail:
            return None  # cut short, or more than ``size`` bytes
        rest = inflater.unused_data
    return bytes(data) if len(data) == size else None


def _deflated(piece: memoryview) -> bytes:
    return zlib.compress(piece, _LEVEL)


@functools.cache
def _compressors() -> ThreadPoolExecutor:
    """Threads compressing a version's pieces side by side: zlib lets go of the GIL while it works, so two cores
    halve the time a large edit waits for its backup (a 40 MB source file: 0.52 s on one)."""
    return ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1)), thread_name_prefix="fsguard-zlib")


def read_payload(journal: Path, payload: Payload, size: int) -> bytes | None:
    """The ``size`` bytes a backup saved, read from ``journal`` where ``payload`` places them; None when the journal
    is gone or the bytes do not inflate to ``size`` (the caller checks their hash)."""
    try:
        fd = os.open(journal, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None
    try:
        stored = os.pread(fd, payload.stored, payload.offset)
    finally:
        os.close(fd)
    return unpacked(stored, payload.codec, size)
