"""batch_operations, request form: a validated batch run through the single-file engines, all or nothing by default.

Every operation goes through the engine its single-file tool uses (edit_file's editor, write_file's writer,
the mover, the deleter, create_directory's maker), so it gets the same path policy, fd pinning, locks,
OCC, hooks and backups. Each change is logged as a :class:`Change` in the order it is made; the whole log
is saved as one group whose id is the batch's ``backup_id``.

``atomic`` (the default): when operation k fails, the changes of operations 0..k-1 (and whatever k itself
had done) are reverted newest first by the :class:`Reverter`, and :class:`BatchFailedError` says what was
rolled back; the bytes on disk are then those from before the batch. Non-atomic: a failing operation's own
partial changes are reverted, the others stay, and the run continues; when every operation failed, that is an
error (:mod:`fsguard.core.allfailed`).

Cancelled, an atomic batch is rolled back (see :meth:`BatchRunner.run`); a non-atomic one stops between operations,
or before the operation whose lock it waits for (each asks whether the call was cancelled once it holds its first
lock, see :meth:`PathLocks.step`), and keeps what the earlier ones did, saved as its group.

Killed mid-run (no rollback can run then), a batch is ended by the next server to start: its run record
(:mod:`fsguard.core.runs`) tells :mod:`fsguard.core.recovery` what it had changed, and the group is saved then.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.allfailed import no_operation_succeeded
from fsguard.core.batchcheck import check
from fsguard.core.batchops import TOOL, Engines, OperationOutcome, Operations, outcome
from fsguard.core.batchplan import BatchOperation, BatchRequest
from fsguard.core.batchtexts import PlannedTexts, foreseen
from fsguard.core.confirmation import plural
from fsguard.core.errors import BatchFailedError, FsguardError, UndoConflictError
from fsguard.core.groups import UNDO_EACH_FILE, Change, ChangeLog, Group
from fsguard.core.reverting import Reverted
from fsguard.core.runs import RunRecord, RunRecords
from fsguard.core.safeguards import Safeguards
from fsguard.core.shortlist import first_few, shown_rows

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BatchReport:
    """What a batch did: ``applied`` (all ok), ``partial`` (non-atomic, some failed) or ``validated``."""

    status: Literal["applied", "partial", "validated"]
    operations: tuple[OperationOutcome, ...]
    group_id: str | None

    @property
    def failed(self) -> int:
        return sum(op.status == "failed" for op in self.operations)


class _OperationFailed(Exception):
    def __init__(self, op: BatchOperation, error: FsguardError) -> None:
        super().__init__(error.message)
        self.op = op
        self.error = error


class BatchRunner:
    """Validates and runs request_json batches."""

    def __init__(self, safeguards: Safeguards, engines: Engines, runs: RunRecords) -> None:
        self._safe = safeguards
        self._operations = Operations(safeguards, engines)
        self._reverter = engines.reverter
        self._runs = runs

    def run(self, request: BatchRequest, progress: Progress | None = None) -> BatchReport:
        """Validate the whole batch, then run it in order (unless ``validate_only``).

        ``progress`` gets (operations done, operations) after each one and may raise to cancel: an atomic
        batch is then rolled back (or, when that reverts nothing, run to the end: see :meth:`_report`), a non-atomic
        one keeps what was done (both saved as the group).

        Raises:
            InvalidParamsError: the batch does not validate; nothing was run.
            BatchFailedError: an atomic batch failed at some operation and was rolled back.
        """
        texts = PlannedTexts(self._safe.beneath, self._safe.max_file_size) if request.validate_only else None
        targets = check(request, self._safe.policy, self._safe.beneath, texts)
        operations = request.operations
        if request.validate_only:
            valid = tuple(
                outcome(op, "valid", path=path, destination=destination)
                for op, (path, destination) in zip(operations, targets, strict=True)
            )
            return BatchReport("validated", valid, None)
        with self._runs.run(TOOL, TOOL, atomic=request.atomic) as record:
            return self._run(request, targets, record, progress)

    def _run(
        self,
        request: BatchRequest,
        targets: list[tuple[Path, Path | None]],
        record: RunRecord,
        progress: Progress | None,
    ) -> BatchReport:
        operations = request.operations
        log = ChangeLog()
        outcomes: list[OperationOutcome] = []
        cancelled: BaseException | None = None  # a cancellation the batch runs to the end despite (see _report)
        made = 0
        try:
            for op, target in zip(operations, targets, strict=True):
                made = len(log.changes)
                try:
                    outcomes.append(self._step(op, target, log, atomic=request.atomic, checked=cancelled is None))
                except BaseException as exc:
                    # Cancelled at this operation's first lock, before it changed anything: an atomic batch rolls
                    # back there, or runs to the end when the rollback reverts nothing (see _stop).
                    if not request.atomic or isinstance(exc, Exception) or len(log.changes) > made:
                        raise
                    cancelled = self._stop(exc, log)
                    outcomes.append(self._step(op, target, log, atomic=True, checked=False))
                record.changed(log.changes[made:])
                if progress is not None and cancelled is None:
                    cancelled = self._report(progress, op.index + 1, len(operations), log, atomic=request.atomic)
        except _OperationFailed as failed:
            record.changed(log.changes[made:])  # a kill during the rollback leaves them to the next start
            raise self._roll_back(failed, log, record, request, targets) from failed.error
        except BaseException:  # cancelled, or a bug: keep the promise of each mode, and the group of what stayed
            record.changed(log.changes[made:])
            record.save(self._revert_quietly(log.changes) if request.atomic else log.changes)
            raise
        group = record.save(log.changes)
        if cancelled is not None:
            raise cancelled
        if outcomes and all(o.status == "failed" for o in outcomes):  # only non-atomic: an atomic one raised
            raise no_operation_succeeded(operations, outcomes, _id(group))
        status: Literal["applied", "partial"] = "partial" if any(o.status == "failed" for o in outcomes) else "applied"
        return BatchReport(status, tuple(outcomes), group.group_id if group else None)

    def _report(
        self, progress: Progress, done: int, total: int, log: ChangeLog, *, atomic: bool
    ) -> BaseException | None:
        """Report progress, which raises to cancel: the batch then stops, rolled back when atomic; or, an atomic one
        whose rollback reverted nothing, runs on and gets the cancellation back to raise at its end (see _stop)."""
        try:
            progress(done, total)
        except BaseException as exc:
            if not atomic:
                raise
            return self._stop(exc, log)
        return None

    def _stop(self, cancellation: BaseException, log: ChangeLog) -> BaseException:
        """Roll an atomic batch back at a cancellation, and raise it; or return it when the rollback reverted nothing
        because another process changed the batch's files since (another line of them, say), an edit a rollback
        never replaces: stopped there, the batch would stay half applied, so it runs to the end, all applied, and
        raises the cancellation then."""
        if not log.changes:
            raise cancellation
        stayed = self._revert_quietly(log.changes)
        if len(stayed) < len(log.changes):  # rolled back, or in part: what stays is the group (see run)
            log.changes[:] = stayed
            raise cancellation
        return cancellation

    def _step(
        self, op: BatchOperation, target: tuple[Path, Path | None], log: ChangeLog, *, atomic: bool, checked: bool
    ) -> OperationOutcome:
        """Apply one operation; ``checked``: stop at its first lock if the call was cancelled meanwhile."""
        done = ChangeLog()
        try:
            # Not around the revert below: a rollback is never cut short.
            with self._safe.locks.step() if checked else nullcontext():
                done_outcome = self._operations.apply(op, done)
        except FsguardError as exc:
            if atomic:
                log.extend(done.changes)
                raise _OperationFailed(op, exc) from exc
            log.extend(self._revert_quietly(done.changes))  # an operation is all or nothing even when the batch is not
            path, destination = target
            return outcome(op, "failed", path=path, destination=destination, error=exc.message, code=exc.code)
        except BaseException:
            log.extend(done.changes)
            raise
        log.extend(done.changes)
        return done_outcome

    def _roll_back(
        self,
        failed: _OperationFailed,
        log: ChangeLog,
        record: RunRecord,
        request: BatchRequest,
        targets: list[tuple[Path, Path | None]],
    ) -> BatchFailedError:
        """Revert everything the batch changed; the error says what failed and what was (not) rolled back."""
        op, error = failed.op, failed.error
        head = f"batch_operations: {op.label} failed ({error.code}): {error.message}"
        fields: dict[str, object] = {
            "failed_index": op.index,
            "failed_type": op.type,
            "failed_path": op.path,
            "error_code": error.code,
        }
        if "path" in error.fields:  # where the operation's error was met: fsguard's state directory, say
            fields["error_path"] = error.fields["path"]
        try:
            reverted = self._revert(log.changes)
        except UndoConflictError as exc:  # a file of the batch was changed by someone else meanwhile
            group = record.save(log.changes)
            return BatchFailedError(
                f"{head}\nThe batch is atomic, but nothing could be rolled back: {exc.message} Once you have "
                f"checked those files with get_file_info, {_reverts(group)} the changes it had made (the current "
                "bytes are backed up first).",
                **fields,
                **_named([], [f"{c.path}: {c.kind}" for c in log.changes]),
                backup_id=_id(group),
            )
        undone = list(dict.fromkeys(r.change.path for r in reverted if r.status in ("reverted", "already")))
        kept = [r for r in reverted if r.status in ("kept", "failed")]
        group = record.save(_stayed(log.changes, kept))
        # Asked after the rollback, on the bytes validate_only would read.
        checkable = error.code in _PLANNED and foreseen(
            request.operations[: op.index + 1], targets[: op.index + 1], self._safe.beneath, self._safe.max_file_size
        )
        text = _rollback_text(op, error.code, reverted, kept, _id(group), checkable=checkable)
        partly = error.fields.get("partly_moved_to")
        if partly is not None:  # the operation itself moved part of its source: no rollback puts that back
            text = text.replace(_AS_BEFORE, _partly_as_before(op, str(partly))).replace(
                _NOTHING_BEFORE, _partly_as_before(op, str(partly))
            )
        return BatchFailedError(
            f"{head}\n{text}",
            **fields,
            **_named(undone, [f"{r.change.path}: {r.detail or r.status}" for r in kept]),
            backup_id=_id(group),
        )

    def _revert(self, changes: Sequence[Change]) -> list[Reverted]:
        """Roll ``changes`` back under the locks of every path they name, taken at once: another process's edit
        landing between the conflict check and the revert of its file left the rollback half done (that file kept,
        the others reverted).

        Raises:
            UndoConflictError: something else changed them since; nothing was reverted.
        """
        paths = {Path(path) for change in changes for path in (change.path, change.source) if path}
        with self._safe.locks.hold_all(*paths):
            return self._reverter.revert(changes, rollback=True)

    def _revert_quietly(self, changes: Sequence[Change]) -> list[Change]:
        """Revert ``changes``; the ones that stay (could not be reverted) are returned, in their order."""
        if not changes:
            return []
        try:
            reverted = self._revert(changes)
        except FsguardError:
            return list(changes)
        return _stayed(changes, [r for r in reverted if r.status in ("kept", "failed")])


def _named(rolled_back: list[str], not_rolled_back: list[str]) -> dict[str, object]:
    """The error's lists of paths, the first few of each (a batch of 3,000 writes named them all) and their counts."""
    return {
        "rolled_back": first_few(rolled_back),
        "rolled_back_count": len(rolled_back),
        "not_rolled_back": first_few(not_rolled_back),
        "not_rolled_back_count": len(not_rolled_back),
    }


def _stayed(changes: Sequence[Change], kept: list[Reverted]) -> list[Change]:
    """The changes a revert left in place, in the order they were made."""
    left = {id(r.change) for r in kept}
    return [change for change in changes if id(change) in left]


def _rollback_text(
    op: BatchOperation,
    code: str,
    reverted: list[Reverted],
    kept: list[Reverted],
    group_id: str | None,
    *,
    checkable: bool,
) -> str:
    # A full or read-only disk is no fault of the operation: asking to fix it sends the agent to rewrite a good batch.
    again = (
        "Clear that (the error above says how), then send the same batch again."
        if code in _ENVIRONMENT
        else f"Fix operation {op.index} and send the batch again"
    )
    if not reverted:
        return f"{_NOTHING_BEFORE} {again.rstrip('.')}."
    # The seed's words, for callers that look for them.
    done = f"rolled back {len(reverted) - len(kept)} of" if kept else "rollback completed for"
    # The count _meta's rolled_back_count gives, where it differs (a file written, then edited, is one path).
    paths = len({r.change.path for r in reverted if r.status in ("reverted", "already")})
    named = f"{paths} path{'s' if paths != 1 else ''}"
    to = "" if paths == len(reverted) - len(kept) else f" ({named} rolled back)" if kept else f" to {named}"
    lines = [f"The batch is atomic; {done} the {plural(len(reverted), 'change')} it had made{to}, newest first:"]
    rows = [f"  {r.status}: {r.change.kind} {r.change.path}" + (f" ({r.detail})" if r.detail else "") for r in reverted]
    failed = [r.status in ("kept", "failed") for r in reverted]
    lines.extend(shown_rows(rows, failed=failed, rest="counted above", flagged="not rolled back"))
    if kept:
        retry = f"group {group_id}: backup(action='restore', backup_id=...) retries them" if group_id else _BY_FILE
        stay = "stays" if len(kept) == 1 else "stay"
        lines.append(f"{plural(len(kept), 'change')} could not be rolled back and {stay} ({retry}).")
    else:
        lines.append(_AS_BEFORE)
    # Only where validate_only finds it (``checkable``): for a hook's refusal, a stale hash or an edit of what a
    # directory's move left, it answered "all valid" and the agent went round in a loop.
    checked = " (validate_only: true checks it without running it)" if checkable else ""
    lines.append(f"{again.rstrip('.')}{checked}.")
    return "\n".join(lines)


_ENVIRONMENT = frozenset({"disk_full", "read_only_filesystem"})
_PLANNED = frozenset({"no_match", "ambiguous_match"})  # what validate_only finds by planning the edits
_AS_BEFORE = "Every byte on disk is as it was before the batch."
_NOTHING_BEFORE = "Nothing had been changed before it, so the files are as they were."


def _partly_as_before(op: BatchOperation, moved_to: str) -> str:
    return (
        f"Everything is as it was before the batch except operation {op.index}'s own source: part of it was removed "
        f"after its whole copy was put at {moved_to}, which stays (nothing is lost)."
    )


_BY_FILE = f"{UNDO_EACH_FILE} reverts each"


def _reverts(group: Group | None) -> str:
    if group is None:
        return f"{UNDO_EACH_FILE.removesuffix(')')}, force=true) on each file reverts"
    return f"backup(action='restore', backup_id='{group.group_id}', force=true) reverts"


def _id(group: Group | None) -> str | None:
    return group.group_id if group is not None else None
