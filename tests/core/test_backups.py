"""The backup store on a real directory: content addressing, the persisted chain, retention, crash leftovers."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from fsguard.core.backups import BackupStore, check_backup_id
from fsguard.core.errors import BackupCorruptError, InvalidParamsError, NotFoundError


def store_at(tmp_path: Path, *, max_count: int = 100, clock: float | None = None) -> BackupStore:
    if clock is None:
        return BackupStore(tmp_path / "backups", max_age_days=7, max_count=max_count)
    return BackupStore(tmp_path / "backups", max_age_days=7, max_count=max_count, clock=lambda: clock)


def test_identical_bytes_are_stored_once(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    a = store.snapshot(Path("/r/a.txt"), b"same", 0o644, operation="t", after_hash=None)
    b = store.snapshot(Path("/r/b.txt"), b"same", 0o644, operation="t", after_hash=None)
    assert a.blob == b.blob == hashlib.sha256(b"same").hexdigest()
    assert len(list((tmp_path / "backups" / "blobs").glob("*/*"))) == 1


def test_chained_snapshots_link_to_their_parent_and_survive_a_new_instance(tmp_path: Path) -> None:
    path = Path("/r/f.txt")
    first = store_at(tmp_path).snapshot(path, b"v0", 0o644, operation="edit", after_hash="h1")
    second = store_at(tmp_path).snapshot(path, b"v1", 0o644, operation="edit", after_hash="h2")
    reopened = store_at(tmp_path)
    assert second.parent_backup_id == first.backup_id
    assert [r.backup_id for r in reopened.chain(path)] == [second.backup_id, first.backup_id]
    reopened.step_back(second)
    assert store_at(tmp_path).head(path) == first


def test_an_unchained_snapshot_is_listed_but_does_not_move_the_head(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    path = Path("/r/f.txt")
    chained = store.snapshot(path, b"v0", 0o644, operation="edit", after_hash=None)
    safety = store.snapshot(path, b"v1", 0o644, operation="pre_undo", after_hash=None, chained=False)
    assert store.head(path) == chained
    assert safety in store.records()


def test_a_torn_last_journal_line_is_ignored(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    path = Path("/r/f.txt")
    kept = store.snapshot(path, b"v0", 0o644, operation="edit", after_hash=None)
    journal = next((tmp_path / "backups" / "journal").glob("*.jsonl"))
    with journal.open("ab") as handle:
        handle.write(b'{"e":"backup","backup_id":"2026')  # a crash mid-append
    assert store_at(tmp_path).head(path) == kept
    after = store_at(tmp_path).snapshot(path, b"v1", 0o644, operation="edit", after_hash=None)
    assert after.parent_backup_id == kept.backup_id


def test_retention_keeps_the_newest_per_file_and_cuts_the_chain_there(tmp_path: Path) -> None:
    store = store_at(tmp_path, max_count=2)
    path = Path("/r/f.txt")
    made = [store.snapshot(path, f"v{i}".encode(), 0o644, operation="edit", after_hash=None) for i in range(4)]
    chain = store.chain(path)
    assert [r.backup_id for r in chain] == [made[3].backup_id, made[2].backup_id]
    assert chain[-1].parent_backup_id is None


def test_retention_drops_backups_older_than_the_age_limit(tmp_path: Path) -> None:
    path = Path("/r/f.txt")
    old = store_at(tmp_path, clock=1_000_000.0).snapshot(path, b"old", 0o644, operation="edit", after_hash=None)
    later = 1_000_000.0 + 8 * 86_400
    store_at(tmp_path, clock=later).snapshot(path, b"new", 0o644, operation="edit", after_hash=None)
    assert old.backup_id not in {r.backup_id for r in store_at(tmp_path).records()}


def test_a_long_journal_is_compacted_without_losing_the_chain(tmp_path: Path) -> None:
    store = store_at(tmp_path, max_count=3)
    path = Path("/r/f.txt")
    for i in range(40):
        last = store.snapshot(path, f"v{i}".encode(), 0o644, operation="edit", after_hash=None)
    journal = next((tmp_path / "backups" / "journal").glob("*.jsonl"))
    assert len(journal.read_bytes().splitlines()) < 40
    assert store_at(tmp_path).chain(path)[0].backup_id == last.backup_id
    assert len(store_at(tmp_path).chain(path)) == 3


def test_a_damaged_blob_is_refused_not_restored(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    record = store.snapshot(Path("/r/f.txt"), b"good bytes", 0o644, operation="edit", after_hash=None)
    blob = tmp_path / "backups" / "blobs" / record.blob[:2] / record.blob
    blob.write_bytes(b"evil bytes")
    with pytest.raises(BackupCorruptError):
        store.read_blob(record)


def test_get_finds_backups_made_by_another_instance_and_refuses_bad_ids(tmp_path: Path) -> None:
    reader = store_at(tmp_path)
    made = store_at(tmp_path).snapshot(Path("/r/f.txt"), b"x", 0o644, operation="edit", after_hash=None)
    assert reader.get(made.backup_id) == made
    with pytest.raises(NotFoundError):
        reader.get("20200101-000000-0000000000000000")
    for bad in ("../../etc/passwd", "..", "", ";rm", "20200101-000000-XYZ"):
        with pytest.raises(InvalidParamsError):
            check_backup_id(bad)


def test_cleanup_dry_run_keeps_everything_and_the_real_run_frees_blobs(tmp_path: Path) -> None:
    store = store_at(tmp_path, clock=1_000.0)
    store.snapshot(Path("/r/f.txt"), b"x" * 100, 0o644, operation="edit", after_hash=None)
    later = store_at(tmp_path, clock=1_000.0 + 30 * 86_400)
    for blob in (tmp_path / "backups" / "blobs").glob("*/*"):
        os.utime(blob, (time.time() - 7_200, time.time() - 7_200))  # past the collector's grace hour
    assert len(later.cleanup(7, dry_run=True)) == 1
    assert len(later.records()) == 1
    assert len(later.cleanup(7, dry_run=False)) == 1
    assert later.records() == []
    assert list((tmp_path / "backups" / "blobs").glob("*/*")) == []
