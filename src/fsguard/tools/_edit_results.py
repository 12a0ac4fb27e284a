"""Result models of edit_file and multi_edit, from the engine's EditReport."""

from __future__ import annotations

from fsguard.core.editing import EditReport
from fsguard.models import EditFileResult, EditOutcomeFields, EditStatus, MultiEditResult
from fsguard.voice.notes import external_change_note, integrity_detail, risk_note, stale_read_note


def edit_result(report: EditReport) -> EditFileResult:
    backup = report.backup
    return EditFileResult(
        path=str(report.path),
        replacements=report.plan.replacements,
        lines_added=report.diff.added,
        lines_removed=report.diff.removed,
        total_lines=report.total_lines,
        content_hash=report.content_hash,
        backup_id=backup.backup_id if backup else None,
        parent_backup_id=backup.parent_backup_id if backup else None,
        risk_warning=risk_note(
            report.risk,
            path=str(report.path),
            backup_id=backup.backup_id if backup else None,
            lines=report.total_lines,
        ),
        structure_warning=report.structure_warning,
        integrity=report.integrity.status if report.integrity else None,
        integrity_detail=integrity_detail(report.integrity),
        external_change=external_change_note(report.verdict),
        message="",
        mode=report.mode,
        risk_level=report.risk.level.value,
        match_tier=report.plan.match_tier,
        line=report.plan.first_line,
        diff=report.diff.text or None,
        dry_run=report.dry_run,
        previous_hash=report.previous_hash,
        feedback=stale_read_note(report.verdict),
    )


def multi_result(report: EditReport) -> MultiEditResult:
    single = edit_result(report)
    outcomes = report.plan.outcomes
    return MultiEditResult(
        **single.model_dump(include=set(EditOutcomeFields.model_fields)),
        successful_edits=sum(o.status == "applied" for o in outcomes),
        total_edits=len(outcomes),
        lines_added=single.lines_added,
        lines_removed=single.lines_removed,
        total_lines=single.total_lines,
        edits=[
            EditStatus(index=o.index, status=o.status, match_tier=o.match_tier, line=o.line, error=o.error)
            for o in outcomes
        ],
        skipped_edits=sum(o.status == "already_present" for o in outcomes),
    )
