"""The backups a permanent delete of a directory takes: every regular file of the tree, read through pinned fds, then
saved each in the backup store (its own undo chain steps), and the whole delete described as one change group.

The tree is read whole before anything is saved, so its bounds are checked before any backup or removal: a tree too
big to hold as backups goes to the trash instead (the refusal says so). Links, pipes, sockets and devices inside are
removed as themselves, never followed or read, and are not brought back by a restore.
"""

from __future__ import annotations

import os
import stat
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.disk import read_at
from fsguard.core.errors import FsguardError, TooLargeError, error_for_code
from fsguard.core.fdtree import failed_at, opened_dir, tree
from fsguard.core.groups import Change
from fsguard.core.oserrors import from_os_error
from fsguard.core.removal import check_no_mounts_below, check_removable_below
from fsguard.core.safeguards import Safeguards
from fsguard.core.setaside import changed_error, same_entry

MAX_TREE_FILES = 1_000
"""Files a permanent delete of a directory backs up one by one; a tree holding more goes to the trash whole instead.
Its bytes in all are bounded by --max-file-size, as one file's are."""
_TO_THE_TRASH = "Delete it without permanent (it goes to the trash whole), then purge_trash frees the space."


@dataclass(frozen=True)
class _File:
    path: Path
    data: bytes
    mode: int


@dataclass(frozen=True)
class TreeRead:
    """A directory about to be deleted for good: its files' bytes, and its directories (parents first) with modes."""

    files: tuple[_File, ...]
    dirs: tuple[tuple[Path, int], ...]

    def back_up(self, safe: Safeguards) -> TreeBackup:
        """Save each file's bytes as a step of its undo chain; a failure (a full state directory) withdraws the ones
        saved before, and nothing is deleted.

        Raises:
            FsguardError: a backup could not be saved.
        """
        taken: list[tuple[Path, BackupRecord]] = []
        try:
            for file in self.files:
                saved = safe.backups.snapshot(file.path, file.data, file.mode, operation="delete_file", after_hash=None)
                taken.append((file.path, saved))
        except BaseException:
            for _, record in taken:
                _withdraw(safe, record)
            raise
        return TreeBackup(tuple(taken), self.dirs)


@dataclass(frozen=True)
class TreeBackup:
    """The backups a permanent delete of a directory took, and the directories it removed (parents first)."""

    files: tuple[tuple[Path, BackupRecord], ...]
    dirs: tuple[tuple[Path, int], ...]

    def changes(self) -> tuple[Change, ...]:
        """The delete as a group's changes: reverted newest first, the directories come back parents first, with
        their modes, then the files into them."""
        files = [Change("deleted", str(path), backup_id=record.backup_id) for path, record in self.files]
        dirs = [Change.deleted_dir(path, mode) for path, mode in reversed(self.dirs)]
        return (*files, *dirs)

    def removed(self, safe: Safeguards) -> TreeBackup:
        """What a removal that failed part way removed after all: the backups of files still on disk are withdrawn
        (no delete of them happened), the directories still there are left out. One that cannot be looked at counts
        as removed: its backup is kept, which loses nothing."""
        gone = []
        for path, record in self.files:
            if _exists(safe, path):
                _withdraw(safe, record)
            else:
                gone.append((path, record))
        return TreeBackup(tuple(gone), tuple(d for d in self.dirs if not _exists(safe, d[0])))


def read_tree(safe: Safeguards, entry: Pinned, found: os.stat_result) -> TreeRead:
    """Every regular file under the directory ``entry`` (stated as ``found``), read by fd: no link is followed, no
    pipe or device opened.

    Raises:
        TooLargeError: a file above --max-file-size, more than :data:`MAX_TREE_FILES` files, or more bytes in all
            than --max-file-size; nothing was read into a backup.
        EntryReplacedError: another entry took the directory's name since it was stated.
        FsguardError: the tree could not be read (a directory the user may not list names itself).
    """
    # The removal's own refusals first, with their words: a tree it would refuse is neither read nor backed up.
    check_no_mounts_below(entry.path)
    check_removable_below(entry)
    limit, path = safe.max_file_size, entry.path
    files: list[_File] = []
    dirs = [(path, stat.S_IMODE(found.st_mode))]
    total = 0
    try:
        with opened_dir(entry) as fd:
            if not same_entry(os.fstat(fd), found):
                raise changed_error(path, "deleted")
            for relative, parent, name, child in tree(fd):
                where = path / relative
                if stat.S_ISDIR(child.st_mode):
                    dirs.append((where, stat.S_IMODE(child.st_mode)))
                    continue
                if not stat.S_ISREG(child.st_mode):
                    continue  # a link, pipe, socket or device: removed as itself, never read
                if child.st_size > limit:
                    raise _too_large(path, f"it holds {where}, {child.st_size:,} bytes, above the {limit:,}-byte limit")
                if len(files) >= MAX_TREE_FILES:
                    raise _too_large(path, f"it holds more than {MAX_TREE_FILES:,} files, too many to back up")
                data = _read(Pinned(parent, name, where), limit, path)
                total += len(data)
                if total > limit:
                    raise _too_large(path, f"its files hold more than the {limit:,}-byte limit in all")
                files.append(_File(where, data, stat.S_IMODE(child.st_mode)))
    except OSError as exc:
        below = failed_at(exc)
        raise from_os_error(exc, path / below if below else path) from exc
    return TreeRead(tuple(files), tuple(dirs))


def _read(entry: Pinned, limit: int, tree: Path) -> bytes:
    """A file of the tree, whole; one that cannot be read (its mode, say) cannot be backed up, so the tree stays.

    Raises:
        FsguardError: as :func:`read_at`, its message saying what then.
    """
    try:
        return read_at(entry, limit)[0]
    except FsguardError as exc:
        raise error_for_code(exc.code)(
            f"{exc.message} It cannot be backed up, so {tree} is not deleted permanently; nothing was deleted. "
            + _TO_THE_TRASH,
            **exc.fields,
        ) from exc


def _too_large(path: Path, why: str) -> TooLargeError:
    return TooLargeError(
        f"{path} is not deleted permanently: {why} (--max-file-size bounds what a permanent delete backs up); "
        f"nothing was deleted. {_TO_THE_TRASH}",
        path=str(path),
    )


def _withdraw(safe: Safeguards, record: BackupRecord) -> None:
    """Drop a backup of a file the delete did not remove. One that cannot be dropped (the state directory just ran
    full) stays the head of the file's chain, holding its bytes: undo_last then only steps back over it."""
    with suppress(FsguardError):
        safe.backups.step_back(record, withdraw=True)


def _exists(safe: Safeguards, path: Path) -> bool:
    try:
        with safe.beneath.entry(path, follow=False) as entry:
            return lstat_at(entry) is not None
    except FsguardError:
        return False


def remake_dir(safe: Safeguards, path: Path, mode: int) -> bool | None:
    """Make again, with its ``mode``, a directory a permanent delete removed (a group's revert): True when made,
    False when a directory is there already (left as it is), None when something else is.

    Raises:
        FsguardError: the OS refused.
    """
    with safe.locks.hold(path), safe.beneath.entry(path, follow=False, make_parents=True) as entry:
        found = lstat_at(entry)
        if found is not None:
            return False if stat.S_ISDIR(found.st_mode) else None
        try:
            os.mkdir(entry.name, 0o700, dir_fd=entry.parent)
            with opened_dir(entry) as fd:  # the mode exactly: mkdir's is cut by the umask
                os.fchmod(fd, mode)
        except OSError as exc:
            raise from_os_error(exc, path) from exc
    return True
