"""Reverting a change group: a failed atomic batch's rollback, and backup(action="restore") of a group id.

Changes are undone newest first, each with the tool that made its kind safe already: bytes come back through
:class:`Restorer` (itself backed up, so a revert is undoable), trash entries through the trash, moves by a no-clobber
move back. What a group created is never simply unlinked: a created file's bytes are backed up first, a copied tree
goes to the trash. A change that something else has touched since is a conflict: without ``force`` nothing at all is
reverted; with it, the conflicting file's current bytes are backed up before they are replaced, and a path that a
revert would clobber is still never clobbered.

Each revert also names the change that would take it back (:attr:`Reverted.undo`); a restore saves those as a
group of its own, so one id undoes the whole restore as one id did the original call. A restore cancelled while it
waits for a file's lock stops before that file (see :meth:`PathLocks.step`); what it reverted before stays, and is
saved as that group all the same. A rollback is never cut short.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.beneath import lstat_at
from fsguard.core.changestate import changed_since, exists, file_state
from fsguard.core.confirmation import plural
from fsguard.core.deletion import Deleter
from fsguard.core.disk import read_at
from fsguard.core.errors import (
    AccessDeniedError,
    EntryReplacedError,
    FsguardError,
    NotFoundError,
    NothingToUndoError,
    StaleEditError,
    UndoConflictError,
    error_for_code,
)
from fsguard.core.groups import Change, Group, GroupStore, unnoted
from fsguard.core.hashing import content_hash
from fsguard.core.moving import Mover
from fsguard.core.removal import remove
from fsguard.core.safeguards import Safeguards
from fsguard.core.treebackup import remake_dir
from fsguard.core.undo import Restorer

_CHANGED_MEANWHILE = "another process changed it meanwhile; left as it is"
_HIDDEN = "a deny rule hides it now"
_GONE = "gone since the move: nothing to move back"
_LISTED = 5  # changes a refusal names; its count says how many there are
RevertStatus = Literal["reverted", "already", "kept", "failed"]


@dataclass(frozen=True)
class Reverted:
    """What reverting one change did: ``kept`` means left in place on purpose (``detail`` says why). ``undo`` is
    the change this revert made, recorded so that reverting it puts back what the revert replaced; its ``backup_id``,
    when set, holds the bytes the revert overwrote or removed (the safety backup)."""

    change: Change
    status: RevertStatus
    detail: str | None = None
    error_code: str | None = None
    undo: Change | None = None
    hidden: bool = False  # a deny rule hides its file now: failed untouched, and counted in answers, never named


@dataclass(frozen=True)
class GroupRestore:
    """A group reverted by a restore, and the group that takes the restore back (None when nothing changed)."""

    outcomes: list[Reverted]
    undo_group: Group | None


class Reverter:
    """Undoes recorded changes, newest first."""

    def __init__(self, safeguards: Safeguards, restorer: Restorer, deleter: Deleter, mover: Mover) -> None:
        self._safe = safeguards
        self._restorer = restorer
        self._deleter = deleter
        self._mover = mover

    def conflicts(self, changes: Sequence[Change]) -> list[tuple[Change, str]]:
        """The changes something else has touched since they were made, each with what is different now.

        Only a path's newest change in the group can be checked against the disk: an earlier one (a write the group
        then edited, an edit inside a directory it then moved) left a state the later change replaced, and reverting
        newest first brings that state back before the earlier one is reverted.
        """
        found = []
        later: set[Path] = set()  # every path a newer change of the group acts on
        holding: set[Path] = set()  # every directory above one of them
        for change in reversed(changes):
            paths = [Path(p) for p in (change.path, change.source) if p]
            superseded = any(p in later or not later.isdisjoint(p.parents) for p in paths)
            # A tree copied or moved, then changed inside by the group (an edit in it): its fingerprint matches once
            # that change is reverted, so it is compared then, under its lock, not now.
            inside = paths[0] in holding
            later.update(paths)
            holding.update(parent for p in paths for parent in p.parents)
            problem = None if superseded else self._conflict(change, inside=inside)
            if problem is not None:
                found.append((change, problem))
        found.reverse()
        return found

    def revert(
        self, changes: Sequence[Change], *, force: bool = False, dry_run: bool = False, rollback: bool = False
    ) -> list[Reverted]:
        """Undo ``changes`` newest first; one failure does not stop the others (each is reported). A ``rollback``
        (of a call that failed) steps each file's undo chain back past the change, as undo_last does, so the chain
        reads as if the call never ran; otherwise each restore is a new step (undoable in turn).

        Raises:
            UndoConflictError: some change was touched since and ``force`` is false; nothing was reverted.
        """
        self._refuse_conflicts(changes, force=force, retry=not rollback)
        if dry_run:
            return [self._dry(change) for change in reversed(changes)]
        return [self._outcome(change, force=force, rollback=rollback) for change in reversed(changes)]

    def roll_back(self, changes: Sequence[Change]) -> list[Reverted]:
        """Undo the changes of a run the server stopped in the middle of, newest first, each on its own: a change
        whose file holds anything but what the run left is kept (its outcome says why), the others are reverted, and
        each undo chain steps back as a rollback's does. Under every path's lock, as a rollback is."""
        paths = {Path(path) for change in changes for path in (change.path, change.source) if path}
        with self._safe.locks.hold_all(*paths):
            return [self._outcome(change, force=False, rollback=True) for change in reversed(changes)]

    def restore(self, group: Group, store: GroupStore, *, force: bool = False, dry_run: bool = False) -> GroupRestore:
        """Revert ``group`` and record what the revert did as a group of its own: restoring that one undoes it. A
        cancelled restore records what it reverted before it stopped, then lets the cancellation go on.

        Raises:
            UndoConflictError: as :meth:`revert`.
        """
        self._refuse_out_of_reach(group)
        if dry_run:
            return GroupRestore(self.revert(group.changes, force=force, dry_run=True), None)
        self._refuse_conflicts(group.changes, force=force)
        outcomes: list[Reverted] = []
        try:
            for change in reversed(group.changes):
                # Each change its own step (never a rollback's revert, which must finish): a restore cancelled while
                # it waits for a file's lock stops before that file.
                with self._safe.locks.step():
                    outcomes.append(self._outcome(change, force=force))
        finally:  # cancelled part-way too: what was reverted is undoable as one group
            undo_group = store.save("restore", (o.undo for o in outcomes if o.undo is not None))
        if all(o.undo is None for o in outcomes) and any(o.status == "failed" for o in outcomes):
            raise _nothing_reverted(group, outcomes)
        return GroupRestore(outcomes, undo_group)

    def _refuse_out_of_reach(self, group: Group) -> None:
        """Refuse a group that changed files outside the roots this call is served in (a client's roots narrower
        than the session that made it): their revert would fail alone, leaving the group half reverted, and their
        state (hash, existence) is not this client's to learn, so they are counted, never named.

        Raises:
            AccessDeniedError: naming how many changes lie outside, not which.
        """
        contains = self._safe.policy.contains
        outside = [c for c in group.changes if not all(contains(Path(p)) for p in (c.path, c.source) if p)]
        if outside:
            raise AccessDeniedError(
                f"{group.group_id} changed {len(outside)} of {plural(len(group.changes), 'file')} outside this "
                "connection's roots (not named here); nothing was reverted. Restore it from a client whose roots hold "
                "them, or restore the files inside one by one with the backup ids backup(action='info') lists.",
                backup_id=group.group_id,
            )

    def _refuse_conflicts(self, changes: Sequence[Change], *, force: bool, retry: bool = True) -> None:
        """Refuse changes touched since, unless ``force``; ``retry``: say how to force it (a rollback's caller names
        the call that does, its group's restore: the force of the call that failed forces nothing)."""
        conflicts = self.conflicts(changes)
        if conflicts and not force:
            # A file a deny rule hides now is counted, never named: list and info count it the same way.
            named = [(change, problem) for change, problem in conflicts if problem != _HIDDEN]
            hidden = len(conflicts) - len(named)
            listed = "; ".join(f"{change.path}: {problem}" for change, problem in named[:_LISTED])
            if hidden:
                listed += ("; " if listed else "") + f"{hidden} a deny rule hides now (not named here)"
            check = "Check the named ones with get_file_info, then retry" if named else "Retry"
            advice = (
                f" {check} with force=true (current bytes are backed up first; what a rule hides is left as it is)."
            )
            raise UndoConflictError(
                f"{len(conflicts)} of {plural(len(changes), 'change')} "
                f"{'was' if len(conflicts) == 1 else 'were'} modified since (nothing was reverted): {listed}."
                + (advice if retry else ""),
                conflicts=[change.path for change, _ in named],
            )

    def _outcome(self, change: Change, *, force: bool, rollback: bool = False) -> Reverted:
        """Revert ``change``; a failure is its outcome, so one does not stop the others."""
        hidden = self._hidden(change)
        if hidden is not None:
            return hidden
        try:
            with unnoted():
                return self._revert(change, force=force, rollback=rollback)
        except FsguardError as exc:
            return Reverted(change, "failed", exc.message, exc.code)

    def _dry(self, change: Change) -> Reverted:
        """What reverting ``change`` would do, as far as telling costs no write: one whose backup is gone fails."""
        hidden = self._hidden(change)
        try:
            if hidden is None and change.backup_id:  # dropped by retention or cleanup since: force cannot bring it back
                self._safe.backups.get(change.backup_id, taken_of=Path(change.path))
        except FsguardError as exc:
            return Reverted(change, "failed", exc.message, exc.code)
        return hidden or Reverted(change, "reverted", "dry run: would revert")

    def _hidden(self, change: Change) -> Reverted | None:
        """The outcome of a change whose file (or a move's other end) a deny rule hides now: it fails untouched."""
        if change.shown(self._safe.policy.shows):
            return None
        return Reverted(change, "failed", _HIDDEN, AccessDeniedError.code, hidden=True)

    def _conflict(self, change: Change, *, inside: bool = False) -> str | None:
        if self._hidden(change) is not None:
            # Said without its hash or whether it exists: the rules hide both. With force its revert is refused.
            return _HIDDEN
        if change.kind == "moved" and change.source and exists(Path(change.source)):
            return f"its old place {change.source} is taken again"
        if change.kind in ("copied", "moved"):
            changed = not inside and changed_since(self._safe, change)
            return f"it changed since it was {change.kind}" if changed else None
        now = file_state(self._safe, Path(change.path))
        if change.kind in ("modified", "created"):
            if now is None:
                return "it no longer exists" if change.kind == "modified" else None
            return None if now == change.after_hash else f"its hash is {now}, the change left {change.after_hash}"
        if change.kind in ("trashed", "deleted", "deleted_dir") and exists(Path(change.path)):
            return "something exists at its path again"
        return None

    def _revert(self, change: Change, *, force: bool, rollback: bool = False) -> Reverted:
        path = Path(change.path)
        # The policy of now, not of when the change was made (the state directory outlives a server's flags): no
        # revert reads or removes a file a deny rule hides, or changes a read-only root or a .git.
        self._safe.policy.check_not_denied(path)
        self._safe.policy.check_writable(path)
        kind = change.kind
        if kind == "modified" or (kind == "deleted" and change.backup_id):
            if change.backup_id is None:  # modified a file that had no bytes worth saving: nothing to restore
                return Reverted(change, "kept", "no backup was needed")
            return self._put_back(change, change.backup_id, path, force=force, rollback=rollback)
        if kind == "created":
            return self._remove_created(change, path, force=force)
        if kind in ("created_dir", "deleted_dir"):
            return _redo_dir(self._safe, change, path)
        if kind == "moved" and change.source:
            return self._move_back(change, path, Path(change.source), force=force, rollback=rollback)
        if kind == "copied":
            # Checked again under its lock, as a restore of bytes is: a copy another process changed since conflicts()
            # looked is kept, not trashed with its change.
            with self._safe.locks.hold(path):
                if not exists(path):
                    return Reverted(change, "already")
                if not force and changed_since(self._safe, change):
                    return Reverted(change, "kept", _CHANGED_MEANWHILE)
                outcome = self._deleter.delete(change.path, recursive=True, hooked=False)
            if outcome.trash is None:
                return Reverted(change, "reverted")
            undo = Change("trashed", change.path, sd_id=outcome.trash.sd_id)
            return Reverted(change, "reverted", f"the copy is in the trash as {outcome.trash.sd_id}", undo=undo)
        if kind == "trashed" and change.sd_id:
            self._deleter.restore_from_trash(change.sd_id, rollback=rollback)
            # A file back from the trash is as good as created by this revert: undoing it removes it, bytes saved.
            # A directory back from the trash has no such change; it stays.
            restored = file_state(self._safe, path)
            return Reverted(change, "reverted", undo=Change.created(path, restored) if restored else None)
        return Reverted(change, "kept", "nothing recorded to revert it with")

    def _move_back(self, change: Change, path: Path, source: Path, *, force: bool, rollback: bool) -> Reverted:
        """Move an entry back, never over another. Checked again under its lock, as a copy is: an entry another process
        changed since conflicts() looked stays where it is."""
        with self._safe.locks.hold_all(path, source):
            if not exists(path):  # back already, or removed since by another program: no restore brings it back
                already = exists(source)
                return Reverted(change, "already") if already else Reverted(change, "failed", _GONE, NotFoundError.code)
            if not force and changed_since(self._safe, change):
                return Reverted(change, "kept", _CHANGED_MEANWHILE)
            moved = self._mover.move(change.path, str(source), stored=True, rollback=rollback, fingerprinted=True)
        undo = Change("moved", str(source), source=change.path, after_hash=moved.fingerprint)
        return Reverted(change, "reverted", undo=undo)

    def _put_back(self, change: Change, backup_id: str, path: Path, *, force: bool, rollback: bool) -> Reverted:
        """Restore the bytes a change replaced or removed; the bytes found there now become the safety backup."""
        if rollback:
            # As a restore, it was a step on top of the failed call's, and the next undo_last of the file re-applied
            # the change the call had reported rolled back. Only while that change is still the newest step.
            try:
                report = self._restorer.undo_last(str(path), force=force, only=backup_id, stored=True, rollback=True)
            except (UndoConflictError, NothingToUndoError):
                # Stepped back already (a rollback killed part-way), the file holding the bytes from before: as before.
                if file_state(self._safe, path) == self._safe.backups.get(backup_id, taken_of=path).content_hash:
                    return Reverted(change, "already")
                return Reverted(change, "kept", _CHANGED_MEANWHILE)
            return Reverted(change, "already" if report.already_there else "reverted")
        # Checked again under the file's lock: another process may have changed it since conflicts() looked, and
        # without force its change must stay (the revert of this one fails), not be replaced.
        expected = None if force or change.after_hash is None else change.after_hash
        try:
            report = self._restorer.restore(backup_id, force=force, expected_hash=expected, taken_of=path)
        except StaleEditError:
            return Reverted(change, "kept", _CHANGED_MEANWHILE)
        if report.already_there:
            return Reverted(change, "already")
        if report.safety_backup is None:  # nothing was there: the restore created the file
            return Reverted(change, "reverted", undo=Change.created(path, report.content_hash))
        undo = Change.modified(path, report.safety_backup.backup_id, report.content_hash)
        return Reverted(change, "reverted", undo=undo)

    def _remove_created(self, change: Change, path: Path, *, force: bool) -> Reverted:
        """Remove a file the group created, its bytes backed up first: a revert never loses bytes."""
        with self._safe.locks.hold(path), self._safe.beneath.entry(path, follow=False) as entry:
            found = lstat_at(entry)
            if found is None:
                return Reverted(change, "already")
            if not stat.S_ISREG(found.st_mode):
                return Reverted(change, "kept", "it is no longer a regular file")
            data, _ = read_at(entry)
            if content_hash(data) != change.after_hash and not force:
                return Reverted(change, "kept", "it changed since it was created")
            backup = self._safe.backups.snapshot(
                path, data, stat.S_IMODE(found.st_mode), operation="revert_create", after_hash=None, chained=False
            )
            try:
                remove(entry, checked=found)  # only the file read: another entry put at its name stays
            except EntryReplacedError:
                return Reverted(change, "kept", "another entry took its name while it was being removed")
        self._safe.session.forget(path)
        undo = Change("deleted", change.path, backup_id=backup.backup_id)
        return Reverted(change, "reverted", f"its bytes are in backup {backup.backup_id}", undo=undo)


def _redo_dir(safe: Safeguards, change: Change, path: Path) -> Reverted:
    """A directory the group made, removed when still empty; one a permanent delete removed, made again with its mode
    (before the files it held come back into it: the group lists them first)."""
    if change.kind == "created_dir":
        return _remove_empty_dir(safe, change, path)
    made = remake_dir(safe, path, int(change.mode or "700", 8))
    if made is None:
        return Reverted(change, "kept", "something else is at its path")
    if not made:
        return Reverted(change, "already")
    return Reverted(change, "reverted", undo=Change("created_dir", change.path))


def _remove_empty_dir(safe: Safeguards, change: Change, path: Path) -> Reverted:
    with safe.locks.hold(path), safe.beneath.entry(path, follow=False) as entry:
        found = lstat_at(entry)
        if found is None:
            return Reverted(change, "already")
        if not stat.S_ISDIR(found.st_mode):
            return Reverted(change, "kept", "it is no longer a directory")
        try:
            os.rmdir(entry.name, dir_fd=entry.parent)
        except OSError:
            return Reverted(change, "kept", "it is not empty: something else was put in it")
    return Reverted(change, "reverted")


def _nothing_reverted(group: Group, outcomes: list[Reverted]) -> FsguardError:
    """The error of a restore that changed nothing because its changes failed: an answer of success there ("Reverted
    0 of 2") read as done to an agent that checked only isError. It carries the first failure's code."""
    failed = [o for o in outcomes if o.status == "failed"]
    named = [o for o in failed if not o.hidden]
    listed = "; ".join(_named(o) for o in named[:_LISTED])
    more = f"; and {len(named) - _LISTED} more" if len(named) > _LISTED else ""
    hidden = len(failed) - len(named)
    if hidden:
        more += f"{'; ' if listed else ''}{hidden} a deny rule hides now (not named here)"
    first = (named or failed)[0]
    gone = all(o.detail == _GONE for o in failed)
    advice = (
        "Restoring the group again cannot bring it back: look for it in the trash (backup action='list_trash') "
        "or recreate it."
        if gone
        else "Clear what each names, then restore the group again."
    )
    return error_for_code(first.error_code)(
        f"Nothing of group {group.group_id} was reverted: {len(failed)} of {plural(len(outcomes), 'change')} failed "
        f"({listed}{more}). {advice}",
        path=first.change.path if named else None,
        failed=[o.change.path for o in named],
        backup_id=group.group_id,
    )


def _named(outcome: Reverted) -> str:
    """A failed change's message, after its path unless the message names the file already."""
    detail = outcome.detail or "failed"
    return detail if Path(outcome.change.path).name in detail else f"{outcome.change.path}: {detail}"
