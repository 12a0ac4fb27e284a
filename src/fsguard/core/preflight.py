"""The checks run before a call that may need a person's confirmation: each returns the Confirmation, or None.

Each check looks without changing anything (a dry run or preview of the same engine, a stat, a read-only git
diff) and answers for the exact arguments of the call. None means the call does not ask: it is not one of the
asking operations, ``force`` was given (a pipeline's recursive deletes ask all the same: its force is its risk
gate's), or nothing on disk makes it risky. A check that fails (a missing path, a
bad argument) raises as the call itself would; the caller then lets the call report it.
"""

from __future__ import annotations

import hashlib
import stat
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import replace
from pathlib import Path
from typing import Any

from fsguard.core.batchcheck import check
from fsguard.core.batchplan import BatchRequest
from fsguard.core.beneath import Beneath
from fsguard.core.confirmation import Binding, Confirmation, confirmation, joined, plural
from fsguard.core.errors import FsguardError
from fsguard.core.footprint import measured
from fsguard.core.git import GitRunner
from fsguard.core.gitrepo import GitRequest
from fsguard.core.inventory import purge_trash
from fsguard.core.paths import PathPolicy
from fsguard.core.pipeline import PipelineRequest, Step, StepOutcome
from fsguard.core.pipeline_actions import flag, named_files
from fsguard.core.pipeline_runner import PipelineRunner
from fsguard.core.replacing import ProjectReplacer, ReplaceRequest
from fsguard.core.risk import RiskLevel
from fsguard.core.statfacts import iso_time
from fsguard.core.trash import Trash

_RISKY = (RiskLevel.HIGH, RiskLevel.CRITICAL)


def deleting(
    policy: PathPolicy,
    beneath: Beneath,
    user_paths: list[str],
    *,
    permanent: bool,
    recursive: bool,
    moves: Sequence[tuple[Path, Path]] = (),
    max_file_size: int | None = None,
) -> Confirmation | None:
    """delete_file: a permanent delete (cannot be undone), or a recursive one of a non-empty directory (risky).
    ``max_file_size``: a permanent delete's --max-file-size; a file above it is refused, not asked about.

    ``moves``: in a batch or pipeline, the (source, destination) of each move or rename before the deletes. A path
    not there yet that one of them fills is measured where it is now and asked about: counted as nothing, a move
    then a delete of the moved directory removed it unasked. What an earlier write or copy makes holds nothing
    the user had, so it asks nothing.
    """
    if not (permanent or recursive):
        return None
    names: list[str] = []
    files = full = size = 0
    states: list[tuple[int, ...]] = []  # which entry each is: another renamed over it, alike in size and time, is not
    for user_path in user_paths:
        # A path the call will refuse (a .git, a root, a read-only root: the deleter's own checks) is left out of
        # the question, not the question out of the call: the others are still deleted, so the user must still be
        # asked about them. A call refusing every path asks nothing.
        try:
            path = policy.resolve_entry(user_path)
            policy.check_removable(path, "deleted")
        except FsguardError:
            continue
        for target, origin in [(path, None), *_brought(path, moves)]:
            limit = max_file_size if permanent else None
            found, inside, held = measured(beneath, origin or target, permanent_limit=limit)
            if found is None:
                continue  # the call itself says it is not there (or refuses it)
            names.append(str(target) if origin is None else f"{target} (moved there from {origin})")
            files += inside
            size += held
            states.append((found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns))
            full += stat.S_ISDIR(found.st_mode) and inside > 0
    if not names or not (permanent or full):
        return None
    # The bytes and the time too: a file swapped for another while the user was asked, or made again after (a 2026
    # answer is good for its very question for minutes), is another question, asked again.
    factors = [plural(files, "file or folder", "files and folders") + f" ({plural(size, 'byte')}) in all"]
    changed = max(state[3] for state in states) / 1e9  # the newest modification time among them
    version = hashlib.sha256(repr(states).encode()).hexdigest()[:8]
    factors.append(f"last changed {iso_time(changed)} (version {version})")
    if full:
        factors.append(plural(full, "non-empty directory", "non-empty directories") + " with everything inside")
    binding = Binding(frozenset((state[0], state[1]) for state in states))  # what a yes lets the deletes take
    if permanent:
        return confirmation(
            "delete_file",
            "Permanently delete " + plural(len(names), "path"),
            names=names,
            factors=["it skips the trash", *factors],
            reversible=False,
            undo="nothing is kept in the trash (fsguard still backs up each file's bytes first, those in a directory "
            'too: backup(action="restore") brings them back).',
            reason="permanent delete",
            binding=binding,
        )
    return confirmation(
        "delete_file",
        "Delete " + plural(len(names), "path") + " with everything inside",
        names=names,
        factors=factors,
        reversible=True,
        undo='it all moves to the trash, whole: backup(action="restore_trash") puts it back.',
        reason="recursive delete of a non-empty directory",
        binding=binding,
    )


def batching(
    policy: PathPolicy, beneath: Beneath, request: BatchRequest, *, max_file_size: int | None = None
) -> Confirmation | None:
    """batch_operations(request_json): its delete operations, asked as delete_file asks them, the permanent ones
    first (they cannot be undone); a batch must not be the way round a delete the user would be asked about.

    Only what is on disk now is counted: a directory an earlier operation of the batch fills is not.
    """
    if request.validate_only:
        return None
    deletes = [op for op in request.operations if op.type == "delete"]
    permanent = [op.path for op in deletes if op.permanent]
    soft = [op.path for op in deletes if op.recursive and not op.permanent]
    if not (permanent or soft):
        return None
    check(request, policy, beneath)  # the run's own first pass: a batch that does not validate is never asked about
    moves = _resolved(policy, [(op.path, op.destination) for op in request.operations if op.type == "move"])
    # One question for all of it: a yes runs the whole batch, so it must name every delete that asks on its own.
    return joined(
        "batch_operations",
        deleting(policy, beneath, permanent, permanent=True, recursive=True, moves=moves, max_file_size=max_file_size)
        if permanent
        else None,
        deleting(policy, beneath, soft, permanent=False, recursive=True, moves=moves) if soft else None,
    )


def _resolved(policy: PathPolicy, moves: Sequence[tuple[str, str | None]]) -> list[tuple[Path, Path]]:
    """The moves' (source, destination) as canonical paths; one that cannot be resolved is left out (it fails)."""
    found: list[tuple[Path, Path]] = []
    for source, destination in moves:
        with suppress(FsguardError):
            if destination is not None:
                found.append((policy.resolve_entry(source), policy.resolve_entry(destination)))
    return found


def _brought(path: Path, moves: Sequence[tuple[Path, Path]]) -> list[tuple[Path, Path]]:
    """(where it would be, where it is now) of what earlier moves bring to ``path``, or inside it: a move into
    ``new/D`` fills a ``new`` that is not on disk yet, and a delete of ``new`` takes it along."""
    origin = _moved_from(path, moves)
    if origin is not None:
        return [(path, origin)]
    brought: list[tuple[Path, Path]] = []
    for _, destination in moves:
        inside = path in destination.parents and not any(destination.is_relative_to(t) for t, _ in brought)
        if inside and (origin := _moved_from(destination, moves)) is not None:
            brought.append((destination, origin))
    return brought


def _moved_from(path: Path, moves: Sequence[tuple[Path, Path]]) -> Path | None:
    """Where what an earlier move brings to ``path`` (its destination, or inside it) is now; None if none does.
    Moves are followed back, newest first (a move of a move)."""
    origin = None
    for source, destination in reversed(moves):
        here = origin or path
        if here == destination or destination in here.parents:
            origin = source / here.relative_to(destination)
    return origin


def purging(
    trash: Trash, *, sd_id: str | None, older_than_days: float, shown: Callable[[str, bool], bool] | None = None
) -> Confirmation | None:
    """backup(action="purge_trash", dry_run=false): trash entries removed for good (those ``shown`` lets it name)."""
    sweep = purge_trash(trash, sd_id=sd_id, older_than_days=older_than_days, dry_run=True, limit=1_000_000, shown=shown)
    if not sweep.removed:
        return None
    files = sum(entry.files for entry in sweep.shown)
    return confirmation(
        "backup",
        "Purge " + plural(sweep.removed, "trash entry", "trash entries") + " for good",
        names=sorted(entry.original_path for entry in sweep.shown),
        factors=[
            f"{plural(files, 'file')} ({plural(sweep.freed_bytes, 'byte')}) {'leaves' if files == 1 else 'leave'} "
            "the trash for good"
        ],
        reversible=False,
        undo="purged entries leave the trash and no copy is kept.",
        reason="purge the trash",
    )


def replacing(replacer: ProjectReplacer, request: ReplaceRequest) -> Confirmation | None:
    """project_replace without force: the preview's risk decides (HIGH or CRITICAL asks)."""
    if request.preview or request.force:
        return None
    report = replacer.run(replace(request, preview=True))
    if report.risk_level not in _RISKY:
        return None
    return confirmation(
        "project_replace",
        f"Replace {_quoted(request.find)} with {_quoted(request.replace)} in " + plural(len(report.files), "file"),
        names=sorted(str(change.path) for change in report.files),  # the walk's order may vary; the question may not
        factors=[
            f"risk {report.risk_level.value}: {plural(len(report.files), 'file')}, "
            f"{plural(report.total_replacements, 'occurrence')}"
        ],
        reversible=True,
        undo='each file is backed up first, and the result\'s backup_id restores them all: backup(action="restore").',
        reason=f"risk {report.risk_level.value}",
    )


def pipelining(
    runner: PipelineRunner,
    request: PipelineRequest,
    *,
    policy: PathPolicy | None = None,
    beneath: Beneath | None = None,
) -> Confirmation | None:
    """batch_operations(pipeline_json): a dry run whose steps are blocked for their risk asks (without ``force``);
    so does (given the policy) a recursive delete step of a non-empty directory, as delete_file asks it, ``force``
    or not: force passes the risk gate, it is not the user's word on a delete."""
    if request.dry_run:
        return None
    report = runner.run(replace(request, dry_run=True))
    blocked = [step for step in report.steps if step.error_code == "risk_blocked"]
    # A yes forces the whole run: what it would do is the dry run past the blocked steps.
    forced = runner.run(replace(request, dry_run=True, force=True)) if blocked else report
    trashing = None
    if policy is not None and beneath is not None and any(_trashes(step) for step in request.steps):
        trashing = _trashing(policy, beneath, request, forced.steps)
    if not blocked:
        return trashing
    if trashing is None and _fails_anyway(request, forced.steps):
        return None  # forced, it fails at a later step all the same (and rolls back): a yes could not make it run
    # The question names every part that asks on its own, the deletes with the risk.
    return joined("batch_operations", _risky_steps(request, blocked), trashing)


def _fails_anyway(request: PipelineRequest, outcomes: Sequence[StepOutcome]) -> bool:
    """Whether the forced dry run stops the pipeline at a step that fails for sure: no step up to it has names a
    template fills, which the dry run cannot know (a folder a templated rename makes fails there, not for real)."""
    failed = min((outcome for outcome in outcomes if outcome.status == "failed"), key=_index, default=None)
    if failed is None or not request.stop_on_error:
        return False
    return not any(_TEMPLATE in repr(step.params) for step in request.steps if step.index <= failed.index)


def _index(outcome: StepOutcome) -> int:
    return outcome.index


def _risky_steps(request: PipelineRequest, blocked: Sequence[StepOutcome]) -> Confirmation:
    return confirmation(
        "batch_operations",
        f"Run the pipeline {request.name!r} ({plural(len(request.steps), 'step')}), whose large steps are",
        names=[f"{step.index} {step.id!r} ({_amount(step.error)})" for step in blocked],
        quoted=False,  # the step's id is quoted; its amount is the risk gate's own words
        factors=[f"{plural(len(blocked), 'step')} over the risk threshold (HIGH or CRITICAL: many files or edits)"],
        reversible=True,
        undo='every change is backed up, and the result\'s backup_id reverts them all: backup(action="restore").',
        reason="pipeline step over the risk threshold",
    )


def _trashing(
    policy: PathPolicy, beneath: Beneath, request: PipelineRequest, outcomes: Sequence[StepOutcome]
) -> Confirmation | None:
    """The paths a pipeline's recursive delete steps would trash, asked about as delete_file asks: when one is a
    non-empty directory, or one an earlier step moves there. Their dry run names them and what it moves there,
    whatever names the steps used; a step it did not run through (it failed there or before) by its own ``files``,
    and one whose names a template fills (unknown before the run) is asked about as it is written."""
    ran = {outcome.index: outcome for outcome in outcomes}
    paths: list[str] = []
    moves: list[tuple[str, str | None]] = []
    unknown: list[tuple[str, str]] = []
    for step in request.steps:
        own = named_files(step.action, step.params, policy)
        if step.action == "rename" and isinstance(folder := step.params.get("destination"), str):
            moves += [(name, str(Path(folder) / Path(name).name)) for name in own]  # each into the folder
        if not _trashes(step):
            continue
        outcome = ran.get(step.index)
        if outcome is not None and outcome.completed and outcome.files:
            paths += outcome.files
            moves += outcome.moves
            continue
        paths += own
        unknown += [(step.id, name) for name in own if _TEMPLATE in name]
    resolved = _resolved(policy, moves)
    found = deleting(policy, beneath, paths, permanent=False, recursive=True, moves=resolved) if paths else None
    return joined("batch_operations", found, _unplanned(unknown) if unknown else None)


_TEMPLATE = "{{"


def _trashes(step: Step) -> bool:
    return step.action == "delete" and _recursive(step.params)


def _unplanned(named: Sequence[tuple[str, str]]) -> Confirmation:
    """Recursive deletes of paths a template names that the dry run could not plan (step id, name): asked about as
    written, since what they hold is known only once the steps before them have run; a yes lets those steps go."""
    return confirmation(
        "batch_operations",
        "Delete what these pipeline steps name, with everything inside",
        names=[f"{name!r} (step {step!r})" for step, name in named],
        binding=Binding(open_steps=frozenset(step for step, _ in named)),
        factors=["the names are filled in as the pipeline runs, so what they hold could not be looked at first"],
        reversible=True,
        undo='it all moves to the trash, whole: backup(action="restore_trash") puts it back.',
        reason="recursive delete the dry run could not plan",
        quoted=False,  # each name and step id is quoted
    )


def _recursive(params: Mapping[str, Any]) -> bool:
    """A delete step's ``recursive``; one a template writes (unknown before the run) counts as true."""
    try:
        return flag(params, "recursive", False)
    except FsguardError:
        return True


def restoring(git: GitRunner, request: GitRequest, beneath: Beneath) -> Confirmation | None:
    """git(action="restore") of the working tree without force: the uncommitted edits it would discard."""
    if request.action != "restore" or request.staged or request.force or not request.paths:
        return None
    overwritten = git.discarded(request)  # a restore refused anyway (a hidden file, a read-only root) raises
    if not overwritten:
        return None
    diff = git.run(GitRequest(action="diff", path=request.path, paths=request.paths, rev=request.rev, output="stat"))
    changes = diff.files or []
    names = [change.path for change in changes]
    if not names:
        return None
    # How much work is lost, not only where: more lines written while the user was asked make another question,
    # and so does any other version of these files (a line rewritten, a binary file saved again: no count moves).
    added, deleted = sum(c.added or 0 for c in changes), sum(c.deleted or 0 for c in changes)
    binary = sum(c.binary for c in changes)
    lost = [f"{plural(added, 'line')} added and {plural(deleted, 'line')} removed since then are lost"]
    if binary:  # git counts no lines in them: "0 lines" alone read as nothing lost
        lost = [line for line in lost if added or deleted]
        lost.append(f"the changes to {plural(binary, 'binary file')} are lost")
    found = [(path, measured(beneath, path)[0]) for path in overwritten]
    states = [(str(p), s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns) for p, s in found if s]
    version = hashlib.sha256(repr(states).encode()).hexdigest()[:8]
    held = f"{plural(sum(state[3] for state in states), 'byte')} in the working tree now"
    if states:
        held += f", last changed {iso_time(max(state[4] for state in states) / 1e9)}"
    return confirmation(
        "git",
        "Discard the uncommitted changes of " + plural(len(names), "file"),
        names=names,
        factors=[f"the working tree goes back to {request.rev or 'the index'}", *lost, f"{held} (version {version})"],
        reversible=False,
        undo='git keeps no copy of uncommitted work (fsguard backs each file up first: backup(action="undo_last")).',
        reason="discard unstaged work",
    )


def pushing(git: GitRunner, request: GitRequest) -> Confirmation | None:
    """git(action="push") without force that the remote would reject: asked as a push with --force-with-lease."""
    if request.action != "push" or request.force:
        return None
    rejected = git.rejected_push(request)
    if not rejected:
        return None
    return confirmation(
        "git",
        f"Force-push to {_quoted(request.remote or 'origin')} (--force-with-lease), replacing what the remote has for",
        names=rejected,
        factors=["the remote has commits this branch does not: they leave the remote branch"],
        reversible=False,
        undo="the replaced commits stay only where someone else still has them (fsguard keeps no copy).",
        reason="forced push",
    )


def _quoted(text: str, limit: int = 60) -> str:
    """A find or replace text as the question shows it: quoted, and cut so the paragraph stays one paragraph."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


def _amount(error: str | None) -> str:
    """What a blocked step would change: the facts that open the risk gate's message (pipeline_changes._gate)."""
    facts, _, _ = (error or "").partition(", so ")
    return facts
