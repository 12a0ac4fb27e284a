"""Which subdirectories each directory holds, remembered between walks that judge directories only.

A name search reports the dependency directories it left out (``node_modules``, …), which takes a walk of every
directory of the tree beside rg's listing; reading each directory's entries, files included, cost about as much as
rg's whole run. A directory's mtime and ctime change whenever an entry is added, removed or renamed in it, so its
subdirectories are remembered under (device, inode, mtime_ns, ctime_ns) (:mod:`fsguard.core.remembered`), and a
later walk stats the directory instead of reading it.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.remembered import Remembered


@dataclass(frozen=True)
class Shape:
    """A directory's subdirectories (not symlinks to one), in byte-wise name order, whether it holds a
    ``.gitignore``, whether it holds anything at all, and who may enter it."""

    subdirectories: tuple[str, ...]
    has_gitignore: bool
    holds_any: bool
    access: tuple[int, int, int]  # st_mode, st_uid, st_gid: told apart for each user asking, not remembered for one


class DirectoryShapes:
    """Shapes of directories keyed by path, each valid while the directory keeps its identity."""

    def __init__(self, max_entries: int = 100_000, clock: Callable[[], int] = time.time_ns) -> None:
        self._remembered: Remembered[str, Shape] = Remembered(max_entries)
        self._clock = clock

    def __len__(self) -> int:
        return len(self._remembered)

    def of(self, directory: str | Path) -> Shape:
        """The shape of ``directory`` now: remembered if it did not change since, else read.

        Raises:
            OSError: the directory cannot be read.
        """
        directory = os.fspath(directory)  # one key per path, however it came
        # Before the read: a change during it gives a new identity, never a stale shape. A str, not a Path: a scan
        # stats every directory of a tree, and a Path per directory cost as much as the stat.
        taken = self._clock()  # the racy window is judged from before the stat, not from the end of the read
        info = os.stat(directory)  # noqa: PTH116
        identity = (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        shape = self._remembered.get(directory, identity)
        if shape is not None:
            return shape
        with os.scandir(directory) as scan:
            entries = list(scan)
        names = [entry.name for entry in entries]
        try:  # the type comes with the name (d_type) on most file systems: no system call
            found = [entry.name for entry in entries if entry.is_dir(follow_symlinks=False)]
        except OSError:  # one vanished while its type was looked up
            found = [entry.name for entry in entries if _is_directory(entry)]
        access = (info.st_mode, info.st_uid, info.st_gid)
        shape = Shape(tuple(sorted(found, key=os.fsencode)), ".gitignore" in names, bool(names), access)
        self._remembered.keep(directory, identity, shape, info, taken=taken)
        return shape


def _is_directory(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return False


DIRECTORY_SHAPES = DirectoryShapes()  # one per process: shapes are facts about the disk, whoever asks
