"""Two backup stores on one state directory (two fsguard servers on one project): each reads only the records the
other appended since its last look, and never mistakes a compacted journal for the one it had read."""

from __future__ import annotations

from pathlib import Path
from typing import IO

import pytest

from fsguard.core import journal, replays
from fsguard.core.backups import BackupStore

FILE = Path("/r/f.txt")


def store_at(tmp_path: Path) -> BackupStore:
    return BackupStore(tmp_path / "backups", max_age_days=7, max_count=100)


def version(store: BackupStore, number: int) -> journal.BackupRecord:
    return store.snapshot(FILE, f"v{number}".encode(), 0o644, operation="edit", after_hash=None)


def test_two_stores_taking_turns_on_one_file_read_only_each_others_new_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = store_at(tmp_path), store_at(tmp_path)
    made = [version(first if i % 2 else second, i) for i in range(4)]
    whole_reads: list[str] = []
    real = journal.read_journal

    def counted(handle: IO[bytes]) -> journal.Replay:
        whole_reads.append(str(handle))
        return real(handle)

    monkeypatch.setattr(replays, "read_journal", counted)
    made += [version(first if i % 2 else second, i) for i in range(4, 40)]
    assert whole_reads == []  # each went on from where its last read ended
    for store in (first, second, store_at(tmp_path)):
        chain = store.chain(FILE, limit=200)
        assert [record.backup_id for record in chain] == [record.backup_id for record in reversed(made)]
        assert [store.read_blob(record) for record in chain[:3]] == [b"v39", b"v38", b"v37"]


def test_a_store_reads_a_journal_another_compacted_from_its_start_even_once_it_outgrew_the_old_one(
    tmp_path: Path,
) -> None:
    reader, writer = store_at(tmp_path), store_at(tmp_path)
    kept = writer.snapshot(FILE, b"small\n", 0o644, operation="edit", after_hash=None)
    big = writer.snapshot(FILE, b"B" * (3 << 20), 0o644, operation="edit", after_hash=None)
    assert [r.backup_id for r in reader.chain(FILE)] == [big.backup_id, kept.backup_id]  # remembered
    # Withdrawn, the big backup's bytes outweigh the live ones: the writer compacts the journal into a new file
    # that starts with the same backup the old one started with, and then grows past the old one's end.
    writer.step_back(big, withdraw=True)
    newest = writer.snapshot(FILE, b"N" * (4 << 20), 0o644, operation="edit", after_hash=None)

    assert [r.backup_id for r in reader.chain(FILE)] == [newest.backup_id, kept.backup_id]
    assert reader.read_blob(newest) == b"N" * (4 << 20)
    assert reader.read_blob(kept) == b"small\n"
