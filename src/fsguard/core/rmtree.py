"""Removing a directory tree by fd on an explicit stack.

``shutil.rmtree`` recurses once a level (Python 3.11), so a tree deeper than the recursion limit could be neither
deleted permanently nor purged from the trash: the call died with RecursionError, part of the tree gone.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Generator
from pathlib import Path

from fsguard.core.fdtree import READ_DIR
from fsguard.core.nesting import Below, flattened, run_through


def remove_tree(parent: int, name: str, *, own: bool = False, removed: Callable[[], None] | None = None) -> None:
    """Remove the directory ``name`` in the open directory ``parent``, with everything in it; ``removed`` is called
    after each file (not directory) goes, and may raise to stop there.

    Each directory is opened without following a link (one swapped in meanwhile is refused, not entered);
    links inside are removed, never followed; a directory on another device (a mount point) is never entered.
    With ``own`` (a tree of fsguard's state directory), a directory its user may not empty is given the owner's
    permissions first: a trashed tree holding a read-only directory was otherwise purged only in part (the trash
    takes no tree holding a directory its user may not list, so each can be opened).

    Raises:
        OSError: something could not be removed; what was removed before stays removed (as when ``removed`` raises).
    """
    device = os.stat(name, dir_fd=parent, follow_symlinks=False).st_dev
    run_through(_emptied(parent, name, device, own, removed))
    os.rmdir(name, dir_fd=parent)


def first_unremovable(parent: int, name: str, shown: str | None = None) -> str | None:
    """The first directory of the tree ``name`` (``shown`` itself, ``name`` by default, or a path below it) whose
    entries the server's user may not remove: one it may not list, or may not write or search (``go mod download``
    leaves its modules' directories read-only); None when each may be emptied. A permanent delete looks first,
    instead of removing files one by one until the first it may not and leaving part of the tree.

    Raises:
        OSError: ENOTDIR or ELOOP when ``name`` is no directory (any more).
    """
    return next(flattened(_closed(parent, name, shown or name)), None)


def _closed(parent: int, name: str, shown: str) -> Generator[str | Below[str], None, None]:
    try:
        fd = os.open(name, READ_DIR, dir_fd=parent)
    except PermissionError:
        yield shown
        return
    try:
        if not os.access(".", os.W_OK | os.X_OK, dir_fd=fd, effective_ids=True):
            # a read-only filesystem is no permission to ask for: the removal fails at its first file, and says so
            if not os.fstatvfs(fd).f_flag & os.ST_RDONLY:
                yield shown
            return
        try:
            with os.scandir(fd) as found:
                children = [entry.name for entry in found if entry.is_dir(follow_symlinks=False)]
        except PermissionError:
            yield shown
            return
        for child in children:
            yield Below(_closed(fd, child, f"{shown}/{child}"))
    finally:
        os.close(fd)


def remove_tree_named(path: Path) -> None:
    """:func:`remove_tree` of a directory named by a trusted path (the state directory's own), opened up as it goes."""
    parent = os.open(path.parent, READ_DIR)
    try:
        remove_tree(parent, path.name, own=True)
    finally:
        os.close(parent)


def _emptied(
    parent: int, name: str, device: int, own: bool, removed: Callable[[], None] | None
) -> Generator[Below[None], None, None]:
    fd = os.open(name, READ_DIR, dir_fd=parent)
    try:
        found = os.fstat(fd)
        if found.st_dev != device:  # another filesystem mounted here: never emptied (fsguard.core.mounts)
            raise OSError(errno.EBUSY, "another filesystem is mounted there", name)
        if own and found.st_mode & 0o700 != 0o700:  # a read-only directory of fsguard's own: opened up to empty it
            os.fchmod(fd, stat.S_IMODE(found.st_mode) | 0o700)
        with os.scandir(fd) as entries:  # read whole first: removing entries while reading a directory skips some
            children = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
        for child, is_dir in children:
            if is_dir:
                yield Below(_emptied(fd, child, device, own, removed))
                os.rmdir(child, dir_fd=fd)
            else:
                os.unlink(child, dir_fd=fd)
                if removed is not None:
                    removed()
    finally:
        os.close(fd)
