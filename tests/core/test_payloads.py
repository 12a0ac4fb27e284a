"""Backup bytes kept compressed in the journal: exact bytes back, the disk spared, damage refused, compaction."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.backups import BackupStore
from fsguard.core.errors import BackupCorruptError
from fsguard.core.payloads import PACK_FROM, ZLIB, packed, unpacked

FILE = Path("/r/big.log")


def store_at(tmp_path: Path, *, max_count: int = 100) -> BackupStore:
    return BackupStore(tmp_path / "backups", max_age_days=7, max_count=max_count)


def journal_of(tmp_path: Path) -> Path:
    return next((tmp_path / "backups" / "journal").glob("*.jsonl"))


def log_text(version: int, size: int = 2 * PACK_FROM) -> bytes:
    """A log of ``size`` bytes whose every line names ``version``: compresses well, differs from other versions."""
    lines = b"".join(b"%06d version %d: request served in %d ms\n" % (i, version, i % 97) for i in range(size // 30))
    return lines[:size]


def noise(size: int = 2 * PACK_FROM) -> bytes:
    return random.Random(size).randbytes(size)


def test_a_large_text_backup_is_kept_compressed_and_reads_back_byte_for_byte(tmp_path: Path) -> None:
    data = log_text(1)
    record = store_at(tmp_path).snapshot(FILE, data, 0o644, operation="edit_file", after_hash=None)

    raw = journal_of(tmp_path).read_bytes()
    assert len(raw) < len(data) // 3
    assert b'"codec":"zlib"' in raw
    assert store_at(tmp_path).read_blob(record) == data  # another instance, from disk


def test_bytes_that_do_not_compress_are_kept_as_they_are(tmp_path: Path) -> None:
    data = noise()
    record = store_at(tmp_path).snapshot(FILE, data, 0o644, operation="edit_file", after_hash=None)

    raw = journal_of(tmp_path).read_bytes()
    assert data in raw
    assert b'"codec"' not in raw
    assert store_at(tmp_path).read_blob(record) == data


def test_a_backup_under_a_megabyte_is_kept_as_it_is(tmp_path: Path) -> None:
    data = log_text(1, PACK_FROM - 1)
    store_at(tmp_path).snapshot(FILE, data, 0o644, operation="edit_file", after_hash=None)

    assert data in journal_of(tmp_path).read_bytes()


def test_a_compressed_version_that_comes_back_is_stored_once(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    first = store.snapshot(FILE, log_text(1), 0o644, operation="edit_file", after_hash=None)
    store.snapshot(FILE, log_text(2), 0o644, operation="edit_file", after_hash=None)
    again = store.snapshot(FILE, log_text(1), 0o644, operation="edit_file", after_hash=None)

    raw = journal_of(tmp_path).read_bytes()
    assert raw.count(b'"codec":"zlib"') == 2
    assert f'"dup":"{first.backup_id}"'.encode() in raw
    assert store_at(tmp_path).read_blob(again) == log_text(1)


@pytest.mark.parametrize("damage", ["flipped", "cut"])
def test_damaged_compressed_bytes_are_refused_not_restored(tmp_path: Path, damage: str) -> None:
    data = log_text(1)
    record = store_at(tmp_path).snapshot(FILE, data, 0o644, operation="edit_file", after_hash=None)
    journal = journal_of(tmp_path)
    header, rest = journal.read_bytes().split(b"\n", 1)
    stored = bytearray(rest[:-1])
    if damage == "flipped":
        stored[len(stored) // 2] ^= 0xFF
    else:  # the stream ends early and the journal's record still says how long it was: zeros after it
        stored[len(stored) // 2 :] = bytes(len(stored) - len(stored) // 2)
    journal.write_bytes(header + b"\n" + bytes(stored) + b"\n")

    with pytest.raises(BackupCorruptError):
        store_at(tmp_path).read_blob(record)


def test_compaction_keeps_compressed_backups_compressed_and_every_live_one_readable(tmp_path: Path) -> None:
    store = store_at(tmp_path, max_count=2)
    versions = [log_text(i) if i % 3 else noise(PACK_FROM + i) for i in range(14)]
    for data in versions:
        store.snapshot(FILE, data, 0o644, operation="edit_file", after_hash=None)

    raw = journal_of(tmp_path).read_bytes()
    assert raw.startswith(b'{"e":"compacted"')
    reader = store_at(tmp_path)
    assert [reader.read_blob(record) for record in reader.chain(FILE)] == versions[-1:-3:-1]
    assert raw.count(b'"e":"backup"') < len(versions)
    assert len(raw) < len(versions[-1]) + len(versions[-2])  # the live text version copied over still compressed


@given(st.binary(max_size=64), st.integers(1, 200), st.binary(max_size=64))
def test_packed_bytes_unpack_to_exactly_the_bytes_given(unit: bytes, repeats: int, tail: bytes) -> None:
    data = (unit or b"\0") * (PACK_FROM // len(unit or b"\0") // repeats + 1) * repeats + tail

    stored, codec = packed(data)

    assert unpacked(stored, codec, len(data)) == data
    assert codec == "" or len(stored) <= 0.8 * len(data)
    if codec:
        assert unpacked(stored, codec, len(data) - 1) is None  # a size the record does not hold: refused


def test_inflating_stops_at_the_recorded_size_whatever_the_stored_bytes_hold() -> None:
    bomb = zlib.compress(bytes(64 * PACK_FROM), 1)

    assert unpacked(bomb, ZLIB, 10) is None
    assert unpacked(bomb + b"junk", ZLIB, 64 * PACK_FROM) is None
    assert unpacked(bomb, "zstd", 64 * PACK_FROM) is None  # a codec this version does not know
