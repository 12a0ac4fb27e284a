"""backup: list, inspect, compare and restore saved versions, and step a file's undo chain back.

Each action has one handler (:data:`_HANDLERS`); which backups and trash entries an action lists or removes is
decided in the core (:mod:`fsguard.core.inventory`), and turned into the result here.
"""

# No ``from __future__ import annotations`` here: older_than_days's description states the configured default age,
# so the annotations are built when the tool is registered (the SDK evaluates string annotations in the module's
# globals, where a value read from the settings is not).

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, get_args

import anyio
from mcp.server.mcpserver import Context, Resolve
from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.confirmation import Confirmation, plural
from fsguard.core.errors import InvalidParamsError
from fsguard.core.groups import Group
from fsguard.core.inventory import (
    MOST_LISTED,
    BackupFilter,
    clean_backups,
    list_backups,
    list_groups,
    list_trash,
    purge_trash,
)
from fsguard.core.preflight import purging
from fsguard.core.preflight_backups import cleaning
from fsguard.models import BackupAction, BackupResult
from fsguard.services import Services
from fsguard.tools._backup_results import (
    backup_info,
    group_entry,
    group_info,
    restored,
    reverted_info,
    trash_info,
)
from fsguard.tools._confirm import NOT_ASKED, Consent, Question, ask, consent
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, voiced
from fsguard.voice import backup_text


async def ask_purge(
    action: BackupAction,
    dry_run: bool | None,
    sd_id: str | None,
    older_than_days: float | None,
    force: bool,
    ctx: Context,
) -> Question:
    """purge_trash or cleanup that really removes (dry_run=false) asks the user first, unless force."""
    if action not in ("purge_trash", "cleanup") or dry_run is not False or force:
        return NOT_ASKED

    def preflight(s: Services) -> Confirmation | None:
        age = s.settings.sweep_age_days if older_than_days is None else older_than_days
        if action == "cleanup":
            return cleaning(s.backups, older_than_days=age, shown=s.policy.shows)
        return purging(s.trash, sd_id=sd_id, older_than_days=age, shown=s.policy.shows)

    return await ask(ctx, preflight)


PurgeConsent = Annotated[Consent, Resolve(ask_purge)]


def register(catalog: Catalog) -> None:
    """Add backup to the catalog."""
    services = catalog.services
    default_age = f"{services.settings.sweep_age_days:g}"

    @bridge
    def backup(
        ctx: Context,
        confirmed: PurgeConsent,
        action: Annotated[BackupAction, Field(description="What to do.")] = "list",
        backup_id: Annotated[
            str | None, Field(description="info/compare/restore: a backup, or a group id (every file of one call).")
        ] = None,
        file_path: Annotated[
            str | None, Field(description="undo_last/undo_chain: the file; list: only this file's backups.")
        ] = None,
        limit: Annotated[
            int | None,
            Field(
                ge=1, le=MOST_LISTED, description="At most this many: list/undo_chain 20, list_trash/purge_trash 50."
            ),
        ] = None,
        filter_path: Annotated[str | None, Field(description="list: substring of the path (case-insensitive).")] = None,
        filter_operation: Annotated[
            str | None, Field(description="list: operation: edit_file (every mode), edit_file:replace, multi_edit …")
        ] = None,
        newer_than_hours: Annotated[float | None, Field(gt=0, description="list: only backups this recent.")] = None,
        older_than_days: Annotated[
            float | None,
            Field(
                ge=0,
                description=f"cleanup/purge_trash: older than this many days (default {default_age}); list_trash: "
                "at least.",
            ),
        ] = None,
        sd_id: Annotated[str | None, Field(description="restore_trash/purge_trash: the trash entry.")] = None,
        dry_run: Annotated[
            bool | None,
            Field(
                description="restore/undo_last: show the plan only (and whether the file changed since). cleanup: "
                "default true."
            ),
        ] = None,
        preview: Annotated[bool, Field(description="restore/undo_last: show the diff that would apply.")] = False,
        force: Annotated[
            bool,
            Field(
                description="undo_last, or restore of a group id, even if a file changed after the operation reverted."
            ),
        ] = False,
        expected_hash: Annotated[str | None, Field(description="restore: the file's current content_hash.")] = None,
    ) -> Annotated[CallToolResult, BackupResult]:
        """Undo an operation or restore a saved version of a file (or a trashed one) instead of rewriting it.

        undo_last(file_path) reverts the newest operation on that file and steps its undo chain back;
        repeat it to walk further back; it refuses if the file changed since that operation, unless force.
        restore(backup_id) puts any saved version back, also after later edits. Both back up the current
        bytes first, so each is undoable. compare shows a diff from a backup to the file now. list_trash /
        restore_trash (sd_id) / purge_trash (dry run unless dry_run=false) manage soft-deleted files.
        """
        consent(confirmed, "backup", force=force)
        reported = [0]

        def progress(done: int, total: int) -> None:
            anyio.from_thread.check_cancelled()  # a cleanup stops between files, a purge between entries or in a tree
            if done > reported[0] and (done == total or done - reported[0] >= max(total // 100, 1)):
                reported[0] = done
                anyio.from_thread.run(ctx.report_progress, done, total)

        request = _Request(
            action=action,
            backup_id=backup_id,
            file_path=file_path,
            limit=limit or (50 if action in ("list_trash", "purge_trash") else 20),  # the seed's defaults
            filter_path=filter_path,
            filter_operation=filter_operation,
            newer_than_hours=newer_than_hours,
            older_than_days=older_than_days,
            sweep_age=services.settings.sweep_age_days if older_than_days is None else older_than_days,
            sd_id=sd_id,
            dry_run=dry_run,
            preview=preview,
            force=force,
            expected_hash=expected_hash,
            progress=progress,
        )
        return voiced(_HANDLERS[action](services, request), backup_text, catalog.compact)

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


@dataclass(frozen=True)
class _Request:
    """One call's arguments, as every handler gets them; ``sweep_age`` is older_than_days with its default, and
    ``progress`` reports how far a cleanup or purge is (done, of all), raising once the call is cancelled."""

    action: BackupAction
    backup_id: str | None
    file_path: str | None
    limit: int
    filter_path: str | None
    filter_operation: str | None
    newer_than_hours: float | None
    older_than_days: float | None
    sweep_age: float
    sd_id: str | None
    dry_run: bool | None
    preview: bool
    force: bool
    expected_hash: str | None
    progress: Callable[[int, int], None]


def _list(services: Services, request: _Request) -> BackupResult:
    path = None if request.file_path is None else services.policy.resolve(request.file_path)
    shown = services.policy.shows
    wanted = BackupFilter(path, request.filter_path, request.filter_operation, request.newer_than_hours, shown)
    page = list_backups(services.backups, wanted, request.limit)
    groups = list_groups(services.groups, wanted, request.limit)
    return BackupResult(
        action=request.action,
        message="",
        backups=[backup_info(r) for r in page.shown],
        total=page.total,
        groups=[group_entry(group, shown) for group in groups.shown],
        groups_total=groups.total,
    )


def _show(services: Services, request: _Request) -> BackupResult:
    backup_id = _need(request.backup_id, "backup_id", request.action)
    if group := services.groups.find(backup_id):
        return BackupResult(action=request.action, message="", group=group_info(group, services.policy.shows))
    record = services.backups.get(backup_id)
    # its path, size and hash are the file's: hidden too, outside this call's roots as behind a rule
    services.policy.check_not_denied(services.policy.resolve(record.path, stored=True))
    return BackupResult(action=request.action, message="", backup=backup_info(record))


def _compare(services: Services, request: _Request) -> BackupResult:
    backup_id = _need(request.backup_id, "backup_id", request.action)
    if group := services.groups.find(backup_id):
        diffs = [
            services.restorer.diff(services.backups.get(change.backup_id, Path(change.path)), towards_backup=False)
            for change in group.changes
            if change.backup_id and change.shown(services.policy.shows)
        ]
        diff = "\n".join(diffs) or "(no file of this group has saved bytes to compare with)"
        return BackupResult(
            action=request.action, message="", group=group_info(group, services.policy.shows), diff=diff
        )
    record = services.backups.get(backup_id)
    diff = services.restorer.diff(record, towards_backup=False)
    return BackupResult(action=request.action, message="", backup=backup_info(record), diff=diff)


def _cleanup(services: Services, request: _Request) -> BackupResult:
    sweep = clean_backups(
        services.backups,
        request.sweep_age,
        dry_run=request.dry_run is not False,
        limit=request.limit,
        shown=services.policy.shows,
        progress=request.progress,
    )
    return BackupResult(
        action=request.action,
        message="",
        backups=[backup_info(r) for r in sweep.shown],
        removed=sweep.removed,
        freed_bytes=sweep.freed_bytes,
        held_bytes=sweep.held_bytes or None,
        dry_run=sweep.dry_run,
        newer=sweep.younger or None,
        older_than_days=request.sweep_age,
    )


def _undo_chain(services: Services, request: _Request) -> BackupResult:
    # the whole chain, to count it: a journal's records are in memory, and retention keeps a chain short
    chain = services.backups.chain(
        services.restorer.chained(_need(request.file_path, "file_path", request.action)), None
    )
    return BackupResult(
        action=request.action,
        message="",
        backups=[backup_info(r) for r in chain[: request.limit]],
        total=len(chain),
        head_backup_id=chain[0].backup_id if chain else None,
    )


def _undo_last(services: Services, request: _Request) -> BackupResult:
    if request.file_path is None and not services.backups.records():
        # the seed's undo_last without a file, on a server with no backup at all: say that first
        raise InvalidParamsError(
            "No backups found. Nothing to undo. (Once there are, file_path is required for undo_last action, e.g. "
            'file_path="src/app.py".)',
            param="file_path",
        )
    report = services.restorer.undo_last(
        _need(request.file_path, "file_path", request.action),
        force=request.force,
        dry_run=bool(request.dry_run) or request.preview,
    )
    return restored(request.action, report, services.restorer.diff(report.restored_from) if request.preview else None)


def _restore(services: Services, request: _Request) -> BackupResult:
    backup_id = _need(request.backup_id, "backup_id", request.action)
    if group := services.groups.find(backup_id):
        return _restore_group(services, request, group)
    report = services.restorer.restore(
        backup_id,
        file_path=request.file_path,
        force=request.force,
        dry_run=bool(request.dry_run) or request.preview,
        expected_hash=request.expected_hash,
    )
    return restored(request.action, report, services.restorer.diff(report.restored_from) if request.preview else None)


def _restore_group(services: Services, request: _Request, group: Group) -> BackupResult:
    """Revert every change of a group, newest first; a conflict anywhere reverts nothing (unless force)."""
    if request.file_path is not None or request.expected_hash is not None:
        raise InvalidParamsError(
            f"{group.group_id} is a group of {plural(len(group.changes), 'change')}: restore it whole, without "
            "file_path or expected_hash, or restore one file's backup_id from backup(action='info').",
            backup_id=group.group_id,
        )
    dry_run = bool(request.dry_run) or request.preview
    done = services.reverter.restore(group, services.groups, force=request.force, dry_run=dry_run)
    return BackupResult(
        action=request.action,
        message="",
        group=group_info(group, services.policy.shows),
        reverted=[reverted_info(o) for o in done.outcomes if not o.hidden],  # counted in group.hidden
        safety_backup_id=done.undo_group.group_id if done.undo_group else None,
        dry_run=dry_run,
    )


def _list_trash(services: Services, request: _Request) -> BackupResult:
    page = list_trash(
        services.trash,
        path_contains=request.filter_path,
        older_than_days=request.older_than_days,
        limit=request.limit,
        shown=services.policy.shows,
    )
    return BackupResult(action=request.action, message="", trash=[trash_info(e) for e in page.shown], total=page.total)


def _restore_trash(services: Services, request: _Request) -> BackupResult:
    sd_id = request.sd_id
    if sd_id is None and (request.backup_id or "").startswith("sd-"):
        sd_id = request.backup_id  # the seed's skill file documented restore_trash with backup_id (catalog §7)
    entry = services.deleter.restore_from_trash(_need(sd_id, "sd_id", request.action))
    return BackupResult(action=request.action, message="", trash=[trash_info(entry)])


def _purge_trash(services: Services, request: _Request) -> BackupResult:
    sweep = purge_trash(
        services.trash,
        sd_id=request.sd_id,
        older_than_days=request.sweep_age,
        dry_run=request.dry_run is not False,
        limit=request.limit,
        shown=services.policy.shows,
        progress=request.progress,
    )
    return BackupResult(
        action=request.action,
        message="",
        trash=[trash_info(e) for e in sweep.shown],
        removed=sweep.removed,
        freed_bytes=sweep.freed_bytes,
        dry_run=sweep.dry_run,
        not_purged=list(sweep.failed) or None,
        newer=sweep.younger or None,
        older_than_days=None if request.sd_id else request.sweep_age,
    )


_HANDLERS: dict[BackupAction, Callable[[Services, _Request], BackupResult]] = {
    "list": _list,
    "info": _show,
    "compare": _compare,
    "cleanup": _cleanup,
    "restore": _restore,
    "undo_last": _undo_last,
    "undo_chain": _undo_chain,
    "list_trash": _list_trash,
    "restore_trash": _restore_trash,
    "purge_trash": _purge_trash,
}
assert set(_HANDLERS) == set(get_args(BackupAction)), "every backup action needs its handler"


_EXAMPLES = {
    "backup_id": 'backup_id="20261130-101010-0123456789abcdef" (ids: backup(action="list"))',
    "file_path": 'file_path="src/app.py"',
    "sd_id": 'sd_id="sd-20261130-101010-0123456789abcdef" (ids: backup(action="list_trash"))',
}


def _need(value: str | None, name: str, action: BackupAction) -> str:
    if value is None:
        # the seed's words: "backup_id is required: …", "file_path is required for undo_chain action"
        head = f"{name} is required for {action} action"
        if name == "backup_id":
            head = f"{name} is required: backup(action={action!r}) needs it"
        raise InvalidParamsError(f"{head}, e.g. {_EXAMPLES[name]}.", param=name)
    return value
