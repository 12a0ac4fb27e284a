"""Result of the wsl tool: one model, whose fields are filled by action."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fsguard.models.base import Result

WslAction = Literal["status", "sync", "autosync_config", "autosync_status"]
WslDirection = Literal["wsl_to_windows", "windows_to_wsl"]


class AutoSyncInfo(Result):
    """Autosync's settings and what it did since the server started."""

    enabled: bool | None = Field(None, description="Whether files written under the WSL home are copied to Windows.")
    sync_on_write: bool | None = Field(None, description="Autosync after write_file (and restores).")
    sync_on_edit: bool | None = Field(None, description="Autosync after edit_file, multi_edit, project_replace.")
    silent: bool | None = Field(None, description="Saved for the seed's clients; autosync never adds text anyway.")
    forced: bool | None = Field(None, description="On by --wsl-autosync / FSGUARD_WSL_AUTOSYNC=1, whatever is saved.")
    config_path: str | None = Field(None, description="Where the settings are saved.")
    synced: int | None = Field(None, description="Files autosync copied since the server started.")
    failed: int | None = Field(None, description="Autosyncs that failed (the writes themselves succeeded).")
    last_error: str | None = Field(None, description="The latest autosync failure.")


class SyncedFileInfo(Result):
    """One file a sync copied, or would copy in a dry run."""

    source: str
    destination: str
    bytes: int
    status: Literal["created", "updated", "would_create", "would_update"]
    backup_id: str | None = Field(None, description="updated: backup of the bytes replaced (undo_last restores it).")


class SyncErrorInfo(Result):
    """A file that could not be synced; the others were."""

    path: str
    error: str
    code: str = Field(description="Stable error code, e.g. too_large.")


class SkippedInfo(Result):
    """Something a sync left alone on purpose."""

    path: str
    reason: str


class WslResult(AutoSyncInfo):
    """What the wsl tool returns; autosync_config and autosync_status fill the autosync fields at the top level."""

    action: WslAction
    message: str = Field(description="Same text as the text block.")
    is_wsl: bool | None = Field(None, description="status: whether this machine is WSL (or was told it is).")
    detection: str | None = Field(None, description="status: the evidence, or how it was forced.")
    distro: str | None = Field(None, description="status: WSL_DISTRO_NAME.")
    interop: bool | None = Field(None, description="status: whether Windows programs can be started (WSLInterop).")
    mount_root: str | None = Field(None, description="status: where the drives are mounted (C:\\ is <root>/c).")
    wsl_home: str | None = Field(None, description="status: the Linux home of the standard folders and autosync.")
    windows_home: str | None = Field(None, description="status: the Windows home, as Windows spells it.")
    windows_home_path: str | None = Field(None, description="status: the Windows home's path here.")
    autosync: AutoSyncInfo | None = Field(None, description="status: autosync settings and counts.")
    direction: WslDirection | None = Field(None, description="sync: which way files went.")
    dry_run: bool | None = Field(None, description="sync: true when nothing was written.")
    files_synced: int | None = Field(None, description="sync: files created or updated (or that would be).")
    files_unchanged: int | None = Field(None, description="sync: files already identical, left alone.")
    files: list[SyncedFileInfo] | None = Field(None, description="sync: each file created or updated.")
    skipped: list[SkippedInfo] | None = Field(None, description="sync: symlinks, special files, unreachable pairs.")
    denied: int | None = Field(
        None, description="sync: files a deny rule hides, and git's object stores and index: left behind, never named."
    )
    errors: list[SyncErrorInfo] | None = Field(None, description="sync: files that failed; the rest were synced.")
    truncated: bool | None = Field(None, description="sync: the tree walk stopped at its entry limit.")
