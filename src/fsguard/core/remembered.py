"""Facts read from the disk, remembered while what they were read from keeps the identity it had then.

A file's or directory's identity is what a stat gives (device, inode, times; size for a file): a write, a new
entry or a rename moves its mtime and ctime. Not within one clock tick, though: a change made in the tick of the
one remembered would leave the times as they were (the "racy git" rule). So nothing changed in the last
:data:`RACY_WINDOW_NS` before its read began is remembered. File fingerprints
(:class:`fsguard.core.hashing.FingerprintCache`), directory shapes (:class:`fsguard.core.shapes.DirectoryShapes`) and
listing scans (:class:`fsguard.core.listing.DirectoryLister`) are kept here, each reading its own clock.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Hashable
from typing import Generic, TypeVar

# Two seconds: covers the coarsest timestamps a file system still in use keeps (FAT's two seconds, one on
# ext3 and HFS+), and a clock tick anywhere else.
RACY_WINDOW_NS = 2_000_000_000

Key = TypeVar("Key", bound=Hashable)
Value = TypeVar("Value")


class Remembered(Generic[Key, Value]):
    """Values each valid under the identity it was kept with, weighing at most ``max_weight`` together (the oldest
    dropped first); a value weighs 1 unless :meth:`keep` is told otherwise, and never less (a value weighed as
    nothing, a listing that left every name out, would let their number grow without end)."""

    def __init__(self, max_weight: int) -> None:
        self._entries: dict[Key, tuple[Hashable, Value, int]] = {}
        self._lock = threading.Lock()
        self._max_weight = max_weight
        self._weight = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Key, identity: Hashable) -> Value | None:
        """The value kept for ``key`` if it was kept under ``identity``, else None."""
        with self._lock:
            kept = self._entries.get(key)
        return kept[1] if kept is not None and kept[0] == identity else None

    def keep(
        self, key: Key, identity: Hashable, value: Value, stat: os.stat_result, *, taken: int, weight: int = 1
    ) -> None:
        """Keep ``value``, read under ``identity`` (from ``stat``, taken when the clock said ``taken``), unless ``stat``
        shows a change too recent to tell apart from the next one (ctime too: mtime can be set back by any program,
        ctime cannot), or the value alone outweighs the bound. ``taken`` is read before the stat, not after the read:
        a change in the window then, made while a slow read ran, would leave the times as they were."""
        weight = max(weight, 1)
        if weight > self._max_weight or taken - max(stat.st_mtime_ns, stat.st_ctime_ns) < RACY_WINDOW_NS:
            return
        with self._lock:
            replaced = self._entries.pop(key, None)
            if replaced is not None:
                self._weight -= replaced[2]
            while self._entries and self._weight + weight > self._max_weight:
                self._weight -= self._entries.pop(next(iter(self._entries)))[2]
            self._entries[key] = (identity, value, weight)
            self._weight += weight
