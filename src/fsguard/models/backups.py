"""Results of the backup tool."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fsguard.models.base import Result

BackupAction = Literal[
    "list",
    "info",
    "compare",
    "cleanup",
    "restore",
    "undo_last",
    "undo_chain",
    "list_trash",
    "restore_trash",
    "purge_trash",
]


class TrashInfo(Result):
    """One soft-deleted file or directory."""

    sd_id: str = Field(description="Trash id: restore with backup(action='restore_trash', sd_id=...).")
    original_path: str
    kind: Literal["file", "directory"]
    size: int = Field(description="Bytes of content.")
    files: int = Field(description="Files inside (1 for a file).")
    sha256: str | None = Field(
        None,
        description="SHA-256 of the content (for a directory: of its paths and contents); absent when a file in it "
        "could not be read by the server's user (it went to the trash unread, as a rename).",
    )
    time: str = Field(description="When it was deleted, ISO 8601 UTC.")


class BackupInfo(Result):
    """One backup: the bytes one file held before an operation."""

    backup_id: str
    time: str = Field(description="When it was taken, ISO 8601 UTC.")
    operation: str = Field(description="The operation it protects against (edit_file, write_file, restore …).")
    files: list[str] = Field(description="Canonical path of the file saved.")
    size: int = Field(description="Bytes saved.")
    content_hash: str = Field(description="Hash of the saved bytes: what the file holds after restoring it.")
    after_hash: str | None = Field(None, description="Hash the operation left the file with.")
    parent_backup_id: str | None = Field(None, description="Previous step of the file's undo chain.")
    in_chain: bool = Field(description="False for safety snapshots taken before an undo.")


class RestoredFile(Result):
    """A file put back."""

    path: str
    content_hash: str = Field(description="Hash of the file now.")
    previous_hash: str | None = Field(None, description="Hash it had before (absent when it did not exist).")
    verified: bool = Field(description="Read back and matching the backup.")
    safety_backup_id: str | None = Field(None, description="Backup of the bytes just replaced: restore it to redo.")
    changed_since: bool = Field(
        False,
        description="The file had changed after the operation this backup reverts (or was missing); a restore "
        "still goes ahead, its bytes are in safety_backup_id.",
    )
    needs_force: bool = Field(
        False, description="Dry run of undo_last: a real run is refused (undo_conflict) unless force=true."
    )
    undo: str | None = Field(None, description="The call that takes this restore or undo back.")
    notes: list[str] | None = Field(
        None, description="What the write and the hooks said (another hard link keeping the old bytes)."
    )


ChangeKind = Literal["modified", "created", "created_dir", "moved", "copied", "trashed", "deleted", "deleted_dir"]
Interruption = Literal["rolled_back", "kept"]
_INTERRUPTED = (
    "Set when the server stopped (killed, crashed) while the call ran, as the next start found it. rolled_back: the "
    "call was atomic and was rolled back then (rolled_back lists the paths put back; the changes listed are those "
    "left because their files changed since). kept: it was not atomic; its changes stay, and restoring the group "
    "undoes them."
)


class ChangeInfo(Result):
    """One change of a group: what was done to which path, and what undoes it."""

    kind: ChangeKind
    path: str = Field(description="Where the change is: the file written, the destination, or what was removed.")
    source: str | None = Field(None, description="moved: where it came from.")
    backup_id: str | None = Field(None, description="The bytes before (modified, deleted).")
    sd_id: str | None = Field(None, description="trashed: the trash entry.")


class GroupInfo(Result):
    """A change group: everything one batch, pipeline, rename set or project_replace changed, under one id."""

    group_id: str = Field(description="Pass as backup_id to restore, info or compare: it covers every change.")
    operation: str
    time: str = Field(description="When it was recorded, ISO 8601 UTC.")
    files: list[str] = Field(description="Every path it touched that this server may name.")
    changes: list[ChangeInfo]
    hidden: int = Field(0, description="Changes left out: outside this server's roots, or hidden by a deny rule.")
    interrupted: Interruption | None = Field(None, description=_INTERRUPTED)
    rolled_back: list[str] | None = Field(None, description="interrupted: the paths the next start put back.")


class GroupEntry(Result):
    """A change group as a listing shows it: its id, and the files it touched."""

    group_id: str = Field(description="Pass as backup_id to restore, info or compare: it covers every change.")
    operation: str
    time: str = Field(description="When it was recorded, ISO 8601 UTC.")
    file_count: int = Field(description="Paths it touched that this server may name.")
    files: list[str] = Field(description="The first of those paths (info lists every change).")
    interrupted: Interruption | None = Field(None, description=_INTERRUPTED)


class RevertedChange(Result):
    """What reverting one change did (a group restore, or a failed batch's rollback)."""

    kind: ChangeKind
    path: str
    source: str | None = None
    status: Literal["reverted", "already", "kept", "failed"] = Field(
        description="already: nothing to undo; kept: left in place on purpose (see detail)."
    )
    detail: str | None = None
    error_code: str | None = None
    safety_backup_id: str | None = Field(
        None, description="Backup of the bytes this revert replaced or removed: restore it to take this file back."
    )
    undo: str | None = Field(None, description="The call that takes this file's revert back.")


class BackupResult(Result):
    """What the backup tool returns, by action."""

    action: BackupAction
    message: str = Field(description="Same text as the text block.")
    backups: list[BackupInfo] | None = Field(None, description="list, cleanup and undo_chain (newest first).")
    backup: BackupInfo | None = Field(None, description="info, compare, restore and undo_last: the backup used.")
    diff: str | None = Field(None, description="compare: unified diff from the backup to the current file.")
    restored: list[RestoredFile] | None = Field(None, description="restore and undo_last.")
    head_backup_id: str | None = Field(None, description="The file's undo chain head after the action.")
    dry_run: bool | None = None
    removed: int | None = Field(None, description="cleanup: backups removed (or that would be).")
    freed_bytes: int | None = Field(
        None,
        description="cleanup: bytes the backup store shrank by (a dry run: about what it would); purge_trash: bytes "
        "freed.",
    )
    held_bytes: int | None = Field(
        None,
        description="cleanup: about the bytes of removed backups still on disk, in journals the full state "
        "directory had no room to rewrite; a cleanup run once there is room frees them.",
    )
    total: int | None = Field(
        None, description="list/list_trash: entries matching the filters; undo_chain: steps in the chain."
    )
    newer: int | None = Field(
        None,
        description="cleanup/purge_trash that removed none: the backups (trash entries) there are, all newer than "
        "older_than_days.",
    )
    older_than_days: float | None = Field(None, description="cleanup/purge_trash: the age used.")
    trash: list[TrashInfo] | None = Field(None, description="list_trash, purge_trash and restore_trash entries.")
    not_purged: list[str] | None = Field(
        None,
        description="purge_trash: entries that could not be removed, as 'sd-id: why'; what is left of each stays "
        "in the trash.",
    )
    groups: list[GroupEntry] | None = Field(
        None,
        description="list: the change groups (batch_operations, pipelines, rename sets, project_replace) the filters "
        "admit, newest first, at most limit of them.",
    )
    groups_total: int | None = Field(None, description="list: change groups matching the filters.")
    group: GroupInfo | None = Field(None, description="info/compare/restore of a group id: its changes.")
    reverted: list[RevertedChange] | None = Field(None, description="restore of a group id, newest change first.")
    safety_backup_id: str | None = Field(
        None,
        description="restore of a group id: a group id of its own for what the restore replaced; restoring it "
        "(backup_id=...) undoes the whole restore.",
    )
