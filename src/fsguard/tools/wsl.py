"""wsl: WSL status, syncs between the Linux and Windows sides, and autosync after writes."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.errors import InvalidParamsError
from fsguard.core.wsl import AutoSync, AutoSyncConfig, SyncRequest, WslIntegration
from fsguard.core.wslsync import SyncedFile, SyncOptions, SyncReport
from fsguard.models import AutoSyncInfo, SkippedInfo, SyncedFileInfo, SyncErrorInfo, WslAction, WslDirection, WslResult
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, voiced
from fsguard.voice import wsl_text


def register(catalog: Catalog) -> None:
    """Add wsl to the catalog."""
    engine = catalog.services.wsl

    @bridge
    def wsl(
        # The seed defaulted to sync, a surprising default for a call that writes files: status is the safe one.
        action: Annotated[WslAction, Field(description="What to do (default status).")] = "status",
        wsl_path: Annotated[
            str | None, Field(description="sync: the Linux side, e.g. ~/claude/notes.md (file or folder).")
        ] = None,
        windows_path: Annotated[
            str | None, Field(description="sync: the Windows side, e.g. C:\\Users\\me\\claude\\notes.md.")
        ] = None,
        direction: Annotated[
            WslDirection | None,
            Field(
                description="sync: which way. Alone, it syncs the standard folders ~/claude and ~/projects with "
                "the Windows home's. With one path, the other is derived; default: from the path given."
            ),
        ] = None,
        create_dirs: Annotated[bool, Field(description="sync: create missing destination folders.")] = True,
        filter_pattern: Annotated[
            str | None, Field(description="sync: only files whose name matches this glob, e.g. *.md.")
        ] = None,
        dry_run: Annotated[bool, Field(description="sync: report what would be copied; write nothing.")] = False,
        enabled: Annotated[
            bool | None, Field(description="autosync_config: turn autosync on or off (required).")
        ] = None,
        sync_on_write: Annotated[bool, Field(description="autosync_config: after write_file.")] = True,
        sync_on_edit: Annotated[bool, Field(description="autosync_config: after edit_file and multi_edit.")] = True,
        silent: Annotated[bool, Field(description="autosync_config: accepted and saved; autosync is quiet.")] = False,
    ) -> Annotated[CallToolResult, WslResult]:
        """On WSL, copy or sync files between the Linux and Windows sides; other tools act on one side.

        sync copies a file or folder (only files whose bytes differ); a Windows file it replaces is
        backed up first (undo: backup(action="undo_last", file_path=...)). Both sides must be inside the roots.
        C:\\x is <mount root>/c/x. autosync_config(enabled=true) copies every file written or edited
        under the WSL home to the same place under the Windows home. Outside WSL, status says why and
        the other actions refuse (wsl_unavailable).
        """
        if action == "status":
            return voiced(_status(engine), wsl_text, catalog.compact)
        engine.layout.require()
        if action == "sync":
            options = SyncOptions(create_dirs=create_dirs, filter_pattern=filter_pattern or None, dry_run=dry_run)
            done, report = engine.sync(SyncRequest(wsl_path, windows_path, direction, options))
            return voiced(_synced(done, report), wsl_text, catalog.compact)
        if action == "autosync_config":
            if enabled is None:
                raise InvalidParamsError(
                    "enabled parameter is required for autosync_config. "
                    'Example: wsl(action="autosync_config", enabled=true).'
                )
            engine.autosync.configure(AutoSyncConfig(enabled, sync_on_write, sync_on_edit, silent))
        fields = _autosync_info(engine.autosync).model_dump()
        return voiced(WslResult(action=action, message="", **fields), wsl_text, catalog.compact)

    catalog.add(
        wsl,
        hints("WSL Integration", read_only=False, destructive=True, idempotent=True),
        [
            ("is this WSL, where are the homes", {"action": "status"}),
            ("copy a file to Windows", {"action": "sync", "wsl_path": "~/claude/notes.md"}),
            (
                "copy a Windows folder into WSL, Markdown only",
                {"action": "sync", "windows_path": "C:\\Users\\me\\projects\\site", "filter_pattern": "*.md"},
            ),
            (
                "preview syncing the standard folders",
                {"action": "sync", "direction": "wsl_to_windows", "dry_run": True},
            ),
            ("turn autosync on", {"action": "autosync_config", "enabled": True}),
            ("autosync settings and counts", {"action": "autosync_status"}),
        ],
    )


def _status(engine: WslIntegration) -> WslResult:
    layout = engine.layout
    detection = layout.detection
    return WslResult(
        action="status",
        message="",
        is_wsl=detection.is_wsl,
        detection=detection.reason,
        distro=detection.distro,
        interop=detection.interop,
        mount_root=str(layout.mount_root),
        wsl_home=str(layout.home),
        windows_home=layout.windows_spelling(layout.windows_home) if layout.windows_home else None,
        windows_home_path=str(layout.windows_home) if layout.windows_home else None,
        autosync=_autosync_info(engine.autosync),
    )


def _autosync_info(autosync: AutoSync) -> AutoSyncInfo:
    config = autosync.config
    return AutoSyncInfo(
        enabled=autosync.enabled,
        sync_on_write=config.sync_on_write,
        sync_on_edit=config.sync_on_edit,
        silent=config.silent,
        forced=autosync.forced,
        config_path=str(autosync.path),
        synced=autosync.synced,
        failed=autosync.failed,
        last_error=autosync.last_error,
    )


def _synced(direction: WslDirection, report: SyncReport) -> WslResult:
    return WslResult(
        action="sync",
        message="",
        direction=direction,
        dry_run=report.dry_run,
        files_synced=report.files_synced,
        files_unchanged=report.unchanged,
        files=[_file(f) for f in report.files],
        skipped=[SkippedInfo(path=path, reason=reason) for path, reason in report.skipped],
        denied=report.denied or None,
        errors=[SyncErrorInfo(path=e.path, error=e.error, code=e.code) for e in report.errors],
        truncated=report.truncated,
    )


def _file(done: SyncedFile) -> SyncedFileInfo:
    assert done.status != "unchanged"  # counted, not listed (SyncReport.add)
    return SyncedFileInfo(
        source=str(done.source),
        destination=str(done.destination),
        bytes=done.size,
        status=done.status,
        backup_id=done.backup_id,
    )
