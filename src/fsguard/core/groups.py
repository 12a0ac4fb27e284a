"""Change groups: one id for everything a batch, pipeline, rename set, project_replace or permanent delete of a
directory changed.

A group is the ordered list of :class:`Change` s one call made. It is saved as one JSON file under
``<state_dir>/backups/groups/<group_id>.json`` (written atomically, after the changes it lists), and its
id has the shape of a backup id, so ``backup(action="restore" | "info" | "compare", backup_id=<group>)``
takes either. Reverting a group (:mod:`fsguard.core.reverting`) undoes its changes in reverse order.

The file bytes themselves live in the backup store: a group only refers to backups, trash entries and
paths, so it is small, and retention of the backups it names applies as usual.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal, get_args

from fsguard.core.backups import check_backup_id, new_backup_id
from fsguard.core.beneath import Beneath, dir_made
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import BackupCorruptError, FsguardError, InvalidParamsError, NotFoundError
from fsguard.core.parsedfiles import ParsedFiles

logger = logging.getLogger(__name__)
# What reverts a call's changes when its group's record could not be saved: each file's own backup.
UNDO_EACH_FILE = "backup(action='undo_last', file_path=...)"
ChangeKind = Literal["modified", "created", "created_dir", "moved", "copied", "trashed", "deleted", "deleted_dir"]
_KINDS = frozenset(get_args(ChangeKind))
# A call the server stopped in the middle of (killed, crashed), as the next start found it (core/recovery.py): an
# atomic one was rolled back, a non-atomic one's changes were kept.
Interruption = Literal["rolled_back", "kept"]
_INTERRUPTIONS = frozenset(get_args(Interruption))


@dataclass(frozen=True)
class Change:
    """One thing a grouped call did to the filesystem, with what it takes to undo it.

    ``path`` is where the change is visible now: the file written or created, a move's or copy's
    destination, or where a trashed / deleted entry was.
    """

    kind: ChangeKind
    path: str
    backup_id: str | None = None  # modified, deleted: the bytes before
    # modified, created: the hash the change left; copied, moved: the fingerprint of what it left at path (SHA-256,
    # trees.fingerprint), absent from groups of earlier versions and for a tree holding an unreadable file. A later
    # change means conflict.
    after_hash: str | None = None
    source: str | None = None  # moved: where the entry came from
    sd_id: str | None = None  # trashed: the trash entry holding it
    mode: str | None = None  # deleted_dir: the directory's permission bits, in octal, to make it again with

    @classmethod
    def modified(cls, path: Path, backup_id: str | None, after_hash: str) -> Change:
        return cls("modified", str(path), backup_id=backup_id, after_hash=after_hash)

    @classmethod
    def created(cls, path: Path, after_hash: str) -> Change:
        return cls("created", str(path), after_hash=after_hash)

    @classmethod
    def deleted_dir(cls, path: Path, mode: int) -> Change:
        """A directory a permanent delete removed (its files are "deleted" changes of their own)."""
        return cls("deleted_dir", str(path), mode=f"{mode:o}")

    def shown(self, shows: Callable[[str, bool], bool]) -> bool:
        """Whether an answer may name this change (``shows``: the policy's): its path, a move's source too, a
        directory it made judged as a directory (a rule like ``vault*/``)."""
        is_dir = self.kind in ("created_dir", "deleted_dir")
        return all(shows(path, is_dir) for path in (self.path, self.source) if path)


@dataclass(frozen=True)
class Group:
    """The changes of one call, under one id."""

    group_id: str
    operation: str
    time: float
    changes: tuple[Change, ...]
    interrupted: Interruption | None = None
    rolled_back: tuple[str, ...] = ()  # an interrupted call's paths the next start put back as they were

    @property
    def time_iso(self) -> str:
        return datetime.fromtimestamp(self.time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    @property
    def paths(self) -> list[str]:
        """Every path the group touched, in order, once each (a move counts its source too; an interrupted call's
        rolled-back paths come first)."""
        seen: dict[str, None] = dict.fromkeys(self.rolled_back)
        for change in self.changes:
            if change.source:
                seen.setdefault(change.source)
            seen.setdefault(change.path)
        return list(seen)


@dataclass
class ChangeLog:
    """What one call has changed so far, appended as it goes (the order is the order of the acts)."""

    changes: list[Change] = field(default_factory=list)

    def add(self, change: Change) -> None:
        self.changes.append(change)

    def extend(self, changes: Iterable[Change]) -> None:
        self.changes.extend(changes)

    def __bool__(self) -> bool:
        return bool(self.changes)


@contextmanager
def logging_made_dirs(beneath: Beneath, changes: list[Change]) -> Iterator[None]:
    """Log in ``changes``, before the block's own changes, the directories the block makes, even when it fails (a
    rollback removes them when still empty); only those a mkdir of this call made (:meth:`Beneath.made_here`), never
    one another process made meanwhile."""
    mark = len(changes)
    with beneath.made_here() as made:
        try:
            yield
        finally:
            changes[mark:mark] = [Change("created_dir", str(directory)) for directory in made]


class GroupStore:
    """Saves and finds groups; one JSON file each, beside the backup store they refer to."""

    def __init__(self, root: Path, writer: AtomicWriter, *, clock: Callable[[], float] = time.time) -> None:
        self.root = root
        self._writer = writer
        self._clock = clock
        root.mkdir(parents=True, exist_ok=True)
        self._files = ParsedFiles(
            root, self._parse, lambda group: (group.time, group.group_id), named=lambda name: name.endswith(".json")
        )

    def save(
        self,
        operation: str,
        changes: Iterable[Change],
        *,
        group_id: str | None = None,
        interrupted: Interruption | None = None,
        rolled_back: Iterable[str] = (),
    ) -> Group | None:
        """Record ``changes`` as one group (under ``group_id``, the one a run record holds, else a new id); None when
        there is nothing to record, or when the record cannot be written (a full or read-only state directory). An
        ``interrupted`` call is recorded even when nothing of it stays: the agent must learn it half happened.

        A group is saved after its changes are made, each with its own backup: failing the call then would report
        changes that stand as not made, and an agent that retried (an append, say) made them twice. They stay
        undoable file by file (``undo_last``); only the one id for all of them is lost, which the log says.
        """
        listed, undone = tuple(changes), tuple(rolled_back)
        if not listed and not (interrupted and undone):
            return None
        now = self._clock()
        group = Group(group_id or new_backup_id(now), operation, now, listed, interrupted, undone)
        payload: dict[str, object] = {
            "group_id": group.group_id,
            "operation": operation,
            "time": now,
            "changes": [change_record(c) for c in listed],
        }
        if interrupted is not None:
            payload.update(interrupted=interrupted, rolled_back=list(undone))
        try:
            self._writer.write(self.root / f"{group.group_id}.json", json.dumps(payload, indent=1).encode())
        except FsguardError as exc:
            logger.warning("%s changed %d path(s) but its group could not be saved: %s", operation, len(listed), exc)
            return None
        return group

    def find(self, group_id: str) -> Group | None:
        """The group with this id, or None when the id names no group (it may name a plain backup).

        Raises:
            InvalidParamsError: the id does not have the shape of a backup id.
            BackupCorruptError: the group file exists but cannot be read.
        """
        path = self.root / f"{check_backup_id(group_id)}.json"
        try:
            raw = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise _damaged(group_id) from exc
        try:
            changes = tuple(read_change(item) for item in raw["changes"])
            interrupted = raw.get("interrupted")
            if interrupted is not None and interrupted not in _INTERRUPTIONS:
                raise ValueError(f"unknown interruption {interrupted!r}")
            undone = tuple(str(path) for path in raw.get("rolled_back", ()))
            return Group(raw["group_id"], raw["operation"], float(raw["time"]), changes, interrupted, undone)
        except (KeyError, TypeError, ValueError) as exc:
            raise _damaged(group_id, _unknown(raw)) from exc

    def groups(self) -> list[Group]:
        """Every readable group, newest first (by the time recorded: ids name the second alone). One that cannot be
        read is left out of the listing, as a restore of it would refuse it.

        A file is read again only when its stat changed (:class:`ParsedFiles`).
        """
        return self._files.listing()

    def _parse(self, path: Path) -> list[Group]:
        try:
            group = self.find(path.name.removesuffix(".json"))
        except (BackupCorruptError, InvalidParamsError):
            return []
        return [] if group is None else [group]

    def get(self, group_id: str) -> Group:
        """The group with this id.

        Raises:
            NotFoundError: no such group.
        """
        group = self.find(group_id)
        if group is None:
            raise NotFoundError(
                f"no change group {group_id}. List backups with backup(action='list').", backup_id=group_id
            )
        return group


# Told of a move or a trashing just before its rename (never a revert's, see unnoted): a batch's run record
# (core/runs.py) notes it, so the next start finds one the run made but had not logged when it was killed.
change_intended: ContextVar[Callable[[Change], None] | None] = ContextVar("change_intended", default=None)


@contextmanager
def unnoted() -> Iterator[None]:
    """The block's acts noted in no run record: a revert's (it undoes a run's changes; the next start must not)."""
    intent, made = change_intended.set(None), dir_made.set(None)
    try:
        yield
    finally:
        dir_made.reset(made)
        change_intended.reset(intent)


def change_record(change: Change) -> dict[str, str]:
    """``change`` as a group's record (and a run record, core/runs.py) holds it: its fields that are set."""
    return {k: v for k, v in asdict(change).items() if v is not None}


def read_change(item: dict[str, object]) -> Change:
    """The change a record's item holds.

    Raises:
        ValueError, KeyError, TypeError: the item is no change.
    """
    kind = item["kind"]
    if kind not in _KINDS:
        raise ValueError(f"unknown change kind {kind!r}")
    fields = {k: (str(v) if v is not None else None) for k, v in item.items() if k != "kind"}
    return Change(kind, **fields)  # type: ignore[arg-type]


def _unknown(raw: object) -> list[str]:
    """What a group record holds that this version does not know (a change's field or kind, an interruption):
    a newer fsguard wrote it. Nothing for a record that is damaged otherwise."""
    if not isinstance(raw, dict) or not isinstance(raw.get("changes"), list):
        return []
    known = {f.name for f in fields(Change)}
    found = [f"interruption {raw['interrupted']!r}"] if raw.get("interrupted") not in {None, *_INTERRUPTIONS} else []
    for item in (item for item in raw["changes"] if isinstance(item, dict)):
        found += [f"change kind {item['kind']!r}"] if item.get("kind", "modified") not in _KINDS else []
        found += [f"field {key!r}" for key in item if key not in known]
    return list(dict.fromkeys(found))


def _damaged(group_id: str, unknown: list[str] | None = None) -> BackupCorruptError:
    """The refusal of a group whose record cannot be read: the parser's words name nothing the model can act on.
    ``unknown``: what a newer fsguard wrote in it, which this version does not read rather than misread."""
    cause = "is damaged: its record cannot be read"
    if unknown:
        cause = f"was recorded by a newer fsguard ({', '.join(unknown)} unknown to this version)"
    newer = " or upgrade fsguard (or use the version that recorded it) to undo it whole" if unknown else ""
    return BackupCorruptError(
        f"backup group {group_id} {cause}, so what the call changed is unknown; nothing was changed. Each file it "
        f"overwrote keeps a backup of its own: find them with backup(action='list') and restore them one at a "
        f"time{newer}.",
        backup_id=group_id,
    )
