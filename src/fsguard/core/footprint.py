"""What a delete would take, measured before the user is asked about it: the entry, the entries under it and the
bytes of its files. An entry the delete itself refuses on sight is not measured: the question would name what the
call never removes, and a yes would be asked for a refusal.
"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from pathlib import Path

from fsguard.core.beneath import Beneath, Pinned, lstat_at
from fsguard.core.errors import FsguardError
from fsguard.core.mounts import mount_point

Measure = tuple[os.stat_result | None, int, int]
"""What is at a path (None: nothing the delete would take), its entries and its files' bytes."""


def measured(beneath: Beneath, path: Path, *, permanent_limit: int | None = None) -> Measure:
    """What is at ``path``, as :data:`Measure`. Left out as the deleter refuses them: what fsguard may not look at,
    a mount point (no delete ever removes one), and with ``permanent_limit`` (a permanent delete's
    --max-file-size) a file too large to back up first."""
    try:
        with beneath.entry(path, follow=False) as entry:
            found = lstat_at(entry)
            if found is None or _refused(entry, found, permanent_limit):
                return None, 0, 0
            return found, *_held(entry, found)
    except FsguardError:
        return None, 0, 0


def _refused(entry: Pinned, found: os.stat_result, permanent_limit: int | None) -> bool:
    if stat.S_ISDIR(found.st_mode):
        return is_mount_point(entry, found)
    return permanent_limit is not None and stat.S_ISREG(found.st_mode) and found.st_size > permanent_limit


def is_mount_point(entry: Pinned, found: os.stat_result) -> bool:
    """Whether the directory ``entry`` (stated as ``found``) has a filesystem mounted on it: another device than its
    parent's, or, for a bind mount of the same filesystem, the mount table's word."""
    return found.st_dev != os.fstat(entry.parent).st_dev or mount_point(entry.path) == entry.path


def _held(entry: Pinned, found: os.stat_result) -> tuple[int, int]:
    """How many entries a path is (a directory: those under it) and the bytes of its files; links never followed."""
    if not stat.S_ISDIR(found.st_mode):
        return 1, found.st_size if stat.S_ISREG(found.st_mode) else 0
    return _inside(entry)


def _inside(entry: Pinned) -> tuple[int, int]:
    """How many entries (files, links, subdirectories) are under a directory, and the bytes of its regular files;
    links are never followed.

    A directory that cannot be opened counts as holding one entry: better asked about than deleted unasked.
    """
    try:
        fd = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=entry.parent)
    except OSError:
        return 1, 0
    count = size = 0
    try:
        for _, dirs, files, here in os.fwalk(".", dir_fd=fd):
            count += len(dirs) + len(files)
            for name in files:
                with suppress(OSError):
                    found = os.stat(name, dir_fd=here, follow_symlinks=False)
                    size += found.st_size if stat.S_ISREG(found.st_mode) else 0
    finally:
        os.close(fd)
    return count, size
