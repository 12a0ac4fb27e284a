"""What a tree walk learns of each entry of a directory, from what reading the directory gave: its kind, its size,
whether the server's user may read it, whether it is a minified bundle. :mod:`fsguard.core.ignore` decides from
these what a walk yields."""

from __future__ import annotations

import errno
import operator
import os
import stat
from dataclasses import dataclass

from fsguard.core.shapes import DIRECTORY_SHAPES

GITIGNORE = ".gitignore"


def entries_of(
    directory: str, *, dirs_only: bool, entered_by: int | None = None
) -> tuple[list[os.DirEntry[str]] | list[Subdirectory], bool]:
    """The entries of ``directory`` in byte-wise order of their names (only its directories with ``dirs_only``: a
    scan for the default skips of a name search judges nothing else, and their shapes are remembered), and whether
    it holds a ``.gitignore``.

    With ``entered_by`` (the server's effective uid, ``os.geteuid()``), a directory holding entries that the user may
    list but not enter (no search permission: r without x) is refused as one it may not list: none of its entries
    can be opened or even looked at, only named, so a walk that reports what it skips names the directory, not files
    it never read.

    Raises:
        OSError: the directory cannot be read (EACCES too for one not entered, with ``entered_by``).
    """
    if dirs_only:
        shape = DIRECTORY_SHAPES.of(directory)
        if entered_by is not None and shape.holds_any and not _permitted(directory, shape.access, entered_by, _SEARCH):
            raise _not_entered(directory)
        return [Subdirectory(name) for name in shape.subdirectories], shape.has_gitignore
    with os.scandir(directory) as scan:
        entries = list(scan)
    if entered_by is not None and entries and not os.access(directory, os.X_OK, effective_ids=True):
        raise _not_entered(directory)
    names = [entry.name for entry in entries]
    rules_here = GITIGNORE in names  # a list's ``in`` runs in C: cheaper than any()
    # ASCII names sort as their bytes do; others are encoded back (a name that is not UTF-8 holds surrogates, which
    # sort apart from the bytes they stand for).
    entries.sort(key=_NAME if "".join(names).isascii() else lambda entry: os.fsencode(entry.name))
    return entries, rules_here


_NAME = operator.attrgetter("name")


@dataclass(frozen=True, slots=True)
class Subdirectory:
    """An entry known to be a directory (from its directory's remembered shape)."""

    name: str

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return True

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        return False


def kind_of(entry: os.DirEntry[str] | Subdirectory) -> str | None:
    try:
        if entry.is_dir(follow_symlinks=False):
            return "dir"
        return "file" if entry.is_file(follow_symlinks=False) else None
    except OSError:
        return None


def stat_of(entry: os.DirEntry[str]) -> os.stat_result | None:
    """The entry's own stat (a link's, not its target's), None when it vanished: the search that opens it skips it."""
    try:
        return entry.stat(follow_symlinks=False)
    except OSError:
        return None


def _not_entered(directory: str) -> PermissionError:
    return PermissionError(errno.EACCES, os.strerror(errno.EACCES), directory)


# The permission bits of owner, group and others, and the access(2) mode asking the same
_READ = (stat.S_IRUSR, stat.S_IRGRP, stat.S_IROTH, os.R_OK)
_SEARCH = (stat.S_IXUSR, stat.S_IXGRP, stat.S_IXOTH, os.X_OK)


def readable(entry: os.DirEntry[str], found: os.stat_result, euid: int) -> bool:
    """Whether the user ``euid`` (the server's) may read the file ``entry`` whose stat is ``found``: told by its
    permission bits, with a system call only where they say no (an ACL, or root's override, may still allow it)."""
    return _permitted(entry.path, (found.st_mode, found.st_uid, found.st_gid), euid, _READ)


def _permitted(path: str, access: tuple[int, int, int], euid: int, asked: tuple[int, int, int, int]) -> bool:
    """Whether the user ``euid`` may do to ``path``, of (mode, uid, gid) ``access``, what ``asked`` names (its bits
    for owner, group and others, and the access(2) mode)."""
    mode, uid, gid = access
    owner, group, others, call = asked
    if uid == euid:
        bit = owner
    elif mode & (group | others) == group | others:
        return True  # both classes a non-owner falls in are allowed: no need to ask which (getgroups, per file)
    elif gid == os.getegid() or gid in os.getgroups():
        bit = group
    else:
        bit = others
    return bool(mode & bit) or os.access(path, call, effective_ids=True)


def minified(name: str) -> bool:
    """Whether ``name`` matches one of :data:`~fsguard.core.ignore.MINIFIED_GLOBS` (``*.min.*``, ``*.map``),
    spelled as string tests, and does not end in ``.``: rg's file types never match such a name (``c.min.``), so rg
    would search it."""
    return (".min." in name or name.endswith(".map")) and not name.endswith(".")
