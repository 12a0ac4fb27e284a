"""content_hash golden vectors, Fingerprint of text and binary bytes, FingerprintCache reuse and invalidation."""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

import pytest
from fnv_hash_fast import fnv1a_32
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fsguard.core import hashing as hashing_module
from fsguard.core import metadata as metadata_module
from fsguard.core import ranges as ranges_module
from fsguard.core.beneath import Beneath
from fsguard.core.disk import read_snapshot
from fsguard.core.hashing import Fingerprint, FingerprintCache, RecentDigests, StreamHash, content_hash
from fsguard.core.metadata import MetadataReader
from fsguard.core.paths import PathPolicy
from fsguard.core.ranges import Layout, Survey
from fsguard.core.session import Session
from tests.strategies import Encoding, EndedText, encodings, texts_with_line_endings

AN_HOUR_NS = 3600 * 1_000_000_000


def _an_hour_later() -> int:
    """A clock an hour ahead: files written by the test count as old, whatever their ctime."""
    return time.time_ns() + AN_HOUR_NS


def _age(path: Path) -> int:
    """Move the mtime of ``path`` an hour back, well out of the racy window; returns the new mtime."""
    past = time.time_ns() - AN_HOUR_NS
    os.utime(path, ns=(past, past))
    return past


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"", "811c9dc5"), (b"hello world", "d58b3fa7"), (b"alpha\nbeta\n", "d4d8adf9")],
)
def test_content_hash_matches_the_golden_fnv1a_32_vectors(data: bytes, expected: str) -> None:
    assert content_hash(data) == expected


@given(data=st.binary(max_size=256))
def test_content_hash_is_always_eight_lowercase_hex_digits(data: bytes) -> None:
    assert re.fullmatch("[0-9a-f]{8}", content_hash(data))


def test_fingerprint_of_text_counts_its_lines_and_names_its_encoding() -> None:
    assert Fingerprint.of(b"alpha\nbeta\n") == Fingerprint("d4d8adf9", 2, "utf-8")
    assert Fingerprint.of(b"a\r\nb\rc").line_count == 3


def test_fingerprint_of_binary_data_has_no_line_count_and_binary_encoding() -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
    assert Fingerprint.of(data) == Fingerprint(content_hash(data), None, "binary")


def test_fingerprint_of_bytes_that_do_not_decode_is_binary() -> None:
    data = b"\xff\xfea\x00b"  # a UTF-16-LE BOM, then an odd number of bytes
    assert Fingerprint.of(data) == Fingerprint(content_hash(data), None, "binary")


@given(sample=texts_with_line_endings(), encoding=encodings())
def test_fingerprint_counts_the_lines_the_text_was_built_from(sample: EndedText, encoding: Encoding) -> None:
    assume(not sample.text.startswith("\ufeff"))  # without a BOM, a leading U+FEFF reads as the UTF-8 BOM
    data = encoding.encode(sample.text)
    assert Fingerprint.of(data) == Fingerprint(content_hash(data), len(sample.split), encoding.codec)


def test_cache_answers_an_unchanged_old_file_without_reading_it_again(tmp_path: Path) -> None:
    path = tmp_path / "old.txt"
    path.write_bytes(b"alpha\nbeta\n")
    _age(path)
    cache = FingerprintCache(clock=_an_hour_later)

    first = cache.fingerprint(path)
    assert (cache.hits, cache.misses) == (0, 1)
    second = cache.fingerprint(path)

    assert (cache.hits, cache.misses) == (1, 1)
    assert cache.hit_rate == 0.5
    assert second == first == Fingerprint(content_hash(path.read_bytes()), 2, "utf-8")


def test_cache_reads_again_after_new_bytes_of_the_same_size_under_the_same_mtime(tmp_path: Path) -> None:
    path = tmp_path / "same-size.txt"
    path.write_bytes(b"aaaa\n")
    past = _age(path)
    cache = FingerprintCache(clock=_an_hour_later)
    assert cache.fingerprint(path).content_hash == content_hash(b"aaaa\n")
    before = path.stat()

    path.write_bytes(b"bbbb\n")  # in place: same inode, same size
    os.utime(path, ns=(past, past))
    # ctime cannot be set back. On a filesystem with coarse timestamps it moves only at the next clock
    # tick, so keep touching until it has; with fine-grained (multigrain) timestamps it already has.
    deadline = time.monotonic() + 5
    while path.stat().st_ctime_ns == before.st_ctime_ns:
        assert time.monotonic() < deadline, "ctime did not move within 5 s"
        os.utime(path, ns=(past, past))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)

    assert cache.fingerprint(path).content_hash == content_hash(path.read_bytes()) == content_hash(b"bbbb\n")
    assert (cache.hits, cache.misses) == (0, 2)


def test_cache_reads_again_after_the_file_is_replaced_by_rename(tmp_path: Path) -> None:
    path = tmp_path / "replaced.txt"
    path.write_bytes(b"one\n")
    past = _age(path)
    cache = FingerprintCache(clock=_an_hour_later)
    cache.fingerprint(path)

    other = tmp_path / "other.txt"
    other.write_bytes(b"two\n")
    os.utime(other, ns=(past, past))
    other.replace(path)

    assert cache.fingerprint(path).content_hash == content_hash(b"two\n")
    assert cache.misses == 2


@pytest.mark.parametrize("backdate_mtime", [False, True])
def test_cache_does_not_keep_a_file_changed_just_now_even_with_an_mtime_set_back(
    tmp_path: Path, backdate_mtime: bool
) -> None:
    path = tmp_path / "fresh.txt"
    path.write_bytes(b"fresh\n")
    if backdate_mtime:
        _age(path)  # mtime an hour ago, but the change (ctime) is now
    cache = FingerprintCache()

    cache.fingerprint(path)
    cache.fingerprint(path)
    assert (cache.hits, cache.misses) == (0, 2)


def test_remembered_fingerprint_answers_the_next_lookup(tmp_path: Path) -> None:
    path = tmp_path / "read.txt"
    path.write_bytes(b"x\ny\n")
    _age(path)
    cache = FingerprintCache(clock=_an_hour_later)

    cache.remember(path, path.stat(), Fingerprint.of(path.read_bytes()), cache.now())

    assert cache.fingerprint(path) == Fingerprint(content_hash(b"x\ny\n"), 2, "utf-8")
    assert (cache.hits, cache.misses) == (1, 0)


def test_cache_keeps_nothing_for_a_read_that_saw_the_file_change(tmp_path: Path) -> None:
    path = tmp_path / "changing.txt"
    path.write_bytes(b"x\n")
    _age(path)
    cache = FingerprintCache(clock=_an_hour_later)

    cache.remember(path, None, Fingerprint.of(b"stale\n"), cache.now())

    assert cache.fingerprint(path).content_hash == content_hash(b"x\n")
    assert (cache.hits, cache.misses) == (0, 1)


def test_a_fingerprint_read_slowly_is_judged_by_the_clock_before_its_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file changed just before the read began: a second change during a read that outlasts the racy window (a
    # gigabyte hashed) can leave the times as they were, so what the read saw must not be kept, however late it ends.
    path = tmp_path / "slow.txt"
    path.write_bytes(b"x\n")
    changed = max(path.stat().st_mtime_ns, path.stat().st_ctime_ns)
    now = [changed + 1]

    def slow_read(read: Path, max_size: int | None = None) -> tuple[bytes, os.stat_result | None]:
        now[0] = changed + 10**12  # the read ends long after the window
        return read_snapshot(read, max_size)

    monkeypatch.setattr(hashing_module, "read_snapshot", slow_read)
    cache = FingerprintCache(clock=lambda: now[0])

    cache.fingerprint(path)
    now[0] = changed + 1
    cache.fingerprint(path)

    assert (cache.hits, cache.misses) == (0, 2)


def test_cache_evicts_the_oldest_entry_when_full(tmp_path: Path) -> None:
    paths = [tmp_path / name for name in ("a.txt", "b.txt", "c.txt")]
    for path in paths:
        path.write_bytes(path.name.encode())
        _age(path)
    cache = FingerprintCache(max_entries=2, clock=_an_hour_later)
    for path in paths:
        cache.fingerprint(path)

    cache.fingerprint(paths[2])
    assert (cache.hits, cache.misses) == (1, 3)
    cache.fingerprint(paths[0])  # evicted by c.txt
    assert (cache.hits, cache.misses) == (1, 4)


@settings(max_examples=200, deadline=None)
@given(
    st.binary(max_size=600),
    st.lists(st.integers(min_value=0, max_value=600), max_size=8),
    st.sampled_from([0, 1, 64, 64 << 10]),
)
def test_a_streamed_hash_equals_the_whole_file_hash(data: bytes, cuts: list[int], batch: int) -> None:
    digest = StreamHash(batch)
    previous = 0
    for cut in [*sorted(cuts), len(data)]:
        digest.update(data[previous:cut])
        previous = max(previous, cut)
    assert digest.hexdigest() == content_hash(data)


def test_a_streamed_hash_given_a_few_bytes_at_a_time_searches_a_prefix_once_a_batch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = bytes(range(256)) * 1000
    searches: list[int] = []
    real = hashing_module._prefix_to

    def counted(target: int) -> bytes | None:
        searches.append(target)
        return real(target)

    monkeypatch.setattr(hashing_module, "_prefix_to", counted)
    digest = StreamHash(batch=64 << 10)
    for start in range(0, len(data), 7):
        digest.update(data[start : start + 7])
    assert digest.hexdigest() == content_hash(data)
    assert len(searches) == 3  # 256,000 bytes: four batches, the first from the offset basis


def test_a_streamed_hash_of_megabyte_chunks_equals_the_whole_hash() -> None:
    data = bytes(range(256)) * 12_000
    digest = StreamHash()
    for start in range(0, len(data), 1 << 20):
        digest.update(data[start : start + (1 << 20)])
    assert digest.hexdigest() == content_hash(data)


def test_an_unchanged_file_over_the_size_limit_is_counted_once_and_never_hashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.log"
    big.write_bytes(b"a line\n" * 1000)
    policy = PathPolicy.create([tmp_path])
    reader = MetadataReader(
        policy, Beneath(policy.roots), FingerprintCache(clock=_an_hour_later), Session(), max_file_size=100
    )
    surveys: list[bool] = []
    real = ranges_module.survey

    def counted(lay: Layout, *, hashed: bool) -> Survey:
        surveys.append(hashed)
        return real(lay, hashed=hashed)

    monkeypatch.setattr(metadata_module, "survey", counted)

    facts = [reader.describe(str(big))[1] for _ in range(3)]

    assert surveys == [False]
    assert {(f.line_count, f.content_hash) for f in facts} == {(1000, None)}
    with big.open("ab") as grown:
        grown.write(b"one more\n")
    assert reader.describe(str(big))[1].line_count == 1001


def _fnv(data: bytes) -> str:
    return f"{fnv1a_32(data):08x}"


@given(st.lists(st.binary(min_size=0, max_size=300), min_size=1, max_size=12), st.integers(0, 600))
def test_recent_digests_always_give_the_hash_of_the_bytes_asked_about(pieces: list[bytes], max_held: int) -> None:
    recent = RecentDigests(min_size=0, max_size=400, max_held=max_held)
    # Same length and ends, different middles: one key, and only the comparison of the bytes tells them apart.
    variants = [b"A" * 40 + piece + b"Z" * 40 for piece in pieces] + [
        b"A" * 40 + b"q" * len(p) + b"Z" * 40 for p in pieces
    ]

    for data in variants + variants[::-1]:
        assert recent.digest(bytes(data)) == _fnv(data)  # a fresh object each time: equal bytes, not identity
    assert recent.held <= max_held


def test_recent_digests_answer_equal_bytes_without_hashing_them_again(monkeypatch: pytest.MonkeyPatch) -> None:
    recent = RecentDigests(min_size=0)
    data = os.urandom(100_000)
    expected = recent.digest(data)
    calls: list[int] = []
    this_thread = threading.get_ident()

    def counted(raw: bytes) -> int:
        if threading.get_ident() == this_thread:  # a thread an earlier test's server left winding down may hash too
            calls.append(len(raw))
        return fnv1a_32(raw)

    monkeypatch.setattr(hashing_module, "fnv1a_32", counted)

    assert recent.digest(bytes(bytearray(data))) == expected
    assert calls == []
    recent.digest(data[:-1] + bytes([data[-1] ^ 1]))  # another last byte (never the one it had): a new key
    assert calls == [100_000]


def test_recent_digests_keep_at_most_their_byte_budget() -> None:
    recent = RecentDigests(min_size=0, max_held=250_000)

    for n in range(10):
        recent.digest(bytes([n]) * 100_000)

    assert recent.held == 200_000
    assert len(recent) == 2
