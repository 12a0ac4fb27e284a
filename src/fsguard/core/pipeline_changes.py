"""The pipeline actions that write: edit, multi_edit, regex_transform, copy, rename, delete.

Each goes through the engine of the matching single-file tool (edit_file's :class:`Editor`, the mover, the
deleter), so path policy, fd pinning, locks, OCC, hooks and backups are theirs. Each appends every change
it makes to ``call.changes`` as it makes it, so a failure part-way can be rolled back precisely.

Each file an action previews or changes is a step of its own (:meth:`PathLocks.step`): a run cancelled while it waits
for a file's lock stops before that file, and keeps what it changed before, as its group (see
:mod:`fsguard.core.pipeline_runner`).

An action first plans all its files (the edits as dry runs; for copy, rename and delete, sources present
and targets free) and only then acts, so most failures happen before anything is written. The plan is
graded on the seed's multi-file scale; HIGH or CRITICAL without ``force`` is refused (``risk_blocked``)
before the step writes anything (a dry run's step reports what it would do, and the refusal):

    edit              files >= 30 / 50 / 80  or  replacements >= 100 / 500 / 1000  → MEDIUM / HIGH / CRITICAL
    multi_edit        files >= 30 / 50 / 80  or  edits applied  >= 20 / 50 / 100
    regex_transform,
    rename, delete    files >= 30 / 50 / 80

A file in which nothing matches is left as it is (count 0); a step in which no file matches fails
(``no_match``), since that almost always means a wrong old_text. A file an edit's ``occurrence`` finds too few
matches in fails the step: it was asked to change that file.

A dry run plans each step on what the earlier steps would leave (:mod:`fsguard.core.pipeline_overlay`) and, once the
step is planned whole, records what it would leave in turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsguard.core import occ
from fsguard.core.confirmation import plural
from fsguard.core.deletion import non_empty_error
from fsguard.core.editing import EditOptions
from fsguard.core.errors import (
    AlreadyExistsError,
    ExternalChangeError,
    InvalidParamsError,
    NoMatchError,
    NotFoundError,
    RiskBlockedError,
)
from fsguard.core.groups import Change, logging_made_dirs
from fsguard.core.matching import Replacement
from fsguard.core.modes import Planner, RegexRule, multi, must_match, regex
from fsguard.core.occ import OccVerdict
from fsguard.core.pipeline import ALIASES
from fsguard.core.pipeline_actions import flag, number, text
from fsguard.core.pipeline_calls import Action, ActionOutput, PipelineEngines, StepCall
from fsguard.core.pipeline_overlay import OnDisk
from fsguard.core.pipeline_preview import decoded_text, planned_edit
from fsguard.core.pipeline_request import whole_number
from fsguard.core.requests import EditRequest, planner_for
from fsguard.core.risk import EDIT_SCALE, FILES_SCALE, MULTI_EDIT_SCALE, RiskLevel, Scale, graded


def edit(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """old_text → new_text in every input file, by edit_file's matching ladder (every occurrence by default; with
    ``occurrence``, that match in each file)."""
    occurrence = _occurrence(call.params)
    request = EditRequest(
        old_text=text(call.params, "old_text"),
        new_text=text(call.params, "new_text", empty_ok=True),
        replace_all=flag(call.params, "replace_all", occurrence is None),
        occurrence=occurrence,
        tolerant=None,
    )
    return _edited(engines, call, "edit", lambda label: planner_for(request, label), EDIT_SCALE)


def _occurrence(params: Mapping[str, Any]) -> int | None:
    """An edit's occurrence, or its text (a template may have written it); 0, as edit_file's, names none.

    Raises:
        InvalidParamsError: not a whole number.
    """
    value = params.get("occurrence")
    occurrence = whole_number(value)
    if value is not None and occurrence is None:
        raise InvalidParamsError(
            f"params.occurrence must be a whole number (1 the first match, -1 the last); got {value!r}."
        )
    return occurrence or None


def multi_edit(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """Each of ``edits`` in order in every input file; in a file, all of them place or none is made."""
    raw = call.params.get("edits")
    if not isinstance(raw, list) or not raw or not all(isinstance(item, dict) for item in raw):
        raise InvalidParamsError('params.edits must be a non-empty list of {"old_text": ..., "new_text": ...}.')
    every = flag(call.params, "replace_all", True)
    items = [{ALIASES.get(key, key): value for key, value in item.items()} for item in raw]
    edits = [Replacement(text(item, "old_text"), text(item, "new_text", empty_ok=True), every) for item in items]
    return _edited(engines, call, "multi_edit", lambda label: multi(edits, tolerant=None, path=label), MULTI_EDIT_SCALE)


def regex_transform(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """RE2 rules in order in every input file; ``$1``/``${name}`` in a replacement insert groups."""
    params = call.params
    raw = params.get("patterns")
    if raw is None:
        raw = [{"pattern": params.get("pattern"), "replacement": params.get("replacement", "")}]
    if not isinstance(raw, list) or not raw or not all(isinstance(item, dict) for item in raw):
        raise InvalidParamsError('params.patterns must be a non-empty list of {"pattern": ..., "replacement": ...}.')
    rules = [
        RegexRule(text(item, "pattern"), text(item, "replacement", "", empty_ok=True), number(item, "limit") or 0)
        for item in raw
    ]
    case_sensitive = flag(params, "case_sensitive", True)
    regex(rules, case_sensitive=case_sensitive, path="")  # an invalid pattern fails here, before any file
    shown = ", ".join(repr(rule.pattern) for rule in rules)

    def planner_of(label: str) -> Planner:  # a file the step leaves alone counts as missed
        return must_match(regex(rules, case_sensitive=case_sensitive, path=label), f"no match for {shown}:", label)

    return _edited(engines, call, "regex_transform", planner_of, FILES_SCALE)


def copy(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """Each input file copied into the ``destination`` directory, never over an existing file."""
    moves = _into(engines, call, "copy")
    denied = 0
    if call.dry_run:
        for source, target in moves:
            call.overlay.copied(Path(source), Path(target))
    else:
        with logging_made_dirs(engines.beneath, call.changes):
            for source, target in moves:
                with engines.locks.step():  # cancelled while it waits for this target's lock: stops before it
                    report = engines.mover.copy(source, target, tool="batch_operations", fingerprinted=True)
                call.changes.append(Change("copied", target, after_hash=report.fingerprint))
                denied += report.denied
    return ActionOutput(tuple(target for _, target in moves), denied=denied or None)


def rename(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """Each input file moved into the ``destination`` directory, never over an existing file."""
    moves = _into(engines, call, "rename")
    level = graded(FILES_SCALE, len(moves))
    blocked = _gate(call, "rename", level, plural(len(moves), "file"))
    if call.dry_run:
        for source, target in moves if blocked is None else ():
            call.overlay.moved(Path(source), Path(target))
    else:
        with logging_made_dirs(engines.beneath, call.changes):
            for source, target in moves:
                with engines.locks.step():
                    moved = engines.mover.move(source, target, tool="batch_operations", fingerprinted=True)
                call.changes.append(Change("moved", target, source=source, after_hash=moved.fingerprint))
    return ActionOutput(tuple(target for _, target in moves), risk=level.value, blocked=blocked)


def delete(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """Each input file (or, with ``recursive``, directory) moved to the trash; restore_trash brings it back."""
    missing = [file for file in call.files if not call.overlay.exists(Path(file))]
    if missing:
        raise _missing_error(missing)
    recursive = flag(call.params, "recursive", False)
    for file in call.files:  # what the deleter refuses, refused before any file goes (and in a dry run)
        engines.policy.check_removable(Path(file), "deleted")
        if call.dry_run and not recursive and call.overlay.holds_entries(Path(file)):
            raise non_empty_error(Path(file))
    level = graded(FILES_SCALE, len(call.files))
    blocked = _gate(call, "delete", level, plural(len(call.files), "file"))
    moves = _moved_here(call) if call.dry_run else ()
    if call.dry_run:
        for file in call.files if blocked is None else ():
            call.overlay.deleted(Path(file))
    else:
        for file in call.files:
            with engines.locks.step():
                done = engines.deleter.delete(
                    file, recursive=recursive, tool="batch_operations", confirmed=call.confirmed
                )
            call.changes.append(Change("trashed", str(done.path), sd_id=done.trash.sd_id if done.trash else None))
    return ActionOutput(call.files, risk=level.value, blocked=blocked, moves=moves)


def _moved_here(call: StepCall) -> tuple[tuple[str, str], ...]:
    """(where it is on disk now, where it would be) of each entry of a dry run's delete, or inside one of its
    directories, that an earlier step would move there: what the user is asked about. A copy is left out: what it
    made holds nothing the user had (its source stays)."""
    moves: list[tuple[str, str]] = []
    for file in call.files:
        for path in sorted({Path(file), *call.overlay.below(Path(file))}, key=lambda path: len(path.parts)):
            found = call.overlay.at(path)
            if any(path.is_relative_to(target) for _, target in moves):
                continue  # inside an entry already moved whole
            if isinstance(found, OnDisk) and found.path != path and call.overlay.at(found.path) != found:
                moves.append((str(found.path), str(path)))
    return tuple(moves)


WRITERS: dict[str, Action] = {
    "edit": edit,
    "multi_edit": multi_edit,
    "regex_transform": regex_transform,
    "copy": copy,
    "rename": rename,
    "delete": delete,
}


_DONE = {"copy": "copied", "rename": "moved"}


@dataclass(frozen=True)
class _Planned:
    file: str
    count: int
    text: str | None = None  # the planned new text


def _edited(
    engines: PipelineEngines, call: StepCall, action: str, planner_of: Callable[[str], Planner], scale: Scale
) -> ActionOutput:
    """Plan every file as a dry run, grade and gate the whole, then edit the files that change."""
    options = EditOptions(tool="batch_operations", mode=f"pipeline_{action}", dry_run=True)
    planned: list[_Planned] = []
    missed: list[NoMatchError] = []
    for file in call.files:
        label = engines.policy.label(Path(file))
        try:
            # cancelled while it waits to preview a file: stops there, not once it is free
            with engines.locks.step(), _rereading(file):
                preview = planned_edit(engines, call.overlay, file, planner_of(label), options)
        except NoMatchError as exc:
            if _partly_placed(exc) or "occurrences" in exc.fields:  # found, but not as often as occurrence says
                raise
            missed.append(exc)
            planned.append(_Planned(file, 0))
            continue
        planned.append(_Planned(file, preview.replacements, preview.new_text))
    changing = [plan for plan in planned if plan.count]
    total = sum(plan.count for plan in changing)
    if missed and not changing:
        if len(missed) == 1:
            raise missed[0]  # its message shows the file's closest lines
        first = missed[0].message.split("\n")[0]
        raise NoMatchError(
            f"{action} matched nothing in any of its {len(missed)} input files, so nothing was written; in the "
            f"first: {first} Check the text against read_file (or the search step's pattern) and retry.",
        )
    level = graded(scale, len(changing), total)
    blocked = _gate(call, action, level, f"{plural(len(changing), 'file')}, {plural(total, 'edit')}")
    risk = level.value
    counts = {plan.file: plan.count for plan in planned}
    if call.dry_run:
        for change in changing if blocked is None else ():
            before = decoded_text(engines, call.overlay, Path(change.file))
            call.overlay.edited(Path(change.file), before, change.text or "")
        return ActionOutput(tuple(p.file for p in changing), total, total, risk, file_counts=counts, blocked=blocked)
    real = EditOptions(tool="batch_operations", mode=f"pipeline_{action}")
    external: list[OccVerdict] = []
    notes: list[str] = []
    for plan in changing:
        with engines.locks.step(), _rereading(plan.file):
            report = engines.editor.run(plan.file, planner_of(engines.policy.label(Path(plan.file))), real)
        counts[plan.file] = report.plan.replacements
        external += [report.verdict] if report.verdict.known_hash is not None else []
        notes += report.hook_notes
        if report.content_hash != report.previous_hash:
            backup = report.backup.backup_id if report.backup else None
            call.changes.append(Change.modified(report.path, backup, report.content_hash))
    total = sum(counts.values())
    changed = tuple(p.file for p in changing)
    return ActionOutput(changed, total, total, risk, file_counts=counts, external=tuple(external), notes=tuple(notes))


@contextmanager
def _rereading(file: str) -> Iterator[None]:
    """An edit of ``file``, --auto-occ block's refusal naming what works here: a step takes no expected_hash (it may
    edit many files), so it told the agent to pass one, and the pipeline was refused."""
    try:
        yield
    except ExternalChangeError as exc:
        known, current = exc.fields.get("known_hash"), exc.fields.get("current_hash")
        if not isinstance(known, str) or not isinstance(current, str):
            raise  # changed while it was written: not block's refusal
        raise occ.blocked(file, known, current, advice=_REREAD) from None


_REREAD = (
    "Re-read it with read_file (then its current content is the one this session knows) and run the pipeline again."
)


def _partly_placed(exc: NoMatchError) -> bool:
    """True for a multi_edit in which some edits placed and others did not: a real failure, not "nothing here"."""
    edits = exc.fields.get("edits")
    return isinstance(edits, list) and any(item.get("status") == "applied" for item in edits)


def _gate(call: StepCall, action: str, level: RiskLevel, amount: str) -> RiskBlockedError | None:
    """None when the step may go on; else, in a dry run, the refusal the real run would make.

    Raises:
        RiskBlockedError: HIGH or CRITICAL without force, in a real run.
    """
    if level not in (RiskLevel.HIGH, RiskLevel.CRITICAL) or call.force:
        return None
    if call.dry_run:
        return RiskBlockedError(
            f"{action} would change {amount}: risk {level.value}, so without force the real run blocks it and "
            f"writes nothing. {_FORCE[0].upper()}{_FORCE[1:]}, to run it (it lifts every step's gate; every "
            "change is backed up and the pipeline's backup_id reverts them all), or narrow the step's input.",
            risk_level=level.value,
        )
    raise RiskBlockedError(
        f"{action} would change {amount}: risk {level.value}, so it was blocked and nothing was written. "
        f"Run the pipeline with dry_run=true to see every step's counts, narrow the step's input, or {_FORCE} "
        "(it lifts every step's gate; every change is backed up and the pipeline's backup_id reverts them all).",
        risk_level=level.value,
    )


# A step and its params refuse force: "pass force=true" alone was followed there.
_FORCE = 'set "force": true at the top level of pipeline_json, beside "steps"'


def _into(engines: PipelineEngines, call: StepCall, action: str) -> list[tuple[str, str]]:
    """(source, target) for each input file moved or copied into ``destination``; all checked before any act.

    Raises:
        NotFoundError: a source is missing.
        AlreadyExistsError: a target exists, or two sources share a name.
        InvalidParamsError: the destination is an existing file.
    """
    destination = engines.policy.resolve(text(call.params, "destination"))
    if call.overlay.exists(destination) and not call.overlay.is_dir(destination):
        raise InvalidParamsError(
            f"{action} destination {destination} is a file; pass a directory (it is created when missing).",
            path=str(destination),
        )
    missing = [file for file in call.files if not call.overlay.exists(Path(file))]
    if missing:
        raise _missing_error(missing)
    if not call.files:
        return []
    pairs = [(file, str(destination / Path(file).name)) for file in call.files]
    taken: dict[str, str] = {}
    for source, target in pairs:
        # what the mover refuses, refused before any file moves (and in a dry run)
        if action == "rename":
            engines.policy.check_removable(Path(source), "moved")
        engines.policy.check_writable(Path(target))
        if target in taken or call.overlay.exists(Path(target)):
            other = f"{taken[target]} goes there too" if target in taken else "it exists"
            raise AlreadyExistsError(
                f"{action} would put {source} at {target}, but {other}; nothing was {_DONE[action]}. "
                "Choose another destination, or move the existing file away first.",
                path=target,
            )
        taken[target] = source
    return pairs


def _missing_error(missing: list[str]) -> NotFoundError:
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    one = len(missing) == 1
    return NotFoundError(
        f"{plural(len(missing), 'input file')} {'does' if one else 'do'} not exist: {shown}; nothing was changed. "
        f"An earlier step may have moved or deleted {'it' if one else 'them'}; check with list_directory.",
        path=missing[0],
    )
