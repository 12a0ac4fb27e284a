"""Directory fsyncs put off to the end of a block of many writes, done once per directory.

A replace-by-rename is durable once its directory is fsynced; a project_replace of 500 files in one directory paid
that fsync 500 times.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from fsguard.core.beneath import fsync_directory
from fsguard.core.oserrors import from_os_error

# The directories whose fsync a directory_syncs_batched block has put off, by (device, inode); None outside one.
_Deferred = dict[tuple[int, int], tuple[int, Path]]  # (device, inode) -> (an fd of the directory, its path)
_DEFERRED: ContextVar[_Deferred | None] = ContextVar("fsguard_deferred_directory_syncs", default=None)


@contextmanager
def directory_syncs_batched() -> Iterator[None]:
    """Within the block, a replace-by-rename leaves its directory's fsync to the end, done once per directory.

    For writes of many files whose acknowledgement waits for the block (project_replace): each file is still
    replaced only after its backup is durable, and a crash before the end leaves it old or new, as always.
    """
    pending: _Deferred = {}
    token = _DEFERRED.set(pending)
    failure: tuple[OSError, Path] | None = None
    try:
        yield
    finally:
        _DEFERRED.reset(token)
        for fd, directory in pending.values():
            try:
                os.fsync(fd)
            except OSError as exc:
                failure = failure or (exc, directory)
            finally:
                os.close(fd)
    if failure is not None:
        raise from_os_error(*failure)


def sync_directory(parent: int, directory: Path) -> None:
    """fsync the directory open at ``parent`` (``directory``), now or, within a batched block, at its end."""
    pending = _DEFERRED.get()
    if pending is None:
        fsync_directory(parent)
        return
    found = os.fstat(parent)
    key = (found.st_dev, found.st_ino)
    if key not in pending:
        try:
            pending[key] = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent), directory
        except PermissionError:  # mode -wx: no fd to fsync later; the change is made, fsync_directory syncs it now
            fsync_directory(parent)
