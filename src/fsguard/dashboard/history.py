"""A file's undo chain as the Files page shows it: each step with the diff of what that operation changed.

A step's backup holds the bytes before its operation; the bytes after are the next newer step's backup when its
hash is the recorded ``after_hash`` (nothing happened in between), or the file itself for the newest step.
An undo leaves the chain: the bytes it replaced are in an unchained ``pre_undo`` backup, shown apart as an undone step
whose Redo restores them, as the tool's answer offers ``backup(action="restore", backup_id=...)``.
Reads only: the backup store (through its API), and the file through its pinned directory.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.diff import render_diff
from fsguard.core.disk import read_at
from fsguard.core.errors import FsguardError, NotFoundError
from fsguard.core.hashing import content_hash
from fsguard.core.textio import decode
from fsguard.services import Services

CHAIN_LIMIT = 50
RECENT_FILES = 30


@dataclass(frozen=True)
class Step:
    """One operation in a file's undo chain."""

    record: BackupRecord
    diff: str
    note: str  # why the diff is not the operation's own, or ""


@dataclass(frozen=True)
class FileHistory:
    """The undo chain of one file, newest first, and the file's state now."""

    path: Path
    label: str
    steps: list[Step]
    undone: list[Step]  # the safety backups of the undos since the file's last operation, newest first; diff: the redo
    current_hash: str | None  # None: the file is missing
    changed_since: bool  # the file changed after the newest step (Undo would need force)


@dataclass(frozen=True)
class RecentFile:
    """A file with backups, for the Files page's index."""

    path: str
    time_iso: str
    operation: str
    backups: int


def file_history(services: Services, path: Path) -> FileHistory:
    """The undo chain of ``path`` (canonical, inside the roots) with one diff per step."""
    chain = services.backups.chain(path, CHAIN_LIMIT)
    now = _current(services, path)
    current_hash = None if now is None else content_hash(now)
    steps: list[Step] = []
    newer: BackupRecord | None = None
    label = services.policy.label(path)
    for record in chain:
        after, note = _after(services, record, newer, now, current_hash)
        steps.append(Step(record, _diff(services, label, path, record, after), note))
        newer = record
    changed = bool(chain) and current_hash != chain[0].after_hash
    undone = [_redo(services, label, path, record, now) for record in _undone(services, path)]
    return FileHistory(path, label, steps, undone, current_hash, changed)


def recent_files(services: Services) -> list[RecentFile]:
    """Files inside the roots that have backups, most recently changed first."""
    seen: dict[str, RecentFile] = {}
    counts: dict[str, int] = {}
    for record in services.backups.records():
        if not services.policy.shows(record.path):
            continue  # another server's roots, or a path a deny rule hides now: not this dashboard's to show
        counts[record.path] = counts.get(record.path, 0) + 1
        seen.setdefault(record.path, RecentFile(record.path, record.time_iso, record.operation, 0))
    ordered = list(seen.values())[:RECENT_FILES]
    return [RecentFile(f.path, f.time_iso, f.operation, counts[f.path]) for f in ordered]


def _after(
    services: Services, record: BackupRecord, newer: BackupRecord | None, now: bytes | None, now_hash: str | None
) -> tuple[bytes | None, str]:
    if newer is None:
        if now_hash == record.after_hash:
            return now, ""
        return now, "the file changed after this operation: the diff runs to the file as it is now"
    if newer.content_hash == record.after_hash:
        return services.backups.read_blob(newer), ""
    return services.backups.read_blob(newer), "the file changed between this step and the next"


def _undone(services: Services, path: Path) -> list[BackupRecord]:
    """The ``pre_undo`` backups of ``path`` taken after its newest operation (a restore is none: a Redo is one, and
    must leave the other undone steps redoable)."""
    undone: list[BackupRecord] = []
    for record in services.backups.records():  # newest first
        if record.path != str(path):
            continue
        if record.operation not in ("pre_undo", "restore"):
            break
        if record.operation == "pre_undo" and len(undone) < CHAIN_LIMIT:
            undone.append(record)
    return undone


def _redo(services: Services, label: str, path: Path, record: BackupRecord, now: bytes | None) -> Step:
    try:
        saved = services.backups.read_blob(record)
    except FsguardError as exc:
        return Step(record, exc.message, "")
    note = "the file holds these bytes now" if now == saved else ""
    return Step(record, _text_diff(label, path, now or b"", saved), note)


def _diff(services: Services, label: str, path: Path, record: BackupRecord, after: bytes | None) -> str:
    try:
        before = services.backups.read_blob(record)
    except FsguardError as exc:
        return exc.message
    if after is None:
        return "(the file does not exist after this step)"
    return _text_diff(label, path, before, after)


def _text_diff(label: str, path: Path, before: bytes, after: bytes) -> str:
    diff = render_diff(label, _text(before, path), _text(after, path), "full").text
    return diff or "(no change in the text)"


def _current(services: Services, path: Path) -> bytes | None:
    try:
        with services.beneath.entry(path) as entry:
            return read_at(entry, services.settings.max_file_size)[0]
    except NotFoundError:
        return None


def _text(data: bytes, path: Path) -> str:
    try:
        return decode(data, path).text
    except FsguardError:
        return f"(binary content: {len(data)} bytes, hash {content_hash(data)})\n"
