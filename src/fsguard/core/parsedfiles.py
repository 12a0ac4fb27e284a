"""The files of a state directory's store (groups, trash entries, journals), each parsed once while it stays unchanged.

A store lists every file on each call (backup(action='list') and list_trash count what they select), but reading and
parsing them all again made each call cost 0.3-0.6 s at 5,000 groups or 10,000 trash entries, whatever its limit.
Each listing still scans the directory and stats every file, so what another fsguard process sharing the state
directory wrote, rewrote or removed is seen on the next call; only the reading is saved, for a file whose stat
(inode, size, mtime, ctime) is what it was when read. A file changed within the last two seconds is read again
each time: a rewrite in place within the same clock tick would leave its stat as it was.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Generic, TypeVar

Parsed = TypeVar("Parsed")
_Identity = tuple[int, int, int, int]
_SETTLED_NS = 2_000_000_000


class ParsedFiles(Generic[Parsed]):
    """The parsed files of one directory, newest first; safe to share between threads."""

    def __init__(
        self,
        directory: Path,
        parse: Callable[[Path], Sequence[Parsed]],
        order: Callable[[Parsed], Any],
        *,
        named: Callable[[str], bool],
        inner: str = "",
    ) -> None:
        """``parse`` reads one file's items (none: the file is left out); ``order`` is their sort key, largest
        first; ``named`` picks the directory's entries that are files of the store; ``inner`` names the file inside
        each entry when the entries are directories (a trash entry's meta.json)."""
        self._directory = directory
        self._parse = parse
        self._order = order
        self._named = named
        self._inner = inner
        # The last listing: each settled file's stat and what it read as, the items in order, and how many files
        # it had. Replaced whole, so a listing in another thread meanwhile sees this one or the one before, never a
        # mixture.
        self._last: tuple[dict[str, tuple[_Identity, Sequence[Parsed]]], list[Parsed], int] = ({}, [], 0)

    def listing(self) -> list[Parsed]:
        """The items of every file, sorted by ``order``, largest first."""
        known, listed, files = self._last
        # The remembered pairs themselves, not equal new ones: 10,000 new objects kept on each call made the cyclic
        # garbage collector sweep the whole heap every few calls.
        remembered: dict[str, tuple[_Identity, Sequence[Parsed]]] = {}
        everything: list[Sequence[Parsed]] = []
        changed = False
        settled = time.time_ns() - _SETTLED_NS  # mtimes are real time, whatever clock the store records with
        try:
            with os.scandir(self._directory) as entries:
                names = [entry.name for entry in entries if self._named(entry.name)]
        except FileNotFoundError:
            names = []
        top = str(self._directory)
        for name in names:
            path = f"{top}/{name}/{self._inner}" if self._inner else f"{top}/{name}"
            try:
                found = os.stat(path)  # noqa: PTH116 - on strings: a Path per file cost more than the stat itself
            except OSError:  # gone since the scan, or not there yet (a trash entry being made): nothing to list
                continue
            identity = (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)
            cached = known.get(name)
            if cached is None or cached[0] != identity:
                parsed = self._parse(Path(path)) if stat.S_ISREG(found.st_mode) else ()
                cached, changed = (identity, parsed), True
            if found.st_mtime_ns < settled and found.st_ctime_ns < settled:  # two compares: max() cost more
                remembered[name] = cached
            everything.append(cached[1])
        # Unchanged: every file stat'ed is one remembered, as it was (a file not yet settled is never remembered, so
        # it is read again, a change); no remembered one has gone; and no unsettled one either (a journal a cleanup
        # removed moments after it was written stayed listed).
        if changed or remembered.keys() != known.keys() or len(everything) != files:
            listed = sorted((item for items in everything for item in items), key=self._order, reverse=True)
        self._last = (remembered, listed, len(everything))
        return list(listed)
