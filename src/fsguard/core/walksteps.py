"""The single steps of the pinned walk (core/beneath.py): open a directory on the way, read a link, make one.

Another process can swap a directory on the way for a symlink and back while a walk runs. The open (``O_DIRECTORY |
O_NOFOLLOW``) then fails as for a file, and by the time the walk reads the name as a link it may be a directory
again: that name was never a file, so it is looked at once more before the walk says so.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from fsguard.core.errors import AccessDeniedError, NotDirectoryError
from fsguard.core.oserrors import field_path, from_os_error, shorten, unsearchable_error
from fsguard.core.rootfds import DIR_FLAGS

# Looks at one name a walk meets changing kind before it gives up: a swap in a tight loop lets most walks through
# within a few, and a name that keeps changing is refused rather than walked forever.
SWAP_LOOKS = 8


class NotADirectoryStep(Exception):
    """O_DIRECTORY|O_NOFOLLOW refused the name: a symlink (to be read) or a file."""


def open_dir(parent: int, name: str, label: str) -> int:
    try:
        return os.open(name, DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotADirectoryStep from exc
        raise from_os_error(exc, label) from exc


def link_target(parent: int, name: str, label: str) -> str | None:
    """The target of the symlink ``name``, None when it is something else or nothing; ``label`` is its path, which
    an error names (``name`` alone could be any file of that name)."""
    try:
        return os.readlink(name, dir_fd=parent)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT, errno.ENOTDIR):
            return None
        if exc.errno == errno.EACCES:  # readlink needs no permission on the entry: its directory is not searchable
            raise unsearchable_error(Path(label)) from exc
        raise from_os_error(exc, label) from exc


def make_dir(parent: int, name: str, label: str) -> bool:
    """Whether this call made the directory (False: someone else made it meanwhile)."""
    try:
        os.mkdir(name, 0o777, dir_fd=parent)
    except FileExistsError:
        return False  # made meanwhile by someone else: the retry opens it (or finds a file and refuses)
    except OSError as exc:
        raise from_os_error(exc, label) from exc
    return True


def swapping_now(parent: int, name: str, label: str) -> bool:
    """Whether ``name`` is a directory or a link at this instant: after it opened as neither and read as no link,
    it is changing kind under the walk, not a file in the way.

    Raises:
        NotFoundError: nothing has the name now.
    """
    try:
        mode = os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode
        return stat.S_ISDIR(mode) or stat.S_ISLNK(mode)
    except OSError as exc:
        raise from_os_error(exc, label) from exc


def file_in_the_way(label: str) -> NotDirectoryError:
    return NotDirectoryError(
        f"{shorten(label)} is a file, not a directory: nothing can be below it. Check the path with list_directory.",
        path=field_path(label),
    )


def kept_changing(label: str) -> AccessDeniedError:
    """The refusal of a walk whose directory on the way kept turning into a symlink and back."""
    return AccessDeniedError(
        f"{shorten(label)} changed while it was being walked (another program keeps swapping it for a symbolic "
        "link and back); nothing was done. Retry once it is stable.",
        path=field_path(label),
    )


def not_a_directory_now(parent: int, name: str, path: Path) -> AccessDeniedError | NotDirectoryError:
    """Why the directory ``path`` (``name`` in ``parent``), pinned a moment ago, did not open as one."""
    try:
        found = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        found = None
    if found is None or stat.S_ISDIR(found.st_mode) or stat.S_ISLNK(found.st_mode):
        return AccessDeniedError(
            f"{path} changed while it was being opened (swapped for a symbolic link, or removed); nothing was done. "
            "Retry once it is stable.",
            path=str(path),
        )
    return NotDirectoryError(f"{path} is not a directory. Use read_file or get_file_info for files.", path=str(path))
