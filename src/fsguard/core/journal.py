"""One file's undo journal: its events, and the bytes of its backups packed between them.

A journal is a sequence of records, each one JSON line; a ``backup`` record with ``"inline": N`` is followed
by the N saved bytes and a newline, so that one append and one fsync make a backup and its place in the
chain durable together. With ``"codec": "zlib"`` those N bytes are the version compressed (its ``size`` is the
file's); without, they are the version itself (:mod:`fsguard.core.payloads`). A ``backup`` record may instead
name an earlier one whose bytes are identical (``"dup": id``): a file's versions are stored once however often
they come back. Older stores kept the bytes as content-addressed blobs (``"blob": sha256``); their journals are
plain JSON lines and read the same.

A crash mid-append leaves a torn tail (a line without its newline, or bytes cut short). Reading stops there:
the operation it began never replaced its file, since the file is written only after the journal's fsync.
The next append under the lock cuts the tail off first, so it never swallows the record that follows.
Damage in the middle (a disk's, a copy's) is not a torn tail: the replay skips it, with a warning, and goes on at
the next whole record (:mod:`fsguard.core.journalcheck`); a line without the fields its event needs is skipped.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import secrets
from collections.abc import Callable, Iterable
from contextlib import suppress
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from operator import itemgetter, methodcaller
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Protocol

from fsguard.core.beneath import Pinned, fsync_directory
from fsguard.core.errors import InvalidParamsError
from fsguard.core.journalcheck import ends_at, journal_name, next_record, parsed, record_fields, well_formed
from fsguard.core.parsedfiles import ParsedFiles
from fsguard.core.payloads import Payload

if TYPE_CHECKING:
    from fsguard.core.disk import AtomicWriter

logger = logging.getLogger(__name__)

_COPY_CHUNK = 1 << 20
_ID_SHAPE = "YYYYMMDD-HHMMSS-<16 hex>"


def new_backup_id(now: float) -> str:
    """``YYYYMMDD-HHMMSS-`` + 16 hex digits (UTC)."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(8)


def check_backup_id(backup_id: str) -> str:
    """Refuse anything that is not a backup id before it goes near a path or a lookup."""
    parts = backup_id.split("-")
    ok = len(parts) == 3 and parts[0].isdigit() and len(parts[0]) == 8 and parts[1].isdigit() and len(parts[1]) == 6
    if not ok or len(parts[2]) != 16 or any(c not in "0123456789abcdef" for c in parts[2]):
        illegal = next((c for c in backup_id if not (c.isascii() and (c.isalnum() or c == "-"))), None)
        why = f": contains illegal character {illegal!r} ({backup_id!r});" if illegal else f" {backup_id!r}:"
        raise InvalidParamsError(
            f"invalid backup ID{why} expected {_ID_SHAPE}. List backups with backup(action='list').",
            backup_id=backup_id,
        )
    return backup_id


class Append(Protocol):
    """Appends one event to a locked journal, and for a backup the bytes that follow its line."""

    def __call__(self, event: dict[str, Any], payload: bytes | None = None) -> None: ...


@dataclass(frozen=True)
class BackupRecord:
    """One saved version of one file, and where it sits in that file's undo chain.

    ``blob`` is the sha256 address of bytes kept in the old blob store; empty when they are in the journal.
    """

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


Listed = tuple[float, str, str, BackupRecord]  # a backup as a listing sorts it: time, id, journal key, record
# Told of each chained backup once it is durable, before the file it protects is replaced: a batch's run record
# (core/runs.py) notes it, so the next start knows that file even when the run dies before it logs the change.
backup_taken: ContextVar[Callable[[BackupRecord], None] | None] = ContextVar("backup_taken", default=None)


@dataclass
class Replay:
    """A journal read from its start: the live backups, the chain head, and where each one's bytes are.

    What an edit asks of it (a twin of these bytes, the live bytes, a copy to append to) costs the same whatever the
    number of backups: with --backup-max-count 4000, copying and scanning every record made the 2,400th edit of
    a file take 2.4 times the first.
    """

    records: dict[str, BackupRecord] = field(default_factory=dict)
    head: str | None = None
    lines: int = 0
    end: int = 0  # offset just past the last whole record: a torn tail starts here
    payloads: dict[str, Payload] = field(default_factory=dict)  # backup id -> where its bytes are (dropped ones too)
    packed: int = 0  # bytes of backups in the file as stored, live or not
    # backup id -> the backups made with it as their parent (a tuple: a copy of the dict need not copy them): a drop
    # unlinks those without looking at every record, which made replaying a journal of many backups and drops
    # quadratic (seconds for --backup-max-count 4000)
    children: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # bytes of the live backups kept in this journal, as stored (an upper bound: duplicates count each time)
    live: int = 0
    by_content: dict[tuple[str, int], str] = field(default_factory=dict)  # (hash, size) -> the newest such backup
    # The file's first line. Each journal's is its own (a backup or a compaction's mark, each with a unique id), and
    # a journal only grows until it is compacted into a new file: a file that starts with it and is longer than
    # ``end`` is this journal grown, and the replay goes on from ``end`` (read_on) instead of from the start.
    first: bytes = b""

    def copy(self) -> Replay:
        return replace(
            self,
            records=dict(self.records),
            payloads=dict(self.payloads),
            children=dict(self.children),
            by_content=dict(self.by_content),
        )

    @property
    def dead(self) -> int:
        """About the bytes a compaction frees: the whole journal once no backup is left (it is removed), else the
        stored bytes of dropped backups (it errs low: ``live`` counts a duplicate's bytes each time)."""
        return self.end if not self.records else max(0, self.packed - self.live)

    def without(self, backup_ids: Iterable[str]) -> Replay:
        """A copy with these backups dropped, as a dry run sees the journal after them."""
        trial = self.copy()
        for backup_id in backup_ids:
            trial.apply({"e": "drop", "id": backup_id})
        return trial

    def twin(self, content_hash: str, size: int) -> BackupRecord | None:
        """A live backup in this journal whose bytes may equal bytes of this hash and size."""
        found = self.by_content.get((content_hash, size))
        return None if found is None else self.records.get(found)

    def apply(self, event: dict[str, Any], offset: int | None = None) -> None:
        """Take one event into account; ``offset`` is where an inline backup's bytes start."""
        kind = event.get("e")
        if kind == "backup":
            self._add(event, offset)
        elif kind in ("undo", "drop"):
            target = self.records.get(event["id"])
            if target is not None and self.head == target.backup_id:
                parent = target.parent_backup_id
                self.head = parent if parent in self.records else None
            if kind == "drop":
                self._drop(event["id"])
        elif kind == "head":
            self.head = event["id"]
        self.lines += 1

    def _add(self, event: dict[str, Any], offset: int | None) -> None:
        record = BackupRecord(**record_fields(event))
        self._forget(self.records.get(record.backup_id))
        self.records[record.backup_id] = record
        if offset is not None:
            payload = Payload(offset, event["inline"], event.get("codec", ""))
            self.payloads[record.backup_id] = payload
            self.packed += payload.stored
        elif "dup" in event and event["dup"] in self.payloads:
            self.payloads[record.backup_id] = self.payloads[event["dup"]]
        if not record.blob:
            self.live += self._stored(record)
            self.by_content[(record.content_hash, record.size)] = record.backup_id
        parent = record.parent_backup_id
        if parent is not None:
            self.children[parent] = (*self.children.get(parent, ()), record.backup_id)
        if record.chained:
            self.head = record.backup_id

    def _drop(self, backup_id: str) -> None:
        self._forget(self.records.pop(backup_id, None))
        for child in self.children.pop(backup_id, ()):
            found = self.records.get(child)
            if found is not None and found.parent_backup_id == backup_id:
                self.records[child] = replace(found, parent_backup_id=None)  # the chain ends here

    def _stored(self, record: BackupRecord) -> int:
        """The bytes ``record``'s version takes in the journal (its size, when they are not placed)."""
        payload = self.payloads.get(record.backup_id)
        return record.size if payload is None else payload.stored

    def _forget(self, record: BackupRecord | None) -> None:
        """Take a record that leaves the live ones out of the live bytes and the twins."""
        if record is None or record.blob:
            return
        self.live -= self._stored(record)
        key = (record.content_hash, record.size)
        if self.by_content.get(key) == record.backup_id:  # an older twin, if any, is not found: its bytes are copied
            del self.by_content[key]


def open_locked(path: Path) -> int:
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


def read_journal(handle: IO[bytes]) -> Replay:
    """Replay a journal from its start, stopping at a torn tail; saved bytes are skipped, not read."""
    return read_on(handle, Replay())


def grown_journal(handle: IO[bytes], replay: Replay | None) -> Replay | None:
    """``replay`` if ``handle``'s file is its journal grown since (it starts with the same first line and is longer);
    else None: the file is to be read from its start."""
    if replay is None or not replay.first or os.fstat(handle.fileno()).st_size <= replay.end:
        return None
    return replay if handle.read(len(replay.first)) == replay.first else None


def read_on(handle: IO[bytes], replay: Replay) -> Replay:
    """Go on with ``replay``, a replay of this journal up to ``replay.end``, through what the file holds after that
    (records another process appended since), stopping at a torn tail; ``replay`` itself, updated.

    A line without the fields its event needs is skipped; damage in the middle (a record whose bytes are not where
    its line says) is passed over to the next record that proves itself (:mod:`fsguard.core.journalcheck`), and
    ``end`` moves past it, so that the next append cuts off a torn tail only, never the whole records after it.
    """
    handle.seek(replay.end)
    while True:
        line = handle.readline()
        if not line.endswith(b"\n"):
            return replay  # the end, or a line cut short by a crash
        if not replay.first:
            replay.first = line
        offset = handle.tell()
        event = parsed(line)
        size = None if event is None else event.get("inline")
        if event is None or (size is not None and not ends_at(handle, offset + size)):
            found = next_record(handle, replay, offset)
            if found is None:
                return replay  # a torn tail: nothing whole after it
            logger.warning(
                "backup journal %s: bytes %d-%d are damaged; a backup kept there is lost, the records after are kept",
                journal_name(handle),
                replay.end,
                found,
            )
            replay.end = found
            handle.seek(found)
            continue
        if event and well_formed(event):
            replay.apply(event, None if size is None else offset)
        else:
            skipped = "backup journal %s: skipped a record without what it needs: %.200r"
            logger.warning(skipped, journal_name(handle), line)
            replay.lines += 1
        replay.end = offset if size is None else offset + size + 1
        handle.seek(replay.end)


def listed_journals(directory: Path, replay: Callable[[str], Replay]) -> ParsedFiles[Listed]:
    """Every journal's live backups in ``directory``, newest first, as (time, id, journal key, record); ``replay``
    replays one journal (by key), and is asked again only for a journal whose stat changed."""

    def live(journal: Path) -> list[Listed]:
        key = journal.name.removesuffix(".jsonl")
        return [(record.time, record.backup_id, key, record) for record in replay(key).records.values()]

    return ParsedFiles(directory, live, itemgetter(0, 1), named=methodcaller("endswith", ".jsonl"))


def backup_event(
    record: BackupRecord, *, dup: str | None = None, inline: int | None = None, codec: str = ""
) -> dict[str, Any]:
    """The event of a backup record (its line is followed by ``inline`` bytes, stored in ``codec``, and a newline)."""
    event: dict[str, Any] = {"e": "backup", **vars(record)}  # flat fields: vars, not asdict's deep copy
    if not record.blob:
        del event["blob"]
    if dup is not None:
        event["dup"] = dup
    if inline is not None:
        event["inline"] = inline
    if codec:
        event["codec"] = codec
    return event


def encode(event: dict[str, Any]) -> bytes:
    return json.dumps(event, separators=(",", ":")).encode() + b"\n"


def write_all(fd: int, parts: Iterable[bytes | memoryview]) -> None:
    """Write every part, in order, however the OS splits the writes; one system call for small appends."""
    pending = [memoryview(part) for part in parts if len(part)]
    while pending:
        written = os.writev(fd, pending)
        while pending and written >= len(pending[0]):
            written -= len(pending[0])
            pending.pop(0)
        if pending and written:
            pending[0] = pending[0][written:]


def copy_range(source: int, target: int, offset: int, size: int) -> None:
    """Append ``size`` bytes of ``source`` from ``offset`` to ``target`` (in the kernel where it can)."""
    done = 0
    while done < size:
        count = min(_COPY_CHUNK, size - done)
        try:
            copied = os.copy_file_range(source, target, count, offset + done)
        except OSError:
            copied = 0
        if copied <= 0:  # not supported between these files (or nothing copied): plain reads and writes
            chunk = os.pread(source, count, offset + done)
            if not chunk:
                raise OSError(f"journal ended {size - done} bytes early while compacting")
            write_all(target, [chunk])
            copied = len(chunk)
        done += copied


def copy_live(source: int, target: int, ordered: list[BackupRecord], replay: Replay) -> None:
    """Write ``ordered`` records to ``target`` with their bytes copied (as stored) from ``source``, each version
    once."""
    written: dict[tuple[str, int], tuple[str, Payload]] = {}  # (hash, size) -> the backup whose bytes were copied
    for record in ordered:
        payload = replay.payloads.get(record.backup_id)
        if record.blob or payload is None:
            write_all(target, [encode(backup_event(record))])
            continue
        version = (record.content_hash, record.size)
        twin = written.get(version)
        if twin is not None and _same_bytes(source, twin[1], payload):
            write_all(target, [encode(backup_event(record, dup=twin[0]))])
            continue
        write_all(target, [encode(backup_event(record, inline=payload.stored, codec=payload.codec))])
        copy_range(source, target, payload.offset, payload.stored)
        write_all(target, [b"\n"])
        written[version] = (record.backup_id, payload)


def _same_bytes(source: int, one: Payload, other: Payload) -> bool:
    """True when two stored payloads of ``source`` hold the same bytes the same way."""
    if (one.stored, one.codec) != (other.stored, other.codec):
        return False  # stored otherwise (one as it is, one compressed): copied twice, never wrongly merged
    return os.pread(source, one.stored, one.offset) == os.pread(source, other.stored, other.offset)


def compact(writer: AtomicWriter, path: Path, fd: int, replay: Replay) -> None:
    """Rewrite the journal ``path`` (open as ``fd``) as its live records (each version's bytes once) plus the head;
    atomic, under the caller's lock. The bytes are copied from the old file, never held in memory all at once.

    A failure (a full disk) leaves the journal as it was and removes the partial copy: its temp name is journaled
    only while this runs, so a copy left behind would never be swept.
    """
    ordered = list(replay.records.values())  # the journal's order, which retention counts by (not the clock's)
    parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        with writer.temp_name(Pinned(parent, path.name, path)) as temp:
            try:
                target = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600, dir_fd=parent)
                try:
                    # A line no other journal starts with, old or new (see Replay.first).
                    write_all(target, [encode({"e": "compacted", "id": secrets.token_hex(16)})])
                    copy_live(fd, target, ordered, replay)
                    write_all(target, [encode({"e": "head", "id": replay.head})])
                    os.fsync(target)
                finally:
                    os.close(target)
                os.rename(temp, path.name, src_dir_fd=parent, dst_dir_fd=parent)
            except BaseException:
                with suppress(OSError):
                    os.unlink(temp, dir_fd=parent)
                raise
            fsync_directory(parent)
    finally:
        os.close(parent)
