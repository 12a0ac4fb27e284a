"""What the dashboard's buttons do, through the same engine objects as the ``backup`` tool.

Undo and Restore call :class:`fsguard.core.undo.Restorer` (the current bytes are backed up first, under the
file's cross-process lock, and the written bytes are read back); the trash calls the Deleter and the inventory,
as ``backup(action='restore_trash'|'purge_trash')`` does. Each act is appended to the audit log as a ``backup``
call with ``"via": "dashboard"`` on the line (not among its args: an agent's call can send any), so the Activity
page shows what the person did beside what the agents did.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fsguard.core.audit import AuditEntry, AuditLog
from fsguard.core.backups import check_backup_id
from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.inventory import Sweep, purge_trash
from fsguard.core.stats import CallStats
from fsguard.core.trashentries import TrashEntry, check_sd_id
from fsguard.core.undo import RestoreReport
from fsguard.services import Services

Done = TypeVar("Done")


def dashboard_audit(log_dir: Path | None) -> AuditLog | None:
    """An audit writer that appends lines only: metrics.json belongs to the servers and keeps their counters."""
    if log_dir is None:
        return None
    return AuditLog(log_dir, CallStats(), metrics_interval_s=float("inf"))


class Actions:
    """The state-changing acts of the dashboard; each one validates its ids before anything else."""

    def __init__(self, services: Services, audit: AuditLog | None) -> None:
        self._services = services
        self._audit = audit

    def undo(self, user_path: str, *, force: bool, only: str | None = None) -> RestoreReport:
        """Revert the newest operation on the file (``backup(action='undo_last')``); ``only``: when it is this one.

        Raises:
            UndoOvertakenError: the newest operation is not ``only`` (another came after the page showed it).
        """
        if only is not None:
            check_backup_id(only)
        arguments: dict[str, object] = {"action": "undo_last", "file_path": user_path, "force": force}

        def run() -> RestoreReport:
            return self._services.restorer.undo_last(user_path, force=force, only=only)

        return self._logged(arguments, run, _path_of, _safety_backup)

    def restore(self, backup_id: str, user_path: str) -> RestoreReport:
        """Put the version ``backup_id`` back into ``user_path`` (``backup(action='restore')``)."""
        check_backup_id(backup_id)
        arguments: dict[str, object] = {"action": "restore", "backup_id": backup_id, "file_path": user_path}

        def run() -> RestoreReport:
            return self._services.restorer.restore(backup_id, file_path=user_path)

        return self._logged(arguments, run, _path_of, _safety_backup)

    def restore_trash(self, sd_id: str) -> TrashEntry:
        """Move a trash entry back to its original path, never over anything (``backup(action='restore_trash')``)."""
        check_sd_id(sd_id)
        arguments: dict[str, object] = {"action": "restore_trash", "sd_id": sd_id}
        return self._logged(
            arguments, lambda: self._services.deleter.restore_from_trash(sd_id), lambda e: e.original_path
        )

    def purge(self, sd_id: str, *, confirmed: bool) -> Sweep[TrashEntry]:
        """Delete one trash entry for good; refused unless the person ``confirmed`` it."""
        check_sd_id(sd_id)
        if not confirmed:
            raise InvalidParamsError(
                f"purging {sd_id} deletes it for good: tick the confirmation box on its page, then purge again.",
                sd_id=sd_id,
            )
        arguments: dict[str, object] = {"action": "purge_trash", "sd_id": sd_id, "dry_run": False}

        def run() -> Sweep[TrashEntry]:
            trash, shown = self._services.trash, self._services.policy.shows
            return purge_trash(trash, sd_id=sd_id, older_than_days=0.0, dry_run=False, limit=1, shown=shown)

        return self._logged(arguments, run, lambda sweep: sweep.shown[0].original_path if sweep.shown else None)

    def _logged(
        self,
        arguments: dict[str, object],
        run: Callable[[], Done],
        path_of: Callable[[Done], str | None],
        backup_of: Callable[[Done], str | None] | None = None,
    ) -> Done:
        started = time.perf_counter()
        try:
            done = run()
        except FsguardError as exc:
            self._record(arguments, started, exc.code, None)
            raise
        self._record(arguments, started, None, path_of(done), backup_of(done) if backup_of else None)
        return done

    def _record(
        self,
        arguments: dict[str, object],
        started: float,
        code: str | None,
        path: str | None,
        backup_id: str | None = None,
    ) -> None:
        if self._audit is None:
            return
        entry = AuditEntry(
            tool="backup",
            arguments=arguments,
            duration_ms=(time.perf_counter() - started) * 1000,
            status="error" if code else "ok",
            error_code=code,
            path=path,
            backup_id=backup_id,
            via="dashboard",
        )
        self._audit.record(entry)


def _path_of(report: RestoreReport) -> str:
    return str(report.path)


def _safety_backup(report: RestoreReport) -> str | None:
    """The backup an undo or restore took of the bytes it replaced, as the backup tool's audit line names it."""
    return report.safety_backup.backup_id if report.safety_backup else None
