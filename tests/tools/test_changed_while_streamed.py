"""A file rewritten in place (same size) by another program while a streamed pass hashes it: the content_hash
handed out is of bytes that were on disk together (the ones whose lines are shown), or the call is refused and no
hash is remembered for auto-OCC. A probe found a read pairing new lines with the old hash, or a hash of half old,
half new bytes. Both eras; the bytes on disk decide."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from fsguard.core import hashing, ranges, reading
from fsguard.core.hashing import content_hash
from tests import media_samples
from tests.conftest import ClientFactory, structured, text_of

pytestmark = pytest.mark.anyio

OLD = b"".join(b"old line %05d\n" % i for i in range(5000))  # 70 KB: several reads a pass, FIRST_CHUNK is 64 KiB
NEW = OLD.replace(b"old", b"NEW")
PAST = 1_500_000_000 * 10**9  # a stamp no write made now can carry


@pytest.fixture
def big(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``big.txt`` holding OLD, read in pieces (streamed) by read_file and get_file_info."""
    monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 16)
    monkeypatch.setattr("fsguard.core.metadata.STREAM_ABOVE", 16)
    path = root / "big.txt"
    path.write_bytes(OLD)
    # Its mtime in the past, so a rewrite's own stamp differs from it whatever the clock's grain.
    os.utime(path, ns=(PAST, PAST))
    return path


def rewrite_during(
    monkeypatch: pytest.MonkeyPatch, path: Path, when: Callable[[int], bool], *, mtime_put_back: bool = False
) -> list[bytes]:
    """Another program rewriting ``path`` in place before the streamed reads ``when`` picks (numbered from 1),
    NEW and OLD in turn; the bytes it last wrote are returned in the list (the file's, as nothing else writes)."""
    real = ranges._pread
    count = [0]
    written = [OLD]

    def pread(fd: int, length: int, offset: int) -> bytes:
        count[0] += 1
        if when(count[0]):
            data = NEW if written[-1] == OLD else OLD
            with path.open("r+b") as out:
                out.write(data)
            # Put back (as rsync does) only the ctime tells the write; else each write its own mtime.
            stamp = PAST if mtime_put_back else PAST + count[0] * 10**9
            os.utime(path, ns=(stamp, stamp))
            written.append(data)
        return real(fd, length, offset)

    monkeypatch.setattr(ranges, "_pread", pread)
    return written


@pytest.mark.parametrize("mtime_put_back", [False, True], ids=["mtime moved", "mtime put back"])
@pytest.mark.parametrize("at", [1, 2, 3, 4, 5])
async def test_a_streamed_read_of_a_file_rewritten_while_it_is_read_returns_the_hash_of_the_bytes_its_lines_are_from(
    connect: ClientFactory, big: Path, monkeypatch: pytest.MonkeyPatch, at: int, mtime_put_back: bool
) -> None:
    written = rewrite_during(monkeypatch, big, lambda n: n == at, mtime_put_back=mtime_put_back)
    async with connect(auto_occ="block") as client:
        data = structured(
            await client.call_tool("read_file", {"path": "big.txt", "start_line": 4000, "end_line": 4000})
        )
        assert written == [OLD, NEW]  # rewritten once
        assert big.read_bytes() == NEW  # and by nothing else: the read wrote nothing
        assert data["content"] == "NEW line 03999\n"
        assert data["content_hash"] == content_hash(NEW) == content_hash(big.read_bytes())
        # The token works: an edit passing it goes through, and so does one relying on the session's memory.
        edit = {"path": "big.txt", "old_text": "NEW line 03999", "new_text": "edited"}
        structured(await client.call_tool("edit_file", {**edit, "expected_hash": data["content_hash"]}))
        assert b"edited\n" in big.read_bytes()


async def test_a_compact_read_of_a_file_written_to_while_it_was_read_still_says_why_it_has_no_hash(
    connect: ClientFactory, big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = rewrite_during(monkeypatch, big, lambda n: True)
    async with connect(compact_mode=True) as client:
        asked = {"path": "big.txt", "start_line": 4000, "end_line": 4000}
        for arguments, span in (
            (asked, "lines 4000-4000 of 5000; next: start_line=4001"),
            ({"paths": ["big.txt"]}, ""),
        ):
            text = text_of(await client.call_tool("read_file", arguments))
            assert span in text
            assert "big.txt was written to while it was read (another program is writing it)" in text
    assert big.read_bytes() == written[-1]  # the reads wrote nothing


async def test_a_streamed_read_of_a_file_rewritten_during_every_pass_shows_its_lines_without_a_hash_to_edit_by(
    connect: ClientFactory, big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A log written to without pause is still read (its tail is what an agent came for); only the token is held back.
    written = rewrite_during(monkeypatch, big, lambda n: True)
    async with connect(auto_occ="block") as client:
        result = await client.call_tool("read_file", {"path": "big.txt", "start_line": 4000, "end_line": 4000})
        data = structured(result)
        assert data["content"] in ("OLD line 03999\n", "NEW line 03999\n")
        assert "content_hash" not in data
        assert "big.txt was written to while it was read (another program is writing it)" in data["hint"]
        assert "read it again for one before an edit" in text_of(result)
        assert big.read_bytes() == written[-1]  # the read wrote nothing
        monkeypatch.setattr(ranges, "_pread", os.pread)  # the other program stops
        # No hash of bytes never on disk together was remembered: auto-OCC (block) has nothing to refuse by.
        line = b"%s line 03999" % written[-1][:3]
        edit = {"path": "big.txt", "old_text": line.decode(), "new_text": "edited"}
        structured(await client.call_tool("edit_file", edit))
    assert b"edited\n" in big.read_bytes()


@pytest.mark.parametrize("at", [1, 2, 3])
async def test_get_file_info_of_a_streamed_file_rewritten_while_it_is_hashed_gives_the_hash_of_the_bytes_on_disk(
    connect: ClientFactory, big: Path, monkeypatch: pytest.MonkeyPatch, at: int
) -> None:
    rewrite_during(monkeypatch, big, lambda n: n == at)
    async with connect(auto_occ="block") as client:
        info = structured(await client.call_tool("get_file_info", {"path": "big.txt"}))
        assert big.read_bytes() == NEW  # get_file_info wrote nothing
        assert info["content_hash"] == content_hash(NEW)
        assert info["line_count"] == 5000
        edit = {"path": "big.txt", "old_text": "NEW line 03999", "new_text": "edited"}
        structured(await client.call_tool("edit_file", edit))  # the session remembers the right hash


async def test_get_file_info_of_a_streamed_file_rewritten_during_every_pass_gives_no_hash_and_remembers_none(
    connect: ClientFactory, big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    written = rewrite_during(monkeypatch, big, lambda n: True)
    async with connect(auto_occ="block") as client:
        info = structured(await client.call_tool("get_file_info", {"path": "big.txt"}))
        assert "content_hash" not in info
        assert info["size"] == len(written[-1])
        assert big.read_bytes() == written[-1]
        monkeypatch.setattr(ranges, "_pread", os.pread)
        line = b"%s line 03999" % written[-1][:3]
        structured(await client.call_tool("edit_file", {"path": "big.txt", "old_text": line.decode(), "new_text": "x"}))


class _RewrittenOnce:
    """``os`` as :mod:`fsguard.core.hashing` sees it: another program rewrites ``path`` in place (the bytes
    ``then``) just before the second read of a whole-file hash, between its 1 MiB pieces."""

    def __init__(self, path: Path, then: bytes) -> None:
        self.path, self.then, self.reads = path, then, 0

    def __getattr__(self, name: str) -> object:
        return getattr(os, name)

    def pread(self, fd: int, length: int, offset: int) -> bytes:
        self.reads += 1
        if self.reads == 2:
            self.path.write_bytes(self.then)  # truncated and written again: same size, new times
        return os.pread(fd, length, offset)


def _padded_png(fill: bytes) -> bytes:
    return media_samples.png(8, 8) + fill * 2_500_000  # three pieces of a streamed hash


async def test_a_media_read_too_big_to_inline_gives_the_hash_of_the_bytes_on_disk_when_rewritten_while_it_is_hashed(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = root / "big.png"
    path.write_bytes(_padded_png(b"\x00"))
    os.utime(path, ns=(PAST, PAST))
    monkeypatch.setattr(hashing, "os", _RewrittenOnce(path, _padded_png(b"\x01")))
    async with connect(max_media_bytes=1000) as client:
        data = structured(await client.call_tool("read_file", {"path": "big.png"}))
    assert path.read_bytes() == _padded_png(b"\x01")  # rewritten once, by the other program only
    assert data["content_hash"] == content_hash(path.read_bytes())


class _Growing(_RewrittenOnce):
    """``os`` as hashing sees it: another program appends to ``path`` during every pass (a capture being written)."""

    def pread(self, fd: int, length: int, offset: int) -> bytes:
        if offset == 0:
            with self.path.open("ab") as out:
                out.write(self.then)
        return os.pread(fd, length, offset)


async def test_a_media_read_too_big_to_inline_of_a_file_still_being_written_answers_without_a_hash(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = root / "shot.png"
    path.write_bytes(_padded_png(b"\x00"))
    monkeypatch.setattr(hashing, "os", _Growing(path, b"\x00" * 1000))
    async with connect(max_media_bytes=1000) as client:
        result = await client.call_tool("read_file", {"path": "shot.png"})
    data = structured(result)
    assert data["mime_type"] == "image/png"
    assert "content_hash" not in data


async def test_a_move_of_a_file_over_the_size_limit_rewritten_while_its_expected_hash_is_checked_is_judged_by_one_state(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = root / "big.bin"
    path.write_bytes(b"a" * 2_500_000)
    os.utime(path, ns=(PAST, PAST))
    monkeypatch.setattr(hashing, "os", _RewrittenOnce(path, b"b" * 2_500_000))
    async with connect(max_file_size=1000) as client:
        moved = {"source_path": "big.bin", "dest_path": "moved.bin", "expected_hash": content_hash(b"b" * 2_500_000)}
        structured(await client.call_tool("move_file", moved))  # the hash of what is on disk, not half of each
    assert (root / "moved.bin").read_bytes() == b"b" * 2_500_000


async def test_a_streamed_read_of_a_growing_log_shows_its_tail_after_one_pass_without_a_hash(
    connect: ClientFactory, big: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A log appended to without pause grows during every pass: after it grew in two running, a third costs as much.
    passes: list[int] = []
    real = reading.survey  # type: ignore[attr-defined]

    def appended_during(lay: ranges.Layout, *, hashed: bool) -> ranges.Survey:
        passes.append(lay.size)
        with big.open("ab") as log:
            log.write(b"appended\n")
        return real(lay, hashed=hashed)

    monkeypatch.setattr(reading, "survey", appended_during)
    async with connect() as client:
        data = structured(await client.call_tool("read_file", {"path": "big.txt", "mode": "tail", "max_lines": 2}))
    assert "content_hash" not in data
    assert "was written to while it was read" in data["hint"]
    assert len(passes) == 2
