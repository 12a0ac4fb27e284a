"""The trash: soft-deleted files and directories, kept whole in the state directory until purged.

Layout: ``<state_dir>/trash/<sd-id>/meta.json`` and ``.../item`` (the file or directory itself). The
metadata (original path, kind, size, SHA-256 of the content) is written before the item is moved in,
so an entry is never without its description; an entry whose item is missing (a crash mid-move) is
ignored. Moves are renames; across filesystems the content is copied, fsynced and verified before the
original is removed.

Each entry's directory is locked (``flock``, so across fsguard processes sharing the state directory) while an item
is moved in or out of it and while it is purged: a purge never removes an entry a restore is moving out (it leaves
an entry another call holds), and a restore that waited for a purge finds the entry gone.

A purge removes a tree under another name in its entry (``.fsguard-removing-item``): one it stops partway (cancelled,
or killed) is listed nowhere and restored by no one, as what is left of it is not what was deleted, and the next
purge removes the rest. A tree it cannot remove (a mount point inside) goes back to be listed with what is left of it.
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import shutil
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import asdict
from pathlib import Path

from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import (
    AlreadyExistsError,
    BackupCorruptError,
    EntryReplacedError,
    ExternalChangeError,
    FsguardError,
    NotFoundError,
)
from fsguard.core.groups import Change, change_intended
from fsguard.core.oserrors import from_os_error
from fsguard.core.parsedfiles import ParsedFiles
from fsguard.core.removal import check_no_mounts_below
from fsguard.core.rmtree import remove_tree, remove_tree_named
from fsguard.core.setaside import PREFIX, changed_error
from fsguard.core.transfer import move_verified
from fsguard.core.trashentries import TrashEntry, check_sd_id, entry_of, new_sd_id, unknown_fields
from fsguard.core.trees import described, lstat_entry

_DAY_S = 86_400.0
_ABANDONED_S = 3_600.0  # an entry directory without its item untouched this long is a killed call's, never filled
_REMOVING = PREFIX + "item"  # a tree's name in its entry while a purge removes it
_TICK_FILES = 100  # files of a tree a purge removes between two reports of its progress (each may stop it)

Progress = Callable[[int, int], None]


class EntryBusy(Exception):
    """Another call (a restore, in this process or another) holds the trash entry."""


class Trash:
    """Soft delete, list, restore and purge."""

    def __init__(self, root: Path, writer: AtomicWriter, *, clock: Callable[[], float] = time.time) -> None:
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)
        self._writer = writer
        self._clock = clock
        self._metas = ParsedFiles(
            root, _read_meta, lambda found: (found[1].time, found[1].sd_id), named=_is_home, inner="meta.json"
        )

    def put(self, item: Pinned, checked: os.stat_result | None = None) -> TrashEntry:
        """Move ``item`` (file, link or directory, pinned by the caller) into the trash whole; never a tree holding
        a mount point (:func:`fsguard.core.removal.check_no_mounts_below`). With ``checked`` (the stat the caller
        judged it by), only that very entry, described by what it holds (:func:`move_verified`).

        Raises:
            EntryReplacedError: another entry than ``checked`` is at the name; it stays there, nothing trashed.
        """
        found = checked or lstat_entry(item)
        if stat.S_ISDIR(found.st_mode):
            check_no_mounts_below(item.path)
        digest, size, files = described(item, found, "deleted")
        now = self._clock()
        entry = TrashEntry(
            sd_id=new_sd_id(now),
            original_path=str(item.path),
            kind="directory" if stat.S_ISDIR(found.st_mode) else "file",
            size=size,
            files=files,
            sha256=digest,
            time=now,
        )
        home = self.root / entry.sd_id
        try:
            home.mkdir(mode=0o700)
        except OSError as exc:
            raise from_os_error(exc, home) from exc
        try:
            self._writer.write(home / "meta.json", json.dumps(asdict(entry), indent=1).encode())
            with self._home(entry.sd_id) as (fd, label):
                if (intended := change_intended.get()) is not None:
                    intended(Change("trashed", str(item.path), sd_id=entry.sd_id))
                move_verified(item, Pinned(fd, "item", label / "item"), self._writer, digest, checked=found)
        except BaseException as exc:
            if not os.path.lexists(home / "item"):  # a half-made entry; the original is still in place
                shutil.rmtree(home, ignore_errors=True)
            elif isinstance(exc, FsguardError) and not isinstance(exc, ExternalChangeError):
                # across filesystems: copied whole, then the original's removal failed (a change it met says itself)
                reason = exc.fields.pop("removal_failed", None) or exc.message.rstrip(".")
                exc.fields.pop("partly_moved_to", None)  # the state directory's own path: the sd_id names it
                exc.message = (
                    f"{item.path} was copied whole to the trash as {entry.sd_id}, but removing the original failed "
                    f"partway ({reason}): what is left of it is still at {item.path}. Check it with "
                    "list_directory; delete it again once whatever holds it is done."
                )
                exc.fields["sd_id"] = entry.sd_id
            if isinstance(exc, EntryReplacedError):  # what was taken in by mistake went back; said as a delete
                raise changed_error(item.path, "deleted") from exc
            raise
        return entry

    def entries(self) -> list[TrashEntry]:
        """Every entry whose item is present, newest first. One whose description cannot be read is left out, as a
        change group that cannot be read is: it would fail the whole listing, and the purge by age with it.
        A description is read again only when its stat changed (:class:`ParsedFiles`); the items are looked for
        on each call."""
        top = str(self.root)
        # os.access without following: lexists in one C call, no exception for a missing item (10,000 entries a listing)
        present = functools.partial(os.access, mode=os.F_OK, follow_symlinks=False)
        return [entry for home, entry in self._metas.listing() if present(f"{top}/{home}/item")]

    def get(self, sd_id: str) -> TrashEntry:
        """The entry with this id.

        Raises:
            InvalidParamsError: not a trash id.
            NotFoundError: no such entry (restored or purged already).
        """
        home = self.root / check_sd_id(sd_id)
        text = ""
        try:
            text = (home / "meta.json").read_text(encoding="utf-8")
            return entry_of(text, sd_id)
        except FileNotFoundError as exc:
            raise _no_entry(sd_id) from exc
        except (OSError, ValueError, TypeError) as exc:
            unknown = unknown_fields(text)  # a newer fsguard's field: said so, not misread as what it may not mean
            cause = f"was recorded by a newer fsguard ({unknown} unknown to this version)" if unknown else "is damaged"
            newer = ", or upgrade fsguard (or use the version that recorded it) to restore it" if unknown else ""
            raise BackupCorruptError(
                f"trash entry {sd_id} {cause}: its record cannot be read, so where it came from is unknown; "
                f"nothing was changed. What was deleted is still in the trash of fsguard's state directory "
                f"(trash/{sd_id}/item), outside the roots: ask the user to move it back by hand{newer}.",
                sd_id=sd_id,
            ) from exc

    def restore(self, entry: TrashEntry, destination: Pinned) -> None:
        """Move the entry back to ``destination`` (its original path, pinned by the caller).

        Raises:
            AlreadyExistsError: something exists at the destination now; nothing is overwritten.
        """
        if lstat_at(destination) is not None:
            raise AlreadyExistsError(
                f"original path already exists; cannot overwrite: {destination.path} (it exists again). "
                "Move it away first, then retry.",
                path=str(destination.path),
            )
        with self._home(entry.sd_id) as (fd, label):
            if not _holds_item(fd):  # purged (or restored by another server) while this call waited for it
                raise _no_entry(entry.sd_id)
            move_verified(Pinned(fd, "item", label / "item"), destination, self._writer, entry.sha256)
            remove_tree_named(self.root / entry.sd_id)

    @contextmanager
    def _home(self, sd_id: str, *, wait: bool = True) -> Iterator[tuple[int, Path]]:
        """The entry's directory, open (the state directory is the server's own: opened by name) and locked.

        Raises:
            NotFoundError: the entry is gone (restored or purged).
            EntryBusy: ``wait`` is false and another call holds the entry.
        """
        home = self.root / sd_id
        try:
            fd = os.open(home, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError as exc:
            raise _no_entry(sd_id) from exc
        except OSError as exc:
            raise from_os_error(exc, home) from exc
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError as exc:
                raise EntryBusy(sd_id) from exc
            yield fd, home
        finally:
            os.close(fd)

    def purge(
        self, entries: list[TrashEntry], progress: Progress | None = None
    ) -> tuple[list[TrashEntry], list[tuple[TrashEntry, OSError]]]:
        """Delete these entries for good; returns those purged, and those whose item could not be removed (with
        why), which stay listed with what is left of them. An entry another call holds (a restore moving it out) or
        that is gone already is left to it, and not counted. Then what purges stopped partway left goes.

        ``progress`` gets (files removed, files of all the entries) before each entry, every 100 files of a tree
        and at the end, and may raise to stop (a cancelled call): the entries not reached stay whole and listed,
        and a tree stopped in is listed no more (see the module's docstring).
        """
        purged: list[TrashEntry] = []
        failed: list[tuple[TrashEntry, OSError]] = []
        total = sum(max(entry.files, 1) for entry in entries)
        done = 0
        for entry in entries:
            if progress is not None:
                progress(done, total)
            try:
                with self._home(entry.sd_id, wait=False) as (fd, _):
                    if not _holds_item(fd):
                        continue
                    try:  # the item first: an entry is listed while its item is there, whatever else is left
                        _remove_item(fd, _ticking(progress, done, max(entry.files, 1), total))
                    except OSError as exc:
                        failed.append((entry, exc))
                        continue
                    with suppress(OSError):  # its description: an entry without its item is listed nowhere
                        remove_tree_named(self.root / entry.sd_id)
                    purged.append(entry)
            except (EntryBusy, FsguardError):
                continue
            finally:
                done += max(entry.files, 1)
        self._end_cut_short(_ticking(progress, total, 0, total))
        if progress is not None:
            progress(total, total)
        return purged, failed

    def _end_cut_short(self, removed: Callable[[], None] | None) -> None:
        """Remove the rest of each tree a purge stopped partway, with its entry's directory, and each entry a killed
        delete, restore or purge left without its item, untouched for an hour (a delete fills its entry at once).
        One another call holds, or that cannot be removed, is left to the next purge."""
        top = str(self.root)
        with os.scandir(top) as found:
            names = [entry.name for entry in found if _is_home(entry.name)]
        for name in names:
            cut_short = os.access(f"{top}/{name}/{_REMOVING}", os.F_OK, follow_symlinks=False)
            if not cut_short and not _abandoned(f"{top}/{name}"):
                continue
            with suppress(EntryBusy, FsguardError, OSError), self._home(name, wait=False) as (fd, home):
                if cut_short:
                    remove_tree(fd, _REMOVING, own=True, removed=removed)
                if not _holds_item(fd):
                    remove_tree_named(home)

    def older_than(self, days: float) -> list[TrashEntry]:
        """Entries deleted more than ``days`` ago."""
        cutoff = self._clock() - days * _DAY_S
        return [entry for entry in self.entries() if entry.time < cutoff]


def _abandoned(home: str) -> bool:
    """Whether the entry directory ``home`` holds no item and has not changed for an hour."""
    try:
        os.lstat(f"{home}/item")
    except FileNotFoundError:
        with suppress(OSError):
            return time.time() - os.lstat(home).st_mtime > _ABANDONED_S
    except OSError:
        pass
    return False


def _is_home(name: str) -> bool:
    return name.startswith("sd-")


def _read_meta(meta: Path) -> list[tuple[str, TrashEntry]]:
    """The name of the entry's directory with the entry ``meta`` describes; none when it cannot be read or is not a
    description."""
    try:
        return [(meta.parent.name, entry_of(meta.read_text(encoding="utf-8"), meta.parent.name))]
    except (OSError, ValueError, TypeError):
        return []


def _remove_item(fd: int, removed: Callable[[], None] | None = None) -> None:
    """Remove the item of the entry whose directory is open as ``fd``, a file or a whole tree (under another name:
    see the module's docstring), calling ``removed`` after each file of a tree, which may raise to stop there.

    Raises:
        OSError: something could not be removed (a mount point inside, an immutable file, an I/O error); what is
            left of a tree is the item again.
    """
    if not stat.S_ISDIR(os.lstat("item", dir_fd=fd).st_mode):
        os.unlink("item", dir_fd=fd)
        return
    os.rename("item", _REMOVING, src_dir_fd=fd, dst_dir_fd=fd)
    try:
        remove_tree(fd, _REMOVING, own=True, removed=removed)
    except OSError:
        with suppress(OSError):
            os.rename(_REMOVING, "item", src_dir_fd=fd, dst_dir_fd=fd)
        raise


def _ticking(progress: Progress | None, done: int, files: int, total: int) -> Callable[[], None] | None:
    """What a tree's removal calls after each file: every 100 files, ``progress`` with ``done`` and the files removed
    of the tree's ``files`` (no more: the report would pass the next entry's)."""
    if progress is None:
        return None
    removed = 0

    def tick() -> None:
        nonlocal removed
        removed += 1
        if removed % _TICK_FILES == 0:
            progress(done + min(removed, files), total)

    return tick


def _holds_item(fd: int) -> bool:
    try:
        os.lstat("item", dir_fd=fd)
    except FileNotFoundError:
        return False
    return True


def _no_entry(sd_id: str) -> NotFoundError:
    return NotFoundError(
        f"trash entry not found: {sd_id} (restored or purged). List them with backup(action='list_trash').",
        sd_id=sd_id,
    )
