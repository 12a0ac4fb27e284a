"""The backup tool's selections on real stores: filters, limits against totals, cleanup and purge sizes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fsguard.core.backups import BackupStore
from fsguard.core.beneath import Pinned
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import NotFoundError
from fsguard.core.inventory import BackupFilter, clean_backups, list_backups, list_trash, purge_trash
from fsguard.core.trash import Trash
from fsguard.core.trashentries import TrashEntry

DAY_S = 86_400.0
NOW = 1_000_000.0


class Cancelled(Exception):
    """What a cancelled call's progress report raises."""


def store_at(tmp_path: Path, clock: float) -> BackupStore:
    return BackupStore(tmp_path / "backups", max_age_days=365, max_count=100, clock=lambda: clock)


def test_every_filter_given_must_hold_and_the_limit_cuts_only_what_is_shown(tmp_path: Path) -> None:
    store_at(tmp_path, NOW - 3 * 3_600).snapshot(
        Path("/r/src/App.py"), b"old", 0o644, operation="edit", after_hash=None
    )
    store_at(tmp_path, NOW - 60).snapshot(Path("/r/src/App.py"), b"new", 0o644, operation="write", after_hash=None)
    store = store_at(tmp_path, NOW)
    store.snapshot(Path("/r/docs/a.md"), b"doc", 0o644, operation="edit", after_hash=None)

    def paths(wanted: BackupFilter, limit: int = 10) -> tuple[list[str], int]:
        page = list_backups(store, wanted, limit, now=NOW)
        return [record.path for record in page.shown], page.total

    assert paths(BackupFilter()) == (["/r/docs/a.md", "/r/src/App.py", "/r/src/App.py"], 3)
    assert paths(BackupFilter(), limit=1) == (["/r/docs/a.md"], 3)
    assert paths(BackupFilter(path=Path("/r/src/App.py"))) == (["/r/src/App.py"] * 2, 2)
    assert paths(BackupFilter(path_contains="SRC/app")) == (["/r/src/App.py"] * 2, 2)
    assert paths(BackupFilter(path_contains="", operation="")) == paths(BackupFilter())
    assert paths(BackupFilter(operation="edit")) == (["/r/docs/a.md", "/r/src/App.py"], 2)
    assert paths(BackupFilter(newer_than_hours=2)) == (["/r/docs/a.md", "/r/src/App.py"], 2)
    assert paths(BackupFilter(path_contains="app", operation="edit", newer_than_hours=2)) == ([], 0)


def test_cleanup_reports_every_removed_backup_and_its_bytes_beyond_the_limit(tmp_path: Path) -> None:
    old = store_at(tmp_path, NOW - 10 * DAY_S)
    for name in ("a", "b", "c"):
        old.snapshot(Path(f"/r/{name}"), name.encode() * 10, 0o644, operation="edit", after_hash=None)
    journals = sum(entry.stat().st_size for entry in (tmp_path / "backups" / "journal").iterdir())
    store = store_at(tmp_path, NOW)
    store.snapshot(Path("/r/d"), b"fresh", 0o644, operation="edit", after_hash=None)
    dry = clean_backups(store, 7, dry_run=True, limit=2, shown=lambda _: True)
    assert (len(dry.shown), dry.removed, dry.freed_bytes, dry.dry_run) == (2, 3, journals, True)
    assert len(store.records()) == 4
    done = clean_backups(store, 7, dry_run=False, limit=2, shown=lambda _: True)
    assert (done.removed, done.freed_bytes, done.dry_run) == (3, journals, False)  # their journals, removed
    assert [record.path for record in store.records()] == ["/r/d"]


def test_trash_listing_and_purge_select_by_age_path_and_id(tmp_path: Path) -> None:
    writer = AtomicWriter(tmp_path / "state")
    files = tmp_path / "files"
    files.mkdir()
    trash_then = Trash(tmp_path / "trash", writer, clock=lambda: NOW - 10 * DAY_S)
    trash = Trash(tmp_path / "trash", writer, clock=lambda: NOW)
    fd = os.open(files, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name, deleter in (("Old.txt", trash_then), ("new.txt", trash), ("other.log", trash)):
            (files / name).write_bytes(b"12345")
            deleter.put(Pinned(fd, name, files / name))
    finally:
        os.close(fd)

    def names(entries: list[TrashEntry]) -> list[str]:
        return sorted(Path(entry.original_path).name for entry in entries)

    everything = list_trash(trash, path_contains=None, older_than_days=None, limit=10)
    assert (names(everything.shown), everything.total) == (["Old.txt", "new.txt", "other.log"], 3)
    assert list_trash(trash, path_contains=None, older_than_days=None, limit=1).total == 3
    assert names(list_trash(trash, path_contains="OLD", older_than_days=None, limit=10).shown) == ["Old.txt"]
    assert names(list_trash(trash, path_contains=None, older_than_days=7, limit=10).shown) == ["Old.txt"]

    dry = purge_trash(trash, sd_id=None, older_than_days=7, dry_run=True, limit=10)
    assert (names(dry.shown), dry.removed, dry.freed_bytes, dry.dry_run) == (["Old.txt"], 1, 5, True)
    assert len(trash.entries()) == 3
    one = next(entry for entry in trash.entries() if entry.original_path.endswith("other.log"))
    purged = purge_trash(trash, sd_id=one.sd_id, older_than_days=7, dry_run=False, limit=10)
    assert (names(purged.shown), purged.removed, purged.freed_bytes) == (["other.log"], 1, 5)
    assert names(trash.entries()) == ["Old.txt", "new.txt"]


def test_a_cleanup_stopped_after_its_first_file_drops_that_files_old_backups_and_keeps_the_others(
    tmp_path: Path,
) -> None:
    old = store_at(tmp_path, NOW - 10 * DAY_S)
    for name in ("a", "b", "c"):
        old.snapshot(Path(f"/r/{name}"), name.encode() * 10, 0o644, operation="edit", after_hash=None)
    store = store_at(tmp_path, NOW)
    reports: list[tuple[int, int]] = []

    def cancelled_after_one(done: int, total: int) -> None:
        reports.append((done, total))
        raise Cancelled

    with pytest.raises(Cancelled):
        clean_backups(store, 7, dry_run=False, limit=10, shown=lambda _: True, progress=cancelled_after_one)
    assert reports == [(1, 3)]
    kept = store.records()
    assert len(kept) == 2
    assert sorted(store.read_blob(record) for record in kept) == sorted(
        record.path[-1].encode() * 10 for record in kept
    )


def test_a_purge_stopped_inside_a_tree_lists_it_no_more_keeps_the_entries_not_reached_and_ends_it_next_time(
    tmp_path: Path,
) -> None:
    writer = AtomicWriter(tmp_path / "state")
    files = tmp_path / "files"
    (files / "tree").mkdir(parents=True)
    for i in range(250):
        (files / "tree" / f"{i}.txt").write_bytes(b"x")
    (files / "kept.txt").write_bytes(b"kept bytes\n")
    fd = os.open(files, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        Trash(tmp_path / "trash", writer, clock=lambda: NOW - 60).put(Pinned(fd, "kept.txt", files / "kept.txt"))
        tree = Trash(tmp_path / "trash", writer, clock=lambda: NOW).put(Pinned(fd, "tree", files / "tree"))
        trash = Trash(tmp_path / "trash", writer, clock=lambda: NOW + 60)
        reports: list[int] = []

        def cancelled_inside_the_tree(done: int, total: int) -> None:
            reports.append(done)
            if done:
                raise Cancelled

        with pytest.raises(Cancelled):  # newest first: the tree, then kept.txt
            purge_trash(
                trash, sd_id=None, older_than_days=0, dry_run=False, limit=10, progress=cancelled_inside_the_tree
            )
        assert reports == [0, 100]
        home = tmp_path / "trash" / tree.sd_id
        assert len(list((home / ".fsguard-removing-item").iterdir())) == 150
        assert [Path(entry.original_path).name for entry in trash.entries()] == ["kept.txt"]
        with pytest.raises(NotFoundError):  # what is left of it is not what was deleted
            trash.restore(tree, Pinned(fd, "tree", files / "tree"))

        assert trash.purge([]) == ([], [])
        assert not home.exists()
        (kept,) = trash.entries()
        trash.restore(kept, Pinned(fd, "kept.txt", files / "kept.txt"))
    finally:
        os.close(fd)
    assert (files / "kept.txt").read_bytes() == b"kept bytes\n"
    assert not (files / "tree").exists()
