"""The backup tool's results, built from what the core returns: backups, groups, restores and trash entries.

A group is shown as far as this server may name its paths: the state directory is shared by every fsguard of the
user, and a change made under other roots or to a file a deny rule now hides is counted, never named.
"""

from collections.abc import Callable

from fsguard.core.backups import BackupRecord
from fsguard.core.groups import Group
from fsguard.core.reverting import Reverted
from fsguard.core.trashentries import TrashEntry
from fsguard.core.undo import RestoreReport
from fsguard.models import (
    BackupAction,
    BackupInfo,
    BackupResult,
    ChangeInfo,
    GroupEntry,
    GroupInfo,
    RestoredFile,
    RevertedChange,
    TrashInfo,
)


def trash_info(entry: TrashEntry) -> TrashInfo:
    """One trash entry."""
    return TrashInfo(
        sd_id=entry.sd_id,
        original_path=entry.original_path,
        kind="directory" if entry.is_directory else "file",
        size=entry.size,
        files=entry.files,
        sha256=entry.sha256,
        time=entry.time_iso,
    )


def backup_info(record: BackupRecord) -> BackupInfo:
    """One saved version."""
    return BackupInfo(
        backup_id=record.backup_id,
        time=record.time_iso,
        operation=record.operation,
        files=[record.path],
        size=record.size,
        content_hash=record.content_hash,
        after_hash=record.after_hash,
        parent_backup_id=record.parent_backup_id,
        in_chain=record.chained,
    )


def group_info(group: Group, shows: Callable[[str, bool], bool]) -> GroupInfo:
    """``group`` with the changes whose paths ``shows`` refuses left out and counted."""
    changes = [change for change in group.changes if change.shown(shows)]
    return GroupInfo(
        group_id=group.group_id,
        operation=group.operation,
        time=group.time_iso,
        files=[path for path in group.paths if shows(path, False)],
        changes=[
            ChangeInfo(kind=c.kind, path=c.path, source=c.source, backup_id=c.backup_id, sd_id=c.sd_id) for c in changes
        ],
        hidden=len(group.changes) - len(changes),
        interrupted=group.interrupted,
        rolled_back=[path for path in group.rolled_back if shows(path, False)] if group.interrupted else None,
    )


def group_entry(group: Group, shows: Callable[[str], bool], first: int = 5) -> GroupEntry:
    """``group`` as a listing shows it: the count of paths ``shows`` lets it name, and the first ``first``."""
    paths = [path for path in group.paths if shows(path)]
    return GroupEntry(
        group_id=group.group_id,
        operation=group.operation,
        time=group.time_iso,
        file_count=len(paths),
        files=paths[:first],
        interrupted=group.interrupted,
    )


def reverted_info(outcome: Reverted) -> RevertedChange:
    """What a group restore did to one change."""
    change = outcome.change
    safety = outcome.undo.backup_id if outcome.undo else None
    return RevertedChange(
        kind=change.kind,
        path=change.path,
        source=change.source,
        status=outcome.status,
        detail=outcome.detail,
        error_code=outcome.error_code,
        safety_backup_id=safety,
        undo=_restore_call(safety),
    )


def restored(action: BackupAction, report: RestoreReport, diff: str | None) -> BackupResult:
    """A restore or undo of one file."""
    safety = report.safety_backup.backup_id if report.safety_backup else None
    file = RestoredFile(
        path=str(report.path),
        content_hash=report.content_hash,
        previous_hash=report.previous_hash,
        verified=report.verified,
        safety_backup_id=safety,
        changed_since=report.changed_since,
        needs_force=report.needs_force,
        undo=_restore_call(safety),
        notes=list(report.notes) or None,
    )
    return BackupResult(
        action=action,
        message="",
        backup=backup_info(report.restored_from),
        restored=[file],
        head_backup_id=report.new_head.backup_id if report.new_head else None,
        dry_run=report.dry_run,
        diff=diff,
    )


def _restore_call(safety_backup_id: str | None) -> str | None:
    """The call that undoes a restore: putting back the safety backup it made of the bytes it replaced."""
    return f'backup(action="restore", backup_id="{safety_backup_id}")' if safety_backup_id else None
