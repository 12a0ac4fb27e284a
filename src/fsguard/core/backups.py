"""Backups: each file's undo journal, holding its backups' bytes, with chains and retention.

Layout under ``<state_dir>/backups``::

    journal/<key>.jsonl       one file's events and the bytes of its backups (key: sha256 of its canonical path)
    blobs/<aa>/<sha256>       bytes saved by older versions, content-addressed; read, never written any more

A journal replays to the file's live backups and its chain head (format: :mod:`fsguard.core.journal`).
Events: ``backup`` (a snapshot, chained ones become the head), ``undo`` (the head steps back to its parent),
``drop`` (retention) and ``head`` (written by compaction). Crash consistency: the backup's record and bytes
are appended and fsynced together, and only then may the caller replace the file the backup protects; a
torn tail, left by a crash mid-append, is ignored when read and cut off by the next append. A file's
identical versions are stored once; compaction (by line count, when dropped bytes outweigh live ones, or after a
cleanup) rewrites the journal with its live backups only, under the journal's lock, so writers never stop. A journal
left with no live backup is removed instead: that needs no free space, where compaction needs room for a copy.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from itertools import accumulate
from operator import attrgetter
from pathlib import Path
from typing import Any, NamedTuple

from fsguard.core.blobs import OldBlobs
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import BackupCorruptError, NotFoundError
from fsguard.core.journal import (
    Append,
    BackupRecord,
    Replay,
    backup_event,
    backup_taken,
    check_backup_id,
    compact,
    encode,
    listed_journals,
    new_backup_id,
    open_locked,
    write_all,
)
from fsguard.core.oserrors import from_os_error
from fsguard.core.payloads import packed, read_payload
from fsguard.core.replays import Replays

logger = logging.getLogger(__name__)

__all__ = ["BackupRecord", "BackupStore", "check_backup_id", "new_backup_id"]

_DAY_S = 86_400.0
_SLACK_BYTES = 1 << 20  # dropped bytes a journal may carry before compaction rewrites it
_TIME = attrgetter("time")
Progress = Callable[[int, int], None]


class Cleaned(NamedTuple):
    """What a cleanup dropped (newest first), the bytes its journals shrank by (a dry run: about what they would),
    and about the bytes of dropped backups still on disk: journals a full disk left uncompacted."""

    records: list[BackupRecord]
    freed: int
    held: int


class BackupStore:
    """Snapshots, chains and retention; safe across threads and across fsguard processes sharing it."""

    def __init__(self, root: Path, *, max_age_days: float, max_count: int, clock: Callable[[], float] = time.time):
        self.root = root
        self._blobs = OldBlobs(root / "blobs")
        self._journals = root / "journal"
        self._journals.mkdir(parents=True, exist_ok=True)
        self._writer = AtomicWriter(root)
        self._writer.clean_strays()
        self._max_age_s = max_age_days * _DAY_S
        self._max_count = max_count
        self._clock = clock
        self._lock = threading.Lock()
        self._index: dict[str, str] = {}  # backup id -> journal key
        self._uncompacted: set[str] = set()  # journals whose compaction failed (a full disk): tried again on each use
        self._replays = Replays(self._journals)
        self._listed = listed_journals(self._journals, self._read)

    # -- writing -----------------------------------------------------------------------------------

    def snapshot(
        self,
        path: Path,
        data: bytes,
        mode: int,
        *,
        operation: str,
        after_hash: str | None,
        chained: bool = True,
        data_hash: str | None = None,
    ) -> BackupRecord:
        """Save ``data`` (the bytes ``path`` holds now) durably; a chained snapshot becomes the chain head.

        The bytes go into the file's journal with the record (compressed when that pays:
        :mod:`fsguard.core.payloads`): one append and one fsync make both durable.
        ``data_hash`` is ``content_hash(data)`` when the caller has it already.
        """
        digest = data_hash or _content_hash(data)
        key = _key(path)
        with self._journal(key) as (replay, append):
            now = self._clock()
            record = BackupRecord(
                backup_id=new_backup_id(now),
                path=str(path),
                time=now,
                operation=operation,
                blob="",
                size=len(data),
                content_hash=digest,
                mode=mode,
                after_hash=after_hash,
                parent_backup_id=replay.head if chained else None,
                chained=chained,
            )
            twin = replay.twin(digest, len(data))
            if twin is not None and self._payload(key, twin) == data:
                append(backup_event(record, dup=twin.backup_id))
            else:
                stored, codec = packed(data)
                append(backup_event(record, inline=len(stored), codec=codec), stored)
            self._index[record.backup_id] = key
            self._retain(replay, append, keep=record.backup_id)
        noted = backup_taken.get() if chained else None
        if noted is not None:
            noted(record)
        return record

    def step_back(self, record: BackupRecord, *, withdraw: bool = False) -> None:
        """Move ``record``'s file chain head to its parent (after ``record`` was undone); ``withdraw`` drops it too:
        it was taken for a write that then failed, an operation that never happened (and so has no backup)."""
        # Not fsynced: if a crash loses this line, the file holds the head backup's own bytes, and undo_last
        # then steps back over it without writing. The next fsync of this journal makes it durable anyway.
        with self._journal(_key(Path(record.path)), durable=False) as (_replay, append):
            append({"e": "drop" if withdraw else "undo", "id": record.backup_id})

    def cleanup(
        self, older_than_days: float, *, dry_run: bool, shown: Callable[[str], bool], progress: Progress | None = None
    ) -> Cleaned:
        """Backups past ``older_than_days`` of paths ``shown`` names, dropped unless ``dry_run`` (their blobs are the
        caller's to collect), and their journals compacted (or removed, when none is left) so that the space is
        freed now. ``progress`` gets (files done, files) after each file and may raise to stop."""
        cutoff = self._clock() - older_than_days * _DAY_S
        doomed: list[BackupRecord] = []
        freed = held = 0
        for done, key in enumerate(keys := self._keys(), 1):
            if dry_run:  # read, not locked for writing: a read-only state directory answers a dry run too
                replay = self._read(key)
                doomed.extend(old := [r for r in replay.records.values() if r.time < cutoff and shown(r.path)])
                freed += replay.without(r.backup_id for r in old).dead if old else 0
            else:
                path = self._journals / f"{key}.jsonl"
                with self._journal(key, compact=True) as (replay, append):
                    doomed.extend(old := [r for r in replay.records.values() if r.time < cutoff and shown(r.path)])
                    size = replay.end
                    for record in old:
                        append({"e": "drop", "id": record.backup_id})
                freed += max(0, size - _size(path))  # measured: a journal left uncompacted freed nothing
                held += replay.dead if key in self._uncompacted else 0
            if progress is not None:
                progress(done, len(keys))  # stopped here: each file's old backups are all dropped, or all kept
        return Cleaned(sorted(doomed, key=lambda r: r.time, reverse=True), freed, held)

    def apply_retention(self) -> int:
        """Drop, in every file's journal, what is past --backup-max-age or --backup-max-count; returns how many.
        Snapshots apply retention to their own file; this catches files that are never edited again."""
        dropped = 0
        for key in self._keys():
            with self._journal(key) as (replay, append):
                before = len(replay.records)
                self._retain(replay, append, keep="")
                dropped += before - len(replay.records)
        return dropped

    def collect_garbage(self) -> int:
        """Delete blobs no live backup refers to (older than an hour); returns the bytes freed."""
        return self._blobs.collect({record.blob for record in self.records() if record.blob})

    # -- reading -----------------------------------------------------------------------------------

    def head(self, path: Path) -> BackupRecord | None:
        """The newest operation on ``path`` that undo_last would revert, if any."""
        replay = self._read(_key(path))
        return replay.records.get(replay.head) if replay.head else None

    def chain(self, path: Path, limit: int | None = 100) -> list[BackupRecord]:
        """The undo chain of ``path``, newest first; ``None``: all of it."""
        replay = self._read(_key(path))
        chain: list[BackupRecord] = []
        current = replay.head
        most = len(replay.records) if limit is None else limit  # no chain is longer: a damaged journal's loop ends
        while current is not None and current in replay.records and len(chain) < most:
            chain.append(replay.records[current])
            current = replay.records[current].parent_backup_id
        return chain

    def get(self, backup_id: str, taken_of: Path | None = None) -> BackupRecord:
        """The backup with this id; ``taken_of``, the file it was taken of when the caller knows it (a group's change
        does), names the one journal that can hold it.

        Raises:
            InvalidParamsError: not a backup id.
            NotFoundError: no such backup (never made, or removed by retention).
        """
        check_backup_id(backup_id)
        # A backup lives in the journal of the file it was taken of, which _read reads afresh when it changed: once
        # that journal is known, a backup missing from it was dropped. Looking through every journal again found
        # nothing more, and a group restore of thousands of dropped backups did it once each: minutes.
        key = _key(taken_of) if taken_of is not None else self._index.get(backup_id)
        if key is None:
            self._rebuild_index()  # made by another process, or before this one started
            key = self._index.get(backup_id)
        record = self._read(key).records.get(backup_id) if key else None
        if record is None:
            raise NotFoundError(
                f"no backup {backup_id} (never made, or removed by retention). List them with backup(action='list').",
                backup_id=backup_id,
            )
        return record

    def records(self) -> list[BackupRecord]:
        """Every live backup, newest first."""
        return [found[3] for found in self._listed.listing()]

    def read_blob(self, record: BackupRecord) -> bytes:
        """The saved bytes, checked against the record's hash and size.

        Raises:
            BackupCorruptError: the bytes are missing or damaged.
        """
        key = _key(Path(record.path))
        if record.blob:
            data = self._blobs.read(record.blob)
        else:
            data = self._payload(key, record)
            if data is None or not self._intact(record, data):
                self._replays.forget(key)  # compaction may have moved the bytes since the journal was read: once more
                data = self._payload(key, record)
        if data is None or not self._intact(record, data):
            raise BackupCorruptError(
                f"backup {record.backup_id} of {record.path} is damaged or missing in fsguard's backup store; "
                "nothing was changed. Pick another backup of it from "
                f"backup(action='undo_chain', file_path='{record.path}').",
                backup_id=record.backup_id,
            )
        return data

    def stats(self) -> tuple[int, int]:
        """(live backups, bytes of blobs on disk)."""
        size = self._blobs.size() + sum(journal.stat().st_size for journal in self._journals.glob("*.jsonl"))
        return len(self.records()), size

    # -- internals ---------------------------------------------------------------------------------

    def _payload(self, key: str, record: BackupRecord) -> bytes | None:
        """The bytes packed in the journal for ``record``, as the journal last read places them."""
        payload = self._read(key).payloads.get(record.backup_id)
        return None if payload is None else read_payload(self._journals / f"{key}.jsonl", payload, record.size)

    @staticmethod
    def _intact(record: BackupRecord, data: bytes) -> bool:
        return len(data) == record.size and _content_hash(data) == record.content_hash

    def _keys(self) -> list[str]:
        # Files only: a directory by a journal's name is none (it kept the server from starting, retention opening it)
        return sorted(entry.stem for entry in self._journals.glob("*.jsonl") if entry.is_file())

    def _rebuild_index(self) -> None:
        # From the listing: an id no journal holds (dropped, mistyped) replayed them all (2,000 journals: 0.9 s).
        index = {found[1]: found[2] for found in self._listed.listing()}
        with self._lock:
            self._index = index

    def _read(self, key: str) -> Replay:
        return self._replays.read(key)

    @contextmanager
    def _journal(self, key: str, *, durable: bool = True, compact: bool = False) -> Iterator[tuple[Replay, Append]]:
        """The journal of one file, locked (threads and processes) for a read-modify-append, fsynced after
        unless not ``durable``; ``compact``: compacted after any append (a cleanup's drops free their bytes now)."""
        path = self._journals / f"{key}.jsonl"
        try:
            fd = open_locked(path)
        except OSError as exc:  # a read-only or full state directory: typed, so the answer names its remedy
            raise from_os_error(exc, path) from exc
        try:
            replay = self._read(key).copy()  # private: readers may be using the cached one while this appends
            if os.fstat(fd).st_size > replay.end:
                os.ftruncate(fd, replay.end)  # a torn tail left by a crash: its operation never happened
            written = False

            def append(event: dict[str, Any], payload: bytes | None = None) -> None:
                nonlocal written
                line = encode(event)
                if not replay.end:
                    replay.first = line
                parts = [line] if payload is None else [line, payload, b"\n"]
                event_end = replay.end + sum(map(len, parts))
                try:
                    write_all(fd, parts)
                except OSError as exc:
                    with suppress(OSError):
                        os.ftruncate(fd, replay.end)  # no half record left behind (a full disk, say)
                    raise from_os_error(exc, path, needed=event_end - replay.end) from exc
                replay.apply(event, replay.end + len(line) if payload is not None else None)
                replay.end = event_end
                written = True

            yield replay, append
            if written:
                try:
                    if durable:
                        os.fsync(fd)
                except OSError as exc:  # the records may not be durable: the caller must not go on to write
                    self._replays.forget(key)
                    raise from_os_error(exc, path) from exc
                self._replays.remember(key, fd, replay)
            self._settle(key, path, fd, replay, force=(compact and written) or key in self._uncompacted)
        finally:
            os.close(fd)

    def _settle(self, key: str, path: Path, fd: int, replay: Replay, *, force: bool) -> None:
        """Free the bytes of dropped backups, under the journal's lock: a journal with no live backup is removed (no
        free space needed: a cleanup on a full state directory must free it), one past its limits or ``force``d is
        compacted. A failure (a full state directory) leaves it as it is: the records are durable, the call stands."""
        try:
            if not replay.records:
                path.unlink(missing_ok=True)  # a writer waiting for its lock makes a new one (open_locked)
            elif force or replay.lines > 4 * self._max_count + 16 or replay.packed > 2 * replay.live + _SLACK_BYTES:
                compact(self._writer, path, fd, replay)
            else:
                return
        except OSError as exc:
            logger.warning("journal %s keeps its dropped backups' bytes for now: %s", path, exc)
            self._uncompacted.add(key)
        else:
            self._uncompacted.discard(key)
            self._replays.forget(key)

    def _retain(self, replay: Replay, append: Append, *, keep: str) -> None:
        """Drop what exceeds --backup-max-count or --backup-max-age for this file (never ``keep``). The snapshots
        undo_last takes are counted apart from the operations' backups: counted together, each undo pushed an older
        operation's backup out, and the chain reached back half as far as the count says."""
        cutoff = self._clock() - self._max_age_s
        records = replay.records
        if len(records) <= self._max_count and min(map(_TIME, records.values()), default=cutoff) >= cutoff:
            return  # nothing past either limit: no sort of every record on each edit
        ranks = {True: 0, False: 0}  # newer ones of each kind so far
        # Newest first in the journal's order, not by time: a clock set back (or not yet set, at a boot without a
        # real-time clock) stamps the newest older than the rest. A backup is no older than one taken before it.
        ordered = list(records.values())
        since = list(accumulate(map(_TIME, ordered), max))
        for record, time_ in zip(reversed(ordered), reversed(since), strict=True):
            undo = record.operation == "pre_undo"
            if record.backup_id != keep and (ranks[undo] >= self._max_count or time_ < cutoff):
                append({"e": "drop", "id": record.backup_id})
            ranks[undo] += 1


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _key(path: Path) -> str:
    return hashlib.sha256(str(path).encode("utf-8", "surrogateescape")).hexdigest()[:32]


def _content_hash(data: bytes) -> str:
    # Imported on first use: the hashing module brings the text codecs and charset tables, which a server's
    # start-up (retention only) does not need.
    from fsguard.core.hashing import content_hash

    return content_hash(data)
