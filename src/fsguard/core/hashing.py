"""The OCC token: FNV-1a 32-bit over a file's raw bytes, as 8 lowercase hex digits.

Golden vectors: ``b""`` → ``811c9dc5``, ``b"hello world"`` → ``d58b3fa7``, ``b"alpha\\nbeta\\n"`` → ``d4d8adf9``.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fnv_hash_fast import fnv1a_32

from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.disk import read_at, read_snapshot
from fsguard.core.errors import FsguardError
from fsguard.core.oserrors import from_os_error
from fsguard.core.remembered import Remembered
from fsguard.core.textio import DecodedText, LineEnding, decode

Identity = tuple[int, int, int, int, int]


_OFFSET_BASIS = 0x811C9DC5
_PRIME = 0x01000193
_PRIME_INVERSE = pow(_PRIME, -1, 1 << 32)
_MASK = 0xFFFFFFFF


def content_hash(data: bytes) -> str:
    """FNV-1a 32 of ``data`` as 8 lowercase hex digits."""
    if _RECENT.min_size <= len(data) <= _RECENT.max_size and type(data) is bytes:
        return _RECENT.digest(data)
    return f"{fnv1a_32(data):08x}"


class RecentDigests:
    """The digests of the last byte strings hashed, found again by comparing bytes.

    Comparing runs some twenty times faster than FNV-1a, and the same bytes are hashed again and again: an edit
    hashes as the old bytes what the edit before it wrote, and a read what the last read or write saw (within
    the racy window, where no stat can vouch for them). A digest is a function of the bytes alone, so a match
    is always right, whatever the file or the time. At most ``max_held`` bytes are kept, oldest dropped first.
    """

    def __init__(self, *, min_size: int = 8 << 10, max_size: int = 1 << 20, max_held: int = 4 << 20) -> None:
        self.min_size = min_size
        self.max_size = max_size
        self._max_held = max_held
        self._held = 0
        self._entries: OrderedDict[tuple[int, bytes, bytes], tuple[bytes, str]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def held(self) -> int:
        """Bytes kept, all entries together."""
        return self._held

    def digest(self, data: bytes) -> str:
        """:func:`content_hash` of ``data``, from memory when these bytes were hashed lately."""
        key = (len(data), data[:_EDGE], data[-_EDGE:])  # an edit in the middle keeps the ends: the bytes decide
        with self._lock:
            found = self._entries.get(key)
        if found is not None and found[0] == data:
            return found[1]
        digest = f"{fnv1a_32(data):08x}"
        with self._lock:
            replaced = self._entries.pop(key, None)
            self._held += len(data) - (len(replaced[0]) if replaced else 0)
            self._entries[key] = (data, digest)
            while self._held > self._max_held:
                self._held -= len(self._entries.popitem(last=False)[1][0])
        return digest


_EDGE = 32
_RECENT = RecentDigests()


class StreamHash:
    """FNV-1a 32 over bytes given in pieces, equal to :func:`content_hash` of them joined, in constant memory.

    ``fnv_hash_fast`` only hashes from the offset basis, so each piece is hashed behind a five-byte prefix
    whose own hash is the state so far (found by meeting in the middle, :func:`_prefix_to`): C speed for
    every piece, a third of a millisecond of Python per piece. Pieces are gathered until ``batch`` bytes
    (at most that many held), so a file given a few bytes at a time costs that search per batch, not per piece.
    """

    def __init__(self, batch: int = 64 << 10) -> None:
        self._state = _OFFSET_BASIS
        self._batch = batch
        self._pending: list[bytes] = []
        self._pending_size = 0

    def update(self, data: bytes) -> None:
        self._pending.append(data)
        self._pending_size += len(data)
        if self._pending_size >= self._batch:
            self._flush()

    def hexdigest(self) -> str:
        self._flush()
        return f"{self._state:08x}"

    def _flush(self) -> None:
        """Hash what is held (one piece as it is: a 1 MiB read is not copied)."""
        data = self._pending[0] if len(self._pending) == 1 else b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        if not data:
            return
        prefix = b"" if self._state == _OFFSET_BASIS else _prefix_to(self._state)
        self._state = fnv1a_32(prefix + data) if prefix is not None else _continue(self._state, data)


def hash_open_file(fd: int, chunk: int = 1 << 20) -> str:
    """:func:`content_hash` of everything in the open ``fd``, read from offset 0 in chunks (constant memory)."""
    digest = StreamHash()
    offset = 0
    while data := os.pread(fd, chunk, offset):
        digest.update(data)
        offset += len(data)
    return digest.hexdigest()


_two_byte_states: dict[int, tuple[int, int]] = {}


def _forward_table() -> dict[int, tuple[int, int]]:
    """The state after every two-byte input, keyed by its upper 24 bits (built once, 65,536 entries)."""
    if not _two_byte_states:
        table: dict[int, tuple[int, int]] = {}
        for first in range(256):
            after_first = ((_OFFSET_BASIS ^ first) * _PRIME) & _MASK
            for second in range(256):
                state = ((after_first ^ second) * _PRIME) & _MASK
                table.setdefault(state >> 8, (first << 8 | second, state))
        _two_byte_states.update(table)
    return _two_byte_states


def _prefix_to(target: int) -> bytes | None:
    """Five bytes whose FNV-1a 32 is ``target``: two forward from the basis meet three backward from it.

    A byte XORs only the low 8 bits of the state, so stepping back over the last three bytes leaves 65,536
    candidates whose upper 24 bits must equal a two-byte state's: about one in 256 does.
    """
    table = _forward_table()
    before_fifth = (target * _PRIME_INVERSE) & _MASK
    for fifth in range(256):
        before_fourth = ((before_fifth ^ fifth) * _PRIME_INVERSE) & _MASK
        for fourth in range(256):
            before_third = ((before_fourth ^ fourth) * _PRIME_INVERSE) & _MASK
            found = table.get(before_third >> 8)
            if found is not None:
                pair, state = found
                return bytes((pair >> 8, pair & 0xFF, (before_third ^ state) & 0xFF, fourth, fifth))
    return None


def _continue(state: int, data: bytes) -> int:
    """The FNV recurrence byte by byte: slow, only for a state no prefix reaches (none was ever seen)."""
    for byte in data:
        state = ((state ^ byte) * _PRIME) & _MASK
    return state


@dataclass(frozen=True)
class Fingerprint:
    """What is known about a file's bytes without keeping them: hash, and line count if text."""

    content_hash: str
    line_count: int | None
    encoding: str
    line_ending: LineEnding | None = field(default=None, compare=False)  # a by-product, not an identity

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
        return cls(content_hash(data), decoded.line_count, decoded.encoding, decoded.line_ending)


class FingerprintCache:
    """Fingerprints keyed by (device, inode, size, mtime_ns, ctime_ns), so unchanged files are not re-read."""

    def __init__(self, max_entries: int = 4096, clock: Callable[[], int] = time.time_ns) -> None:
        self._remembered: Remembered[Path, Fingerprint] = Remembered(max_entries)
        self.now = clock  # read before the stat a read starts with, and given back as ``taken``
        self.hits = 0
        self.misses = 0

    def remember(self, path: Path, stat: os.stat_result | None, fingerprint: Fingerprint, taken: int) -> None:
        """Record the fingerprint of bytes just read from ``path`` under the stat they were read with.

        ``stat`` is None when the file changed during the read: then nothing is trustworthy to keep. ``taken`` is
        :attr:`now` before the read's first stat: a change in the racy window then, made during a slow read (a
        gigabyte hashed), would leave the times as they were, so the window is judged from there.
        """
        if stat is not None:
            self._remembered.keep(path, identity(stat), fingerprint, stat, taken=taken)

    def remember_read(self, path: Path, fd: int, before: os.stat_result, fingerprint: Fingerprint, taken: int) -> None:
        """Record the fingerprint of what was just read from the open ``fd``, unless the file changed meanwhile."""
        after = os.fstat(fd)
        same = (after.st_size, after.st_mtime_ns, after.st_ctime_ns) == (
            before.st_size,
            before.st_mtime_ns,
            before.st_ctime_ns,
        )
        self.remember(path, after if same else None, fingerprint, taken)

    def lookup(self, path: Path, stat: os.stat_result) -> Fingerprint | None:
        """The fingerprint kept for ``path`` if the file still has the identity ``stat`` gives, else None."""
        found = self._remembered.get(path, identity(stat))
        if found is None:
            self.misses += 1
        else:
            self.hits += 1
        return found

    def fingerprint(self, path: Path, max_size: int | None = None, *, entry: Pinned | None = None) -> Fingerprint:
        """The fingerprint of the file at ``path``, reading it only when its identity changed.

        With ``entry`` (``path`` pinned by fd) the file is stat'ed and read through it, never by name.
        """
        taken = self.now()
        found = lstat_at(entry) if entry is not None else path.stat()
        if found is None:
            raise from_os_error(FileNotFoundError(2, "no such file"), path)
        kept = self.lookup(path, found)
        if kept is not None:
            return kept
        data, stat = read_at(entry, max_size) if entry is not None else read_snapshot(path, max_size)
        fingerprint = Fingerprint.of(data)
        self.remember(path, stat, fingerprint, taken)
        return fingerprint

    @property
    def hit_rate(self) -> float:
        """Share of lookups answered from the cache."""
        total = self.hits + self.misses
        return self.hits / total if total else 0.0


def identity(stat: os.stat_result) -> Identity:
    """A file's bytes as a stat tells them apart: device, inode, size and both times (ctime: a writer that puts
    the mtime back cannot put it back)."""
    return (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
