"""The records of writes in flight (``<state_dir>/inflight``): each names the temp file a write is filling, so that a
crash leaves no stray (:class:`fsguard.core.disk.AtomicWriter`).

A record's writer holds an ``flock`` on it while the write runs, and a record whose lock can be taken is a dead
write's: a pid cannot say so, as pids are used again (a container restarted after a crash gets the same one, and an
unrelated process may hold it) and differ between containers sharing a state directory. Its name,
``<pid>-<token>-held``, still starts with the pid: an older fsguard sharing the state directory reads that, and the
records it writes (``<pid>-<token>``) are judged by their pid, as it judges them.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

HELD = "-held"  # the end of a record's name whose writer holds its lock
_EMPTY_GRACE_S = 86_400.0  # an empty record this young may be one its writer has not locked yet


def open_record(path: Path, temp: bytes) -> int:
    """Create the record ``path`` naming ``temp``, locked: the descriptor returned holds the lock; close it once the
    write is over (after removing the record, or leaving it for the next start to sweep)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        # Locked before its bytes are written: a record holding some is a running write's or a dead one's.
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(temp)
        while view:
            view = view[os.write(fd, view) :]
    except BaseException:
        try:  # created, then refused its bytes (a full state directory): no empty record stays
            path.unlink()
        finally:
            os.close(fd)
        raise
    return fd


def dead_record(entry: Path) -> bytes | None:
    """The temp path the record ``entry`` names, when the write that made it is over (its process died); None while
    it may still run, or when the record is gone already.

    Raises:
        OSError: the record cannot be read (not a record: a directory put there, a file of another owner).
    """
    if not entry.name.endswith(HELD):
        return None if _alive(entry.name.split("-", 1)[0]) else entry.read_bytes()
    try:
        fd = os.open(entry, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        return None  # its write ended since the listing
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return None  # held: its write runs
        found = os.fstat(fd)
        if found.st_size == 0 and time.time() - found.st_mtime < _EMPTY_GRACE_S:
            return None  # made a moment ago, not locked yet by its writer
        return _read_all(fd)
    finally:
        os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def _alive(pid_text: str) -> bool:
    """Whether the process that journaled a write still runs (a non-numeric name is from no process)."""
    if not pid_text.isdigit():
        return False
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # alive, owned by someone else
    return True
