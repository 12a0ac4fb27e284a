"""Per-path locks that hold across threads and across fsguard processes sharing one state directory.

Two clients (Claude Desktop and Claude Code, say) each start their own fsguard on one project: a thread
lock alone would let both read the same bytes, both pass the hash check and both write, losing one
acknowledged edit and forking the undo chain. So each canonical path also has a lock file under
``<state_dir>/locks``, taken with ``flock``, held from reading the bytes through the rename and the
journal append. The thread lock in front keeps threads of one process from queueing on the kernel.
Lock files are never deleted: removing one while another process waits on it would split the lock.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fsguard.core.oserrors import from_os_error


class PathLocks:
    """One lock per canonical path, created on demand; the in-process part is dropped when unused."""

    def __init__(self, state_dir: Path) -> None:
        self._dir = state_dir / "locks"
        try:
            self._dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise from_os_error(exc, self._dir) from exc
        self._guard = threading.Lock()
        self._locks: dict[Path, tuple[threading.Lock, int]] = {}

    @contextmanager
    def hold(self, path: Path) -> Iterator[None]:
        """Hold the lock of ``path`` (canonical) for the duration of the block, against every process."""
        with self._guard:
            lock, users = self._locks.get(path, (threading.Lock(), 0))
            self._locks[path] = (lock, users + 1)
        try:
            with lock, self._file_lock(path):
                yield
        finally:
            with self._guard:
                lock, users = self._locks[path]
                if users == 1:
                    del self._locks[path]
                else:
                    self._locks[path] = (lock, users - 1)

    @contextmanager
    def hold_all(self, *paths: Path) -> Iterator[None]:
        """Hold several paths' locks, taken in one global order so two callers can never deadlock."""
        ordered = sorted(set(paths))
        with self._nested(ordered):
            yield

    @contextmanager
    def _nested(self, paths: list[Path]) -> Iterator[None]:
        if not paths:
            yield
            return
        with self.hold(paths[0]), self._nested(paths[1:]):
            yield

    @contextmanager
    def _file_lock(self, path: Path) -> Iterator[None]:
        key = hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:32]
        lock_path = self._dir / f"{key}.lock"
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise from_os_error(exc, lock_path) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing the only fd of this open file description releases the flock

    def __len__(self) -> int:
        return len(self._locks)
