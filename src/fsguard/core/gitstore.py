"""git's records of the files it tracks. Its object store holds the bytes of every file a repository ever committed,
hidden ones too (a ``.env`` committed before a rule hid it, or pushed into a bare repository the agent made): the
same bytes compressed, or not at all (``core.looseCompression=0``; git-lfs keeps whole copies). Its index
(``index``, a split index's ``sharedindex.*``) lists the name, size and object id of every tracked file, and a few
more of its files list names or hold bytes too: a drafted message's status comments (``COMMIT_EDITMSG``,
``MERGE_MSG``, ``SQUASH_MSG``), rerere's conflicts (``MERGE_RR``, ``rr-cache``), a stopped rebase's or am's patches.
A file tool that read them would hand over what the deny rules hide: a name, or an id to guess short bytes from.
No tool reads or lists them by path, and no search reads or names a file in them (the searches' filter,
:class:`fsguard.core.denial.HiddenFiles`); the git tool shows a file at a revision by its path, which the rules
judge, and status and diff count hidden files without naming them."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from fsguard.core.errors import AccessDeniedError
from fsguard.core.pathforms import is_dot_git

_STORES = ("objects", "lfs")  # loose objects and packs; git-lfs's copies of large files
# What else in a git directory names tracked files or holds their bytes (folded case), by what the refusal says.
_RECORDS = {
    "index": "index",
    "index.lock": "index",
    "commit_editmsg": "message",
    "merge_msg": "message",
    "squash_msg": "message",
    "merge_rr": "rerere",
    "rr-cache": "rerere",
    "rebase-merge": "rebase",
    "rebase-apply": "rebase",
}
_SHARED_INDEX = "sharedindex."  # a split index's shared part, named by its id
_HOLDS = {
    "index": "git's index, which lists the name, size and object id of every file it tracks",
    "message": "a message git drafted, whose comments name the files the commit or merge changed",
    "rerere": "git's record of conflicts (rerere), which holds the names and bytes of the files in them",
    "rebase": "a stopped rebase's or am's state, which holds the patches it applies: the bytes of their files",
}
_GIT_PUTS = re.compile(r"[0-9a-f]{2}|pack|info")  # what git makes in ``objects``
# Text every such path holds, folded: most paths hold none, and end there without a look at the disk.
_MARKS = ("/objects", "/lfs", "/rr-cache", "/rebase-", "index", "merge_rr", "editmsg", "_msg")


def check_not_in_object_store(canonical: Path, root_of: Callable[[Path], Path | None]) -> None:
    """Refuse a path in the object store of a repository at or below its root (``root_of`` it): ``objects`` or
    ``lfs`` in a ``.git``, or in a directory holding ``HEAD`` and ``refs`` (a bare repository, a submodule's); or
    one of the files beside them that list the tracked files (the index, a linked worktree's too).

    Raises:
        AccessDeniedError: naming the store or the list, and how to see a committed file or the changes instead.
    """
    if not _may_be_held(str(canonical)):
        return  # most paths end here, on their text
    held = _held_in(canonical, root_of(canonical))
    if held is None:
        return
    place, what = held
    if what == "store":
        raise AccessDeniedError(
            f"{canonical} is in git's object store {place}, which holds the bytes of every file the repository "
            "committed, hidden ones too: fsguard never reads, lists or searches in it. See a committed file with "
            'git(action="show", rev="HEAD:path/to/file").',
            path=str(canonical),
        )
    raise AccessDeniedError(
        f"{canonical} is {'' if place == canonical else f'in {place}, '}{_HOLDS[what]}, hidden ones too: fsguard "
        'never reads, lists or searches it. See what changed with git(action="status") or git(action="diff"), a '
        'file at a revision with git(action="show", rev="HEAD:path/to/file").',
        path=str(canonical),
    )


def held_in_store(canonical: Path, root_of: Callable[[Path], Path | None]) -> bool:
    """Whether :func:`check_not_in_object_store` refuses ``canonical``: a copy of a tree leaves such a path out."""
    return _may_be_held(str(canonical)) and _held_in(canonical, root_of(canonical)) is not None


def in_object_store(path: str) -> bool:
    """Whether the absolute ``path`` (a file a search walked or rg found) lies in a repository's object store or
    is one of its lists of files."""
    return _may_be_held(path) and _held_in(Path(path), None) is not None


def outside_object_stores(names: list[str], under: str) -> list[str]:
    """``names`` (relative to ``under``) less those in an object store or a list of files: one C-level look at
    them all first, as most searches hold none (a name search may hold tens of thousands)."""
    if not _may_be_held("\0/".join([under, *names])):
        return names
    lead = under.rstrip("/") + "/"
    return [name for name in names if not in_object_store(lead + name)]


def _may_be_held(path: str) -> bool:
    folded = path.lower()  # case-insensitive mounts open "OBJECTS" and "INDEX" too
    return any(mark in folded for mark in _MARKS)


def _held_in(path: Path, root: Path | None) -> tuple[Path, str] | None:
    """The store or record ``path`` is or lies in, and which (``store``, or a key of :data:`_HOLDS`); None when it
    is in none."""
    parts = path.parts
    for at in range(len(root.parts) if root is not None else 1, len(parts)):
        name = parts[at].lower()
        what = "store" if name in _STORES else "index" if name.startswith(_SHARED_INDEX) else _RECORDS.get(name)
        if what is not None and _is_repository(Path(*parts[:at])):
            return Path(*parts[: at + 1]), what
    return None


def _is_repository(directory: Path) -> bool:
    """A ``.git``; a directory holding ``HEAD`` and ``refs`` (or ``commondir``: a linked worktree's); or one whose
    ``objects`` holds only what git makes there. That last look keeps a bare repository's objects unread after an
    agent took its ``HEAD`` out, and nothing can be added to ``objects`` or taken from it to unmake it: once
    recognised, it is refused."""
    if is_dot_git(directory.name):
        return True
    if (directory / "HEAD").is_file() and ((directory / "refs").is_dir() or (directory / "commondir").is_file()):
        return True
    try:
        names = [entry.name for entry in (directory / "objects").iterdir()]
    except OSError:
        return False
    return bool(names) and all(_GIT_PUTS.fullmatch(name) for name in names)
