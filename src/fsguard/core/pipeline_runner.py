"""Running a checked pipeline: levels in order, conditions and templates per step, rollback on failure.

Sequential by default; with ``parallel`` the steps of one level (:mod:`fsguard.core.pipeline_schedule`) run
on up to four threads. Only reading steps ever share a level, so both runs give the same files and the same
results. Every change a step makes is recorded, in order, and the whole run is saved as one change group
whose id is the result's ``backup_id``: backup(action="restore", backup_id=...) reverts it.

A failing step, with ``stop_on_error`` (the default), stops the run and everything the pipeline changed is
rolled back (:class:`Reverter`), then :class:`BatchFailedError` names the step (index, id, action), why it
failed, and what was and was not rolled back; whatever could not be rolled back stays in a saved group.
Without ``stop_on_error`` the run goes on: the failed step's own changes are undone (a step is all or
nothing), later steps reading from it get no files, and the status is ``partial`` (every step failed: an error,
see :mod:`fsguard.core.allfailed`). A dry run writes nothing;
its steps report what they would do, each planned on what the steps before it would leave
(:mod:`fsguard.core.pipeline_overlay`), and a failure is reported in the failed step instead of raised; a step its
risk gate would block reports its counts and risk, failed with ``risk_blocked``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from dataclasses import replace
from functools import partial
from itertools import chain
from pathlib import Path
from time import perf_counter

from fsguard.core.allfailed import no_step_succeeded
from fsguard.core.batchops import TOOL
from fsguard.core.beneath import lstat_at
from fsguard.core.confirmation import Binding, Entry, plural
from fsguard.core.errors import BatchFailedError, FsguardError, NotFoundError, ReadOnlyError, UndoConflictError
from fsguard.core.groups import UNDO_EACH_FILE, Change, Group
from fsguard.core.pipeline import PipelineReport, PipelineRequest, RunStatus, Step, StepOutcome, StepStatus
from fsguard.core.pipeline_actions import READERS, own_files
from fsguard.core.pipeline_calls import ActionOutput, PipelineEngines, StepCall
from fsguard.core.pipeline_changes import WRITERS
from fsguard.core.pipeline_overlay import GONE, Edited, Overlay
from fsguard.core.pipeline_schedule import condition_holds, failed_reference, plan_levels, render
from fsguard.core.reverting import Reverted, Reverter
from fsguard.core.risk import PIPELINE_SCALE, RiskLevel, graded
from fsguard.core.runs import NotedChanges, RunRecord, RunRecords

MAX_WORKERS = 4
ACTIONS = {**READERS, **WRITERS}
_SEVERITY = [level.value for level in RiskLevel]  # LOW < MEDIUM < HIGH < CRITICAL, in declaration order
Progress = Callable[[int, int], None]
_Ran = tuple[StepOutcome, list[Change]]
_Known = Mapping[int, StepOutcome]


class PipelineRunner:
    """Runs pipelines through the single-file engines."""

    def __init__(self, engines: PipelineEngines, reverter: Reverter, runs: RunRecords) -> None:
        self._engines = engines
        self._reverter = reverter
        self._runs = runs

    def run(self, request: PipelineRequest, progress: Progress | None = None) -> PipelineReport:
        """Run ``request``; ``progress`` gets (steps done, steps) after each level and may raise to cancel.

        Raises:
            BatchFailedError: a step failed with ``stop_on_error`` (not in a dry run); the changes were rolled back.
        """
        if request.dry_run:  # changes nothing: no record, no group
            outcomes: dict[int, StepOutcome] = {}
            failed = self._levels(request, outcomes, [], progress, Overlay(), None)
            return _report(request, outcomes, failed, None)
        self._refuse_read_only(request)
        with self._runs.run(TOOL, _operation(request), atomic=request.stop_on_error) as record:
            return self._run(request, progress, record)

    def _run(self, request: PipelineRequest, progress: Progress | None, record: RunRecord) -> PipelineReport:
        outcomes: dict[int, StepOutcome] = {}
        changes: list[Change] = []
        try:
            failed = self._levels(request, outcomes, changes, progress, Overlay(), record)
        except BaseException:  # cancelled, or a bug: what the run changed stays restorable as one group
            record.save(changes)
            raise
        if failed is not None:
            raise self._rolled_back(request, failed, changes, record)
        report = _report(request, outcomes, failed, record.save(changes))
        if report.steps and all(
            step.status == "failed" for step in report.steps
        ):  # run on past each failure: it did none of its work
            raise no_step_succeeded(request.name, report.steps, report.group_id)
        return report

    def _refuse_read_only(self, request: PipelineRequest) -> None:
        """Refuse the run before any step when a writing step names a path in a read-only root. Files that reach
        a step from an earlier one are refused when it writes them (the step fails; the run rolls back).

        Raises:
            ReadOnlyError: naming the first such step.
        """
        policy = self._engines.policy
        for step in request.steps:
            if step.action not in WRITERS:
                continue
            for name in _named_paths(step):
                try:
                    path = policy.resolve_entry(name)
                except FsguardError:
                    continue  # the step reports it when it runs
                try:
                    policy.check_not_read_only(path)
                except ReadOnlyError as exc:
                    raise ReadOnlyError(f"step {step.id}: {exc.message} No step ran.", path=str(path)) from exc

    def _levels(
        self,
        request: PipelineRequest,
        outcomes: dict[int, StepOutcome],
        changes: list[Change],
        progress: Progress | None,
        overlay: Overlay,
        record: RunRecord | None,
    ) -> StepOutcome | None:
        """Run level after level; the first failed step when ``stop_on_error`` stopped the run, else None. A dry run's
        writing steps record in ``overlay`` what they would leave (they run alone in their level); a real run's
        changes are noted in its ``record`` as each level ends."""
        steps = {step.index: step for step in request.steps}
        for number, level in enumerate(plan_levels(request.steps, parallel=request.parallel), 1):
            known = dict(outcomes)  # each step of a level sees the same earlier outcomes, whichever thread runs it
            chosen = [steps[index] for index in level]
            if len(chosen) == 1:
                alone = number if request.parallel else None
                ran = [self._step(request, chosen[0], known=known, level=alone, overlay=overlay, record=record)]
            else:
                run = partial(self._step, request, known=known, level=number, overlay=overlay, record=record)
                with ThreadPoolExecutor(max_workers=min(MAX_WORKERS, len(chosen))) as pool:
                    # A thread starts in an empty context: each step runs in a copy of the call's, which holds
                    # the client's roots, the connection's known hashes and the result budget.
                    pending = [pool.submit(copy_context().run, run, step) for step in chosen]
                    ran = [future.result() for future in pending]
            failure = next((outcome for outcome, _ in ran if outcome.status == "failed"), None)
            for outcome, made in ran:
                if failure is not None and request.stop_on_error and outcome.index > failure.index:
                    continue  # a sequential run would not have reached it (only reading steps share a level)
                outcomes[outcome.index] = outcome
                changes.extend(made)
                if record is not None:
                    record.changed(made)
            if progress is not None:
                progress(len(outcomes), len(request.steps))
            if failure is not None and request.stop_on_error:
                return failure
        return None

    def _step(
        self,
        request: PipelineRequest,
        step: Step,
        *,
        known: Mapping[int, StepOutcome],
        level: int | None,
        overlay: Overlay,
        record: RunRecord | None,
    ) -> _Ran:
        """Run one step: its condition, its templates, its action; a failure is returned, not raised. An atomic run's
        step notes each change in ``record`` at once: killed in a step that trashes hundreds, the next start knows."""
        started = perf_counter()
        earlier = {outcome.id: outcome for index, outcome in known.items() if index < step.index}
        base = StepOutcome(step.index, step.id, step.action, "ok", level=level)
        call: StepCall | None = None
        try:
            condition = step.condition
            if condition is not None and condition.path:
                condition = replace(condition, path=render(condition.path, earlier))
            holds, why = condition_holds(condition, earlier, partial(self._exists, overlay))
            if not holds:
                skipped = replace(base, status="skipped", skip_reason=f"condition false: {why}")
                return replace(skipped, duration_ms=_ms(started)), []
            reason = failed_reference(step, earlier)
            if reason is not None:
                return replace(base, status="skipped", skip_reason=reason, duration_ms=_ms(started)), []
            params = render(dict(step.params), earlier)
            sets = tuple(earlier[source].files if source in earlier else () for source in step.sources)
            files = tuple(dict.fromkeys(chain(*sets, own_files(self._engines, step.action, params))))
            call = StepCall(
                params,
                files,
                sets,
                request.dry_run,
                request.force,
                request.verbose,
                changes=NotedChanges(record) if record is not None and request.stop_on_error else [],
                overlay=overlay,
                confirmed=_bound(request.confirmed, step),
            )
            output = ACTIONS[step.action](self._engines, call)
        except FsguardError as exc:
            made = call.changes if call is not None else []
            message = exc.message
            if made and not request.stop_on_error:
                made, undone = self._undo_step(made)
                message += f" ({undone})"
            failed = replace(
                base,
                status="failed",
                error=message,
                error_code=exc.code,
                error_path=path if isinstance(path := exc.fields.get("path"), str) else None,
                duration_ms=_ms(started),
            )
            return failed, made
        status: StepStatus = "planned" if request.dry_run and step.destructive else "ok"
        finished = _finished(replace(base, status=status, duration_ms=_ms(started)), output)
        if output.blocked is not None:  # a dry run's: what the step would do, and that the real run refuses it
            blocked = output.blocked
            finished = replace(finished, status="failed", error=blocked.message, error_code=blocked.code)
        return finished, call.changes

    def _exists(self, overlay: Overlay, user_path: str) -> bool:
        """file_exists: whether anything is (in a dry run: would be) at the path, looked at through the pinned walk."""
        found = overlay.at(self._engines.policy.resolve_entry(user_path))
        if found is GONE or isinstance(found, Edited):
            return found is not GONE
        path = found.path
        try:
            with self._engines.beneath.entry(path, follow=False) as entry:
                return lstat_at(entry) is not None
        except NotFoundError:
            return False  # a missing parent directory

    def _undo_step(self, made: list[Change]) -> tuple[list[Change], str]:
        """Revert a failed step's own changes; the ones that stay, and a note on what happened."""
        reverted, conflict = self._revert(made)
        stayed = _stayed(made, reverted, conflict)
        its = plural(len(made), "change")
        if not stayed:
            return [], f"its {its} before the failure {'was' if len(made) == 1 else 'were'} rolled back"
        return stayed, f"{len(stayed)} of its {its} could not be rolled back: {_why(stayed, reverted)}"

    def _revert(self, made: Sequence[Change]) -> tuple[list[Reverted], str | None]:
        """Revert ``made`` under the locks of every path it names, taken at once: another process's edit landing
        between the conflict check and the revert of its file left the rollback half done (as in a batch's)."""
        paths = {Path(path) for change in made for path in (change.path, change.source) if path}
        try:
            with self._engines.locks.hold_all(*paths):
                return self._reverter.revert(made, rollback=True), None
        except UndoConflictError as exc:  # something else changed those files meanwhile: nothing was reverted
            return [], exc.message

    def _rolled_back(
        self, request: PipelineRequest, failed: StepOutcome, made: list[Change], record: RunRecord
    ) -> BatchFailedError:
        """Roll back everything the run changed, save what stayed, and describe it all in the error."""
        reverted, conflict = self._revert(made)
        stayed = _stayed(made, reverted, conflict)
        group = record.save(stayed)
        rolled = list(dict.fromkeys(change.path for change in made if change not in stayed))
        lines = [f"pipeline step {failed.index} '{failed.id}' ({failed.action}): {failed.error}"]
        if not made:
            lines.append("Nothing had been changed yet, so nothing needed rolling back.")
        elif not stayed:
            lines.append(
                f"Rolled back {'the' if len(made) == 1 else 'all'} {plural(len(made), 'change')} the pipeline had made"
                f"{_to_paths(len(made), rolled)} ({_listed(rolled)}): "
                "the files on disk are as they were before it ran."
            )
        else:
            lines.append(
                f"Rolled back {len(made) - len(stayed)} of {plural(len(made), 'change')}; not rolled back: "
                f"{_why(stayed, reverted, conflict)}. "
                + (
                    f'They are kept in group {group.group_id}: backup(action="restore", backup_id="{group.group_id}"'
                    # what the rollback was refused for refuses the restore too, until forced
                    + (", force=true" if conflict else "")
                    + ") reverts them."
                    if group
                    else f"{UNDO_EACH_FILE} reverts each."
                )
            )
        lines.append("Fix the step and run the pipeline again; dry_run=true shows what each step would do.")
        return BatchFailedError(
            "\n".join(lines),
            failed_index=failed.index,
            failed_id=failed.id,
            failed_action=failed.action,
            error_code=failed.error_code,
            error_path=failed.error_path,
            rolled_back=rolled,
            not_rolled_back=[f"{change.path}: {_reason(change, reverted, conflict)}" for change in stayed],
            backup_id=group.group_id if group else None,
        )


def _named_paths(step: Step) -> list[str]:
    """The literal paths a writing step changes (templates are known only when it runs); a copy's sources stay."""
    names: list[str] = []
    if step.action != "copy":
        files = step.params.get("files")
        names += [files] if isinstance(files, str) else [name for name in files or () if isinstance(name, str)]
        names += [step.params["path"]] if isinstance(step.params.get("path"), str) else []
    names += [step.params["destination"]] if isinstance(step.params.get("destination"), str) else []
    return [name for name in names if name and "{{" not in name]


def _finished(outcome: StepOutcome, output: ActionOutput) -> StepOutcome:
    return replace(
        outcome,
        files=output.files,
        count=output.count,
        edits=output.edits,
        risk=output.risk,
        content=output.content,
        file_counts=output.file_counts,
        external=output.external,
        notes=output.notes,
        moves=output.moves,
        denied=output.denied,
        not_searched=output.not_searched,
        unforeseen=output.unforeseen,
    )


def _report(
    request: PipelineRequest, outcomes: Mapping[int, StepOutcome], failed: StepOutcome | None, group: Group | None
) -> PipelineReport:
    steps = []
    for step in request.steps:
        outcome = outcomes.get(step.index)
        if outcome is None:  # after a dry run's failure: not reached
            assert failed is not None
            reason = f"not run: step {failed.index} '{failed.id}' failed and stop_on_error is on"
            outcome = StepOutcome(step.index, step.id, step.action, "skipped", skip_reason=reason, reached=False)
        steps.append(outcome)
    # A dry run's blocked step counts: it is what the run would affect with force, the next action it names.
    writers = [o for o in steps if o.action in WRITERS and (o.status in ("ok", "planned") or _blocked(request, o))]
    affected = len(dict.fromkeys(file for outcome in (writers or steps) for file in outcome.files))
    edits = sum(outcome.edits or 0 for outcome in steps)
    risks = [graded(PIPELINE_SCALE, affected, edits).value, *(o.risk for o in steps if o.risk)]
    status: RunStatus = "partial" if any(o.status == "failed" for o in steps) else "applied"
    risk = max(risks, key=_SEVERITY.index)
    group_id = group.group_id if group else None
    return PipelineReport(
        request.name, "dry_run" if request.dry_run else status, tuple(steps), group_id, affected, edits, risk
    )


def _blocked(request: PipelineRequest, outcome: StepOutcome) -> bool:
    return request.dry_run and outcome.error_code == "risk_blocked"


def _stayed(made: Sequence[Change], reverted: Sequence[Reverted], conflict: str | None) -> list[Change]:
    """The changes still in place after a revert, in the order they were made."""
    if conflict is not None:
        return list(made)
    kept = {id(outcome.change) for outcome in reverted if outcome.status in ("kept", "failed")}
    return [change for change in made if id(change) in kept]


def _reason(change: Change, reverted: Sequence[Reverted], conflict: str | None = None) -> str:
    if conflict is not None:
        return "changed since by something else; nothing was reverted"
    found = next((outcome for outcome in reverted if outcome.change is change), None)
    return (found.detail or found.status) if found else "not reverted"


def _why(stayed: Sequence[Change], reverted: Sequence[Reverted], conflict: str | None = None) -> str:
    shown = [f"{change.path} ({_reason(change, reverted, conflict)})" for change in stayed[:5]]
    return "; ".join(shown) + (f"; and {len(stayed) - 5} more" if len(stayed) > 5 else "")


def _listed(paths: Sequence[str]) -> str:
    """The first few ``paths`` relative to the folder holding them all: bare names read src/a.py and copies/a.py
    both as a.py."""
    unique = list(dict.fromkeys(paths))
    base = os.path.commonpath([Path(path).parent for path in unique]) if unique else ""
    names = ", ".join(os.path.relpath(path, base) for path in unique[:5])
    return names + (f" and {len(unique) - 5} more" if len(unique) > 5 else "")


def _to_paths(changes: int, paths: Sequence[str]) -> str:
    """How many paths the changes were to, where that is not one each (a file copied, then edited)."""
    count = len(paths)
    return "" if count == changes else f" to {count} path{'s' if count != 1 else ''}"


def _operation(request: PipelineRequest) -> str:
    return f"pipeline:{request.name[:60]}"


def _ms(started: float) -> float:
    return round((perf_counter() - started) * 1000, 1)


def _bound(confirmed: Binding | None, step: Step) -> frozenset[Entry] | None:
    """What a step may delete once confirmed: what the question measured, or anything (None) when nobody was asked
    or the question named the step as written (a template fills its names, so nothing could be measured)."""
    if confirmed is None or step.id in confirmed.open_steps:
        return None
    return confirmed.entries
