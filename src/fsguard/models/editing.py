"""Results of write_file, edit_file and multi_edit (the seed's schemas, every field kept, plus additions)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from fsguard.models.base import Result

RiskLevelName = Literal["LOW", "MEDIUM", "HIGH", "CRITICAL"]
IntegrityStatus = Literal["OK", "WARNING", "ERROR"]


class WriteFileResult(Result):
    """What write_file returns (seed required: path, bytes_written, verified, message)."""

    path: str = Field(description="Absolute canonical path written.")
    bytes_written: int = Field(description="Size of the file on disk after the write.")
    verified: bool = Field(description="The file was read back and its hash matches what was written.")
    content_hash: str | None = Field(None, description="FNV-1a 32 of the file now: the next expected_hash.")
    backup_id: str | None = Field(None, description="Backup of the replaced bytes (existing files only).")
    feedback: str | None = Field(
        None, description="Guard notes (truncation, inflation), how to undo, and what the hooks said."
    )
    message: str = Field(description="Same text as the text block.")
    created: bool = Field(False, description="True when the file did not exist before.")
    unchanged: bool = Field(False, description="True when the content was already exactly this; nothing written.")
    previous_hash: str | None = Field(None, description="Hash of the replaced bytes.")
    parent_backup_id: str | None = Field(None, description="Previous step of this file's undo chain.")
    encoding: str | None = Field(None, description="Encoding written (binary for base64 content).")
    external_change: str | None = Field(None, description="The file changed on disk since this session saw it.")
    appended: bool | None = Field(
        None, description="True for append=true: the text was added at the end (false when a hook rewrote it)."
    )
    bytes_appended: int | None = Field(None, description="Bytes the append added, in the file's encoding.")
    line_break_added: bool | None = Field(
        None, description="The file's last line had no line break, so the appended text was put on a new line."
    )
    rewritten_by_hook: bool | None = Field(
        None,
        description="append=true: a pre-write hook's modified_content became the whole file, so content was not "
        "appended as sent (the hook saw the file with it appended, and answered the file).",
    )


class EditOutcomeFields(Result):
    """What every edit reports, whatever the tool: the fields edit_file and multi_edit share."""

    path: str = Field(description="Absolute canonical path edited.")
    content_hash: str | None = Field(None, description="Hash after the edit (current hash in a dry run).")
    backup_id: str | None = Field(None, description="Backup of the bytes before the edit; undo with undo_last.")
    parent_backup_id: str | None = Field(None, description="Previous step of this file's undo chain.")
    risk_warning: str | None = Field(None, description="Informational note for larger edits.")
    structure_warning: str | None = Field(None, description="A syntax problem this edit introduced.")
    integrity: IntegrityStatus | None = Field(None, description="Read-back check of HIGH/CRITICAL edits.")
    integrity_detail: str | None = Field(None, description="CRC-32, lines and bytes of the read-back check.")
    external_change: str | None = Field(None, description="The file changed on disk since this session saw it.")
    message: str = Field(description="Same text as the text block.")
    mode: str = Field("replace", description="Edit mode used (multi_edit for multi_edit).")
    risk_level: RiskLevelName = Field("LOW", description="LOW, MEDIUM, HIGH or CRITICAL.")
    match_tier: str | None = Field(None, description="Matching tier that placed old_text (exact, indentation …).")
    line: int | None = Field(None, description="First line changed.")
    diff: str | None = Field(None, description="Diff in the requested diff_format.")
    dry_run: bool = Field(False, description="True when nothing was written.")
    previous_hash: str | None = Field(None, description="Hash before the edit.")
    feedback: str | None = Field(None, description="Hints such as STALE_READ.")
    notes: list[str] | None = Field(
        None,
        description="What the seed's optional flags (force, create_backup) did here (fsguard always backs up), and "
        "what the hooks said.",
    )


class EditFileResult(EditOutcomeFields):
    """What edit_file returns (seed required: path, replacements, lines_added, lines_removed, total_lines, message)."""

    replacements: int = Field(description="Places changed (or that would change, in a dry run).")
    lines_added: int = Field(description="Lines added, from a real diff.")
    lines_removed: int = Field(description="Lines removed, from a real diff.")
    total_lines: int = Field(description="Lines in the file after the edit.")


class EditStatus(Result):
    """One edit of a multi_edit."""

    index: int = Field(description="1-based position in edits.")
    status: Literal["applied", "already_present", "failed", "ambiguous"]
    match_tier: str | None = None
    line: int | None = Field(None, description="Line where it applied.")
    error: str | None = None


class MultiEditResult(EditOutcomeFields):
    """What multi_edit returns (seed required: path, successful_edits, total_edits, message)."""

    successful_edits: int = Field(description="Edits applied.")
    total_edits: int = Field(description="Edits given.")
    lines_added: int | None = Field(None, description="Lines added, from a real diff.")
    lines_removed: int | None = Field(None, description="Lines removed, from a real diff.")
    total_lines: int | None = Field(None, description="Lines in the file after the edits.")
    edits: list[EditStatus] = Field(default_factory=list, description="Status of every edit.")
    skipped_edits: int = Field(0, description="Edits already present (subsumed by an earlier edit).")
