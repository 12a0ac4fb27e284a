"""What an entry holds, read through pinned directory fds: a fingerprint of a file, link or whole tree, the paths
below a directory, and sizes from stats. Nothing here follows a symlink: links are read as links, trees walked by
``dir_fd`` (:mod:`fsguard.core.fdtree`)."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.errors import AccessDeniedError, FsguardError
from fsguard.core.fdtree import failed_at, mark_failed_at, opened_dir, tree
from fsguard.core.oserrors import from_os_error
from fsguard.core.setaside import changed_error, same_entry

READ_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
CHUNK = 1 << 20


def fingerprint(entry: Pinned, checked: os.stat_result | None = None, doing: str = "moved") -> tuple[str, int, int]:
    """(SHA-256, bytes, files) of a file or link, or of a directory's relative paths, link targets and contents.
    With ``checked``, of that very entry (a file or directory is read from an fd of its inode): a trash entry or a
    move verified against it holds what was checked, not what another program swapped in for a moment.

    Raises:
        AccessDeniedError: the entry changed kind while it was read (a file swapped for a link, say).
        EntryReplacedError: another entry than ``checked`` is at the name; ``doing`` is the call's act, for the
            message (nothing was ``doing``).
    """
    return _read_whole(entry, checked, doing, None)


def described(entry: Pinned, checked: os.stat_result, doing: str) -> tuple[str | None, int, int]:
    """:func:`fingerprint` of what may be moved without being read (a rename, into the trash): a file this user may
    not read is counted by its stat, and then no SHA-256 is taken (None), rather than the delete refused where a
    permanent one, which reads nothing either, succeeds.

    Raises:
        AccessDeniedError, EntryReplacedError: as :func:`fingerprint`.
    """
    unread: list[str] = []
    digest, size, files = _read_whole(entry, checked, doing, unread)
    return (None if unread else digest), size, files


def _read_whole(
    entry: Pinned, checked: os.stat_result | None, doing: str, unread: list[str] | None
) -> tuple[str, int, int]:
    try:
        return _fingerprint(entry, checked, unread)
    except _NotChecked as exc:
        raise changed_error(entry.path, doing) from exc
    except OSError as exc:
        if checked is not None and exc.errno in (errno.ENOTDIR, errno.ELOOP) and failed_at(exc) is None:
            raise changed_error(entry.path, doing) from exc  # the checked directory's name holds a file or link now
        raise changed_kind_error(exc, entry.path) from exc


class _NotChecked(Exception):
    """The entry read is not the one checked."""


def _fingerprint(entry: Pinned, checked: os.stat_result | None, unread: list[str] | None) -> tuple[str, int, int]:
    found = lstat_entry(entry)
    if checked is not None and not same_entry(found, checked):
        raise _NotChecked
    if stat.S_ISLNK(found.st_mode):
        data = os.fsencode(os.readlink(entry.name, dir_fd=entry.parent))
        return hashlib.sha256(data).hexdigest(), len(data), 1
    if stat.S_ISREG(found.st_mode):
        digest, size = _readable_digest(entry.parent, entry.name, "", found, checked, unread)
        return digest.hexdigest(), size, 1
    if not stat.S_ISDIR(found.st_mode):
        return hashlib.sha256(b"").hexdigest(), 0, 1
    digest = hashlib.sha256()
    size = files = 0
    with opened_dir(entry) as fd:
        if checked is not None and not same_entry(os.fstat(fd), checked):
            raise _NotChecked
        for relative, parent, name, st in tree(fd):
            mode = st.st_mode
            label = relative.encode("utf-8", "surrogateescape")
            if stat.S_ISLNK(mode):
                target = os.fsencode(os.readlink(name, dir_fd=parent))
                digest.update(b"L" + label + b"\0" + target + b"\0")
            elif stat.S_ISREG(mode):
                inner, length = _readable_digest(parent, name, relative, st, None, unread)
                digest.update(b"F" + label + b"\0" + inner.digest())
                size += length
                files += 1
            else:
                digest.update(b"D" + label + b"\0")
    return digest.hexdigest(), size, files


def files_below(entry: Pinned) -> list[str]:
    """Everything but directories below the directory ``entry``, relative to it; links are listed, never followed."""
    try:
        with opened_dir(entry) as fd:
            return [relative for relative, _parent, _name, st in tree(fd) if not stat.S_ISDIR(st.st_mode)]
    except OSError as exc:
        raise changed_kind_error(exc, entry.path) from exc


def changed_kind_error(exc: OSError, path: Path) -> FsguardError:
    """The typed error; EINVAL, ELOOP and ENOTDIR here mean an entry changed kind under us (a racing swap): every
    caller opens as a directory only what its lstat has just shown to be one."""
    below = failed_at(exc)
    path = path if below is None else path / below
    if exc.errno in (errno.EINVAL, errno.ELOOP, errno.ENOTDIR):
        return AccessDeniedError(
            f"{path} changed while it was being read (an entry swapped for a symlink, or back); nothing was "
            "changed. Retry once it is stable.",
            path=str(path),
        )
    return from_os_error(exc, path)


def _readable_digest(
    parent: int,
    name: str,
    relative: str,
    found: os.stat_result,
    checked: os.stat_result | None,
    unread: list[str] | None,
) -> tuple[hashlib._Hash, int]:
    """:func:`_file_digest` of the file ``relative`` below the directory walked (the entry itself: empty); with
    ``unread``, one this user may not read is noted there, with no bytes digested and its size from ``found``."""
    try:
        return _file_digest(parent, name, checked)
    except PermissionError as exc:
        if unread is None:
            mark_failed_at(exc, relative)  # the file is refused, not the directory walked
            raise
        unread.append(relative or name)
        return hashlib.sha256(), found.st_size


def _file_digest(parent: int, name: str, checked: os.stat_result | None = None) -> tuple[hashlib._Hash, int]:
    fd = os.open(name, READ_FILE, dir_fd=parent)
    digest = hashlib.sha256()
    size = 0
    try:
        if checked is not None and not same_entry(os.fstat(fd), checked):
            raise _NotChecked
        while chunk := os.read(fd, CHUNK):
            digest.update(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return digest, size


def lstat_entry(entry: Pinned) -> os.stat_result:
    found = lstat_at(entry)
    if found is None:
        raise from_os_error(FileNotFoundError(errno.ENOENT, "no such file"), entry.path)
    return found


def total_size(entry: Pinned) -> int:
    """The bytes of a file, or of the regular files below a directory, from their stats."""
    return size_and_files(entry)[0]


def size_and_files(entry: Pinned) -> tuple[int, int]:
    """(bytes, files) of a file, or of the regular files below a directory, from their stats: nothing is read.

    Raises:
        AccessDeniedError: a directory changed kind while it was walked (swapped for a link, say).
    """
    found = lstat_entry(entry)
    if not stat.S_ISDIR(found.st_mode):
        return (found.st_size, 1) if stat.S_ISREG(found.st_mode) else (0, 1)
    try:
        with opened_dir(entry) as fd:
            sizes = [st.st_size for _relative, _parent, _name, st in tree(fd) if stat.S_ISREG(st.st_mode)]
    except OSError as exc:
        raise changed_kind_error(exc, entry.path) from exc
    return sum(sizes), len(sizes)


def visible_size_and_files(entry: Pinned, hides: Callable[[str, bool], bool]) -> tuple[int, int, int]:
    """:func:`size_and_files` of the directory ``entry`` without what ``hides`` (a path relative to it, and whether
    it is a directory) keeps from the agent, and how many entries it hides: a hidden directory counts as one, as a
    listing counts it, and nothing inside it is counted (its sizes would tell what a secret holds).

    Raises:
        AccessDeniedError: a directory changed kind while it was walked (swapped for a link, say).
    """
    sizes: list[int] = []
    hidden: list[str] = []
    try:
        with opened_dir(entry) as fd:
            for relative, _parent, _name, st in tree(fd):
                if any(relative.startswith(directory + "/") for directory in hidden):
                    continue
                if hides(relative, stat.S_ISDIR(st.st_mode)):
                    hidden.append(relative)
                elif stat.S_ISREG(st.st_mode):
                    sizes.append(st.st_size)
    except OSError as exc:
        raise changed_kind_error(exc, entry.path) from exc
    return sum(sizes), len(sizes), len(hidden)
