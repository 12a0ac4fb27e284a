"""Backups: a content-addressed blob store and a persisted undo chain per file.

Layout under ``<state_dir>/backups``::

    blobs/<aa>/<sha256>       the saved bytes, stored once however many backups share them
    journal/<key>.jsonl       one JSON line per event of one file (key: sha256 of its canonical path)

A journal replays to the file's live backups and its chain head. Events: ``backup`` (a snapshot,
chained ones become the head), ``undo`` (the head steps back to its parent), ``drop`` (retention)
and ``head`` (written by compaction). Crash consistency: the blob is fsynced, then the journal line
is appended and fsynced, and only then may the caller replace the file the backup protects. A torn
last line, left by a crash mid-append, is skipped when the journal is read.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import BackupCorruptError, FsguardError, InvalidParamsError, NotFoundError
from fsguard.core.hashing import content_hash

_DAY_S = 86_400.0
_GC_GRACE_S = 3_600.0  # a blob this young may belong to a backup another process is still recording
_ID_SHAPE = "YYYYMMDD-HHMMSS-<16 hex>"


@dataclass(frozen=True)
class BackupRecord:
    """One saved version of one file, and where it sits in that file's undo chain."""

    backup_id: str
    path: str
    time: float
    operation: str
    blob: str
    size: int
    content_hash: str
    mode: int
    after_hash: str | None
    parent_backup_id: str | None
    chained: bool

    @property
    def time_iso(self) -> str:
        return datetime.fromtimestamp(self.time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class _Replay:
    records: dict[str, BackupRecord]
    head: str | None
    lines: int


def new_backup_id(now: float) -> str:
    """``YYYYMMDD-HHMMSS-`` + 16 hex digits (UTC)."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(8)


def check_backup_id(backup_id: str) -> str:
    """Refuse anything that is not a backup id before it goes near a path or a lookup."""
    parts = backup_id.split("-")
    ok = len(parts) == 3 and parts[0].isdigit() and len(parts[0]) == 8 and parts[1].isdigit() and len(parts[1]) == 6
    if not ok or len(parts[2]) != 16 or any(c not in "0123456789abcdef" for c in parts[2]):
        raise InvalidParamsError(
            f"invalid backup_id {backup_id!r}: expected {_ID_SHAPE}. List backups with backup(action='list').",
            backup_id=backup_id,
        )
    return backup_id


class BackupStore:
    """Snapshots, chains and retention; safe across threads and across fsguard processes sharing it."""

    def __init__(self, root: Path, *, max_age_days: float, max_count: int, clock: Callable[[], float] = time.time):
        self.root = root
        self._blobs = root / "blobs"
        self._journals = root / "journal"
        self._blobs.mkdir(parents=True, exist_ok=True)
        self._journals.mkdir(parents=True, exist_ok=True)
        self._writer = AtomicWriter(root)
        self._writer.clean_strays()
        self._max_age_s = max_age_days * _DAY_S
        self._max_count = max_count
        self._clock = clock
        self._lock = threading.Lock()
        self._index: dict[str, str] = {}  # backup id -> journal key
        # Replayed journals, trusted while the file's (inode, size, mtime) is what we last saw: another
        # process appending changes it, so this never hides a foreign change.
        self._replays: dict[str, tuple[tuple[int, int, int], _Replay]] = {}

    # -- writing -----------------------------------------------------------------------------------

    def snapshot(
        self, path: Path, data: bytes, mode: int, *, operation: str, after_hash: str | None, chained: bool = True
    ) -> BackupRecord:
        """Save ``data`` (the bytes ``path`` holds now) durably; a chained snapshot becomes the chain head."""
        blob = self._store_blob(data)
        key = _key(path)
        with self._journal(key) as (replay, append):
            now = self._clock()
            record = BackupRecord(
                backup_id=new_backup_id(now),
                path=str(path),
                time=now,
                operation=operation,
                blob=blob,
                size=len(data),
                content_hash=content_hash(data),
                mode=mode,
                after_hash=after_hash,
                parent_backup_id=replay.head if chained else None,
                chained=chained,
            )
            append({"e": "backup", **asdict(record)})
            self._index[record.backup_id] = key
            self._retain(replay, append, keep=record.backup_id)
        return record

    def step_back(self, record: BackupRecord) -> None:
        """Move ``record``'s file chain head to its parent (after ``record`` was undone)."""
        with self._journal(_key(Path(record.path))) as (_replay, append):
            append({"e": "undo", "id": record.backup_id})

    def cleanup(self, older_than_days: float, *, dry_run: bool) -> list[BackupRecord]:
        """Backups older than ``older_than_days``, dropped unless ``dry_run``; unreferenced blobs go too."""
        cutoff = self._clock() - older_than_days * _DAY_S
        doomed: list[BackupRecord] = []
        for key in self._keys():
            with self._journal(key) as (replay, append):
                old = [r for r in replay.records.values() if r.time < cutoff]
                doomed.extend(old)
                if not dry_run:
                    for record in old:
                        append({"e": "drop", "id": record.backup_id})
        if not dry_run:
            self.collect_garbage()
        return sorted(doomed, key=lambda r: r.time, reverse=True)

    def apply_retention(self) -> int:
        """Drop, in every file's journal, what is past --backup-max-age or --backup-max-count; returns how many.

        Snapshots apply retention to their own file; this catches files that are never edited again.
        """
        dropped = 0
        for key in self._keys():
            with self._journal(key) as (replay, append):
                before = len(replay.records)
                self._retain(replay, append, keep="")
                dropped += before - len(replay.records)
        return dropped

    def collect_garbage(self) -> int:
        """Delete blobs no live backup refers to (older than an hour); returns how many."""
        live = {record.blob for record in self.records()}
        removed = 0
        cutoff = time.time() - _GC_GRACE_S  # blob mtimes are real time, whatever clock records use
        for blob in self._blobs.glob("*/*"):
            if blob.name not in live and blob.stat().st_mtime < cutoff:
                blob.unlink(missing_ok=True)
                removed += 1
        return removed

    # -- reading -----------------------------------------------------------------------------------

    def head(self, path: Path) -> BackupRecord | None:
        """The newest operation on ``path`` that undo_last would revert, if any."""
        replay = self._read(_key(path))
        return replay.records.get(replay.head) if replay.head else None

    def chain(self, path: Path, limit: int = 100) -> list[BackupRecord]:
        """The undo chain of ``path``, newest first."""
        replay = self._read(_key(path))
        chain: list[BackupRecord] = []
        current = replay.head
        while current is not None and current in replay.records and len(chain) < limit:
            chain.append(replay.records[current])
            current = replay.records[current].parent_backup_id
        return chain

    def get(self, backup_id: str) -> BackupRecord:
        """The backup with this id.

        Raises:
            InvalidParamsError: not a backup id.
            NotFoundError: no such backup (never made, or removed by retention).
        """
        check_backup_id(backup_id)
        for attempt in range(2):
            if attempt or backup_id not in self._index:
                self._rebuild_index()
            key = self._index.get(backup_id)
            record = self._read(key).records.get(backup_id) if key else None
            if record is not None:
                return record
        raise NotFoundError(
            f"no backup {backup_id} (never made, or removed by retention). List them with backup(action='list').",
            backup_id=backup_id,
        )

    def records(self) -> list[BackupRecord]:
        """Every live backup, newest first."""
        found = [record for key in self._keys() for record in self._read(key).records.values()]
        return sorted(found, key=lambda r: (r.time, r.backup_id), reverse=True)

    def read_blob(self, record: BackupRecord) -> bytes:
        """The saved bytes, checked against their address.

        Raises:
            BackupCorruptError: the blob is missing or damaged.
        """
        try:
            data = self._blob_path(record.blob).read_bytes()
        except FileNotFoundError:
            data = None
        if data is None or hashlib.sha256(data).hexdigest() != record.blob:
            raise BackupCorruptError(
                f"backup {record.backup_id} is damaged or missing from {self._blobs}; nothing was restored. "
                "Pick another backup from backup(action='undo_chain').",
                backup_id=record.backup_id,
            )
        return data

    def stats(self) -> tuple[int, int]:
        """(live backups, bytes of blobs on disk)."""
        size = sum(blob.stat().st_size for blob in self._blobs.glob("*/*"))
        return len(self.records()), size

    # -- internals ---------------------------------------------------------------------------------

    def _store_blob(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        target = self._blob_path(digest)
        if target.exists():
            os.utime(target)  # keeps a shared blob clear of the garbage collector's grace window
            return digest
        target.parent.mkdir(exist_ok=True)
        try:
            self._writer.write(target, data, exclusive=True)
        except FsguardError:
            if not target.exists():  # another writer racing us to the same content is fine
                raise
        return digest

    def _blob_path(self, digest: str) -> Path:
        return self._blobs / digest[:2] / digest

    def _keys(self) -> list[str]:
        return sorted(entry.stem for entry in self._journals.glob("*.jsonl"))

    def _rebuild_index(self) -> None:
        index = {record_id: key for key in self._keys() for record_id in self._read(key).records}
        with self._lock:
            self._index = index

    def _read(self, key: str) -> _Replay:
        path = self._journals / f"{key}.jsonl"
        try:
            stat = path.stat()
        except FileNotFoundError:
            return _Replay({}, None, 0)
        identity = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._replays.get(key)
        if cached is not None and cached[0] == identity:
            return cached[1]
        try:
            replay = _replay(path.read_bytes().splitlines())
        except FileNotFoundError:
            return _Replay({}, None, 0)
        with self._lock:
            self._replays[key] = (identity, replay)
        return replay

    def _remember(self, key: str, fd: int, replay: _Replay) -> None:
        stat = os.fstat(fd)
        with self._lock:
            self._replays[key] = ((stat.st_ino, stat.st_size, stat.st_mtime_ns), replay)

    @contextmanager
    def _journal(self, key: str) -> Iterator[tuple[_Replay, Callable[[dict[str, Any]], None]]]:
        """The journal of one file, locked (threads and processes) for a read-modify-append."""
        path = self._journals / f"{key}.jsonl"
        fd = self._open_locked(path)
        try:
            cached = self._read(key)
            # A private copy: readers may be iterating the cached one while this appends.
            replay = _Replay(dict(cached.records), cached.head, cached.lines)
            pending: list[bytes] = []

            def append(event: dict[str, Any]) -> None:
                line = json.dumps(event, separators=(",", ":")).encode() + b"\n"
                os.write(fd, line)
                pending.append(line)
                replay.records, replay.head, replay.lines = _apply(event, replay.records, replay.head, replay.lines)

            yield replay, append
            if pending:
                os.fsync(fd)
                self._remember(key, fd, replay)
            if replay.lines > 4 * self._max_count + 16:
                self._compact(path, replay)
        finally:
            os.close(fd)

    @staticmethod
    def _open_locked(path: Path) -> int:
        """Open and lock the journal; if compaction replaced the file while we waited, lock the new one."""
        while True:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if os.fstat(fd).st_ino == path.stat().st_ino:
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)

    def _retain(self, replay: _Replay, append: Callable[[dict[str, Any]], None], *, keep: str) -> None:
        """Drop what exceeds --backup-max-count or --backup-max-age for this file (never ``keep``)."""
        cutoff = self._clock() - self._max_age_s
        newest_first = sorted(replay.records.values(), key=lambda r: r.time, reverse=True)
        for rank, record in enumerate(newest_first):
            if record.backup_id != keep and (rank >= self._max_count or record.time < cutoff):
                append({"e": "drop", "id": record.backup_id})

    def _compact(self, path: Path, replay: _Replay) -> None:
        """Rewrite a long journal as its live records plus the head; atomic, under the caller's lock."""
        ordered = sorted(replay.records.values(), key=lambda r: r.time)
        lines = [json.dumps({"e": "backup", **asdict(r)}, separators=(",", ":")) for r in ordered]
        lines.append(json.dumps({"e": "head", "id": replay.head}, separators=(",", ":")))
        self._writer.write(path, ("\n".join(lines) + "\n").encode())


def _key(path: Path) -> str:
    return hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _replay(lines: list[bytes]) -> _Replay:
    records: dict[str, BackupRecord] = {}
    head: str | None = None
    count = 0
    for raw in lines:
        try:
            event = json.loads(raw)
        except ValueError:
            continue  # a torn line from a crash mid-append: the operation it began never happened
        records, head, count = _apply(event, records, head, count)
    return _Replay(records, head, count)


def _apply(
    event: dict[str, Any], records: dict[str, BackupRecord], head: str | None, count: int
) -> tuple[dict[str, BackupRecord], str | None, int]:
    kind = event.get("e")
    if kind == "backup":
        fields = {k: v for k, v in event.items() if k != "e"}
        record = BackupRecord(**fields)
        records[record.backup_id] = record
        if record.chained:
            head = record.backup_id
    elif kind in ("undo", "drop"):
        target = records.get(event["id"])
        if target is not None and head == target.backup_id:
            parent = target.parent_backup_id
            head = parent if parent in records else None
        if kind == "drop":
            records.pop(event["id"], None)
            for child in [k for k, r in records.items() if r.parent_backup_id == event["id"]]:
                records[child] = replace(records[child], parent_backup_id=None)  # the chain ends where it was cut
    elif kind == "head":
        head = event["id"]
    return records, head, count + 1
