"""Journals replayed once and kept in memory, each trusted while its file's (inode, size, mtime) is what was last
seen: another process appending changes it, so this never hides a foreign change."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from fsguard.core.journal import Replay, grown_journal, read_journal, read_on

_REPLAYS_KEPT = 1_024  # replayed journals kept in memory


class Replays:
    """The replays of one directory's journals (``<key>.jsonl``); safe to share between threads."""

    def __init__(self, directory: Path) -> None:
        self._journals = directory
        self._lock = threading.Lock()
        self._replays: dict[str, tuple[tuple[int, int, int], Replay]] = {}

    def forget(self, key: str) -> None:
        """Read the journal ``key`` afresh next time (it was rewritten, or its bytes moved)."""
        with self._lock:
            self._replays.pop(key, None)

    def read(self, key: str) -> Replay:
        """The journal ``key`` replayed (an empty replay when there is none); shared: copy it to change it."""
        path = self._journals / f"{key}.jsonl"
        try:
            stat = path.stat()
        except FileNotFoundError:
            return Replay()
        with self._lock:
            cached = self._replays.get(key)
        if cached is not None and cached[0] == _identity(stat):
            return cached[1]
        try:
            with path.open("rb") as handle:
                grown = grown_journal(handle, cached[1] if cached else None)
                # Another process appended: only its records are read (a journal of 400 records took 8 ms to read
                # again, and two servers sharing a state dir, editing one file in turn, read it again for every edit).
                replay = read_journal(handle) if grown is None else read_on(handle, grown.copy())
                found = os.fstat(handle.fileno())
        except FileNotFoundError:
            return Replay()
        if replay.end != found.st_size:
            # A torn tail, or a record another process appended after this read reached the end: remembered under
            # this stat, the replay would pass for the whole file, and the next append would cut that record off.
            return replay
        self.remember(key, found, replay)
        return replay

    def remember(self, key: str, stat: os.stat_result | int, replay: Replay) -> None:
        """Keep ``replay`` under the journal's ``stat`` (or its open fd's), with those of the files edited last."""
        identity = _identity(os.fstat(stat) if isinstance(stat, int) else stat)
        with self._lock:
            self._replays.pop(key, None)
            self._replays[key] = (identity, replay)
            if len(self._replays) > _REPLAYS_KEPT:  # a server editing thousands of files keeps the last ones only
                del self._replays[next(iter(self._replays))]


def _identity(stat: os.stat_result) -> tuple[int, int, int]:
    return stat.st_ino, stat.st_size, stat.st_mtime_ns
