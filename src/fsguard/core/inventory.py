"""What the state directory holds, as the backup tool asks for it: backups and trash entries selected by its
filters and cut to its limit, and the cleanup of old backups and the purge of old trash entries, with their size.

The stores keep and remove (:mod:`fsguard.core.backups`, :mod:`fsguard.core.trash`); this module selects.
Every listing is newest first, as the stores give it; ``shown`` is its first ``limit`` entries.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from fsguard.core.backups import BackupRecord, BackupStore
from fsguard.core.errors import AccessDeniedError, FsguardError
from fsguard.core.groups import Group, GroupStore
from fsguard.core.oserrors import from_os_error, os_reason, shorten
from fsguard.core.trash import Progress, Trash
from fsguard.core.trashentries import TrashEntry

_HOUR_S = 3_600.0
# The seed's operation labels, for callers that filter by them, and what fsguard records for the same acts.
_SEED_OPERATIONS = {
    "pre_restore": "restore",
    "write_file_adaptive": "write_file",
    "large_file_processing": "edit_file:regex",
    "insert": "edit_file:insert",
    "delete_range": "edit_file:delete_range",
    "replace_range": "edit_file:replace_range",
    "batch_operation": "batch_operations",
}

Item = TypeVar("Item", BackupRecord, TrashEntry, Group)


MOST_LISTED = 1000
"""The largest limit of a backup listing (list, undo_chain, list_trash)."""


@dataclass(frozen=True)
class Page(Generic[Item]):
    """The first entries of a selection, and how many it holds in all."""

    shown: list[Item]
    total: int


@dataclass(frozen=True)
class Sweep(Generic[Item]):
    """What a cleanup or purge removed (or would, on a dry run): the first entries, how many, and their bytes."""

    shown: list[Item]
    removed: int
    freed_bytes: int
    dry_run: bool
    failed: tuple[str, ...] = ()  # "<id>: why" for each one that could not be removed, and stays
    held_bytes: int = 0  # about the bytes of removed backups still on disk: a full disk kept their journals whole
    younger: int = 0  # when nothing was old enough: how many there are, all newer than the age asked


@dataclass(frozen=True)
class BackupFilter:
    """Which backups a listing holds: those meeting every condition given (an empty string is no condition)."""

    path: Path | None = None  # only this file's backups (a canonical path)
    path_contains: str | None = None  # a substring of the path, in any case
    operation: str | None = None  # this operation (edit_file:replace), or every one of a tool (edit_file); "all"
    newer_than_hours: float | None = None  # taken at most this long ago
    # Only paths this server may name (PathPolicy.shows): the state directory outlives a server's roots and rules.
    shown: Callable[[str], bool] | None = None

    def admits(self, record: BackupRecord, now: float) -> bool:
        """Whether ``record`` meets every condition, at time ``now``."""
        return (
            (self.path is None or record.path == str(self.path))
            and (not self.path_contains or self.path_contains.lower() in record.path.lower())
            and operation_matches(record.operation, self.operation)
            and (self.newer_than_hours is None or record.time >= now - self.newer_than_hours * _HOUR_S)
            and (self.shown is None or self.shown(record.path))  # last: it costs more than the others
        )

    def admits_group(self, group: Group, now: float) -> bool:
        """Whether ``group`` meets every condition at time ``now``: one of its paths for the path conditions (and one
        a listing may name), its operation, its time."""
        if not operation_matches(group.operation, self.operation) or (
            self.newer_than_hours is not None and group.time < now - self.newer_than_hours * _HOUR_S
        ):
            return False  # before its paths are judged: shown costs more than these
        if (self.path is not None and str(self.path) not in group.paths) or (
            self.path_contains and not any(self.path_contains.lower() in path.lower() for path in group.paths)
        ):
            return False  # what shown would leave of its paths cannot hold it either
        paths = [path for path in group.paths if self.shown is None or self.shown(path)]
        return (
            bool(paths)
            and (self.path is None or str(self.path) in paths)
            and (not self.path_contains or any(self.path_contains.lower() in path.lower() for path in paths))
        )


def list_backups(
    store: BackupStore, wanted: BackupFilter, limit: int, *, now: float | None = None
) -> Page[BackupRecord]:
    """The live backups ``wanted`` admits (``now`` defaults to the current time)."""
    moment = time.time() if now is None else now
    records = [record for record in store.records() if wanted.admits(record, moment)]
    return Page(records[:limit], len(records))


def list_groups(store: GroupStore, wanted: BackupFilter, limit: int, *, now: float | None = None) -> Page[Group]:
    """The change groups ``wanted`` admits (``now`` defaults to the current time), newest first."""
    moment = time.time() if now is None else now
    groups = [group for group in store.groups() if wanted.admits_group(group, moment)]
    return Page(groups[:limit], len(groups))


def clean_backups(
    store: BackupStore,
    older_than_days: float,
    *,
    dry_run: bool,
    limit: int,
    shown: Callable[[str], bool],
    progress: Progress | None = None,
) -> Sweep[BackupRecord]:
    """Drop the backups older than ``older_than_days`` that ``shown`` lets a listing name (unless ``dry_run``), then
    the blobs no backup holds; see :meth:`BackupStore.cleanup`. ``freed_bytes`` is what the store shrank by (a dry
    run: about what it would). ``progress`` may raise to stop between files: the blobs of those done go at the next
    cleanup, or the server's next start."""
    doomed, freed, held = store.cleanup(older_than_days, dry_run=dry_run, shown=shown, progress=progress)
    if not dry_run:
        freed += store.collect_garbage()
    # Counted only when the age left every one out: "0 removed" alone reads as "there are none".
    younger = 0 if doomed else sum(1 for record in store.records() if shown(record.path))
    return Sweep(doomed[:limit], len(doomed), freed, dry_run, held_bytes=held, younger=younger)


def list_trash(
    trash: Trash,
    *,
    path_contains: str | None,
    older_than_days: float | None,
    limit: int,
    shown: Callable[[str, bool], bool] | None = None,
) -> Page[TrashEntry]:
    """The trash entries deleted more than ``older_than_days`` ago (all of them if None) whose original path holds
    ``path_contains``, in any case, and that ``shown`` lets a listing name."""
    entries = trash.entries() if older_than_days is None else trash.older_than(older_than_days)
    if path_contains:  # before shown, which costs more
        entries = [entry for entry in entries if path_contains.lower() in entry.original_path.lower()]
    if shown is not None:
        entries = [entry for entry in entries if shown(entry.original_path, entry.is_directory)]
    return Page(entries[:limit], len(entries))


def purge_trash(
    trash: Trash,
    *,
    sd_id: str | None,
    older_than_days: float,
    dry_run: bool,
    limit: int,
    shown: Callable[[str, bool], bool] | None = None,
    progress: Progress | None = None,
) -> Sweep[TrashEntry]:
    """Delete for good the entry ``sd_id``, or without one every entry older than ``older_than_days``; a dry run
    only reports them. Only entries ``shown`` lets a listing name are purged: every server on a state directory
    shares its trash, and one whose roots never held a path has no business deleting its last copy. ``progress``
    may raise to stop the purge: see :meth:`Trash.purge`.

    Raises:
        InvalidParamsError, NotFoundError: ``sd_id`` is not a trash id, or names no entry.
        AccessDeniedError: ``sd_id`` names an entry ``shown`` hides.
        FsguardError: the entry ``sd_id`` names could not be removed (coded by the OS's reason: a mount point inside
            is access_denied); what is left of it stays listed. Without ``sd_id``, such entries are in ``failed``.
    """
    if sd_id:
        entry = trash.get(sd_id)
        if shown is not None and not shown(entry.original_path, entry.is_directory):
            raise AccessDeniedError(
                f"trash entry {sd_id} is not this server's to purge: its path is outside these roots or hidden by "
                "a deny rule. Nothing was purged; purge it from a server whose roots hold that path."
            )
        doomed = [entry]
    else:
        old = trash.older_than(older_than_days)
        doomed = [entry for entry in old if shown is None or shown(entry.original_path, entry.is_directory)]
    # Counted only when the age left every entry out: "0 purged" alone reads as "the trash is empty".
    younger = 0 if doomed else list_trash(trash, path_contains=None, older_than_days=None, limit=0, shown=shown).total
    removed, failed = (doomed, []) if dry_run else trash.purge(doomed, progress)
    if sd_id and failed:
        raise _not_purged(*failed[0])
    reasons = tuple(f"{entry.sd_id}: {os_reason(exc)}" for entry, exc in failed)
    return Sweep(removed[:limit], len(removed), sum(entry.size for entry in removed), dry_run, reasons, younger=younger)


def _not_purged(entry: TrashEntry, exc: OSError) -> FsguardError:
    """The error of a purge of one entry whose item could not be removed, with the OS's reason and its code."""
    where = f"{shorten(exc.filename)}: " if exc.filename else ""
    return type(from_os_error(exc, entry.sd_id))(
        f"trash entry {entry.sd_id} could not be purged ({where}{os_reason(exc)}). What is left "
        "of it stays in the trash, listed by list_trash; purge it again once that is resolved.",
        sd_id=entry.sd_id,
    )


def operation_matches(recorded: str, wanted: str | None) -> bool:
    """Whether a backup recorded as ``recorded`` (``edit_file:regex``) is one of the ``wanted`` operations.

    A name without ':' stands for every mode of that tool (``edit_file`` matches ``edit_file:regex``), as the
    seed's callers filter; case is ignored; nothing, "all" or "*" match everything.
    """
    if not wanted:  # the usual listing: asked for every one of 20,000 backups
        return True
    name = wanted.strip().lower()
    if name in ("", "all", "*"):
        return True
    name = _SEED_OPERATIONS.get(name, name)
    recorded = recorded.lower()
    return recorded == name or (":" not in name and recorded.startswith(name + ":"))
