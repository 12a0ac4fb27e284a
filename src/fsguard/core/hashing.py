"""The OCC token: FNV-1a 32-bit over a file's raw bytes, as 8 lowercase hex digits.

Golden vectors: ``b""`` → ``811c9dc5``, ``b"hello world"`` → ``d58b3fa7``, ``b"alpha\\nbeta\\n"`` → ``d4d8adf9``.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fnv_hash_fast import fnv1a_32

from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.disk import read_at, read_snapshot
from fsguard.core.errors import FsguardError
from fsguard.core.oserrors import from_os_error
from fsguard.core.textio import DecodedText, decode

# A file modified this recently may change again within one timestamp tick without its
# (size, mtime) moving, so its fingerprint is not cached (the "racy git" rule).
_RACY_WINDOW_NS = 2_000_000_000

Identity = tuple[int, int, int, int, int]


def content_hash(data: bytes) -> str:
    """FNV-1a 32 of ``data`` as 8 lowercase hex digits."""
    return f"{fnv1a_32(data):08x}"


@dataclass(frozen=True)
class Fingerprint:
    """What is known about a file's bytes without keeping them: hash, and line count if text."""

    content_hash: str
    line_count: int | None
    encoding: str

    @classmethod
    def of(cls, data: bytes) -> Fingerprint:
        """Fingerprint ``data``; binary or undecodable bytes get no line count."""
        try:
            decoded = decode(data)
        except FsguardError:
            return cls(content_hash(data), None, "binary")
        return cls.of_decoded(data, decoded)

    @classmethod
    def of_decoded(cls, data: bytes, decoded: DecodedText) -> Fingerprint:
        """Fingerprint ``data`` already decoded as ``decoded``."""
        return cls(content_hash(data), decoded.line_count, decoded.encoding)


class FingerprintCache:
    """Fingerprints keyed by (device, inode, size, mtime_ns, ctime_ns), so unchanged files are not re-read."""

    def __init__(self, max_entries: int = 4096, clock: Callable[[], int] = time.time_ns) -> None:
        self._entries: dict[Path, tuple[Identity, Fingerprint]] = {}
        self._lock = threading.Lock()
        self._max_entries = max_entries
        self._clock = clock
        self.hits = 0
        self.misses = 0

    def remember(self, path: Path, stat: os.stat_result | None, fingerprint: Fingerprint) -> None:
        """Record the fingerprint of bytes just read from ``path`` under the stat they were read with.

        ``stat`` is None when the file changed during the read: then nothing is trustworthy to keep.
        """
        # ctime too: mtime can be set back by any program, ctime cannot.
        if stat is None or self._clock() - max(stat.st_mtime_ns, stat.st_ctime_ns) < _RACY_WINDOW_NS:
            return
        with self._lock:
            if len(self._entries) >= self._max_entries:
                self._entries.pop(next(iter(self._entries)))
            self._entries[path] = (_identity(stat), fingerprint)

    def fingerprint(self, path: Path, max_size: int | None = None, *, entry: Pinned | None = None) -> Fingerprint:
        """The fingerprint of the file at ``path``, reading it only when its identity changed.

        With ``entry`` (``path`` pinned by fd) the file is stat'ed and read through it, never by name.
        """
        found = lstat_at(entry) if entry is not None else path.stat()
        if found is None:
            raise from_os_error(FileNotFoundError(2, "no such file"), path)
        key = _identity(found)
        with self._lock:
            cached = self._entries.get(path)
        if cached is not None and cached[0] == key:
            self.hits += 1
            return cached[1]
        self.misses += 1
        data, stat = read_at(entry, max_size) if entry is not None else read_snapshot(path, max_size)
        fingerprint = Fingerprint.of(data)
        self.remember(path, stat, fingerprint)
        return fingerprint

    @property
    def hit_rate(self) -> float:
        """Share of lookups answered from the cache."""
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


def _identity(stat: os.stat_result) -> Identity:
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
