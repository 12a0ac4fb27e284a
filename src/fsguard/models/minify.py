"""Result of minify_js."""

from __future__ import annotations

from pydantic import Field

from fsguard.models.base import Result


class MinifyResult(Result):
    """What minify_js returns (seed: path, output_path, bytes_before, bytes_after, saved_percent, backup_id)."""

    path: str = Field(description="Absolute canonical path of the JavaScript file read.")
    output_path: str = Field(description="Absolute canonical path written (the same as path when in place).")
    bytes_before: int = Field(description="Size of the input in bytes.")
    bytes_after: int = Field(description="Size of the minified output in bytes.")
    saved_percent: float = Field(description="(bytes_before - bytes_after) / bytes_before * 100, one decimal.")
    backup_id: str | None = Field(None, description="Backup of the bytes replaced in place; undo with undo_last.")
    parent_backup_id: str | None = Field(None, description="Previous step of this file's undo chain.")
    dry_run: bool = Field(False, description="True when nothing was written.")
    unchanged: bool = Field(False, description="True when the file was already minified; nothing was written.")
    preview: str | None = Field(None, description="Dry run: the first 500 characters of the minified output.")
    content_hash: str | None = Field(None, description="FNV-1a 32 of the file written (absent in a dry run).")
    previous_hash: str = Field(description="FNV-1a 32 of the input as read: the expected_hash for a later call.")
    kept_bang_comments: bool = Field(
        False, description="True when remove_comments=false: /*! */ comments were kept (no other comment is)."
    )
    structure_warning: str | None = Field(
        None,
        description="A syntax error the input has (a truncated or malformed file), so its output is broken with "
        "it; parsed by tree-sitter. An output that breaks a clean input is refused instead.",
    )
    external_change: str | None = Field(None, description="The input changed on disk since this session saw it.")
    notes: list[str] | None = Field(
        None, description="What the write and the hooks said (another hard link keeping the old bytes)."
    )
    message: str = Field(description="Same text as the text block.")
