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


def tree(fd: int) -> Iterator[tuple[str, int, str, int]]:
    """(relative path, parent fd, name, mode) of everything below ``fd``, parents first, names sorted."""
    return flattened(_level(fd, ""))


def _level(fd: int, prefix: str) -> Generator[tuple[str, int, str, int] | Below[tuple[str, int, str, int]], None, None]:
    for name in sorted(os.listdir(fd)):
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
        relative = f"{prefix}{name}"
        yield relative, fd, name, mode
        if stat.S_ISDIR(mode):
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
