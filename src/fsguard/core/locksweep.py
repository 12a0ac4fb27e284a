"""Sweeping lock files (see :mod:`fsguard.core.locks`): unlinking one nobody holds, finding crashed processes'
old ones."""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path

LEFTOVERS_EXAMINED = 4096  # entries of each lock directory a shutdown looks at for crashed processes' files
# No O_CREAT: a sweep creates nothing. O_NONBLOCK: a FIFO put in the directory cannot hold a shutdown up.
_SWEPT_FILE = os.O_RDWR | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_if_free(path: str) -> bool:
    """Unlink the lock file at ``path`` if nobody holds its lock (this process's other fds included)."""
    try:
        fd = os.open(path, _SWEPT_FILE)
    except OSError:
        return False  # gone already (another sweep), or not one to touch
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        found = os.fstat(fd)
        # Unlinked between our open and our lock by another sweep: the name may now be someone's new lock file.
        if not (found.st_nlink and stat.S_ISREG(found.st_mode)):
            return False
        os.ftruncate(fd, 1)  # the mark: whoever locks this inode next sees it is no longer the lock
        Path(path).unlink()  # before the close: while we hold it, no one can have taken it
    except OSError:
        return False  # held (EWOULDBLOCK), or the directory refuses
    finally:
        os.close(fd)
    return True


def old_entries(prefix: str, born_before: float) -> list[str]:
    """Paths of lock files among the first ``LEFTOVERS_EXAMINED`` entries of the directory ``prefix`` names,
    changed (created, for a lock file) before ``born_before``."""
    found = []
    try:
        with os.scandir(prefix) as entries:
            for _, entry in zip(range(LEFTOVERS_EXAMINED), entries, strict=False):
                try:
                    born = entry.stat(follow_symlinks=False).st_ctime
                except OSError:
                    continue  # gone while listed
                if entry.name.endswith(".lock") and born < born_before:
                    found.append(prefix + entry.name)
    except OSError:
        pass  # unreadable: the next shutdown tries again
    return found
