"""Run records: a batch or pipeline changing files says so in the state directory, so that one a crash or a kill
cuts short is found by the next server to start there (:mod:`fsguard.core.recovery` ends it).

``<state_dir>/runs/<group id>.jsonl``, one per run, is made before the run's first change: a header line (tool,
operation, atomic), fsynced with its directory, once per run. Then, appended without fsync (a killed process loses
none of it; a power cut may lose the last lines, whose backups stay in each file's undo chain), a line for each
backup the run takes, as soon as it is durable and before the file it protects is replaced, one for each move just
before its rename and each directory it makes (intents: the next start judges by the disk what happened), and one
for each change the run logs. The running process holds the record's ``flock`` until the run's group is saved, then
removes it.

A record whose lock can be taken is a dead run's: the lock, not a pid, tells it from a live run in another process
(pids are reused, and differ between containers sharing a state directory). A starting server claims it, keeping
the lock so no other server does, when every path it names lies inside its roots; else it leaves it for a server
whose roots hold them.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.beneath import dir_made
from fsguard.core.errors import FsguardError
from fsguard.core.groups import Change, Group, GroupStore, change_intended, change_record, read_change
from fsguard.core.journal import BackupRecord, backup_taken, check_backup_id, new_backup_id

logger = logging.getLogger(__name__)

RUNS = "runs"  # under the state directory
_SUFFIX = ".jsonl"
_READ = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


@dataclass(frozen=True)
class UnfinishedRun:
    """A run whose process died, as its record tells it; claimed (its lock held) by this server until :meth:`close`."""

    group_id: str
    tool: str
    operation: str
    atomic: bool
    changes: tuple[Change, ...]  # as the run logged them, in order
    backups: tuple[tuple[str, str], ...]  # (backup id, path) of each backup it took, in order
    record: Path
    fd: int
    # The moves and trashings it was about to make and the directories it made, in order, each with the number of
    # changes logged before it (where it falls among them).
    intents: tuple[tuple[int, Change], ...] = ()

    def close(self) -> None:
        """Remove the record (while its lock is held: no other server is reading it) and release it."""
        _remove(self.record, self.fd)

    def release(self) -> None:
        """Release the record, kept for the next start (ending it failed)."""
        os.close(self.fd)


class RunRecord:
    """The record of one run in progress, and the saving of its group under the id the record reserved."""

    def __init__(self, groups: GroupStore, operation: str, group_id: str, path: Path | None, fd: int | None) -> None:
        self.group_id = group_id
        self._groups = groups
        self._operation = operation
        self._path = path
        self._fd = fd  # None: the state directory took no record, and the run goes unrecorded
        self._noted = False  # a line after the header: the run may have changed something
        self._seen: dict[int, Change] = {}  # the changes noted, by id
        self._saved = False

    def changed(self, changes: Iterable[Change]) -> None:
        """Note changes the run has logged (after each operation or step), each once (see :class:`NotedChanges`)."""
        for change in changes:
            if id(change) not in self._seen:
                self._seen[id(change)] = change  # kept: an id is never reused for another change while the run lasts
                self._append({"change": change_record(change)})

    def save(self, changes: Iterable[Change]) -> Group | None:
        """Save the run's group under the reserved id (see :meth:`GroupStore.save`)."""
        group = self._groups.save(self._operation, changes, group_id=self.group_id)
        self._saved = self._saved or group is not None
        return group

    def backed_up(self, record: BackupRecord) -> None:
        self._append({"backup": record.backup_id, "path": record.path})

    def intended(self, change: Change) -> None:
        self._append({"intent": change_record(change)})

    def made_dir(self, path: Path) -> None:
        self.intended(Change("created_dir", str(path)))

    def _append(self, event: dict[str, object]) -> None:
        if self._fd is None:
            return
        line = json.dumps(event, ensure_ascii=False).encode("utf-8", "surrogateescape") + b"\n"
        try:
            os.write(self._fd, line)
        except OSError as exc:  # a full state directory: the backups and the group still say what was done
            logger.warning("run record %s: a line was not written: %s", self._path, exc)
        self._noted = True

    def close(self) -> None:
        """Remove the record: the run ended (its group, if any, is saved)."""
        if self._fd is None or self._path is None:
            return
        try:
            self._path.unlink()
            if self._noted and not self._saved:
                # No group tells the next start that this run ended (rolled back whole): its record must not come
                # back after a power cut, or the next start would report it interrupted.
                _sync(self._path.parent)
        except OSError as exc:
            logger.warning("run record %s was not removed: %s", self._path, exc)
        finally:
            os.close(self._fd)


class NotedChanges(list[Change]):
    """A step's list of its changes, each noted in the run's record as it is appended, not when the step ends."""

    def __init__(self, record: RunRecord) -> None:
        super().__init__()
        self._record = record

    def append(self, change: Change) -> None:
        super().append(change)
        self._record.changed([change])


class RunRecords:
    """The run records of one state directory."""

    def __init__(self, state_dir: Path, groups: GroupStore, *, clock: Callable[[], float] = time.time) -> None:
        self.directory = state_dir / RUNS
        self._groups = groups
        self._clock = clock

    @contextmanager
    def run(self, tool: str, operation: str, *, atomic: bool) -> Iterator[RunRecord]:
        """A record for the block's run, taken before its first change; every chained backup taken in the block's
        context is noted in it. A state directory that refuses the record leaves the run unrecorded (logged): it
        would refuse the run's backups too, with a better error."""
        group_id = new_backup_id(self._clock())
        path = self.directory / f"{group_id}{_SUFFIX}"
        header = {"tool": tool, "operation": operation, "atomic": atomic}
        fd = None
        try:
            self.directory.mkdir(exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, json.dumps(header).encode() + b"\n")
            os.fsync(fd)
            _sync(self.directory)
        except OSError as exc:
            logger.warning("%s runs unrecorded (a crash would go unreported): %s", operation, exc)
            if fd is not None:
                os.close(fd)
                path.unlink(missing_ok=True)
            fd = None
        record = RunRecord(self._groups, operation, group_id, path if fd is not None else None, fd)
        token = backup_taken.set(record.backed_up)
        intent, made = change_intended.set(record.intended), dir_made.set(record.made_dir)
        try:
            yield record
        finally:
            dir_made.reset(made)
            change_intended.reset(intent)
            backup_taken.reset(token)
            record.close()


def claim_unfinished(state_dir: Path, contains: Callable[[Path], bool]) -> list[UnfinishedRun]:
    """The records of runs whose process died (nobody holds their lock) and whose paths all lie where ``contains``
    says; each stays locked by this process until it is closed. A record holding no header is removed."""
    try:
        paths = sorted(path for path in (state_dir / RUNS).iterdir() if path.name.endswith(_SUFFIX))
    except OSError:
        return []  # none yet
    found = []
    for path in paths:
        try:
            fd = os.open(path, _READ)
        except OSError:
            continue  # ended by another server meanwhile
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.fstat(fd).st_nlink == 0:  # ended by another server between our open and our lock
                raise OSError("ended")
            run = _read(path, fd)
        except OSError:  # held: its run is alive
            os.close(fd)
            continue
        if run is None:
            logger.info("removed the unreadable run record %s", path)
            _remove(path, fd)
        elif all(contains(Path(p)) for p in _paths(run)):
            found.append(run)
        else:
            os.close(fd)  # left for a server whose roots hold what it changed
    return found


def _read(path: Path, fd: int) -> UnfinishedRun | None:
    """What the record open as ``fd`` holds; None without a header. A line cut short by the kill is skipped."""
    with os.fdopen(os.dup(fd), "rb") as stream:
        lines = stream.read().split(b"\n")
    try:
        group_id = check_backup_id(path.name.removesuffix(_SUFFIX))
        header = json.loads(lines[0])
        tool, operation, atomic = str(header["tool"]), str(header["operation"]), bool(header["atomic"])
    except (ValueError, KeyError, TypeError, FsguardError):
        return None
    changes: list[Change] = []
    backups: list[tuple[str, str]] = []
    intents: list[tuple[int, Change]] = []
    for line in lines[1:]:
        try:
            event = json.loads(line.decode("utf-8", "surrogateescape"))
            if "change" in event:
                changes.append(read_change(event["change"]))
            elif "backup" in event:
                backups.append((check_backup_id(str(event["backup"])), str(event["path"])))
            elif "intent" in event:
                intents.append((len(changes), read_change(event["intent"])))
        except (ValueError, KeyError, TypeError, AttributeError, FsguardError):
            continue
    return UnfinishedRun(group_id, tool, operation, atomic, tuple(changes), tuple(backups), path, fd, tuple(intents))


def _paths(run: UnfinishedRun) -> Sequence[str]:
    noted = (*run.changes, *(intent for _, intent in run.intents))
    changed = [p for change in noted for p in (change.path, change.source) if p]
    return changed + [p for _, p in run.backups]


def _remove(record: Path, fd: int) -> None:
    with suppress(OSError):
        record.unlink()
    os.close(fd)


def _sync(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
