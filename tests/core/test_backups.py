"""The backup store on a real directory: content addressing, the persisted chain, retention, crash leftovers."""

from __future__ import annotations

import errno
import fcntl
import hashlib
import logging
import os
import time
from pathlib import Path
from typing import Any, BinaryIO

import pytest

from fsguard.core import journal, replays
from fsguard.core.backups import BackupStore, check_backup_id
from fsguard.core.errors import BackupCorruptError, InvalidParamsError, NotFoundError
from fsguard.core.hashing import content_hash


def store_at(tmp_path: Path, *, max_count: int = 100, clock: float | None = None) -> BackupStore:
    if clock is None:
        return BackupStore(tmp_path / "backups", max_age_days=7, max_count=max_count)
    return BackupStore(tmp_path / "backups", max_age_days=7, max_count=max_count, clock=lambda: clock)


def journal_of(tmp_path: Path) -> Path:
    return next((tmp_path / "backups" / "journal").glob("*.jsonl"))


def test_a_files_identical_versions_are_stored_once_in_its_journal(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    path = Path("/r/a.txt")
    payload = b"version one\n" * 1000
    first = store.snapshot(path, payload, 0o644, operation="t", after_hash=None)
    store.snapshot(path, b"version two\n", 0o644, operation="t", after_hash=None)
    again = store.snapshot(path, payload, 0o644, operation="t", after_hash=None)
    assert journal_of(tmp_path).read_bytes().count(payload) == 1
    assert store_at(tmp_path).read_blob(again) == store_at(tmp_path).read_blob(first) == payload


def test_a_backup_and_its_chain_link_are_one_record_in_the_journal(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    record = store.snapshot(Path("/r/f.txt"), b"line\nwith newlines\n", 0o644, operation="edit", after_hash=None)
    raw = journal_of(tmp_path).read_bytes()
    header, rest = raw.split(b"\n", 1)
    assert b'"inline":19' in header
    assert record.backup_id.encode() in header
    assert rest == b"line\nwith newlines\n\n"
    assert not list((tmp_path / "backups" / "blobs").glob("*/*"))


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
    with journal_of(tmp_path).open("ab") as handle:
        handle.write(b'{"e":"backup","backup_id":"2026')  # a crash mid-append
    assert store_at(tmp_path).head(path) == kept
    after = store_at(tmp_path).snapshot(path, b"v1", 0o644, operation="edit", after_hash=None)
    assert after.parent_backup_id == kept.backup_id
    assert store_at(tmp_path).head(path) == after  # the torn tail was cut off, not glued to the new record


@pytest.mark.parametrize("cut", [1, 10, 60])
def test_backup_bytes_cut_short_by_a_crash_are_ignored_and_cut_off_by_the_next_append(tmp_path: Path, cut: int) -> None:
    store = store_at(tmp_path)
    path = Path("/r/f.txt")
    kept = store.snapshot(path, b"v0", 0o644, operation="edit", after_hash=None)
    whole = journal_of(tmp_path).read_bytes()
    store.snapshot(path, b"x" * 50 + b"\n", 0o644, operation="edit", after_hash=None)
    torn = journal_of(tmp_path).read_bytes()[:-cut]
    journal_of(tmp_path).write_bytes(torn)
    reopened = store_at(tmp_path)
    assert reopened.head(path) == kept
    assert reopened.read_blob(kept) == b"v0"
    after = reopened.snapshot(path, b"v2", 0o644, operation="edit", after_hash=None)
    assert journal_of(tmp_path).read_bytes().startswith(whole)
    assert [r.backup_id for r in store_at(tmp_path).chain(path)] == [after.backup_id, kept.backup_id]
    assert store_at(tmp_path).read_blob(after) == b"v2"


def test_damage_inside_a_backups_bytes_skips_that_backup_and_keeps_every_later_one_listed_and_on_disk(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = store_at(tmp_path)
    path = Path("/r/f.txt")
    # The damaged bytes hold a line shaped like a record (its bytes do not match its hash): never taken for one.
    fake = journal.BackupRecord("20261101-100000-0123456789abcdef", str(path), 1, "t", "", 3, "0", 0, None, None, True)
    lookalike = journal.encode(journal.backup_event(fake, inline=3)) + b"ok\n\n"
    first = store.snapshot(path, b"v1\n" * 30 + lookalike, 0o644, operation="t", after_hash=None)
    second = store.snapshot(path, b"v2\n" * 30, 0o644, operation="t", after_hash=None)
    third = store.snapshot(path, b"v3\n" * 30, 0o644, operation="t", after_hash=None)
    raw = journal_of(tmp_path).read_bytes()
    cut = raw.index(b"\n") + 20
    damaged = raw[:cut] + raw[cut + 50 :]  # 50 bytes lost inside the first backup's bytes (a bad sector, say)
    journal_of(tmp_path).write_bytes(damaged)
    with caplog.at_level(logging.WARNING, logger="fsguard.core.journal"):
        reopened = store_at(tmp_path)
        assert [r.backup_id for r in reopened.records()] == [third.backup_id, second.backup_id]
    assert journal_of(tmp_path).name in caplog.text
    after = reopened.snapshot(path, b"v4\n", 0o644, operation="t", after_hash=None)
    assert journal_of(tmp_path).read_bytes().startswith(damaged)  # nothing intact was cut off
    fresh = store_at(tmp_path)
    assert [r.backup_id for r in fresh.chain(path)] == [after.backup_id, third.backup_id, second.backup_id]
    assert [fresh.read_blob(r) for r in fresh.chain(path)] == [b"v4\n", b"v3\n" * 30, b"v2\n" * 30]
    with pytest.raises(NotFoundError):
        fresh.get(first.backup_id)


def test_journal_lines_without_the_fields_their_event_needs_are_skipped_and_the_rest_still_replays(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = store_at(tmp_path)
    path = Path("/r/f.txt")
    kept = store.snapshot(path, b"v0\n", 0o644, operation="edit", after_hash=None)
    malformed = b'{"e":"undo"}\n[1]\n{"e":"backup","backup_id":"20261207-000000-0000000000000000","inline":2}\nab\n'
    with journal_of(tmp_path).open("ab") as handle:
        handle.write(malformed)
    with caplog.at_level(logging.WARNING, logger="fsguard.core.journal"):
        reopened = store_at(tmp_path)
        assert reopened.apply_retention() == 0  # what every server and the dashboard do at start
    assert journal_of(tmp_path).name in caplog.text
    assert (reopened.records(), reopened.head(path)) == ([kept], kept)
    after = reopened.snapshot(path, b"v1\n", 0o644, operation="edit", after_hash=None)
    assert after.parent_backup_id == kept.backup_id
    assert malformed in journal_of(tmp_path).read_bytes()
    assert [r.backup_id for r in store_at(tmp_path).chain(path)] == [after.backup_id, kept.backup_id]


def test_a_store_written_by_the_blob_layout_still_reads_undoes_and_takes_new_backups(tmp_path: Path) -> None:
    old_bytes = b"saved by an older fsguard\n"
    digest = hashlib.sha256(old_bytes).hexdigest()
    blob = tmp_path / "backups" / "blobs" / digest[:2] / digest
    blob.parent.mkdir(parents=True)
    blob.write_bytes(old_bytes)
    path = Path("/r/f.txt")
    line = (
        '{"e":"backup","backup_id":"20261101-100000-0123456789abcdef","path":"/r/f.txt",'
        f'"time":{time.time() - 60},"operation":"edit","blob":"{digest}","size":{len(old_bytes)},'
        f'"content_hash":"{content_hash(old_bytes)}",'
        '"mode":420,"after_hash":"00000000","parent_backup_id":null,"chained":true}\n'
    )
    journal = tmp_path / "backups" / "journal" / f"{hashlib.sha256(b'/r/f.txt').hexdigest()[:32]}.jsonl"
    journal.parent.mkdir(parents=True)
    journal.write_text(line, encoding="utf-8")
    store = store_at(tmp_path)
    old = store.head(path)
    assert old is not None
    assert store.read_blob(old) == old_bytes
    new = store.snapshot(path, b"new\n", 0o644, operation="edit", after_hash=None)
    assert new.parent_backup_id == old.backup_id
    assert [store_at(tmp_path).read_blob(r) for r in store_at(tmp_path).chain(path)] == [b"new\n", old_bytes]
    blob.write_bytes(b"tampered")
    with pytest.raises(BackupCorruptError):
        store_at(tmp_path).read_blob(old)


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
    assert journal_of(tmp_path).read_bytes().count(b'{"e":') < 40
    assert store_at(tmp_path).chain(path)[0].backup_id == last.backup_id
    chain = store_at(tmp_path).chain(path)
    assert [store_at(tmp_path).read_blob(r) for r in chain] == [b"v39", b"v38", b"v37"]


def test_dropped_backup_bytes_are_compacted_away_and_the_live_ones_still_read(tmp_path: Path) -> None:
    store = store_at(tmp_path, max_count=2)
    path = Path("/r/f.txt")
    versions = [bytes([65 + i]) * 300_000 for i in range(30)]
    made = [store.snapshot(path, data, 0o644, operation="edit", after_hash=None) for data in versions]
    # 9 MB written; what stays is about the live versions plus the slack compaction allows (1 MiB)
    assert journal_of(tmp_path).stat().st_size < 2 * 2 * 300_000 + (1 << 20) + 300_000
    reader = store_at(tmp_path)
    assert [reader.read_blob(r) for r in reader.chain(path)] == versions[-1:-3:-1]
    assert store.read_blob(made[-1]) == versions[-1]  # a record read before compaction finds its moved bytes


def test_damaged_backup_bytes_are_refused_not_restored(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    record = store.snapshot(Path("/r/f.txt"), b"good bytes", 0o644, operation="edit", after_hash=None)
    journal = journal_of(tmp_path)
    journal.write_bytes(journal.read_bytes().replace(b"good bytes", b"evil bytes"))
    with pytest.raises(BackupCorruptError):
        store_at(tmp_path).read_blob(record)


def test_get_finds_backups_made_by_another_instance_and_refuses_bad_ids(tmp_path: Path) -> None:
    reader = store_at(tmp_path)
    made = store_at(tmp_path).snapshot(Path("/r/f.txt"), b"x", 0o644, operation="edit", after_hash=None)
    assert reader.get(made.backup_id) == made
    with pytest.raises(NotFoundError):
        reader.get("20200101-000000-0000000000000000")
    for bad in ("../../etc/passwd", "..", "", ";rm", "20200101-000000-XYZ"):
        with pytest.raises(InvalidParamsError):
            check_backup_id(bad)


def test_cleanup_dry_run_keeps_everything_and_the_real_run_drops_the_backup(tmp_path: Path) -> None:
    store = store_at(tmp_path, clock=1_000.0)
    store.snapshot(Path("/r/f.txt"), b"x" * 100, 0o644, operation="edit", after_hash=None)
    later = store_at(tmp_path, clock=1_000.0 + 30 * 86_400)
    assert len(later.cleanup(7, dry_run=True, shown=lambda _: True).records) == 1
    assert len(later.records()) == 1
    assert len(later.cleanup(7, dry_run=False, shown=lambda _: True).records) == 1
    assert later.records() == []
    assert store_at(tmp_path).records() == []


def test_a_compaction_the_disk_cannot_hold_leaves_the_backup_made_the_journal_whole_and_no_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Compaction copies the live records to a temp journal; on a nearly full state directory the append fits and
    # the copy does not. The backup was durable by then: the snapshot must stand, and the copy must go.
    store = store_at(tmp_path, max_count=3)
    path = Path("/r/f.txt")

    def copy_until_full(source: int, target: int, *args: Any) -> None:
        os.write(target, b"part of a copy\n")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal, "copy_live", copy_until_full)
    made = [store.snapshot(path, f"v{i}".encode(), 0o644, operation="edit", after_hash=None) for i in range(40)]
    assert [entry.name for entry in (tmp_path / "backups" / "journal").iterdir()] == [journal_of(tmp_path).name]
    assert list((tmp_path / "backups" / "inflight").iterdir()) == []
    reader = store_at(tmp_path)
    assert [reader.read_blob(r) for r in reader.chain(path)] == [b"v39", b"v38", b"v37"]
    assert reader.head(path) == made[-1]

    monkeypatch.undo()  # space again: the next append compacts
    lines = journal_of(tmp_path).read_bytes().count(b'{"e":')
    store.snapshot(path, b"v40", 0o644, operation="edit", after_hash=None)
    assert journal_of(tmp_path).read_bytes().count(b'{"e":') < lines


def test_a_cleanup_the_disk_cannot_compact_for_removes_emptied_journals_and_counts_only_the_bytes_it_freed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a full state directory compaction fails (no room for its copy). A journal with no backup left is removed,
    # which needs no room; one that keeps a backup keeps the dropped bytes too: held, never counted as freed.
    gone, kept = Path("/r/gone.txt"), Path("/r/kept.txt")
    old = store_at(tmp_path, clock=1_000.0)
    for i in range(3):
        for path in (gone, kept):
            old.snapshot(path, f"{path.name} {i} ".encode() * 500, 0o644, operation="edit", after_hash=None)
    later = store_at(tmp_path, clock=1_000.0 + 3 * 86_400)  # within the 7 days retention keeps
    newest = later.snapshot(kept, b"kept now", 0o644, operation="edit", after_hash=None)
    journals = tmp_path / "backups" / "journal"
    sizes = {entry.name: entry.stat().st_size for entry in journals.iterdir()}
    estimate = later.cleanup(1, dry_run=True, shown=lambda _: True).freed

    def copy_until_full(source: int, target: int, *args: Any) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(journal, "copy_live", copy_until_full)
    cleaned = later.cleanup(1, dry_run=False, shown=lambda _: True)
    assert len(cleaned.records) == 6
    assert [r.backup_id for r in later.records()] == [newest.backup_id]
    [left] = journals.iterdir()
    assert cleaned.freed == sum(sizes.values()) - sizes[left.name]  # the emptied journal, gone
    assert cleaned.held > 0
    assert list((tmp_path / "backups" / "inflight").iterdir()) == []

    monkeypatch.undo()  # room again: the next cleanup compacts what the last one could not
    uncompacted = left.stat().st_size
    again = later.cleanup(1, dry_run=False, shown=lambda _: True)
    assert (again.records, again.held) == ([], 0)
    assert again.freed == uncompacted - left.stat().st_size > 0
    assert 0 < estimate <= cleaned.freed + again.freed
    assert later.read_blob(newest) == b"kept now"
    assert [r.backup_id for r in store_at(tmp_path).records()] == [newest.backup_id]


def test_a_record_appended_while_another_instance_reads_the_journal_is_never_cut_off_by_its_next_backup(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A reader (backup list, undo_chain) reads a journal without its lock; another process appends a backup after
    # the reader reached the end and before it takes the file's stat. The reader's replay ends before that record
    # while the stat already counts it: remembered so, the next append takes the record for a torn tail to cut off.
    path = Path("/r/f.txt")
    reader, other = store_at(tmp_path), store_at(tmp_path)
    reader.snapshot(path, b"v0\n", 0o644, operation="edit", after_hash=None)
    appended: list[Any] = []
    real_read = journal.read_journal

    def append_after_the_end(handle: Any) -> journal.Replay:
        replay = real_read(handle)
        if not appended:
            appended.append(None)  # the other instance's own reads go on as usual
            appended[0] = other.snapshot(path, b"v1\n", 0o644, operation="edit", after_hash=None)
        return replay

    monkeypatch.setattr("fsguard.core.replays.read_journal", append_after_the_end)
    reader._replays.forget(journal_of(tmp_path).stem)  # as a reader that has not seen this journal lately
    reader.chain(path)
    monkeypatch.undo()
    reader.snapshot(path, b"v2\n", 0o644, operation="edit", after_hash=None)
    fresh = store_at(tmp_path)
    assert [fresh.read_blob(r) for r in fresh.chain(path)] == [b"v2\n", b"v1\n", b"v0\n"]
    assert fresh.get(appended[0].backup_id) == appended[0]


def test_a_backup_appended_while_another_instance_compacts_the_journal_lands_in_the_compacted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The appender opens the journal, and before it holds the lock the other instance compacts it (a new file renamed
    # over the old): appended to the old file's descriptor, the backup would be lost with it.
    path = Path("/r/f.txt")
    compacting, appender = store_at(tmp_path, max_count=3), store_at(tmp_path, max_count=3)
    versions = 0
    while versions == 0 or journal_of(tmp_path).read_bytes().count(b'{"e":') < 27:  # 28 lines: the next compacts
        compacting.snapshot(path, f"v{versions}".encode(), 0o644, operation="edit", after_hash=None)
        versions += 1
    before = journal_of(tmp_path).stat().st_ino
    real_flock = fcntl.flock
    raced: list[bool] = []

    def compact_first(fd: int, operation: int) -> None:
        if not raced:
            raced.append(True)
            compacting.snapshot(path, b"last", 0o644, operation="edit", after_hash=None)
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", compact_first)
    made = appender.snapshot(path, b"from the appender", 0o644, operation="edit", after_hash=None)
    monkeypatch.undo()
    assert journal_of(tmp_path).stat().st_ino != before  # compacted meanwhile
    fresh = store_at(tmp_path, max_count=3)
    assert fresh.head(path) == made
    last = f"v{versions - 1}".encode()
    assert [fresh.read_blob(r) for r in fresh.chain(path)] == [b"from the appender", b"last", last]


def reads_of(store: BackupStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The journals (keys) ``store`` reads from now on, one entry a read."""
    read = store._read
    keys: list[str] = []

    def counted(key: str) -> journal.Replay:
        keys.append(key)
        return read(key)

    monkeypatch.setattr(store, "_read", counted)
    return keys


def test_a_dropped_backup_is_looked_up_in_its_own_journal_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = store_at(tmp_path, clock=1_000.0)
    files = [Path(f"/r/f{i}.txt") for i in range(5)]
    made = [store.snapshot(f, b"x", 0o644, operation="edit", after_hash=None) for f in files]
    later = store_at(tmp_path, clock=1_000.0 + 30 * 86_400)
    later.cleanup(7, dry_run=False, shown=lambda _: True)
    keys = reads_of(store, monkeypatch)
    for record in made:
        with pytest.raises(NotFoundError):
            store.get(record.backup_id)
    assert len(keys) == len(made)  # not every journal once more per lookup
    assert store.get(store.snapshot(files[0], b"y", 0o644, operation="edit", after_hash=None).backup_id)


def test_a_backup_looked_up_with_its_file_reads_that_files_journal_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = store_at(tmp_path, clock=1_000.0)
    files = [Path(f"/r/f{i}.txt") for i in range(5)]
    made = [store.snapshot(f, b"x", 0o644, operation="edit", after_hash=None) for f in files]
    later = store_at(tmp_path, clock=1_000.0 + 30 * 86_400)
    later.cleanup(7, dry_run=False, shown=lambda _: True)
    kept = later.snapshot(files[0], b"y", 0o644, operation="edit", after_hash=None)
    restarted = store_at(tmp_path)  # knows no backup id yet
    keys = reads_of(restarted, monkeypatch)
    for record in made:
        with pytest.raises(NotFoundError):
            restarted.get(record.backup_id, Path(record.path))
    assert len(keys) == len(made)
    assert restarted.get(kept.backup_id, files[0]) == kept


def test_the_journals_of_the_files_backed_up_last_stay_replayed_and_an_older_one_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replays, "_REPLAYS_KEPT", 2)
    store = store_at(tmp_path)
    files = [Path(f"/r/f{i}.txt") for i in range(3)]
    made = [store.snapshot(path, path.name.encode(), 0o644, operation="edit", after_hash=None) for path in files]
    replayed: list[str] = []
    real = journal.read_journal

    def counted(handle: BinaryIO) -> journal.Replay:
        replayed.append(handle.name)
        return real(handle)

    monkeypatch.setattr(replays, "read_journal", counted)
    assert [store.chain(path)[0] for path in files[1:]] == made[1:]
    assert replayed == []
    assert store.chain(files[0])[0] == made[0]
    assert store.read_blob(made[0]) == b"f0.txt"
    assert len(replayed) == 1


def test_collecting_old_blobs_never_follows_a_link_out_of_the_store_nor_removes_what_is_not_a_blob(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_bytes(b"the user's\n")
    blobs = tmp_path / "backups" / "blobs"
    (blobs / "ab").mkdir(parents=True)
    (blobs / "cd").symlink_to(outside, target_is_directory=True)
    (blobs / "ab" / "notes.txt").write_bytes(b"not a blob\n")
    (blobs / "ab" / ("ab" + "0" * 62)).symlink_to(outside / "precious.txt")
    digest = hashlib.sha256(b"dead").hexdigest()
    (blobs / digest[:2]).mkdir(exist_ok=True)
    (blobs / digest[:2] / digest).write_bytes(b"dead")
    for path in [outside / "precious.txt", blobs / "ab" / "notes.txt", blobs / digest[:2] / digest]:
        os.utime(path, (1, 1))

    store = store_at(tmp_path)
    assert store.stats()[1] == 4  # the one blob's bytes (no journal yet)
    assert store.collect_garbage() == 4

    assert (outside / "precious.txt").read_bytes() == b"the user's\n"
    assert (blobs / "ab" / "notes.txt").read_bytes() == b"not a blob\n"
    assert not (blobs / digest[:2] / digest).exists()


def test_a_clock_set_back_never_makes_retention_drop_the_newest_operations(tmp_path: Path) -> None:
    path = Path("/r/f.txt")
    taken = []
    for i, clock in enumerate([2e9 + 86_400, 2e9 + 86_401, 2e9 + 86_402, 2e9, 2e9 + 1, 2e9 + 2, 2e9 + 3]):
        # the first three while the clock ran a day ahead; then it was set right
        record = store_at(tmp_path, max_count=3, clock=clock).snapshot(
            path, b"v%d\n" % i, 0o644, operation="edit", after_hash=None
        )
        taken.append(record.backup_id)

    reopened = store_at(tmp_path, max_count=3, clock=2e9 + 4)
    reopened.apply_retention()

    chain = reopened.chain(path)
    assert [r.backup_id for r in chain] == taken[:-4:-1]
    assert [reopened.read_blob(r) for r in chain] == [b"v6\n", b"v5\n", b"v4\n"]


def test_a_compacted_journal_keeps_the_order_its_backups_were_taken_in_whatever_the_clock_said(tmp_path: Path) -> None:
    def store(clock: float, max_count: int = 3) -> BackupStore:
        return BackupStore(tmp_path / "backups", max_age_days=365, max_count=max_count, clock=lambda: clock)

    path = Path("/r/f.txt")
    day = 86_400
    # an old backup; one taken while the clock ran a day ahead; two once it was set right
    taken = [
        store(clock, 4).snapshot(path, b"v%d\n" % i, 0o644, operation="edit", after_hash=None).backup_id
        for i, clock in enumerate([2e9 - 20 * day, 2e9 + day, 2e9, 2e9 + 1])
    ]
    assert [r.backup_id for r in store(2e9 + 2).cleanup(10, dry_run=False, shown=lambda _: True).records] == taken[:1]
    taken.append(store(2e9 + 3).snapshot(path, b"v4\n", 0o644, operation="edit", after_hash=None).backup_id)

    chain = store(2e9 + 4).chain(path)
    assert [r.backup_id for r in chain] == taken[:-4:-1]
    assert [store(2e9 + 4).read_blob(r) for r in chain] == [b"v4\n", b"v3\n", b"v2\n"]


def test_a_backup_taken_while_the_clock_was_years_behind_is_as_new_as_the_one_before_it(tmp_path: Path) -> None:
    # A machine without a real-time clock boots in 2000 until NTP sets it: an edit made then was the newest step of
    # the chain, and the next start's retention dropped it as 26 years old.
    path = Path("/r/f.txt")
    first = store_at(tmp_path, clock=2e9).snapshot(path, b"v0\n", 0o644, operation="edit", after_hash=None)
    booted = store_at(tmp_path, clock=946_684_800.0).snapshot(path, b"v1\n", 0o644, operation="edit", after_hash=None)

    store_at(tmp_path, clock=2e9 + 60).apply_retention()

    reopened = store_at(tmp_path, clock=2e9 + 60)
    assert [r.backup_id for r in reopened.chain(path)] == [booted.backup_id, first.backup_id]
    assert reopened.read_blob(booted) == b"v1\n"
    store_at(tmp_path, clock=2e9 + 8 * 86_400).apply_retention()  # a week later both are past --backup-max-age
    assert store_at(tmp_path).chain(path) == []
