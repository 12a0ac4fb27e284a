"""undo_last and restore: put saved bytes back, never losing the bytes they replace.

Both snapshot the current bytes first (so an undo is itself undoable), write atomically, and check the
restored bytes' hash. They only ever touch the file the backup was taken of. They differ when the file
changed after the operation they revert: undo_last ("take back my last step") then refuses with
undo_conflict unless ``force``, since the step is no longer the last thing that happened to the file;
restore ("put this version back", as the seed did for any older backup) goes ahead, and the report says
that the bytes it replaced are in the safety backup. A dry run of either reports the situation.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.beneath import lstat_at
from fsguard.core.diff import render_diff
from fsguard.core.disk import read_at
from fsguard.core.errors import (
    FsguardError,
    InvalidParamsError,
    NotFoundError,
    NothingToUndoError,
    UndoConflictError,
    UndoOvertakenError,
)
from fsguard.core.hashing import content_hash
from fsguard.core.mutation import ROLLBACK_OPERATION, ROLLBACK_TOOL, HookCall, Mutation, mutation
from fsguard.core.safeguards import Safeguards
from fsguard.core.textio import decode
from fsguard.core.trash import Trash
from fsguard.core.trashentries import TrashEntry


@dataclass(frozen=True)
class RestoreReport:
    """What a restore or undo did (or would do)."""

    path: Path
    restored_from: BackupRecord
    previous_hash: str | None
    content_hash: str
    verified: bool
    safety_backup: BackupRecord | None
    new_head: BackupRecord | None
    dry_run: bool
    already_there: bool
    changed_since: bool = False  # the file changed after the operation being reverted (or is missing)
    needs_force: bool = False  # a dry run of an undo_last that a real run would refuse (undo_conflict)
    notes: tuple[str, ...] = ()  # what the write and the hooks told the agent (Mutation.hook_notes)


class Restorer:
    """Reverts files to saved versions."""

    def __init__(self, safeguards: Safeguards, trash: Trash) -> None:
        self._safe = safeguards
        self._trash = trash

    def undo_last(
        self,
        user_path: str,
        *,
        force: bool = False,
        dry_run: bool = False,
        only: str | None = None,
        stored: bool = False,
        rollback: bool = False,
    ) -> RestoreReport:
        """Revert the newest operation on ``user_path`` and step its undo chain back one (``stored``: a path fsguard
        recorded, taken as spelled, as :meth:`PathPolicy.resolve` says). ``rollback``: the revert of a failed call's
        own step, which no pre-hook may refuse and which may go on without a safety backup when the state directory
        has no room for one.

        Raises:
            NothingToUndoError: no operation on this file is left in the chain.
            UndoConflictError: the file changed after that operation and ``force`` is false (a dry run reports
                it instead, with ``needs_force``).
            UndoOvertakenError: ``only`` is given and is not the newest operation.
        """
        path = self.chained(user_path, stored=stored)
        with mutation(self._safe, path, may_be_missing=True) as change:
            head = self._safe.backups.head(path)
            if head is None:
                # "No backups found" (the seed's words) only when there are none: after undoing every step, the file's
                # versions are still listed, and saying there were none sent the caller away from them.
                undone = any(record.path == str(path) for record in self._safe.backups.records())
                opening = (
                    # Not "every operation": retention may have dropped the oldest, which no undo reaches any more.
                    f"Nothing to undo: every step still kept in the undo chain of {path} is undone already (a chain "
                    "keeps a file's last --backup-max-count operations, none older than --backup-max-age)"
                    if undone
                    else f"No backups found. Nothing to undo. No operation through fsguard on {path} is left in its "
                    "undo chain"
                )
                raise NothingToUndoError(
                    f"{opening}; see its versions with backup(action='list', filter_path=...) and restore one by id.",
                    path=str(path),
                )
            if only is not None and head.backup_id != only:  # another operation came after it: never revert that
                raise UndoOvertakenError(
                    f"{path} was changed again after backup {only} (newest now: {head.backup_id}); nothing was "
                    "written. Compare with backup(action='compare', backup_id=...) before restoring it.",
                    path=str(path),
                    backup_id=only,
                )
            current_hash = change.current_hash
            if current_hash == head.content_hash:
                # The operation never reached the disk (a crash between backup and write): just step back.
                if not dry_run:
                    self._safe.backups.step_back(head)
                return self._report(path, head, current_hash, None, dry_run, already_there=True)
            changed = current_hash != head.after_hash
            if changed and not force:
                if not dry_run:
                    raise _conflict(path, head, current_hash, "undo_last", self._trashed(path, current_hash))
                report = self._report(path, head, current_hash, None, True, already_there=False)
                return replace(report, changed_since=True, needs_force=True)
            # A rollback puts back what the failed call replaced; the bytes it removes are that call's own,
            # never acknowledged: a state directory too full to keep them must not stop the rollback.
            spare = rollback and not changed
            report = self._put_back(
                change, head, dry_run=dry_run, chained=False, backup_if_room=spare, rollback=rollback
            )
            return replace(report, changed_since=changed)

    def restore(
        self,
        backup_id: str,
        *,
        file_path: str | None = None,
        force: bool = False,
        dry_run: bool = False,
        expected_hash: str | None = None,
        taken_of: Path | None = None,
    ) -> RestoreReport:
        """Put backup ``backup_id``'s bytes back into the file it was taken of (a new step in its undo chain).

        Whatever the file holds now is backed up first, also when it changed after the backed-up operation
        (``changed_since`` in the report): so ``force`` is never needed here, and is accepted for the callers
        that revert several changes at once and check those conflicts themselves. ``taken_of`` is the file the
        backup was taken of, when the caller knows it (a group's change): only that file's journal is looked in.

        Raises:
            InvalidParamsError: file_path names another file than the backup's.
            StaleEditError: ``expected_hash`` is not the file's current hash.
        """
        record = self._safe.backups.get(backup_id, taken_of)
        path = self._safe.policy.resolve(record.path, stored=True)
        if file_path is not None and self._safe.policy.resolve(file_path) != path:
            raise InvalidParamsError(
                f"backup {backup_id} holds {path}, not {file_path}; a restore never writes another file.",
                backup_id=backup_id,
            )
        with mutation(self._safe, path, may_be_missing=True) as change:
            current_hash = change.current_hash
            change.check(expected_hash)  # a file gone since matches no hash: refused, never recreated unasked
            if current_hash == record.content_hash:
                return self._report(path, record, current_hash, None, dry_run, already_there=True)
            report = self._put_back(change, record, dry_run=dry_run, chained=True)
            return replace(report, changed_since=current_hash != record.after_hash)

    def chained(self, user_path: str, *, stored: bool = False) -> Path:
        """The file ``user_path`` names, for its undo chain (undo_last's and undo_chain's).

        A typed path loses the spaces at its ends unless an entry so spelled exists; after a delete none does, so
        ``'notes '`` would name ``notes``. Its spelling as sent wins when only that one has an undo chain.
        """
        path = self._safe.policy.resolve(user_path, stored=stored)
        if stored or self._safe.backups.head(path) is not None:
            return path
        try:
            spelled = self._safe.policy.resolve(user_path, stored=True)
        except FsguardError:  # a line break at the end, say: refused as spelled, forgiven as typed
            return path
        return spelled if self._safe.backups.head(spelled) is not None else path

    def diff(self, record: BackupRecord, *, towards_backup: bool = True) -> str:
        """Unified diff between the file now and the backup: what restoring does, or (reversed) what changed since."""
        path = self._safe.policy.resolve(record.path, stored=True)
        saved = _as_text(self._safe.backups.read_blob(record), path)
        current = _as_text(current_bytes(self._safe, path) or b"", path)
        before, after = (current, saved) if towards_backup else (saved, current)
        return render_diff(self._safe.policy.label(path), before, after, "full").text or "(no difference)"

    def _put_back(
        self,
        change: Mutation,
        record: BackupRecord,
        *,
        dry_run: bool,
        chained: bool,
        backup_if_room: bool = False,
        rollback: bool = False,
    ) -> RestoreReport:
        """Write the saved bytes back; an undo steps the chain back, a restore is a new step on it."""
        data = self._safe.backups.read_blob(record)
        current_hash = change.current_hash
        if dry_run:
            return self._report(change.path, record, current_hash, None, True, already_there=False)
        restored: dict[str, object] = {"restored_backup_id": record.backup_id}
        if rollback:
            # Not the agent's undo: a hook keeping backup from the agent (pattern "backup") stopped the rollback of
            # a failed atomic batch, which then answered "rolled back 0 of 1" and left its edit on disk.
            hook = HookCall("write", ROLLBACK_TOOL, ROLLBACK_OPERATION, restored)
        else:
            hook = HookCall("write", "backup", "restore" if chained else "undo_last", restored)
            change.fire_pre(hook, content=_as_text(data, change.path))
        done = change.commit(
            data,
            hook,
            backup_operation="restore" if chained else "pre_undo",
            after_hash=record.content_hash,
            chained=chained,
            mode=record.mode,
            make_parents=True,
            backup_if_room=backup_if_room,
        )
        if not chained:
            self._safe.backups.step_back(record)
        report = self._report(change.path, record, current_hash, done.backup, False, already_there=False)
        verified = done.content_hash == record.content_hash
        return replace(report, content_hash=done.content_hash, verified=verified, notes=tuple(change.hook_notes))

    def _trashed(self, path: Path, current_hash: str | None) -> TrashEntry | None:
        """The newest trash entry of the file at ``path`` when it is missing: deleted through fsguard since, itself or
        with a directory above it (restore_trash brings that directory back whole; a forced undo would not)."""
        if current_hash is None:
            for entry in self._trash.entries():
                if entry.original_path == str(path) or (
                    entry.is_directory and Path(entry.original_path) in path.parents
                ):
                    return entry
        return None

    def _report(
        self,
        path: Path,
        record: BackupRecord,
        previous_hash: str | None,
        safety: BackupRecord | None,
        dry_run: bool,
        *,
        already_there: bool,
    ) -> RestoreReport:
        return RestoreReport(
            path=path,
            restored_from=record,
            previous_hash=previous_hash,
            content_hash=record.content_hash,
            verified=already_there,
            safety_backup=safety,
            new_head=self._safe.backups.head(path),
            dry_run=dry_run,
            already_there=already_there,
        )


def _as_text(data: bytes, path: Path) -> str:
    try:
        return decode(data, path).text
    except FsguardError:
        return f"(binary content: {len(data)} bytes, hash {content_hash(data)})\n"


def _conflict(
    path: Path, record: BackupRecord, current_hash: str | None, action: str, trashed: TrashEntry | None
) -> UndoConflictError:
    now = "is missing" if current_hash is None else f"has hash {current_hash}"
    fields: dict[str, object] = {}
    if trashed is not None and trashed.original_path != str(path):  # a directory above it went to the trash
        fields["sd_id"] = trashed.sd_id
        found = (
            f" Its directory {trashed.original_path} was deleted at {trashed.time_iso}: backup(action='restore_trash', "
            f"sd_id='{trashed.sd_id}') brings the directory back as it was, then undo_last reverts the "
            f"{record.operation}. Do that before any force: a forced undo makes the directory anew, holding this file "
            "alone, and the trash entry could not come back over it."
        )
    elif trashed is not None:  # deleted through fsguard since: the trash holds the bytes the undo would not bring back
        fields["sd_id"] = trashed.sd_id
        found = (
            f" It was deleted at {trashed.time_iso}: backup(action='restore_trash', sd_id='{trashed.sd_id}') brings "
            f"it back as it was, then undo_last reverts the {record.operation}."
        )
    elif current_hash is None:
        found = (
            " If it was deleted, backup(action='list_trash') shows whether the trash holds it: restore_trash brings "
            "back its last bytes."
        )
    else:
        found = ""
    return UndoConflictError(
        f"{path} changed after the {record.operation} being reverted: that operation left hash "
        f"{record.after_hash}, the file now {now}. Nothing was written. Compare first with "
        f"backup(action='compare', backup_id='{record.backup_id}'), then retry {action} with force=true "
        f"(the current bytes are backed up before they are replaced).{found}",
        path=str(path),
        backup_id=record.backup_id,
        after_hash=record.after_hash,
        current_hash=current_hash,
        **fields,
    )


def current_bytes(safe: Safeguards, path: Path) -> bytes | None:
    """What the file at ``path`` holds now, read through its pinned directory; None when it is missing."""
    try:
        with safe.beneath.entry(path) as entry:
            return read_at(entry)[0] if lstat_at(entry) is not None else None
    except NotFoundError:
        return None
