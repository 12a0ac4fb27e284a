"""Which subdirectories each directory holds, remembered between walks that judge directories only.

A name search reports the dependency directories it left out (``node_modules``, …), which takes a walk of every
directory of the tree beside rg's listing; reading each directory's entries, files included, cost about as much as
rg's whole run. A directory's mtime and ctime change whenever an entry is added, removed or renamed in it, so its
subdirectories are remembered under (device, inode, mtime_ns, ctime_ns), and a later walk stats the directory instead
of reading it. As for file fingerprints (:class:`fsguard.core.hashing.FingerprintCache`), a directory changed in
the last two seconds is not remembered: another change in the same clock tick would leave its times as they were.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# A file or directory changed this recently may change again within one timestamp tick without its times moving,
# so what was read of it is not remembered (the "racy git" rule; file fingerprints follow it too).
RACY_WINDOW_NS = 2_000_000_000
_Identity = tuple[int, int, int, int]


@dataclass(frozen=True)
class Shape:
    """A directory's subdirectories (not symlinks to one), in byte-wise name order, and whether it holds a
    ``.gitignore``."""

    subdirectories: tuple[str, ...]
    has_gitignore: bool


class DirectoryShapes:
    """Shapes of directories keyed by path, each valid while the directory keeps its identity."""

    def __init__(self, max_entries: int = 100_000, clock: Callable[[], int] = time.time_ns) -> None:
        self._entries: dict[str, tuple[_Identity, Shape]] = {}
        self._lock = threading.Lock()
        self._max_entries = max_entries
        self._clock = clock

    def of(self, directory: str | Path) -> Shape:
        """The shape of ``directory`` now: remembered if it did not change since, else read.

        Raises:
            OSError: the directory cannot be read.
        """
        directory = os.fspath(directory)  # one key per path, however it came
        # Before the read: a change during it gives a new identity, never a stale shape. A str, not a Path: a scan
        # stats every directory of a tree, and a Path per directory cost as much as the stat.
        info = os.stat(directory)  # noqa: PTH116
        identity = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        with self._lock:
            cached = self._entries.get(directory)
        if cached is not None and cached[0] == identity:
            return cached[1]
        with os.scandir(directory) as scan:
            entries = list(scan)
        names = [entry.name for entry in entries]
        try:  # the type comes with the name (d_type) on most file systems: no system call
            found = [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:  # one vanished while its type was looked up
            found = [entry.name for entry in entries if _is_directory(entry)]
        shape = Shape(tuple(sorted(found, key=os.fsencode)), ".gitignore" in names)
        if self._clock() - max(info.st_mtime_ns, info.st_ctime_ns) >= RACY_WINDOW_NS:
            with self._lock:
                if len(self._entries) >= self._max_entries:
                    self._entries.pop(next(iter(self._entries)))
                self._entries[directory] = (identity, shape)
        return shape


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


DIRECTORY_SHAPES = DirectoryShapes()  # one per process: shapes are facts about the disk, whoever asks
