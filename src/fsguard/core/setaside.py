"""Acting on an entry only while it is still the one a call checked.

A delete (to the trash or for good) or a move's removal of its source looks at what is at a name, then acts on the
name. Another process can put something else there in between (renameat2 RENAME_EXCHANGE swaps a file and a
directory in one step): acting on the name then removed, or trashed, a whole directory while the answer spoke of
the file it had checked. So the entry is first renamed, atomically and without replacing anything, to a private name
in its own directory, where no other call looks for it; it is acted on there only once its device, inode and type
are the checked ones'. Anything else is renamed back at once and the call refused, nothing changed. A move (into the
trash too) renames the entry to its destination and checks it there the same way
(:func:`fsguard.core.transfer.move_verified`). A write exchanges its new file with what holds the name and checks
what came out (:func:`swap_in`).

A crash while a tree is removed leaves what is left of it under the private name, beside where it was.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from fsguard.core.beneath import Pinned, exchange, lstat_at, rename_no_replace
from fsguard.core.errors import EntryReplacedError, ExternalChangeError
from fsguard.core.readback import on_disk_equals

PREFIX = ".fsguard-removing-"
"""The private name's start: one a crash leaves behind (mid-removal of a tree) says whose it is."""


def same_entry(found: os.stat_result, checked: os.stat_result) -> bool:
    """Whether ``found`` is the very entry ``checked`` stated: same device, inode and type."""
    return (found.st_dev, found.st_ino, stat.S_IFMT(found.st_mode)) == (
        checked.st_dev,
        checked.st_ino,
        stat.S_IFMT(checked.st_mode),
    )


def check_unchanged(entry: Pinned, checked: os.stat_result, data: bytes, doing: str) -> None:
    """Refuse to act on a file written to since ``checked`` stated it, before its bytes ``data`` were read (another
    program wrote to it while the pre-hooks ran, or a pre-hook did): those bytes are in no backup, and are not what
    the caller's expected_hash pinned. A touch (the same bytes) passes. ``doing`` is the act as a past participle.

    Raises:
        EntryReplacedError: another entry (a directory, a link) holds the name now; it is left as it is.
        ExternalChangeError: its device, inode, size, modification or change time moved and its bytes are not
            ``data``, or it is gone.
    """
    now = lstat_at(entry)
    if now is not None and not same_entry(now, checked):  # another entry at the name (a directory, a link)
        raise changed_error(entry.path, doing)
    if holding(entry, checked, data) is None:
        raise ExternalChangeError(
            f"{entry.path} changed on disk while this call ran (another program or a pre-hook wrote to it); nothing "
            f"was {doing}. Read it again, then retry.",
            path=str(entry.path),
        )


def holding(entry: Pinned, checked: os.stat_result, data: bytes) -> os.stat_result | None:
    """The stat of the file at ``entry`` if it is still the one ``checked`` stated and holds ``data`` (its times
    moved or not: a touch loses nothing); None if it was written to, replaced or removed since."""
    now = lstat_at(entry)
    if now is None or not same_entry(now, checked):
        return None
    if _written(now) == _written(checked):
        return now
    try:
        return now if on_disk_equals(entry, data) else None
    except OSError:  # a link or a directory swapped in between the look and the read
        return None


def _written(found: os.stat_result) -> tuple[int, int, int, int, int]:
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


def changed_error(path: Path, doing: str) -> EntryReplacedError:
    """The refusal of a call whose entry was replaced between its check and its act; ``doing`` is the act as a past
    participle ("deleted", "moved")."""
    return EntryReplacedError(
        f"{path} changed while it was being {doing}: another program put something else at its name, which was "
        f"left as it is; nothing was {doing}. Check what is there now with get_file_info, then retry.",
        path=str(path),
    )


@contextmanager
def set_aside(entry: Pinned, checked: os.stat_result, doing: str) -> Iterator[Pinned]:
    """``entry`` under a private name in its own directory, once it is the ``checked`` entry (its label stays
    ``entry.path``). Whatever the block leaves of it when it raises goes back to its name.

    Raises:
        EntryReplacedError: another entry is at the name now; it is back there, untouched.
        ExternalChangeError: something new took the name before the entry could go back; the error names where it is.
        OSError: the rename was refused (FileNotFoundError: nothing is at the name); nothing moved.
    """
    aside = Pinned(entry.parent, PREFIX + secrets.token_hex(8), entry.path)
    try:
        rename_no_replace(entry, aside)
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
        aside = entry  # cannot be renamed where it is (see _in_place); nothing to put back
    if aside is entry:
        yield _in_place(entry, checked, doing)
        return
    try:
        found = os.stat(aside.name, dir_fd=aside.parent, follow_symlinks=False)
        if not same_entry(found, checked):
            raise changed_error(entry.path, doing)
        yield aside
    except BaseException as exc:
        put_back(aside, entry, exc)
        raise


def _in_place(entry: Pinned, checked: os.stat_result, doing: str) -> Pinned:
    """``entry`` acted on at its own name, once it is the ``checked`` entry: overlayfs (every container's root)
    refuses to rename a directory of a lower layer (EXDEV) but lets it be removed, and deletes and moves of such
    directories had stopped working. The window between this check and the act is narrower than a check at the
    call's start, not closed.

    Raises:
        EntryReplacedError: another entry is at the name now; it is left untouched.
    """
    found = os.stat(entry.name, dir_fd=entry.parent, follow_symlinks=False)
    if not same_entry(found, checked):
        raise changed_error(entry.path, doing)
    return entry


def put_back(moved: Pinned, home: Pinned, failure: BaseException) -> None:
    """Rename ``moved`` (what is left of it) back to ``home``, never over anything, as the ``failure`` that stopped
    a call is raised; gone already (a removal that finished before it failed) is fine.

    Raises:
        ExternalChangeError: something new took ``home`` meanwhile: ``moved`` is kept where it is, and named.
    """
    try:
        rename_no_replace(moved, home)
    except FileNotFoundError:
        return
    except OSError:
        where = moved.path.parent / moved.name if moved.path == home.path else moved.path
        raise ExternalChangeError(
            f"{home.path} changed while this call acted on it, and something new took its name before what was "
            f"there could be put back: that is kept as {where}; nothing else was changed. Move it back with "
            "move_file once you know which of the two to keep.",
            path=str(home.path),
            kept_at=str(where),
        ) from failure


def same_file(checked: os.stat_result | None, path: Path, found: os.stat_result | None) -> None:
    """The check of :func:`swap_in` for a writer that checked nothing but what held the name (``checked``) when it
    began.

    Raises:
        EntryReplacedError: ``found`` is not the ``checked`` entry.
    """
    if (checked is None) != (found is None) or (checked and found and not same_entry(found, checked)):
        raise changed_error(path, "written")


def swap_in(temp: Pinned, entry: Pinned, check: Callable[[os.stat_result | None], None]) -> None:
    """Put the new file ``temp`` at ``entry``'s name in place of the file ``check`` accepts (given its stat, None for
    nothing), and remove that file.

    A rename over the name replaced whatever held it at that moment: another program exchanging the checked file
    with another one (renameat2 RENAME_EXCHANGE) just before it had that other file's bytes destroyed, in no backup.
    So the new file is exchanged with what holds the name, and what came out is checked; anything but the checked
    file goes back at once, untouched, and ``check``'s error is raised. Without RENAME_EXCHANGE (some C libraries and
    filesystems) the rename follows the check, and that window stays open.

    Raises:
        what ``check`` raises: nothing was replaced.
        ExternalChangeError: the name changed twice meanwhile; what came back in place of the new file is kept, named.
        OSError: the OS refused; nothing was replaced.
    """
    found = lstat_at(entry)
    check(found)
    ours = os.stat(temp.name, dir_fd=temp.parent, follow_symlinks=False)
    try:
        swapped = found is not None and exchange(temp, entry)
    except FileNotFoundError:  # emptied since the check
        check(None)
        raise
    if not swapped:
        os.rename(temp.name, entry.name, src_dir_fd=temp.parent, dst_dir_fd=entry.parent)
        return
    try:
        check(os.stat(temp.name, dir_fd=temp.parent, follow_symlinks=False))
    except BaseException as exc:
        _swap_back(temp, entry, ours, exc)
        raise
    with suppress(OSError):  # written already; the temp's journal record has the next start remove what is left
        os.unlink(temp.name, dir_fd=temp.parent)


def _swap_back(temp: Pinned, entry: Pinned, ours: os.stat_result, failure: BaseException) -> None:
    """Put what :func:`swap_in` took from ``entry``'s name back there, leaving the new file (``ours``) at ``temp``.

    Raises:
        ExternalChangeError: something else than the new file came back (the name changed again meanwhile): it is
            kept beside, named, since the temp's name is removed.
    """
    try:
        exchange(temp, entry)
    except FileNotFoundError:  # the new file was taken from the name meanwhile: what came out goes back by a rename
        with suppress(OSError):
            rename_no_replace(temp, entry)
    back = lstat_at(temp)
    if back is None or same_entry(back, ours):
        return
    kept = Pinned(temp.parent, PREFIX + secrets.token_hex(8), entry.path)
    rename_no_replace(temp, kept)
    put_back(kept, entry, failure)  # raises, naming where it is kept, unless the name is free again
