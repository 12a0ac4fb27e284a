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
    """(relative path, parent fd, name, lstat) of everything below ``fd``, parents first, names sorted."""
    return flattened(_level(fd, ""))


def _level(fd: int, prefix: str) -> Generator[Entry | Below[Entry], None, None]:
    for name in sorted(os.listdir(fd)):
        found = os.stat(name, dir_fd=fd, follow_symlinks=False)
        relative = f"{prefix}{name}"
        yield relative, fd, name, found
        if stat.S_ISDIR(found.st_mode):
            with child_dir(fd, name) as inner:
                yield Below(_level(inner, relative + "/"))


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
