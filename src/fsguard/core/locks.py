"""Per-path locks: tool calls run in worker threads, so two calls on one file must take turns."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class PathLocks:
    """One lock per canonical path, created on demand and dropped when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: dict[Path, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, path: Path) -> Iterator[None]:
        """Hold the lock of ``path`` (canonical) for the duration of the block."""
        with self._guard:
            lock, users = self._locks.get(path, (threading.Lock(), 0))
            self._locks[path] = (lock, users + 1)
        try:
            with lock:
                yield
        finally:
            with self._guard:
                lock, users = self._locks[path]
                if users == 1:
                    del self._locks[path]
                else:
                    self._locks[path] = (lock, users - 1)

    def __len__(self) -> int:
        return len(self._locks)
