"""The operations of a request_json batch, each through the engine its single-file tool uses.

edit and search_and_replace go through edit_file's editor (the matching ladder, unique-or-error, the file's
encoding, BOM and line endings kept), write through write_file's writer, copy and move through the mover,
delete through the deleter (soft by default: the trash), create_dir through create_directory's maker,
extract and write-with-append through :mod:`fsguard.core.extraction`. So each gets the same path policy,
fd pinning, locks, OCC, hooks and backups as the single-file tools. Every change is logged, in order, in
the :class:`ChangeLog` it is given, including the directories created on the way to a new path.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.batchplan import BatchOperation
from fsguard.core.beneath import lstat_at
from fsguard.core.deletion import Deleter
from fsguard.core.directories import DirectoryMaker
from fsguard.core.editing import EditOptions, Editor
from fsguard.core.errors import FsguardError
from fsguard.core.extraction import append_text, extract_lines
from fsguard.core.groups import Change, ChangeLog, logging_made_dirs
from fsguard.core.modes import Planner, must_match
from fsguard.core.moving import Mover
from fsguard.core.occ import OccVerdict
from fsguard.core.requests import EditRequest, planner_for
from fsguard.core.reverting import Reverter
from fsguard.core.safeguards import Safeguards
from fsguard.core.writing import FileWriter

TOOL = "batch_operations"
OperationStatus = Literal["ok", "failed", "skipped", "valid"]


@dataclass(frozen=True, kw_only=True)
class OperationOutcome:
    """What one operation did; paths are canonical."""

    index: int
    type: str
    status: OperationStatus
    path: str | None = None
    destination: str | None = None
    bytes_affected: int | None = None
    replacements: int | None = None
    backup_id: str | None = None
    sd_id: str | None = None
    content_hash: str | None = None
    denied: int | None = None  # copy: files inside a deny rule hides, left behind as copy_file leaves them
    error: str | None = None
    error_code: str | None = None
    verdict: OccVerdict | None = None  # the file changed on disk since this session saw it (--auto-occ warn)
    notes: tuple[str, ...] = ()  # what the write and the hooks told the agent (Mutation.hook_notes)


def edit_planner(op: BatchOperation) -> Planner:
    """The planner of an edit or search_and_replace operation: the run's, and validate_only's (core/batchtexts.py).

    Raises:
        InvalidParamsError: the operation's fields do not make an edit.
    """
    if op.type == "edit":
        request = EditRequest(
            old_text=op.old_text,
            new_text=op.new_text,
            replace_all=op.replace_all,
            occurrence=op.occurrence,
            tolerant=None,
        )
    else:  # search_and_replace: literal, case-sensitive, every occurrence, no_match when there is none
        request = EditRequest(mode="search_replace", pattern=op.old_text, replacement=op.new_text or "")
    planner = planner_for(request, op.path)
    if op.type == "search_and_replace":
        planner = must_match(planner, f"{op.old_text!r}", op.path)
    return planner


@dataclass(frozen=True)
class Engines:
    """The single-file engines a batch runs its operations through."""

    editor: Editor
    writer: FileWriter
    mover: Mover
    deleter: Deleter
    directories: DirectoryMaker
    reverter: Reverter


class Operations:
    """Carries out one operation at a time, logging its changes."""

    def __init__(self, safeguards: Safeguards, engines: Engines) -> None:
        self._safe = safeguards
        self._engines = engines
        self._acts: dict[str, Callable[[BatchOperation, ChangeLog], OperationOutcome]] = {
            "write": self._write,
            "edit": self._edit,
            "search_and_replace": self._edit,
            "copy": self._copy,
            "move": self._move,
            "delete": self._delete,
            "create_dir": self._create_dir,
            "extract": self._extract,
        }

    def apply(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        """Run ``op``; its changes are in ``done`` even when it raises part-way.

        Raises:
            FsguardError: the engine refused or failed.
        """
        return self._acts[op.type](op, done)

    def _write(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        path = self._safe.policy.resolve(op.path)
        content = op.content or ""
        with logging_made_dirs(self._safe.beneath, done.changes):
            if op.append:
                added = append_text(self._safe, path, content, expected_hash=op.expected_hash, tool=TOOL, done=done)
                backup = added.backup.backup_id if added.backup else None
                return outcome(
                    op,
                    "ok",
                    path=path,
                    size=added.size,
                    backup_id=backup,
                    content_hash=added.content_hash,
                    verdict=added.verdict,
                    notes=added.hook_notes,
                )
            report = self._engines.writer.write(op.path, content, expected_hash=op.expected_hash, tool=TOOL)
            backup = report.backup.backup_id if report.backup else None
            if report.created:
                done.add(Change.created(report.path, report.content_hash))
            elif not report.unchanged:
                done.add(Change.modified(report.path, backup, report.content_hash))
        return outcome(
            op,
            "ok",
            path=report.path,
            size=report.bytes_written,
            backup_id=backup,
            content_hash=report.content_hash,
            verdict=report.verdict,
            notes=report.hook_notes,
        )

    def _edit(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        options = EditOptions(tool=TOOL, mode=op.type, expected_hash=op.expected_hash, allow_rewrite=op.allow_rewrite)
        report = self._engines.editor.run(op.path, edit_planner(op), options)
        backup = report.backup.backup_id if report.backup else None
        if report.content_hash != report.previous_hash:
            done.add(Change.modified(report.path, backup, report.content_hash))
        return outcome(
            op,
            "ok",
            path=report.path,
            size=self._file_size(report.path),
            replacements=report.plan.replacements,
            backup_id=backup,
            content_hash=report.content_hash,
            verdict=report.verdict,
            notes=report.hook_notes,
        )

    def _copy(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        assert op.destination is not None  # the parser requires it
        with logging_made_dirs(self._safe.beneath, done.changes):
            report = self._engines.mover.copy(op.path, op.destination, tool=TOOL, fingerprinted=True)
            done.add(Change("copied", str(report.destination), after_hash=report.fingerprint))
        size, denied = report.bytes_copied, report.denied or None
        return outcome(op, "ok", path=report.source, destination=report.destination, size=size, denied=denied)

    def _move(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        assert op.destination is not None  # the parser requires it
        size = self._file_size(self._safe.policy.resolve_entry(op.path))
        with logging_made_dirs(self._safe.beneath, done.changes):
            moved = self._engines.mover.move(
                op.path, op.destination, expected_hash=op.expected_hash, tool=TOOL, fingerprinted=True
            )
            done.add(Change("moved", str(moved.destination), source=str(moved.source), after_hash=moved.fingerprint))
        return outcome(op, "ok", path=moved.source, destination=moved.destination, size=size)

    def _delete(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        deletion = self._engines.deleter.delete(
            op.path,
            permanent=op.permanent,
            recursive=op.recursive,
            expected_hash=op.expected_hash,
            tool=TOOL,
            confirmed=op.confirmed,
            grouped=False,  # a tree's changes go into the batch's own group
        )
        if deletion.changes:
            done.extend(deletion.changes)
            return outcome(op, "ok", path=deletion.path)
        if deletion.trash is not None:
            done.add(Change("trashed", str(deletion.path), sd_id=deletion.trash.sd_id))
            return outcome(op, "ok", path=deletion.path, size=deletion.trash.size, sd_id=deletion.trash.sd_id)
        backup = deletion.backup
        done.add(Change("deleted", str(deletion.path), backup_id=backup.backup_id if backup else None))
        return outcome(
            op,
            "ok",
            path=deletion.path,
            size=backup.size if backup else None,
            backup_id=backup.backup_id if backup else None,
        )

    def _create_dir(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        with logging_made_dirs(self._safe.beneath, done.changes):
            path, _ = self._engines.directories.create(op.path, tool=TOOL)
        return outcome(op, "ok", path=path)

    def _extract(self, op: BatchOperation, done: ChangeLog) -> OperationOutcome:
        assert op.destination is not None  # the parser requires destination, start_line and end_line
        assert op.start_line is not None
        assert op.end_line is not None
        source = self._safe.policy.resolve(op.path)
        destination = self._safe.policy.resolve(op.destination)
        with logging_made_dirs(self._safe.beneath, done.changes):
            extracted = extract_lines(
                self._safe,
                source,
                destination,
                (op.start_line, op.end_line),
                append=op.append,
                expected_hash=op.expected_hash,
                tool=TOOL,
                done=done,
            )
        backup = extracted.source.backup
        return outcome(
            op,
            "ok",
            path=source,
            destination=destination,
            size=extracted.bytes_moved,
            backup_id=backup.backup_id if backup else None,
            content_hash=extracted.source.content_hash,
            verdict=extracted.verdict,
        )

    def _file_size(self, path: Path) -> int | None:
        """The size of the regular file at ``path`` (read through its pinned directory), else None."""
        try:
            with self._safe.beneath.entry(path, follow=False) as entry:
                found = lstat_at(entry)
        except FsguardError:
            return None
        return found.st_size if found is not None and stat.S_ISREG(found.st_mode) else None


def outcome(
    op: BatchOperation,
    status: OperationStatus,
    *,
    path: Path | str | None = None,
    destination: Path | str | None = None,
    size: int | None = None,
    replacements: int | None = None,
    backup_id: str | None = None,
    sd_id: str | None = None,
    content_hash: str | None = None,
    denied: int | None = None,
    error: str | None = None,
    code: str | None = None,
    verdict: OccVerdict | None = None,
    notes: tuple[str, ...] = (),
) -> OperationOutcome:
    """The outcome of ``op``, its paths as text; ``verdict`` kept when the file changed on disk meanwhile."""
    return OperationOutcome(
        index=op.index,
        type=op.type,
        status=status,
        path=str(path) if path is not None else None,
        destination=str(destination) if destination is not None else None,
        bytes_affected=size,
        replacements=replacements,
        backup_id=backup_id,
        sd_id=sd_id,
        content_hash=content_hash,
        denied=denied,
        error=error,
        error_code=code,
        verdict=verdict if verdict is not None and verdict.known_hash is not None else None,
        notes=notes,
    )
