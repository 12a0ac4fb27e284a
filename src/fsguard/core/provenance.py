"""Where a search's findings were read: each one is confirmed inside the roots, through the pinned walk, before a
result reports it.

ripgrep and the Python walk open what they search by name below the directory they start in. A racing swap of a
directory on the way for a symlink leading out of the roots (and back) can make them read a file outside under an
inside name: its matches, its name, that it is binary or large. So a finding is reported only if one of two checks
holds for the path it is reported under:

- Settled (nothing is read again): every entry on the way down from the starting directory kept its inode from
  shortly before the engine started until now. Linux sets an inode's ctime whenever it is linked or renamed, and a
  directory's whenever its entries change, so an entry whose own ctime or whose directory's predates the search
  named the inode the pinned walk reaches now all along: what the engine read there is a fact of the roots. Only on
  Linux, for entries on the starting directory's file system when it is a local one (:data:`_CLOCKED`), whose
  times come from this machine's clock and are read uncached (NFS, SMB and FUSE cache attributes); with a margin
  for the coarse clock the kernel stamps with.
- Confirmed: otherwise the finding is made again from the entry the pinned walk reaches now, read or looked at
  through its pinned parent without following it, and reported as that entry has it.

A file written moments ago, or the files of a directory whose entries just changed, are confirmed; the rest of a
search costs one lstat per directory.
"""

from __future__ import annotations

import ctypes
import functools
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from pathlib import Path

from fsguard.core.beneath import Beneath, Pinned
from fsguard.core.denial import HiddenFiles
from fsguard.core.disk import read_at
from fsguard.core.errors import FsguardError

__all__ = ["Provenance", "standing"]

# The kernel stamps times from a clock updated once a tick (1-10 ms): a change made after the search started can
# carry a time up to a tick before it. A second covers any tick; a file changed that recently is only confirmed.
_MARGIN_NS = 1_000_000_000
# Where ctime is set from this machine's clock on every link, rename and directory change, and read uncached, by
# statfs f_type: ext2/3/4, xfs, btrfs, tmpfs, f2fs, zfs, overlayfs.
_CLOCKED = frozenset({0xEF53, 0x58465342, 0x9123683E, 0x01021994, 0xF2F52010, 0x2FC12FC1, 0x794C7630})
_STATFS_BYTES = 256  # struct statfs is 120 bytes on 64-bit Linux (f_type first): room to spare
_DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC


class Provenance:
    """The checks of one search whose engine reads, by name, below ``start`` (a directory it holds open, reached by
    the pinned walk): made before the engine starts, asked after it finished. Paths are absolute text below
    ``start``, asked about in walk order.

    Every look goes down from ``start`` as the pinned walk reaches it now, one name at a time without following a
    link (none is on the way of anything an engine walked to), keeping the directories on the way to the last path
    open: a tree's directories are each opened once.
    """

    def __init__(self, beneath: Beneath, start: Path) -> None:
        self._since = time.time_ns() - _MARGIN_NS
        self._beneath = beneath
        self._start = str(start)
        self._trail: list[tuple[str, int]] = []  # (directory, open fd) from start down to the last one asked for
        self._held = ExitStack()
        self._old: dict[str, bool] = {}  # directory -> its entries and its own name unchanged since the start
        self._chains: dict[str, bool] = {self._start: True}  # directory -> every name down to it unchanged
        self._wholly: dict[str, bool] = {}  # directory -> that, and its entries unchanged: its files settled
        self._device = -1  # the starting directory's device, once it is known to keep its times locally
        self._gone = False  # the starting directory is not there for the pinned walk

    def __enter__(self) -> Provenance:
        return self

    def __exit__(self, *_exc: object) -> None:
        for _, fd in self._trail[1:]:
            os.close(fd)
        self._held.close()

    def listed(self, directory: str) -> bool:
        """Whether ``directory`` is the one the engine listed there: a name it listed in it is a name of the roots."""
        return self._chain(directory)

    def settled(self, path: str) -> bool:
        """Whether the file the engine opened at ``path`` is the regular file the pinned walk reaches there now."""
        directory = path.rpartition("/")[0] or "/"
        whole = self._wholly.get(directory)
        if whole is None:  # one look a directory: a search asks about every file with a match
            whole = self._wholly[directory] = self._chain(directory) and self._unchanged(directory)
        if whole:
            return True
        if not self._chain(directory):
            return False
        found = self.entry(path)
        return found is not None and stat.S_ISREG(found.st_mode) and self._before(found)

    def entry(self, path: str) -> os.stat_result | None:
        """``path`` as the pinned walk finds it now, not followed; None if it is not there."""
        directory, _, name = path.rpartition("/")
        fd = self._directory(directory or "/")
        if fd is None:
            return None
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None

    def read(self, path: str, max_size: int | None = None) -> bytes | None:
        """The bytes of the regular file the pinned walk reaches at ``path`` now; None if there is none (or it is
        above ``max_size``)."""
        directory, _, name = path.rpartition("/")
        fd = self._directory(directory or "/")
        if fd is None:
            return None
        try:
            return read_at(Pinned(fd, name, Path(path)), max_size)[0]
        except FsguardError:
            return None

    def _directory(self, directory: str) -> int | None:
        """``directory`` (``start`` or below it) open, reached from ``start`` one name at a time, never following;
        None if it cannot be."""
        trail = self._trail
        if not trail:
            if self._gone:
                return None
            try:
                fd = self._held.enter_context(self._beneath.directory(Path(self._start), listed=False))
            except FsguardError:
                self._gone = True  # nothing below it can be confirmed: each finding is left out
                return None
            trail.append((self._start, fd))
            if _clocked(fd):
                self._device = os.fstat(fd).st_dev
        if trail[-1][0] == directory:  # the files of one directory come one after another
            return trail[-1][1]
        while len(trail) > 1 and not _within(directory, trail[-1][0]):
            os.close(trail.pop()[1])
        here, fd = trail[-1]
        if not _within(directory, here):
            return None
        for name in directory[len(here) :].split("/"):
            if not name:
                continue
            try:
                fd = os.open(name, _DIR_FLAGS, dir_fd=fd)
            except OSError:
                return None
            here = f"{here.rstrip('/')}/{name}"
            trail.append((here, fd))
        return fd

    def _chain(self, directory: str) -> bool:
        # Up to the nearest directory judged already (the start is), then down in a loop: recursing once a level
        # passed Python's limit in a tree 2,000 directories deep.
        pending: list[str] = []
        while directory not in self._chains and _within(directory, self._start):
            pending.append(directory)
            directory = _parent(directory)
        known = self._chains.get(directory, False)  # outside the start: never confirmed
        for below in reversed(pending):
            # A directory's name in its parent held if either kept its ctime: the parent's entries did not change,
            # or the directory was not linked anew.
            known = known and (self._unchanged(_parent(below)) or self._unchanged(below))
            self._chains[below] = known
        return known

    def _unchanged(self, directory: str) -> bool:
        known = self._old.get(directory)
        if known is None:
            if directory == self._start:
                fd = self._directory(directory)
                found = None if fd is None else os.fstat(fd)
            else:
                found = self.entry(directory)
            known = found is not None and stat.S_ISDIR(found.st_mode) and self._before(found)
            self._old[directory] = known
        return known

    def _before(self, found: os.stat_result) -> bool:
        return found.st_ctime_ns < self._since and found.st_dev == self._device


def standing(
    provenance: Provenance,
    root: Path,
    relatives: Iterable[str],
    *,
    above: int | None = None,
    hide: HiddenFiles | None = None,
) -> list[str]:
    """Those of ``relatives`` (below ``root``, in walk order; a directory ends in ``/``) that the pinned walk open
    at ``root`` finds now as a walk by name named them: a directory, else a regular file (larger than ``above``
    bytes, when given); none a deny rule hides (``hide``): a result names its skipped entries only when it may name
    them at all."""
    kept = []
    prefix = str(root).rstrip("/") + "/"
    for relative in relatives:
        found = provenance.entry(prefix + relative.rstrip("/"))
        if found is None:
            continue
        if relative.endswith("/"):
            if stat.S_ISDIR(found.st_mode):
                kept.append(relative)
        elif stat.S_ISREG(found.st_mode) and (above is None or found.st_size > above):
            kept.append(relative)
    return kept if hide is None else hide.shown(kept, str(root))


def _parent(path: str) -> str:
    return path.rpartition("/")[0] or "/"


def _within(path: str, directory: str) -> bool:
    """Whether ``path`` is ``directory`` or below it (absolute texts)."""
    return path == directory or path.startswith(directory.rstrip("/") + "/")


def _clocked(fd: int) -> bool:
    """Whether the directory open as ``fd`` is on a file system of :data:`_CLOCKED` (never off Linux)."""
    function = _fstatfs()
    if function is None:
        return False
    found = ctypes.create_string_buffer(_STATFS_BYTES)
    if function(fd, found) != 0:
        return False
    return (ctypes.c_ulong.from_buffer(found).value & 0xFFFFFFFF) in _CLOCKED


@functools.cache
def _fstatfs() -> Callable[[int, ctypes.Array[ctypes.c_char]], int] | None:
    """The C library's fstatfs, which Python does not wrap; None off Linux, where struct statfs differs."""
    if sys.platform != "linux":
        return None
    try:
        function: Callable[[int, ctypes.Array[ctypes.c_char]], int] = ctypes.CDLL(None, use_errno=True).fstatfs
    except (OSError, AttributeError):
        return None
    return function
