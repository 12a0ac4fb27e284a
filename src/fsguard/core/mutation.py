"""The one write sequence every tool that changes a file's bytes goes through.

    lock (threads and processes) → pin the path by fd → read the bytes → [caller: hash check, plan,
    pre-hook, guards] → size limit → backup, while another thread writes the temp file → rename in the
    pinned directory once both are durable → read back → remember the hash → post-hook → commit
    listeners (WSL autosync), still under the lock

edit_file, multi_edit, write_file, project_replace, undo_last and restore all open a :func:`mutation`
and call :meth:`Mutation.commit`; they differ only in how they compute the new bytes. So a guarantee
added here (the fd pinning, the cross-process lock, the size limit, hooks) holds for each of them and
for every tool built later.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from functools import cached_property, partial
from pathlib import Path
from stat import S_IMODE
from typing import Any, Literal

from fsguard.core.attributes import check_writable, other_links_note
from fsguard.core.backups import BackupRecord
from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.disk import open_pinned, read_at, read_open
from fsguard.core.errors import (
    AccessDeniedError,
    DiskFullError,
    EncodingError,
    ExternalChangeError,
    FsguardError,
    NotFoundError,
    TooLargeError,
)
from fsguard.core.growth import results_up_to
from fsguard.core.hashing import content_hash
from fsguard.core.hookcontent import blamed_on_hook
from fsguard.core.occ import OccVerdict
from fsguard.core.readback import on_disk_equals
from fsguard.core.safeguards import Safeguards
from fsguard.core.setaside import holding
from fsguard.core.textio import DecodedText, kept_breaks

HookFamily = Literal["write", "edit"]
# Every rollback is of a batch_operations call (a batch, a pipeline or a rename set that failed, or one a kill cut
# short): its writes and moves fire no pre-hook, which could refuse it and leave an atomic call half done, and their
# post-events name that tool with this operation.
ROLLBACK_TOOL = "batch_operations"
ROLLBACK_OPERATION = "rollback"
_NEW_FILE_MODE = 0o644


@dataclass(frozen=True)
class HookCall:
    """How the hooks see this mutation: the event family, the tool and the operation."""

    family: HookFamily
    tool_name: str
    operation: str
    metadata: dict[str, object] = field(default_factory=dict)


@dataclass(frozen=True)
class Commit:
    """What :meth:`Mutation.commit` did."""

    backup: BackupRecord | None
    content_hash: str
    verified: bool
    size: int  # bytes on disk after the write


@dataclass
class Mutation:
    """One file being changed under its lock: the bytes it holds now, and the only way to replace them."""

    safe: Safeguards
    path: Path
    entry: Pinned | None  # None while the parent directory does not exist yet
    current: bytes | None
    mode: int
    seen: os.stat_result | None = None  # the file as it was read: written over only while it still is
    # What the hooks told the agent (additional_context, a failed pre-hook the change went on without): a result
    # carries them, or the agent never learns the hook spoke.
    hook_notes: list[str] = field(default_factory=list)
    rewritten_by: str | None = None  # the pre-hook whose modified_content is written instead (its label)

    @cached_property
    def current_hash(self) -> str | None:
        return content_hash(self.current) if self.current is not None else None

    def require(self) -> bytes:
        """The current bytes of a file that must exist.

        Raises:
            NotFoundError: nothing is there.
        """
        if self.current is None:
            with self.safe.session.watching(self.path):
                raise missing_file(self.path)
        return self.current

    def check(self, expected_hash: str | None) -> OccVerdict:
        """The concurrency verdict for the bytes read under the lock (see :class:`ConcurrencyGuard`).

        Raises:
            StaleEditError: ``expected_hash`` is not the file's hash.
            NotFoundError: ``expected_hash`` is given and no file is there: no hash can match it.
        """
        digest = self.current_hash
        if digest is None and expected_hash is not None:
            raise NotFoundError(
                f"expected_hash was given but {self.path} does not exist, so it cannot match. Drop expected_hash "
                "to write it anew, or check the path with list_directory.",
                path=str(self.path),
            )
        return self.safe.guard.check(self.path, digest, expected_hash) if digest is not None else OccVerdict()

    def check_writable(self) -> None:
        """Refuse, as the write would, a file this user may not write (its mode, an immutable flag, a read-only
        mount): a dry run refuses what its real run would.

        Raises:
            AccessDeniedError, ReadOnlyFilesystemError: as :func:`fsguard.core.attributes.check_writable`.
        """
        if self.entry is not None and self.seen is not None:
            check_writable(self.entry, self.seen)

    def fire_read(self, tool_name: str, operation: str) -> None:
        """Run the pre-read hooks for a call that shows the file's text without changing it (a dry run's diff, a
        copy of its text elsewhere): a hook keeping read_file out of the file keeps that call out too.

        Raises:
            HookDeniedError: a hook refused; nothing was read or written.
        """
        self.safe.hooks.fire("pre", "read", tool_name=tool_name, file_path=str(self.path), operation=operation)

    def fire_pre(self, hook: HookCall, *, over: DecodedText | None = None, **fields: Any) -> str | None:
        """Run the pre-hooks; returns the content a pre-write/pre-edit hook substituted, if any, in the line breaks
        a write over ``over`` (the text the file holds) keeps, so every writer stores a hook's text as write_file
        does: a hook typing LF does not turn a CRLF file LF.

        A write to the file while the hooks ran (another program's, or a hook's own) is refused by the look before
        the rename (:meth:`_check_unchanged`): its bytes are in no backup. A touch (same bytes) loses nothing.

        Raises:
            HookDeniedError: a hook refused; nothing was written.
        """
        outcome = self.safe.hooks.fire(
            "pre", hook.family, tool_name=hook.tool_name, file_path=str(self.path), operation=hook.operation, **fields
        )
        if outcome.ran and self.entry is not None and self.seen is not None and self.current is not None:
            # A touch moves the times the look before the rename compares: the file still holding what was read
            # is taken as seen anew (stated before its bytes are compared, so a write after that still moves it).
            self.seen = holding(self.entry, self.seen, self.current) or self.seen
        self.hook_notes.extend(outcome.notes)
        if outcome.modified_content is None:
            return None
        if outcome.modified_content not in (fields.get("content"), fields.get("new_content")):
            self.rewritten_by = outcome.modified_by  # what the text then fails is told as that hook's
        return kept_breaks(outcome.modified_content, over)

    def commit(
        self,
        data: bytes,
        hook: HookCall,
        *,
        backup_operation: str | None = None,
        after_hash: str | None = None,
        chained: bool = True,
        mode: int | None = None,
        make_parents: bool = False,
        backup_if_room: bool = False,
    ) -> Commit:
        """Back up what the file holds, replace it with ``data`` atomically, read it back, fire post-hooks.

        A file that did not exist is created exclusively (never clobbering one that appeared meanwhile)
        with ``mode``. The backup is durable before the file is replaced.

        Raises:
            TooLargeError: ``data`` is above --max-file-size; nothing was written or backed up.
            DiskFullError and the other typed OS errors: the file keeps its old bytes.
        """
        limit = self.safe.max_file_size
        if len(data) > limit:
            raise TooLargeError(
                f"the new content of {self.path} is {len(data):,} bytes, above the {limit:,}-byte limit "
                "(--max-file-size); nothing was written. Write a smaller file, or restart fsguard with a larger "
                "--max-file-size.",
                path=str(self.path),
                size=len(data),
                limit=limit,
            )
        digest = content_hash(data)
        backups: list[BackupRecord] = []
        back_up = None
        if self.current is not None:  # backed up while another thread writes the new bytes (AtomicWriter.write_at)
            operation = backup_operation or hook.operation
            after = after_hash if after_hash is not None else digest
            back_up = partial(
                self._back_up, backups, operation=operation, after_hash=after, chained=chained, if_room=backup_if_room
            )
        if self.entry is None:  # the parent directory is new: no file, nothing to back up
            with self.safe.beneath.made_here() as made:
                try:
                    with self.safe.beneath.entry(self.path, make_parents=make_parents) as entry:
                        written_hash, size, verified = self._replace(entry, data, mode, digest, back_up)
                except BaseException:
                    self._remove_made(made)
                    raise
        else:
            try:
                written_hash, size, verified = self._replace(self.entry, data, mode, digest, back_up)
            except ExternalChangeError:  # refused before the rename: the backup is of a step never taken
                if backups:
                    self.safe.backups.step_back(backups[0], withdraw=True)
                raise
            except BaseException:
                self._withdraw(backups)
                raise
        backup = backups[0] if backups else None
        if self.seen is not None and self.seen.st_nlink > 1:
            self.hook_notes.append(other_links_note(self.path, self.seen.st_nlink - 1))
        self.safe.session.record_hash(self.path, written_hash)
        metadata = {"backup_id": backup.backup_id if backup else None, "content_hash": written_hash}
        told = self.safe.hooks.fire(
            "post",
            hook.family,
            tool_name=hook.tool_name,
            file_path=str(self.path),
            operation=hook.operation,
            metadata={**metadata, **hook.metadata},
        )
        self.hook_notes.extend(told.notes)
        for listener in self.safe.committed:
            listener(self.path, hook.family, hook.tool_name)
        return Commit(backup, written_hash, verified, size)

    def _back_up(
        self, into: list[BackupRecord], *, operation: str, after_hash: str, chained: bool, if_room: bool
    ) -> None:
        """Save the bytes the file holds now, durably, and add the record to ``into``; with ``if_room``, a full state
        directory skips the backup instead of failing the write."""
        try:
            record = self.safe.backups.snapshot(
                self.path,
                self.require(),
                self.mode,
                operation=operation,
                after_hash=after_hash,
                chained=chained,
                data_hash=self.current_hash,
            )
        except DiskFullError:
            if not if_room:
                raise
            return
        into.append(record)

    def _withdraw(self, backups: list[BackupRecord]) -> None:
        """Take back the backup of a write that failed (a full disk, say) while the file still holds the old bytes:
        left in the chain, it would be the step undo_last reverts next, and that step changed nothing."""
        if not backups or self.entry is None or self.current is None:
            return
        try:
            if on_disk_equals(self.entry, self.current):  # else the rename happened and a later step failed: keep
                self.safe.backups.step_back(backups[0], withdraw=True)
        except (OSError, FsguardError):
            pass  # kept: undo_last steps over a record whose bytes the file holds, without writing

    def _check_unchanged(self, now: os.stat_result | None) -> None:
        """Refuse to write over a file (``now``) another program changed since it was read under the lock (an append
        to a log while the edit's temp file was written and synced): its new bytes are in no backup.

        Raises:
            ExternalChangeError: its size, modification time or inode is not what was read.
        """
        seen = self.seen
        if seen is None or now is None or _signature(now) != _signature(seen):
            raise ExternalChangeError(
                f"{self.path} changed on disk while this change was being written (another program wrote to it); "
                "nothing was written. Read it again, then redo the change.",
                path=str(self.path),
            )

    def _remove_made(self, made: list[Path]) -> None:
        """Remove the directories made for a new file whose write then failed (a full disk, say), innermost first,
        while still empty: a failed call leaves the tree as it found it. One another process has put something in
        since is kept, and so are those around it."""
        while made:
            try:
                with self.safe.beneath.entry(made[-1], follow=False) as entry:
                    os.rmdir(entry.name, dir_fd=entry.parent)
            except (OSError, FsguardError):
                return
            made.pop()  # gone: a batch's rollback has nothing to remove there

    def _replace(
        self, entry: Pinned, data: bytes, mode: int | None, digest: str, back_up: Callable[[], None] | None
    ) -> tuple[str, int, bool]:
        """Write (with ``back_up`` run alongside), then read back: (hash, size) of what is on disk now, and
        whether it is ``data``."""
        new = self.current is None
        unchanged = None if new else self._check_unchanged
        self.safe.atomic.write_at(
            entry, data, exclusive=new, mode=mode if new else None, alongside=back_up, unchanged=unchanged
        )
        try:
            if on_disk_equals(entry, data):  # compared in chunks: a large write never holds a second copy
                return digest, len(data), True
            written = read_at(entry)[0]
        except (OSError, FsguardError):
            # Replaced since the rename (by a link, say): the write happened, but it cannot be read back.
            return digest, len(data), False
        written_hash = content_hash(written)
        return written_hash, len(written), written_hash == digest


@contextmanager
def mutation(
    safe: Safeguards, path: Path, *, may_be_missing: bool = False, reading_only: bool = False, changing: bool = True
) -> Iterator[Mutation]:
    """Lock ``path`` (canonical), pin it and read what it holds, for one :class:`Mutation`.

    With ``may_be_missing`` the file (and its parent directories) need not exist: it will be created.
    With ``reading_only`` the caller only reads under the lock (never commits), so a read-only root or a
    ``.git`` does not refuse it. Without ``changing`` (a dry run; the first of two files, committed only once the
    second is locked), nothing is committed before the call's next lock, which then asks whether the call was
    cancelled (see :meth:`PathLocks.cancellable`). A canonical path holds no symlink: one met on it now was swapped
    in since the path was resolved, and is refused rather than followed to a file whose lock this does not hold.

    Raises:
        AccessDeniedError: the path now leads outside the roots, into a repository's ``.git``, or through a link.
        IsDirectoryError: the path is a directory.
        NotFoundError: it is missing (and may not be).
    """
    if not reading_only:
        safe.policy.check_writable(path)
    with safe.locks.hold(path, changing=changing and not reading_only), ExitStack() as stack:
        stack.enter_context(results_up_to(safe.max_file_size, path))  # a planned result is bounded while built
        entry: Pinned | None = None
        try:
            entry = stack.enter_context(safe.beneath.entry(path))
        except NotFoundError:  # a directory on the way is missing
            if not may_be_missing:
                raise
        if entry is not None and entry.path != path:  # the walk followed a link: its target is another file
            raise AccessDeniedError(
                f"{path} (or a directory on its way) was replaced by a symbolic link while this call ran; nothing "
                "was written. Check it with get_file_info, then retry.",
                path=str(path),
            )
        change = (
            _opened(safe, path, entry, may_be_missing) if entry else Mutation(safe, path, None, None, _NEW_FILE_MODE)
        )
        try:
            yield change
        except (EncodingError, TooLargeError) as exc:
            if change.rewritten_by is None:
                raise
            raise blamed_on_hook(exc, change.rewritten_by, path) from exc


def _opened(safe: Safeguards, path: Path, entry: Pinned, may_be_missing: bool) -> Mutation:
    found = lstat_at(entry)
    if found is None:
        if not may_be_missing:
            with safe.session.watching(path):
                raise NotFoundError(f"{path} does not exist. Check the path with list_directory.", path=str(path))
        return Mutation(safe, path, entry, None, _NEW_FILE_MODE)
    with safe.session.watching(path):
        fd = open_pinned(entry)
        try:
            data, stat = read_open(fd, entry.path, safe.max_file_size)  # a directory is refused here: is_directory
            held = os.fstat(fd)
        finally:
            os.close(fd)
    # Changed while read, the bytes go with the stat taken before only if they are that file's: another program's
    # exchange of two names (which changes both files' ctime) may have had the other file opened, and writing its
    # edited bytes over the stated file destroyed that one. Then nothing is seen, and a write is refused.
    seen = stat or (found if (held.st_dev, held.st_ino) == (found.st_dev, found.st_ino) else None)
    return Mutation(safe, path, entry, data, S_IMODE(held.st_mode), seen)


def _signature(found: os.stat_result) -> tuple[int, int, int, int]:
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns


def missing_file(path: Path) -> NotFoundError:
    """The refusal of a change to a file that is not there (an edit's, and analyze_operation's plan of one)."""
    return NotFoundError(f"{path} does not exist. Check the path with list_directory.", path=str(path))
