"""delete_file: soft delete into the trash (default) or permanent removal, one path or many."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.confirmation import Entry, unconfirmed
from fsguard.core.errors import (
    AccessDeniedError,
    FsguardError,
    InvalidParamsError,
    NotFoundError,
    TooLargeError,
    error_for_code,
)
from fsguard.core.footprint import is_mount_point
from fsguard.core.groups import Change, Group, GroupStore
from fsguard.core.hooktree import fire_below
from fsguard.core.mutation import ROLLBACK_OPERATION, ROLLBACK_TOOL
from fsguard.core.oserrors import from_os_error
from fsguard.core.removal import remove
from fsguard.core.safeguards import Safeguards
from fsguard.core.setaside import changed_error, check_unchanged, same_entry
from fsguard.core.trash import Trash
from fsguard.core.trashentries import TrashEntry
from fsguard.core.treebackup import TreeRead, read_tree
from fsguard.core.wholefiles import checked_bytes


@dataclass(frozen=True)
class Deletion:
    """What happened to one path."""

    path: Path
    status: str  # "trashed" or "deleted"
    trash: TrashEntry | None = None
    backup: BackupRecord | None = None  # a file deleted for good: its bytes
    # A directory deleted for good: each file's backup and each directory, as changes; the group recording them
    # (None when the caller records them in its own, or the record could not be saved).
    changes: tuple[Change, ...] = ()
    group: Group | None = None

    @property
    def files_backed_up(self) -> int | None:
        """A directory deleted for good: how many of its files were backed up (None for anything else)."""
        if not self.changes:
            return None
        return sum(change.backup_id is not None for change in self.changes)


class Deleter:
    """Removes entries under the path policy; roots are never removable."""

    def __init__(self, safeguards: Safeguards, trash: Trash, groups: GroupStore) -> None:
        self._safe = safeguards
        self._trash = trash
        self._groups = groups

    def delete(
        self,
        user_path: str,
        *,
        permanent: bool = False,
        recursive: bool = False,
        expected_hash: str | None = None,
        tool: str = "delete_file",
        hooked: bool = True,
        confirmed: frozenset[Entry] | None = None,
        grouped: bool = True,
    ) -> Deletion:
        """Soft-delete (or, with ``permanent``, remove) one file, link or directory. A revert passes ``hooked=False``:
        taking back fsguard's own change is no delete for the operator's hooks to refuse (a pre-delete hook stopped
        an atomic batch's rollback of a copy half way), as its removal of a file the change created never was.

        ``confirmed``: a confirmed batch's or pipeline's entries (None: nobody was asked): a permanent delete, or a
        recursive one of a non-empty directory, of an entry not among them is refused (see ``_check_confirmed``).

        A directory deleted for good has each regular file in it backed up first (:mod:`fsguard.core.treebackup`),
        the whole delete saved as one change group unless ``grouped`` is false (a batch records the changes in its
        own group).

        Raises:
            AccessDeniedError: the path is a root or holds one, or is a ``.git`` or inside one.
            NotFoundError: nothing is there.
            InvalidParamsError: a non-empty directory without ``recursive``, or expected_hash on a directory.
            StaleEditError: the file changed since ``expected_hash`` was read.
            ExternalChangeError: the file was written to while the pre-hooks ran; nothing was deleted.
            NotConfirmedError: ``confirmed`` does not hold the entry.
            TooLargeError: a permanent delete of a file above --max-file-size, or of a tree too big to back up.
        """
        path = self._safe.policy.resolve_entry(user_path)
        self._safe.policy.check_removable(path, "deleted")
        with self._safe.locks.hold(path), self._safe.beneath.entry(path, follow=False) as entry:
            found = lstat_at(entry)
            if found is None:
                with self._safe.session.watching(path):
                    raise NotFoundError(f"file does not exist: {path}; nothing was deleted.", path=str(path))
            if expected_hash is not None and not stat.S_ISREG(found.st_mode):
                # before the advice to pass recursive=true: the hash pins a file, and a directory took its place
                raise _not_a_file(path)
            if stat.S_ISDIR(found.st_mode) and not recursive and _has_children(entry, found):
                raise non_empty_error(path)
            if confirmed is not None:
                _check_confirmed(entry, found, confirmed, permanent=permanent)
            if stat.S_ISDIR(found.st_mode) and is_mount_point(entry, found):
                # The OS refuses to remove or move a mount point only after a permanent delete has emptied it.
                raise AccessDeniedError(
                    f"{path} is a mount point (another filesystem is mounted there), which the operating system "
                    "never lets be deleted; nothing was deleted. Delete what is inside it instead.",
                    path=str(path),
                )
            data = self._read(entry, found, permanent=permanent, expected_hash=expected_hash)
            operation = "delete_file:permanent" if permanent else "delete_file:trash"
            fire = self._safe.hooks.fire if hooked else _unhooked
            if hooked:
                self._fire_pre(entry, found, data, path=path, tool=tool, operation=operation)
            if not permanent:
                trashed = self._trash.put(entry, found)
                self._safe.session.forget(path)
                fire(
                    "post",
                    "delete",
                    tool_name=tool,
                    file_path=str(path),
                    operation=operation,
                    metadata={"sd_id": trashed.sd_id},
                )
                return Deletion(path, "trashed", trash=trashed)
            if isinstance(data, TreeRead):
                deleted = self._delete_tree(entry, found, data, grouped=grouped)
                self._safe.session.forget(path)
                fire("post", "delete", tool_name=tool, file_path=str(path), operation=operation)
                return deleted
            backup = None
            if data is not None:
                mode = stat.S_IMODE(found.st_mode)
                backup = self._safe.backups.snapshot(path, data, mode, operation="delete_file", after_hash=None)
            try:
                remove(entry, checked=found)  # only what was checked: a directory swapped in stays, whole
            except FsguardError:
                if backup is not None and lstat_at(entry) is not None:  # nothing was deleted: no step to undo
                    self._safe.backups.step_back(backup, withdraw=True)
                raise
            self._safe.session.forget(path)
            fire("post", "delete", tool_name=tool, file_path=str(path), operation=operation)
            return Deletion(path, "deleted", backup=backup)

    def _fire_pre(
        self,
        entry: Pinned,
        found: os.stat_result,
        data: bytes | TreeRead | None,
        *,
        path: Path,
        tool: str,
        operation: str,
    ) -> None:
        """The pre-delete hooks, then a look at what they may have let happen to the file meanwhile."""
        hooks = self._safe.hooks
        hooks.fire("pre", "delete", tool_name=tool, file_path=str(path), operation=operation)
        if stat.S_ISDIR(found.st_mode):
            # A glob naming a file inside judges it going with its folder. Walked afresh, not from read_tree's
            # list: that one holds regular files only, and a link inside goes too.
            fire_below(hooks, entry, "delete", tool_name=tool, operation=operation)
        if isinstance(data, bytes):  # a write while the hooks ran is in no backup: counted as a write is
            check_unchanged(entry, found, data, "deleted")

    def check_expected(self, user_path: str, expected_hash: str) -> None:
        """What :meth:`delete` checks of ``expected_hash`` before it changes anything, alone (the look before the
        user is asked): nothing is changed, and nothing there is left to the delete to report.

        Raises:
            InvalidParamsError: the path is not a regular file. StaleEditError: its bytes are not those hashed.
        """
        path = self._safe.policy.resolve_entry(user_path)
        with self._safe.beneath.entry(path, follow=False) as entry:
            found = lstat_at(entry)
            if found is None:
                return
            if not stat.S_ISREG(found.st_mode):
                raise _not_a_file(path)
            checked_bytes(self._safe, path, entry, found.st_size, expected_hash)

    def _read(
        self, entry: Pinned, found: os.stat_result, *, permanent: bool, expected_hash: str | None
    ) -> bytes | TreeRead | None:
        """What a delete reads before it acts: a regular file's bytes (FIFOs and devices are never read), and for a
        permanent delete of a directory its files' (:func:`read_tree`); None for anything else, or for a file above
        --max-file-size that goes to the trash.

        Raises:
            TooLargeError: a permanent delete of a file above --max-file-size, or of a tree too big to back up.
            StaleEditError, ExternalChangeError: the file is not what the caller or the session saw.
        """
        if stat.S_ISDIR(found.st_mode):
            return read_tree(self._safe, entry, found) if permanent else None
        if not stat.S_ISREG(found.st_mode):
            return None
        data = checked_bytes(self._safe, entry.path, entry, found.st_size, expected_hash)
        if data is None and permanent:
            raise TooLargeError(
                f"{entry.path} is {found.st_size:,} bytes, above the {self._safe.max_file_size:,}-byte limit "
                "(--max-file-size): too large to back up, so it is not deleted permanently. Delete it "
                "without permanent (it goes to the trash whole), then purge_trash frees the space.",
                path=str(entry.path),
            )
        return data

    def _delete_tree(self, entry: Pinned, found: os.stat_result, tree: TreeRead, *, grouped: bool) -> Deletion:
        """Back up the files ``tree`` read, then remove the directory. A backup that fails deletes nothing; a removal
        that fails part way keeps the backups of what it removed (and only those) as a group the error names.

        Raises:
            FsguardError: a backup failed (nothing was deleted), or the removal did.
        """
        taken = tree.back_up(self._safe)
        try:
            remove(entry, checked=found)  # only what was checked: a directory swapped in stays, whole
        except FsguardError as exc:
            removed = taken.removed(self._safe)
            group = self._groups.save("delete_file", removed.changes()) if removed.dirs or removed.files else None
            if group is None:
                raise
            raise error_for_code(exc.code)(
                f"{exc.message} What it removed before it stopped is backed up: "
                f"backup(action='restore', backup_id='{group.group_id}') brings it back.",
                **{**exc.fields, "backup_id": group.group_id},
            ) from exc
        changes = taken.changes()
        return Deletion(
            entry.path, "deleted", changes=changes, group=self._groups.save("delete_file", changes) if grouped else None
        )

    def restore_from_trash(self, sd_id: str, *, rollback: bool = False) -> TrashEntry:
        """Put a trash entry back at its original path, which must be inside the roots and free again. ``rollback``:
        a failed call's delete taken back, which fires no pre-hook (none may refuse it) and its post-event as a
        rollback's.

        Raises:
            AccessDeniedError: the original path is a ``.git`` or inside one (trashed before that was refused).
            NotFoundError: no such entry.
            AlreadyExistsError: something is at the original path now; nothing is overwritten.
        """
        entry = self._trash.get(sd_id)
        # A directory comes back as one: a rule for directories (payroll_*/) set since hides it, not there yet.
        destination = self._safe.policy.resolve_entry(entry.original_path, stored=True, directory=entry.is_directory)
        self._safe.policy.check_writable(destination)
        event = {"tool_name": "backup", "operation": "restore_trash", "file_path": str(destination)}
        if rollback:
            event.update(tool_name=ROLLBACK_TOOL, operation=ROLLBACK_OPERATION)
        moved = {"source_path": str(self._trash.root / sd_id / "item"), "dest_path": str(destination)}
        with self._safe.locks.hold(destination):
            if not rollback:
                self._safe.hooks.fire("pre", "move", **event, **moved)
            with self._safe.beneath.entry(destination, follow=False, make_parents=True) as pinned:
                self._trash.restore(entry, pinned)
        self._safe.hooks.fire("post", "move", **event, **moved)
        return entry

    def delete_many(
        self, user_paths: list[str], *, permanent: bool, recursive: bool
    ) -> list[tuple[str, Deletion | FsguardError]]:
        """Each path on its own: one failure does not stop the others. A call cancelled while it waits for a path's
        lock stops before that path; those deleted before stay deleted (in the trash, or backed up)."""
        if not user_paths:
            raise InvalidParamsError('paths array is empty. Pass at least one path, e.g. paths=["old.log"].')
        outcomes: list[tuple[str, Deletion | FsguardError]] = []
        for user_path in user_paths:
            try:
                with self._safe.locks.step():  # cancelled while it waits for this path's lock: stops before it
                    deleted = self.delete(user_path, permanent=permanent, recursive=recursive)
                outcomes.append((user_path, deleted))
            except FsguardError as exc:
                outcomes.append((user_path, exc))
        return outcomes


def non_empty_error(path: Path) -> InvalidParamsError:
    """The refusal of a delete without ``recursive`` of a directory that holds anything."""
    return InvalidParamsError(
        f"{path} is a non-empty directory. Pass recursive=true to delete it with everything inside "
        "(soft delete keeps it whole in the trash).",
        path=str(path),
    )


def _check_confirmed(entry: Pinned, found: os.stat_result, confirmed: frozenset[Entry], *, permanent: bool) -> None:
    """Refuse a delete a confirmed call came to that its question did not name: its dry run may have planned
    otherwise than the run does (a search found more, a condition went the other way), and what the user was not
    asked about is not deleted on their yes. Checked on the very entries the delete acts on, whatever their names: a
    directory the run made (the folder a move made) passes when all it holds was asked about.

    Raises:
        NotConfirmedError: a permanent delete, or one of a directory holding anything, not in ``confirmed``.
    """
    if (found.st_dev, found.st_ino) in confirmed:
        return
    if stat.S_ISDIR(found.st_mode) and _holds_only(entry.parent, entry.name, found, confirmed):
        return
    if permanent or stat.S_ISDIR(found.st_mode):
        raise unconfirmed(entry.path)


def _holds_only(parent: int, name: str, checked: os.stat_result, confirmed: frozenset[Entry]) -> bool:
    """Whether all the directory holds is in ``confirmed``, or directories holding only such (an empty one: yes);
    links are never followed, and a directory that cannot be read, or was swapped since, holds something else."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return False
    try:
        if not same_entry(os.fstat(fd), checked):
            return False
        with os.scandir(fd) as children:
            for child in children:
                found = child.stat(follow_symlinks=False)
                if (found.st_dev, found.st_ino) in confirmed:
                    continue
                if not (stat.S_ISDIR(found.st_mode) and _holds_only(fd, child.name, found, confirmed)):
                    return False
        return True
    except (OSError, RecursionError):
        return False
    finally:
        os.close(fd)


def _has_children(entry: Pinned, checked: os.stat_result) -> bool:
    """Whether the directory ``checked`` stated holds anything.

    Raises:
        EntryReplacedError: another entry (a file, a link, another directory) took its name since.
    """
    try:
        fd = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=entry.parent)
    except OSError as exc:
        if exc.errno in (errno.ENOTDIR, errno.ELOOP):
            raise changed_error(entry.path, "deleted") from exc
        raise from_os_error(exc, entry.path) from exc
    try:
        if not same_entry(os.fstat(fd), checked):
            raise changed_error(entry.path, "deleted")
        with os.scandir(fd) as children:
            return next(children, None) is not None
    finally:
        os.close(fd)


def _unhooked(*_event: object, **_fields: object) -> None:
    """No hook fires for a revert's delete."""


def _not_a_file(path: Path) -> InvalidParamsError:
    return InvalidParamsError(
        f"{path} is not a file now; expected_hash applies to files. Check it with get_file_info; drop expected_hash "
        "to delete a directory, link or special file.",
        path=str(path),
    )
