"""Ending the runs a crash or a kill cut short, found by :func:`fsguard.core.runs.claim_unfinished` at start-up.

An atomic run (a batch with ``atomic``, a pipeline with ``stop_on_error``) is rolled back as its own failure would
have been, newest change first, each on its own: a file goes back to its backup only while it holds exactly the
bytes the run left (its hash, checked under its lock), and a file changed since is left as it is and named. Runs a
kill cut short together are rolled back together: a file two of them changed in turn goes back through both. A
non-atomic run's changes stay. Either way the run is saved as a group marked ``interrupted`` (``rolled_back`` or
``kept``), which ``backup(action="list")`` shows and restoring undoes, and, with --log-dir, one audit line says so
(whoever ended it: a server at its start, or the dashboard, which builds the same engine).

What the run was doing at the kill is known from its record's backups: a file it had backed up but whose change it
had not logged yet is judged by that backup (holding the bytes the backup was taken for, it was replaced). A move or
a trashing it had noted as intended but not logged is judged by the disk (a source gone, a destination there), and so
is a directory it made (noted at once): still there, it is removed when empty.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.audit import AuditEntry, AuditLog
from fsguard.core.backups import BackupStore
from fsguard.core.changestate import exists
from fsguard.core.confirmation import plural
from fsguard.core.errors import FsguardError, NotFoundError
from fsguard.core.groups import Change, Group, GroupStore
from fsguard.core.reverting import Reverted, Reverter
from fsguard.core.runs import UnfinishedRun

logger = logging.getLogger(__name__)

_LISTED = 5  # paths the audit line names of each kind


@dataclass(frozen=True)
class Ending:
    """How an interrupted run was ended: its group (None when it had changed nothing), the paths put back, and the
    changes that stay with why (a rolled-back run's: changed since; a kept run's: all of them)."""

    run: UnfinishedRun
    group: Group | None
    rolled_back: list[str]
    left: list[tuple[Change, str]]


class Recovery:
    """Ends interrupted runs with the engine a server builds (its reverter, backups and groups); ``via`` names on the
    audit line who ended them (``restart``: a starting server; ``dashboard``)."""

    def __init__(
        self,
        reverter: Reverter,
        backups: BackupStore,
        groups: GroupStore,
        audit: AuditLog | None,
        *,
        via: str = "restart",
    ) -> None:
        self._reverter = reverter
        self._backups = backups
        self._groups = groups
        self._audit = audit
        self._via = via

    def end(self, runs: Sequence[UnfinishedRun]) -> list[Ending]:
        """End each run (rolled back when atomic), record it as an interrupted group, and release its record."""
        endings: list[Ending] = []
        pending: list[tuple[UnfinishedRun, list[Change]]] = []
        for run in runs:
            try:
                planned = self._plan(run)
            except (FsguardError, OSError) as exc:
                self._postpone(run, exc)
                continue
            if isinstance(planned, Ending):
                self._ended(planned, endings)
            else:
                pending.append((run, planned))
        outcomes = self._roll_back_together(pending)
        for run, _ in pending:
            if run.group_id not in outcomes:
                continue  # its rollback failed: postponed
            try:
                ending = self._saved(run, outcomes[run.group_id])
            except (FsguardError, OSError) as exc:
                self._postpone(run, exc)
                continue
            self._ended(ending, endings)
        return endings

    def _postpone(self, run: UnfinishedRun, exc: Exception) -> None:
        # The server starts all the same; the next start tries again.
        logger.error("%s was interrupted and could not be ended now: %s", run.operation, exc)
        run.release()

    def _ended(self, ending: Ending, endings: list[Ending]) -> None:
        ending.run.close()
        endings.append(ending)
        self._report(ending)

    def _plan(self, run: UnfinishedRun) -> Ending | list[Change]:
        """A run ended at once (nothing to roll back), or the changes of an atomic one to roll back."""
        if self._groups.find(run.group_id) is not None:
            # Its group was saved: the run ended, and only its record's removal was lost (to a power cut, say).
            return Ending(run, None, [], [])
        changes = [*_with_intents(run), *self._unlogged(run)]
        if not changes:
            return Ending(run, None, [], [])
        if not run.atomic:
            group = self._groups.save(run.operation, changes, group_id=run.group_id, interrupted="kept")
            return Ending(run, group, [], [(change, "kept: the call was not atomic") for change in changes])
        return changes

    def _roll_back_together(self, pending: Sequence[tuple[UnfinishedRun, list[Change]]]) -> dict[str, list[Reverted]]:
        """Each run's outcomes, newest change first, as :meth:`Reverter.roll_back` gives them. Runs of one server
        ran side by side, and a file two of them changed in turn holds only the newer one's bytes: rolled back
        first, the older run would find it changed by "another process", keep it, and the newer run would then put
        the older one's bytes back, leaving it half applied. So the kept changes are tried again, pass after pass,
        while a pass reverts anything: a change is reverted only while its file holds exactly what it left, so the
        order the passes find is the order the changes landed in, whatever order the records were read in."""
        outcomes: dict[str, list[Reverted]] = {}
        changes_of = {run.group_id: changes for run, changes in pending}
        left = dict(changes_of)
        progress = True
        while progress and left:
            progress = False
            for run, _ in pending:
                if not left.get(run.group_id):
                    continue
                try:
                    tried = self._reverter.roll_back(left[run.group_id])
                except (FsguardError, OSError) as exc:
                    self._postpone(run, exc)
                    del left[run.group_id]
                    outcomes.pop(run.group_id, None)
                    continue
                progress = progress or any(o.status != "kept" for o in tried)
                # The final outcome of each change, newest first: kept ones are those tried again.
                done = {id(o.change): o for o in (*outcomes.get(run.group_id, ()), *tried)}
                outcomes[run.group_id] = [done[id(change)] for change in reversed(changes_of[run.group_id])]
                left[run.group_id] = [o.change for o in reversed(tried) if o.status == "kept"]
        return outcomes

    def _saved(self, run: UnfinishedRun, outcomes: list[Reverted]) -> Ending:
        left = [(o.change, o.detail or o.status) for o in reversed(outcomes) if o.status in ("kept", "failed")]
        stays = {change.path for change, _ in left}
        undone = [path for path in dict.fromkeys(o.change.path for o in reversed(outcomes)) if path not in stays]
        stayed = [change for change, _ in left]
        group = self._groups.save(
            run.operation, stayed, group_id=run.group_id, interrupted="rolled_back", rolled_back=undone
        )
        return Ending(run, group, undone, left)

    def _unlogged(self, run: UnfinishedRun) -> list[Change]:
        """The changes of the operation the kill cut short, as far as its backups tell them (see the module): a
        non-atomic run's only when they reached the disk, as they then stay."""
        logged = {change.backup_id for change in run.changes if change.backup_id}
        found = []
        for backup_id, path in run.backups:
            if backup_id in logged:
                continue
            try:
                record = self._backups.get(backup_id, taken_of=Path(path))
            except NotFoundError:
                continue  # withdrawn: its write failed, and the file kept its bytes
            if record.after_hash is None:  # a permanent delete's
                change = Change("deleted", path, backup_id=backup_id)
            else:
                change = Change.modified(Path(path), backup_id, record.after_hash)
            if run.atomic or not self._reverter.conflicts([change]):
                found.append(change)
        return found

    def _report(self, ending: Ending) -> None:
        run, group = ending.run, ending.group
        if group is None:
            logger.info("removed the record of %s: it had changed nothing, or had ended", run.operation)
            return
        text = interrupted_text(ending)
        logger.warning("%s", text)
        if self._audit is not None:
            self._audit.record(
                AuditEntry(
                    run.tool,
                    {"operation": run.operation, "atomic": run.atomic},
                    0.0,
                    "error",
                    error_code="interrupted",
                    backup_id=group.group_id,
                    error=text,
                    via=self._via,
                )
            )


def _with_intents(run: UnfinishedRun) -> list[Change]:
    """The run's logged changes, with the acts it noted as intended but had not logged put where they happened among
    them (a directory made before the moves into it is removed after they are taken back): each intent is matched,
    in order, with a logged change of the same kind and paths; one left over was cut short by the kill, and is taken
    when the disk shows it happened (see :func:`_happened`)."""
    logged = Counter((change.kind, change.path, change.source) for change in run.changes)
    merged: list[tuple[int, int, Change]] = [(index, 1, change) for index, change in enumerate(run.changes)]
    for position, intent in run.intents:
        key = (intent.kind, intent.path, intent.source)
        if logged[key] > 0:
            logged[key] -= 1
        elif _happened(intent):
            merged.append((position, 0, intent))  # before the change logged at its position: it came first
    return [change for _, _, change in sorted(merged, key=lambda item: item[:2])]


def _happened(intent: Change) -> bool:
    """Whether the disk shows the act ``intent`` noted: a trashed path gone, a moved or made one there (its source
    gone)."""
    if intent.kind == "trashed":
        return not exists(Path(intent.path))
    return exists(Path(intent.path)) and not (intent.source and exists(Path(intent.source)))


def interrupted_text(ending: Ending) -> str:
    """What happened to an interrupted run, in a sentence or two (the audit line's and the server log's)."""
    run, group_id = ending.run, ending.group.group_id if ending.group else None
    head = f"{run.operation} (group {group_id}) was interrupted: the server stopped while it ran."
    if not run.atomic:
        one = len(ending.left) == 1
        stay, them = ("stays", "it") if one else ("stay", "them")
        its = plural(len(ending.left), "change")
        return f"{head} It was not atomic: its {its} {stay}; restoring the group undoes {them}."
    undone = ending.rolled_back
    text = f"{head} Rolled back at the next start: {plural(len(undone), 'path')} as before"
    text += f" ({', '.join(undone[:_LISTED])}{' …' if len(undone) > _LISTED else ''})." if undone else "."
    if ending.left:
        named = "; ".join(f"{change.path}: {why}" for change, why in ending.left[:_LISTED])
        they = "it is" if len(ending.left) == 1 else "they are"
        text += f" {plural(len(ending.left), 'change')} left as {they} ({named})."
    return text
