"""The result of batch_operations: one model for its three forms (operations, pipeline, rename).

Which lists are present says which form ran: ``operations`` (request_json), ``steps`` (pipeline_json) or
``renames`` (rename_json). ``backup_id`` is always a group id: backup(action="restore") with it reverts
everything the call changed.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from fsguard.models.base import Result
from fsguard.models.wire import PATH_KEYS

BatchForm = Literal["operations", "pipeline", "rename"]


class OperationResult(Result):
    """One operation of a request_json batch."""

    index: int = Field(description="Position in the operations array, from 0.")
    type: str = Field(description="write, edit, search_and_replace, copy, move, delete, create_dir or extract.")
    path: str | None = Field(None, description="The file or directory (the source of copy, move, extract).")
    destination: str | None = Field(None, description="copy, move and extract: where it went.")
    status: Literal["ok", "failed", "skipped", "valid"] = Field(
        description="valid: validate_only passed it; skipped: not run because an earlier operation failed."
    )
    bytes_affected: int | None = Field(
        None,
        description="Bytes of the file after write/edit/search_and_replace; bytes copied, moved, deleted, "
        "or extracted (the lines, in the source's encoding).",
    )
    replacements: int | None = Field(None, description="edit, search_and_replace: occurrences replaced.")
    backup_id: str | None = Field(
        None, description="Backup of the file before this operation (extract: of the source; delete permanent)."
    )
    sd_id: str | None = Field(None, description="delete (soft): the trash entry; backup(action='restore_trash').")
    content_hash: str | None = Field(None, description="Hash of the file after this operation.")
    external_change: str | None = Field(None, description="The file changed on disk since this session saw it.")
    notes: list[str] | None = Field(
        None, description="write, edit: what the write and the hooks said (another hard link keeping the old bytes)."
    )
    denied: int | None = Field(
        None,
        description="copy of a directory: files inside it a deny rule hides (secrets, --deny): not copied, and never "
        "named.",
    )
    error: str | None = None
    error_code: str | None = None


class NotSearched(Result):
    """search: what the step's walk left out under its path, named as search_files names it (relative to that
    path; a directory ends in /; each list holds the first 10)."""

    default_skipped: int | None = Field(
        None,
        description="Dependency, cache and build directories and minified files; params.include_dependencies=true "
        "searches them.",
    )
    default_skipped_paths: list[str] | None = None
    skipped_too_large: int | None = Field(None, description="Files above --max-file-size (the server's setting).")
    skipped_too_large_paths: list[str] | None = None
    skipped_binary: int | None = Field(None, description="Binary files (a NUL byte) whose bytes hold the pattern.")
    skipped_binary_paths: list[str] | None = None
    skipped_unreadable: int | None = Field(
        None, description="Directories the server's user may not list or enter and files it may not read."
    )
    skipped_unreadable_paths: list[str] | None = None
    skipped_by_hook: int | None = Field(
        None, description="Files a pre-search or pre-read hook given by a path glob denied: left out of the results."
    )
    skipped_by_hook_paths: list[str] | None = None


class StepResult(Result):
    """One step of a pipeline."""

    index: int = Field(description="Position in the steps array, from 1.")
    id: str
    action: str
    status: Literal["ok", "failed", "skipped", "planned"] = Field(
        description="skipped: its condition was false, or an earlier failure stopped a dry run (see skip_reason); "
        "planned: a writing step in a dry run."
    )
    skip_reason: str | None = None
    files: list[str] = Field(default_factory=list, description="Files the step produced or acted on.")
    file_counts: Annotated[dict[str, int], PATH_KEYS] | None = Field(
        None, description="search, count_occurrences, edits: matches, occurrences or edits per file."
    )
    count: int | None = Field(None, description="Matches, occurrences or changes counted by the step.")
    edits: int | None = Field(None, description="Replacements the step made (or would make).")
    risk_level: str | None = Field(None, description="Writing steps: LOW, MEDIUM, HIGH or CRITICAL.")
    content: str | None = Field(None, description="read_ranges, aggregate, diff: the text produced.")
    not_searched: NotSearched | None = Field(
        None, description="search: files under its path it did not search, and why; absent when it searched all."
    )
    unforeseen: str | None = Field(
        None,
        description="dry run: what the step's plan could not take from the earlier steps' planned changes (files "
        "they would put under a searched directory); the real run may differ there.",
    )
    external_change: str | None = Field(
        None, description="Writing steps: the files it changed that changed on disk since this session saw them."
    )
    notes: list[str] | None = Field(
        None, description="Writing steps: what the writes and the hooks said (another hard link keeping old bytes)."
    )
    denied: int | None = Field(
        None,
        description="copy: files inside the directories it copied that a deny rule hides (secrets, --deny): not "
        "copied, and never named.",
    )
    error: str | None = None
    error_code: str | None = None
    duration_ms: float | None = None
    level: int | None = Field(None, description="parallel: the level it ran in; the steps of a level run together.")


class RenameEntry(Result):
    """One rename of a rename set (a failed set is an error result: its renames were moved back)."""

    source: str
    destination: str
    status: Literal["planned", "renamed", "conflict"] = Field(
        description="planned: preview; conflict: this rename is part of a conflict, so the set cannot run."
    )


class RenameConflict(Result):
    """A target name that two renames share, that already exists, or that is not a valid name: the set is refused."""

    kind: Literal["same_target", "target_exists", "invalid_name"]
    destination: str
    sources: list[str]
    reason: str


class BatchResult(Result):
    """What batch_operations did or would do."""

    form: BatchForm
    status: Literal["applied", "validated", "preview", "dry_run", "partial"] = Field(
        description="partial: non-atomic run where some operations failed (see each one's error)."
    )
    message: str = Field(description="Same text as the text block.")
    backup_id: str | None = Field(
        None, description="Group id: backup(action='restore', backup_id=...) reverts everything this call changed."
    )
    completed: int = Field(description="Operations, steps or renames that succeeded (or would).")
    failed: int = 0
    operations: list[OperationResult] | None = None
    name: str | None = Field(None, description="pipeline: its name.")
    steps: list[StepResult] | None = None
    files_affected: int | None = None
    total_edits: int | None = None
    risk_level: str | None = None
    renames: list[RenameEntry] | None = None
    conflicts: list[RenameConflict] | None = None
