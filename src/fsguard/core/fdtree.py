"""Walking a directory tree by fd: each directory opened without following a link, in name order, on an explicit
stack (:mod:`fsguard.core.nesting`), so a tree of any depth is walked without recursion."""

from __future__ import annotations

import os
import stat
from collections.abc import Generator, Iterator
from contextlib import contextmanager

from fsguard.core.beneath import Pinned
from fsguard.core.nesting import Below, flattened

READ_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


Entry = tuple[str, int, str, os.stat_result]  # relative path, parent fd, name, lstat


def tree(fd: int) -> Iterator[Entry]:
    """(relative path, parent fd, name, lstat) of everything below ``fd``, parents first, names sorted. An OSError
    met below ``fd`` says where (:func:`failed_at`)."""
    return flattened(_level(fd, ""))


def failed_at(exc: OSError) -> str | None:
    """Where below the directory :func:`tree` walked it met ``exc``, relative to that directory; None for the
    directory itself, or an error met elsewhere. A subdirectory the user may not list is then named, not the top."""
    where = getattr(exc, _WHERE, None)
    return where if isinstance(where, str) else None


def mark_failed_at(exc: OSError, relative: str) -> None:
    """Say that ``exc`` was met at ``relative`` below the directory walked (:func:`failed_at`), as the walk itself
    says of what it opens: for what a caller of :func:`tree` does with an entry it was given (reads a file)."""
    _mark(exc, relative)


_WHERE = "fsguard_failed_at"


def _level(fd: int, prefix: str) -> Generator[Entry | Below[Entry], None, None]:
    try:
        names = sorted(os.listdir(fd))
    except OSError as exc:
        _mark(exc, prefix.rstrip("/"))
        raise
    for name in names:
        relative = f"{prefix}{name}"
        try:
            found = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError as exc:
            _mark(exc, relative)
            raise
        yield relative, fd, name, found
        if stat.S_ISDIR(found.st_mode):
            with _child_at(fd, name, relative) as inner:
                yield Below(_level(inner, relative + "/"))


@contextmanager
def _child_at(parent: int, name: str, relative: str) -> Iterator[int]:
    """:func:`child_dir`, a failure to open it marked with where (``relative``)."""
    try:
        with child_dir(parent, name) as fd:
            yield fd
    except OSError as exc:
        _mark(exc, relative)
        raise


def _mark(exc: OSError, relative: str) -> None:
    if relative and not hasattr(exc, _WHERE):  # the walked directory itself is the caller's to name
        setattr(exc, _WHERE, relative)


@contextmanager
def opened_dir(entry: Pinned) -> Iterator[int]:
    with child_dir(entry.parent, entry.name) as fd:
        yield fd


@contextmanager
def child_dir(parent: int, name: str) -> Iterator[int]:
    fd = os.open(name, READ_DIR, dir_fd=parent)
    try:
        yield fd
    finally:
        os.close(fd)
