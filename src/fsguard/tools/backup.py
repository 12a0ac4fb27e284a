"""backup: list, inspect, compare and restore saved versions, and step a file's undo chain back."""

from __future__ import annotations

import time
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.backups import BackupRecord
from fsguard.core.errors import InvalidParamsError
from fsguard.core.trash import TrashEntry
from fsguard.core.undo import RestoreReport
from fsguard.models import BackupAction, BackupInfo, BackupResult, RestoredFile, TrashInfo
from fsguard.services import Services
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, respond
from fsguard.voice import backup_text


def register(catalog: Catalog) -> None:
    """Add backup to the catalog."""
    services = catalog.services

    @bridge
    def backup(
        action: Annotated[BackupAction, Field(description="What to do.")] = "list",
        backup_id: Annotated[str | None, Field(description="info/compare/restore: the backup.")] = None,
        file_path: Annotated[
            str | None, Field(description="undo_last/undo_chain: the file; list: only this file's backups.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="list/undo_chain: at most this many.")] = 20,
        filter_path: Annotated[str | None, Field(description="list: substring of the path (case-insensitive).")] = None,
        filter_operation: Annotated[str | None, Field(description="list: operation, e.g. edit_file:replace.")] = None,
        newer_than_hours: Annotated[float | None, Field(gt=0, description="list: only backups this recent.")] = None,
        older_than_days: Annotated[
            float | None,
            Field(
                ge=0, description="cleanup/purge_trash: older than this many days (default 7); list_trash: at least."
            ),
        ] = None,
        sd_id: Annotated[str | None, Field(description="restore_trash/purge_trash: the trash entry.")] = None,
        dry_run: Annotated[
            bool | None, Field(description="restore/undo_last: show the plan only. cleanup: default true.")
        ] = None,
        preview: Annotated[bool, Field(description="restore/undo_last: show the diff that would apply.")] = False,
        force: Annotated[
            bool, Field(description="restore/undo_last even if the file changed after the operation reverted.")
        ] = False,
        expected_hash: Annotated[str | None, Field(description="restore: the file's current content_hash.")] = None,
    ) -> Annotated[CallToolResult, BackupResult]:
        """Undo the last operation on a file, or restore any saved version; backups live outside the roots.

        undo_last(file_path) reverts the newest operation on that file and steps its undo chain back;
        repeat it to walk further back. restore(backup_id) puts one version back (itself undoable).
        Both back up the current bytes first and refuse if the file changed since the operation,
        unless force. compare shows a diff from a backup to the file now. list_trash / restore_trash
        (sd_id) / purge_trash (dry run unless dry_run=false) manage soft-deleted files.
        """
        store = services.backups
        if action == "list":
            records = store.records()
            if file_path is not None:
                records = [r for r in records if r.path == str(services.policy.resolve(file_path))]
            if filter_path:
                records = [r for r in records if filter_path.lower() in r.path.lower()]
            if filter_operation:
                records = [r for r in records if r.operation == filter_operation]
            if newer_than_hours is not None:
                records = [r for r in records if r.time >= time.time() - newer_than_hours * 3600]
            result = BackupResult(
                action=action, message="", backups=[_info(r) for r in records[:limit]], total=len(records)
            )
        elif action == "info":
            result = BackupResult(action=action, message="", backup=_info(store.get(_need(backup_id, "backup_id"))))
        elif action == "compare":
            record = store.get(_need(backup_id, "backup_id"))
            diff = services.restorer.diff(record, towards_backup=False)
            result = BackupResult(action=action, message="", backup=_info(record), diff=diff)
        elif action in ("list_trash", "restore_trash", "purge_trash"):
            result = _trash_action(services, action, sd_id, filter_path, older_than_days, dry_run, limit)
        elif action == "cleanup":
            doomed = store.cleanup(7 if older_than_days is None else older_than_days, dry_run=dry_run is not False)
            result = BackupResult(
                action=action,
                message="",
                backups=[_info(r) for r in doomed[:limit]],
                removed=len(doomed),
                freed_bytes=sum(r.size for r in doomed),
                dry_run=dry_run is not False,
            )
        elif action == "undo_chain":
            path = services.policy.resolve(_need(file_path, "file_path"))
            chain = store.chain(path, limit)
            result = BackupResult(
                action=action,
                message="",
                backups=[_info(r) for r in chain],
                head_backup_id=chain[0].backup_id if chain else None,
            )
        elif action == "undo_last":
            report = services.restorer.undo_last(
                _need(file_path, "file_path"), force=force, dry_run=bool(dry_run) or preview
            )
            result = _restored(action, report, services.restorer.diff(report.restored_from) if preview else None)
        else:
            report = services.restorer.restore(
                _need(backup_id, "backup_id"),
                file_path=file_path,
                force=force,
                dry_run=bool(dry_run) or preview,
                expected_hash=expected_hash,
            )
            result = _restored(action, report, services.restorer.diff(report.restored_from) if preview else None)
        text = backup_text(result, catalog.compact)
        return respond(result.model_copy(update={"message": text}), text)

    catalog.add(
        backup,
        hints("Backup & Restore", read_only=False, destructive=True, idempotent=False),
        [
            ("undo the last edit of a file", {"action": "undo_last", "file_path": "src/app.py"}),
            ("the file's undo chain", {"action": "undo_chain", "file_path": "src/app.py"}),
            ("what a backup changes", {"action": "compare", "backup_id": "20261130-101010-0123456789abcdef"}),
            ("recent backups", {"action": "list", "newer_than_hours": 2}),
        ],
    )


def _trash_action(
    services: Services,
    action: BackupAction,
    sd_id: str | None,
    filter_path: str | None,
    older_than_days: float | None,
    dry_run: bool | None,
    limit: int,
) -> BackupResult:
    trash = services.trash
    if action == "list_trash":
        entries = trash.entries() if older_than_days is None else trash.older_than(older_than_days)
        if filter_path:
            entries = [e for e in entries if filter_path.lower() in e.original_path.lower()]
        return BackupResult(
            action=action, message="", trash=[_trash_info(e) for e in entries[:limit]], total=len(entries)
        )
    if action == "restore_trash":
        entry = services.deleter.restore_from_trash(_need(sd_id, "sd_id"))
        return BackupResult(action=action, message="", trash=[_trash_info(entry)])
    doomed = [trash.get(sd_id)] if sd_id else trash.older_than(7 if older_than_days is None else older_than_days)
    preview = dry_run is not False
    freed = sum(e.size for e in doomed) if preview else trash.purge(doomed)
    return BackupResult(
        action=action,
        message="",
        trash=[_trash_info(e) for e in doomed[:limit]],
        removed=len(doomed),
        freed_bytes=freed,
        dry_run=preview,
    )


def _trash_info(entry: TrashEntry) -> TrashInfo:
    return TrashInfo(
        sd_id=entry.sd_id,
        original_path=entry.original_path,
        kind="directory" if entry.kind == "directory" else "file",
        size=entry.size,
        files=entry.files,
        sha256=entry.sha256,
        time=entry.time_iso,
    )


def _need(value: str | None, name: str) -> str:
    if value is None:
        raise InvalidParamsError(f"this backup action needs {name}.")
    return value


def _info(record: BackupRecord) -> BackupInfo:
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


def _restored(action: BackupAction, report: RestoreReport, diff: str | None) -> BackupResult:
    restored = RestoredFile(
        path=str(report.path),
        content_hash=report.content_hash,
        previous_hash=report.previous_hash,
        verified=report.verified,
        safety_backup_id=report.safety_backup.backup_id if report.safety_backup else None,
    )
    return BackupResult(
        action=action,
        message="",
        backup=_info(report.restored_from),
        restored=[restored],
        head_backup_id=report.new_head.backup_id if report.new_head else None,
        dry_run=report.dry_run,
        diff=diff,
    )
