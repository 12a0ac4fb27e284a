"""Voice of batch_operations' pipeline form: the run step by step (verbose), or one line (compact)."""

from __future__ import annotations

from fsguard.core.shortlist import shortlist
from fsguard.models.batch import BatchResult, NotSearched, StepResult
from fsguard.voice.paths import shortened, shortened_error, shown
from fsguard.voice.sizes import counted

MAX_FILES_SHOWN = 20
_VERBS = {
    "search": "matched",
    "edit": "edited",
    "multi_edit": "edited",
    "regex_transform": "edited",
    "copy": "copied",
    "rename": "moved",
    "delete": "trashed",
}
_STATUS = {"ok": "OK", "planned": "PLANNED", "skipped": "SKIPPED", "failed": "FAILED"}
_HEAD = {"applied": "OK", "dry_run": "DRY RUN", "partial": "PARTIAL"}


def pipeline_text(result: BatchResult, compact: bool) -> str:
    """The pipeline's run: compact ``OK: 3/3 steps | 2 files | 5 edits``, else each step with its files."""
    steps = result.steps or []
    if compact:
        notes = (f"\n{step.id}: {shortened(step.external_change)}" for step in steps if step.external_change)
        told = (f"\n{step.id}: {note}" for step in steps for note in step.notes or ())
        return _compact(result, steps) + "".join(notes) + "".join(told)
    dry = " (dry run: nothing was written)" if result.status == "dry_run" else ""
    lines = [f"Pipeline: {result.name}{dry}", f"Steps: {result.completed}/{len(steps)} completed"]
    if result.failed:
        kept = "; the other steps' changes stay" if result.status == "partial" else ""
        lines.append(f"Failed: {result.failed} (see the step{kept})")
    if result.backup_id:
        restore = f'backup(action="restore", backup_id="{result.backup_id}")'
        lines.append(f"Backup: {result.backup_id} ({restore} reverts everything it changed)")
    lines += ["", "Step Results:", ""]
    for step in steps:
        lines += _step_lines(step)
    lines += [
        "",
        f"Files affected: {result.files_affected or 0}",
        f"Total edits: {result.total_edits or 0}",
        f"Overall risk: {result.risk_level or 'LOW'}",
    ]
    return "\n".join(lines)


def _compact(result: BatchResult, steps: list[StepResult]) -> str:
    parts = [
        f"{_HEAD[result.status]}: {result.completed}/{len(steps)} steps",
        counted(result.files_affected or 0, "file"),
        counted(result.total_edits or 0, "edit"),
    ]
    if result.risk_level and result.risk_level != "LOW":
        parts.append(f"{result.risk_level.lower()} risk")
    failed = [step for step in steps if step.status == "failed"]
    parts += [f"{step.id}:{step.action}: {shortened_error(step.error or '')}" for step in failed]
    if denied := sum(step.denied or 0 for step in steps):
        parts.append(f"{denied} hidden by deny rules, not copied")
    if result.backup_id:
        parts.append(f"backup:{result.backup_id}")
    return " | ".join(parts)


def _step_lines(step: StepResult) -> list[str]:
    head = f"{step.index}. {step.id} [{step.action}] {_STATUS[step.status]}"
    if step.status == "skipped":
        return [f"{head}: {step.skip_reason}"]
    if step.status == "failed":
        return [f"{head} ({step.error_code}): {shortened_error(step.error or '')}"]
    lines = [head]
    facts = [f"Files: {len(step.files)}" + (f" {_VERBS[step.action]}" if step.action in _VERBS else "")]
    if step.count is not None and step.edits is None:
        facts.append(f"count {step.count}")
    if step.edits is not None:
        facts.append(counted(step.edits or 0, "edit"))
    if step.denied:
        facts.append(f"{step.denied} hidden by deny rules, not copied")
    if step.risk_level:
        facts.append(f"risk {step.risk_level}")
    lines.append("   " + ", ".join(facts))
    counts = step.file_counts or {}
    first = step.files[:MAX_FILES_SHOWN]
    lines += [f"     - {shown(file)}" + (f" ({counts[file]})" if file in counts else "") for file in first]
    if len(step.files) > MAX_FILES_SHOWN:
        lines.append(f"     … and {len(step.files) - MAX_FILES_SHOWN} more (all in the structured result)")
    if step.not_searched:
        lines.append(f"   Not searched: {_not_searched(step.not_searched)}")
    if step.unforeseen:
        lines.append(f"   Dry run: {step.unforeseen}")
    if step.external_change:
        lines.append(f"   Note: {shortened(step.external_change)}")
    lines += [f"   Note: {note}" for note in step.notes or ()]
    if step.content:
        lines += ["   Content:", *(("     " + line).rstrip() for line in step.content.split("\n"))]
    return lines


def _not_searched(left_out: NotSearched) -> str:
    """Why a search step left files out, each reason with its first paths and what would search them."""
    reasons = (
        (
            "above --max-file-size (read them in ranges with read_file)",
            left_out.skipped_too_large,
            left_out.skipped_too_large_paths,
        ),
        ("binary, yet their bytes hold the pattern", left_out.skipped_binary, left_out.skipped_binary_paths),
        ("the server's user may not read them", left_out.skipped_unreadable, left_out.skipped_unreadable_paths),
        ("the hooks config denies them", left_out.skipped_by_hook, left_out.skipped_by_hook_paths),
        (
            "skipped by default (params.include_dependencies=true searches them)",
            left_out.default_skipped,
            left_out.default_skipped_paths,
        ),
    )
    return "; ".join(f"{why}: {shortlist(paths or [], total=count)}" for why, count, paths in reasons if count)
