"""What a tree walk learns of each entry of a directory, from what reading the directory gave: its kind, its size,
whether the server's user may read it, whether it is a minified bundle. :mod:`fsguard.core.ignore` decides from
these what a walk yields."""

from __future__ import annotations

import operator
import os
import stat
from dataclasses import dataclass

from fsguard.core.shapes import DIRECTORY_SHAPES

GITIGNORE = ".gitignore"


def entries_of(directory: str, *, dirs_only: bool) -> tuple[list[os.DirEntry[str]] | list[Subdirectory], bool]:
    """The entries of ``directory`` in byte-wise order of their names (only its directories with ``dirs_only``: a
    scan for the default skips of a name search judges nothing else, and their shapes are remembered), and whether
    it holds a ``.gitignore``.

    Raises:
        OSError: the directory cannot be read.
    """
    if dirs_only:
        shape = DIRECTORY_SHAPES.of(directory)
        return [Subdirectory(name) for name in shape.subdirectories], shape.has_gitignore
    with os.scandir(directory) as scan:
        entries = list(scan)
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


_GROUP_AND_OTHERS = stat.S_IRGRP | stat.S_IROTH


def readable(entry: os.DirEntry[str], found: os.stat_result, euid: int) -> bool:
    """Whether the user ``euid`` (the server's) may read the file ``entry`` whose stat is ``found``: told by its
    permission bits, with a system call only where they say no (an ACL, or root's override, may still allow it)."""
    if found.st_uid == euid:
        bit = stat.S_IRUSR
    elif found.st_mode & _GROUP_AND_OTHERS == _GROUP_AND_OTHERS:
        return True  # both classes a non-owner falls in may read: no need to ask which (getgroups, per file)
    elif found.st_gid == os.getegid() or found.st_gid in os.getgroups():
        bit = stat.S_IRGRP
    else:
        bit = stat.S_IROTH
    return bool(found.st_mode & bit) or os.access(entry.path, os.R_OK, effective_ids=True)


def minified(name: str) -> bool:
    """Whether ``name`` matches one of :data:`~fsguard.core.ignore.MINIFIED_GLOBS` (``*.min.*``, ``*.map``),
    spelled as string tests, and does not end in ``.``: rg's file types never match such a name (``c.min.``), so rg
    would search it."""
    return (".min." in name or name.endswith(".map")) and not name.endswith(".")
