"""Removing a file, link or whole tree through pinned directory fds: never through a link, never a tree holding a
mount point, never one that would fail halfway for want of permission."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from fsguard.core.beneath import Beneath, Pinned
from fsguard.core.errors import AccessDeniedError
from fsguard.core.mounts import mounts_below
from fsguard.core.oserrors import from_os_error, unwritable_directory_error
from fsguard.core.rmtree import first_unremovable, remove_tree
from fsguard.core.setaside import changed_error, set_aside


def remove(entry: Pinned, *, missing_ok: bool = False, checked: os.stat_result | None = None) -> None:
    """Delete a file, link or whole directory; a tree is removed by fd, never through a link, and never one holding
    a mount point (:func:`check_no_mounts_below`). With ``checked`` (the stat a caller judged the entry by), only
    that very entry is removed (:func:`fsguard.core.setaside.set_aside`); a file is then unlinked without
    ``AT_REMOVEDIR``, which no directory ever yields to.

    Raises:
        EntryReplacedError: another entry than ``checked`` is at the name now; nothing was removed.
    """
    try:
        found = checked or os.stat(entry.name, dir_fd=entry.parent, follow_symlinks=False)
        if stat.S_ISDIR(found.st_mode):  # by its name: a mount inside moves along with an entry set aside
            check_no_mounts_below(entry.path)
        if checked is None:
            _remove_found(entry, found)
            return
        with set_aside(entry, checked, "deleted") as aside:
            _remove_found(aside, checked)
    except FileNotFoundError as exc:
        if not missing_ok:
            raise from_os_error(exc, entry.path) from exc
    except OSError as exc:
        raise unwritable_directory_error(exc, entry.path, entry.parent) or from_os_error(exc, entry.path) from exc


def _remove_found(entry: Pinned, found: os.stat_result) -> None:
    if stat.S_ISDIR(found.st_mode):
        check_removable_below(entry)
        remove_tree(entry.parent, entry.name)  # by fd, never through a link; any depth
    else:
        os.unlink(entry.name, dir_fd=entry.parent)


def check_no_mounts_below(directory: Path) -> None:
    """Refuse to remove a tree another filesystem is mounted in: deleted, its files would be erased before the OS
    refused the mount point itself; trashed, that filesystem would be moved into fsguard's state directory.

    Raises:
        AccessDeniedError: a mount point lies below ``directory``; nothing was removed.
    """
    mounts = mounts_below(directory)
    if mounts:
        raise AccessDeniedError(
            f"{directory} holds a mount point, {mounts[0]} (another filesystem is mounted there): a tree is removed "
            "only within one filesystem, so nothing was removed. Ask the user to unmount it first, or delete what "
            "is beside it.",
            path=str(directory),
        )


def check_removable_below(entry: Pinned, doing: str = "deleted") -> None:
    """Refuse to remove a tree holding a directory the server's user may not empty: removed file by file, the tree
    would lose everything up to that directory and then fail. ``entry.path`` names the tree in messages, whatever
    name it is set aside under.

    Raises:
        AccessDeniedError: such a directory lies in the tree; nothing was removed.
        EntryReplacedError: the directory is no longer one (another program swapped a file or link in).
    """
    try:
        blocked = first_unremovable(entry.parent, entry.name, entry.path.name)
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP):
            raise changed_error(entry.path, doing) from exc
        raise from_os_error(exc, entry.path) from exc
    if blocked is None:
        return
    where = entry.path.parent / blocked
    whole = "" if where == entry.path else f", so {entry.path} cannot be removed whole"
    raise AccessDeniedError(
        f"{where} may not be emptied by the server's user (permission denied){whole}: nothing was removed. Ask the "
        "user for write access to it, or delete what is beside it.",
        path=str(where),
    )


def remove_beneath(beneath: Beneath, path: Path) -> None:
    """Remove what is at ``path`` (a stray temp, say), reached through the pinned walk; gone already is fine."""
    with beneath.entry(path, follow=False) as entry:
        remove(entry, missing_ok=True)
