"""read_file mode=tail within the response budget: always the end of the file, whichever way the file is read."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core import ranges, tails
from fsguard.core.excerpts import take_last
from fsguard.core.hashing import Fingerprint, content_hash
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools import test_big_files as big_files

pytestmark = pytest.mark.anyio
bytes_read = big_files.bytes_read  # the fixture itself: the length of every piece a streamed read takes from disk

BUDGET = 500
LIMIT = 1000
# Multi-byte characters on both sides of every cut the budget makes, and a width that is no multiple of 3.
LONG_LINE = "".join("aé€b"[i % 4] + str(i % 7) for i in range(700)) + "\n"
MARKER = re.compile(r"^\[line (\d+) cut: its first ([\d,]+) (characters|bytes) left out\] …")


@pytest.fixture(params=["over the size limit", "streamed within it", "read whole"])
def how(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """The three ways a file is read: in ranges only (above --max-file-size), streamed with its lines counted
    (above the whole-read size), and whole; each tail must end the same way."""
    monkeypatch.setattr(ranges, "CHUNK", 7)  # every break and character meets a chunk boundary somewhere
    if request.param == "streamed within it":
        monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 100)
    return {"max_file_size": LIMIT} if request.param == "over the size limit" else {}


async def _tail(client: Client, name: str, count: int) -> dict[str, Any]:
    """The structured answer to read_file mode=tail of ``name``, ``count`` lines asked."""
    return structured(await client.call_tool("read_file", {"path": name, "mode": "tail", "max_lines": count}))


def _shown(content: str) -> tuple[int, int, str]:
    """The line number, the characters left out and the text after the marker of a line's end."""
    found = MARKER.match(content)
    assert found is not None, content[:80]
    return int(found[1]), int(found[2].replace(",", "")), content[found.end() :]


def _before(line: str, left: int) -> int:
    """The column a cut tail's hint names for the part before its shown end: a read's worth of bytes back from it."""
    room, column = ranges.cut_line_room(BUDGET), left
    while column and len(line[column - 1 : left].encode()) <= room:
        column -= 1
    return column + 1


async def test_a_tail_whose_last_line_is_too_long_for_the_budget_shows_its_end_and_the_start_is_read_by_column(
    connect: ClientFactory, root: Path, how: dict[str, int]
) -> None:
    (root / "two.log").write_text("short\n" + LONG_LINE, encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = await _tail(client, "two.log", 1)
        line, left, shown = _shown(data["content"])
        assert (line, data["start_line"], data["end_line"], data["truncated"]) == (2, 2, 2, True)
        assert len(data["content"].encode()) <= BUDGET
        assert LONG_LINE.endswith(shown)
        assert left == len(LONG_LINE) - len(shown)
        assert f"from column {left + 1:,}" in data["hint"]
        assert f"start_line=2 start_column={_before(LONG_LINE, left)}," in data["hint"]
        start = ""
        column = 1
        while len(start) < left:  # the line from its start, as the hint says, each piece naming the next column
            args = {"path": "two.log", "start_line": 2, "end_line": 2, "start_column": column}
            piece = structured(await client.call_tool("read_file", args))
            start += piece["content"].split("… [line 2 cut at", 1)[0]
            column = len(start) + 1
    assert start[:left] + shown == LONG_LINE
    assert (root / "two.log").read_text(encoding="utf-8") == "short\n" + LONG_LINE


@pytest.mark.parametrize("line", [LONG_LINE, "0123456789" * 140 + "\n"], ids=["multi-byte", "ascii"])
async def test_the_read_a_cut_tail_names_for_the_part_before_it_ends_where_the_tail_begins_never_repeating_it(
    connect: ClientFactory, root: Path, how: dict[str, int], line: str
) -> None:
    (root / "two.log").write_text("short\n" + line, encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = await _tail(client, "two.log", 1)
        _, _, shown = _shown(data["content"])
        named = re.search(r"start_line=2 start_column=(\d+),", data["hint"])
        assert named is not None, data["hint"]
        before = int(named[1])
        args = {"path": "two.log", "start_line": 2, "end_line": 2, "start_column": before}
        piece = structured(await client.call_tool("read_file", args))["content"].split("… [line 2 cut at", 1)[0]
    assert piece + shown == line[before - 1 :]  # exactly the characters before it: no gap, nothing again
    assert (root / "two.log").read_text(encoding="utf-8") == "short\n" + line


@pytest.mark.parametrize("char", ["é", "日", "😀"])
@pytest.mark.parametrize("end", ["\n", "\r\n"], ids=["lf", "crlf"])
async def test_a_cut_tail_counts_its_lines_characters_and_names_a_read_ending_where_it_begins(
    connect: ClientFactory, root: Path, how: dict[str, int], char: str, end: str
) -> None:
    # The read named for the part before the shown end started a budget of characters back, which is 2 to 4 times
    # too few bytes of 2- to 4-byte characters: it ended far before the shown part; and the count shown held the
    # line's break.
    line = char * 1000
    (root / "wide.log").write_bytes(("short" + end + line + end).encode())
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = await _tail(client, "wide.log", 1)
        _, left, shown = _shown(data["content"])
        named = re.search(r"its last ([\d,]+) characters are shown.*start_line=2 start_column=(\d+),", data["hint"])
        assert named is not None, data["hint"]
        count, before = int(named[1].replace(",", "")), int(named[2])
        args = {"path": "wide.log", "start_line": 2, "end_line": 2, "start_column": before}
        piece = structured(await client.call_tool("read_file", args))["content"].split("… [line 2 cut at", 1)[0]
    assert shown == line[left:] + end
    assert count == len(line) - left
    assert piece == line[before - 1 : left]
    assert (root / "wide.log").read_bytes() == ("short" + end + line + end).encode()


async def test_a_tail_of_every_line_of_a_file_over_the_size_limit_is_not_truncated(
    connect: ClientFactory, root: Path
) -> None:
    text = "".join(f"row {i}\n" for i in range(1, 301))  # 2,592 bytes, over the 1,000-byte limit
    (root / "big.log").write_text(text, encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        whole = await _tail(client, "big.log", 1000)
        last = await _tail(client, "big.log", 3)
    assert (whole["content"], whole["start_line"], whole["end_line"], whole["truncated"]) == (text, 1, 300, False)
    assert "above --max-file-size" in whole["hint"]
    assert (last["content"], last["truncated"]) == ("row 298\nrow 299\nrow 300\n", True)
    assert (root / "big.log").read_text(encoding="utf-8") == text


@pytest.mark.parametrize(
    "how",
    [{"mode": "head", "max_lines": 1000}, {"start_line": 1, "end_line": 5000}, {"start_line": 1}],
    ids=["head", "range-past-the-end", "open-range"],
)
async def test_a_head_or_range_of_every_line_of_a_file_over_the_size_limit_is_not_truncated(
    connect: ClientFactory, root: Path, how: dict[str, object]
) -> None:
    text = "".join(f"row {i}\n" for i in range(1, 301))  # 2,592 bytes, over the 1,000-byte limit
    (root / "big.log").write_text(text, encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        whole = structured(await client.call_tool("read_file", {"path": "big.log", **how}))
        first = structured(await client.call_tool("read_file", {"path": "big.log", "mode": "head", "max_lines": 300}))
    assert (whole["content"], whole["start_line"], whole["end_line"], whole["truncated"]) == (text, 1, 300, False)
    assert "above --max-file-size" in whole["hint"]
    # Exactly as many lines as the file has: the read sees the file end right after them.
    assert (first["content"], first["truncated"]) == (text, False)
    assert (root / "big.log").read_text(encoding="utf-8") == text


@pytest.mark.parametrize("end", ["\n", "\r\n"])
async def test_a_head_of_as_many_lines_as_a_file_over_the_size_limit_has_is_not_truncated_when_its_last_has_no_break(
    connect: ClientFactory, root: Path, end: str
) -> None:
    text = end.join(f"row {i}" for i in range(1, 301))  # the last line without a break: nothing can follow it
    (root / "big.log").write_bytes(text.encode())
    async with connect(max_file_size=LIMIT) as client:
        head = structured(await client.call_tool("read_file", {"path": "big.log", "mode": "head", "max_lines": 300}))
        ranged = structured(await client.call_tool("read_file", {"path": "big.log", "start_line": 1, "end_line": 300}))
    for read in (head, ranged):
        assert (read["content"], read["end_line"], read["truncated"]) == (text, 300, False)
        assert "start_line=301" not in read["hint"]
    assert (root / "big.log").read_bytes() == text.encode()


@pytest.mark.parametrize("count", [1, 3, 100])
async def test_a_tail_of_lines_the_budget_cannot_hold_shows_the_last_that_fit_and_names_the_earlier_ones(
    connect: ClientFactory, root: Path, how: dict[str, int], count: int
) -> None:
    lines = [f"row {i}\n" for i in range(1, 201)] + ["w" * 800 + "\n", "end 1\n", "end 2\n"]
    (root / "log.txt").write_text("".join(lines), encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = await _tail(client, "log.txt", count)
    if count == 1:
        assert (data["content"], data.get("start_line")) == ("end 2\n", None if "max_file_size" in how else 203)
        return
    assert data["content"] == "end 1\nend 2\n"  # never "row 200" before a line left out, nor the long line's start
    assert f"({count:,} asked: the response budget (--max-response-bytes {BUDGET:,}) holds no more" in data["hint"]
    if "max_file_size" in how:
        assert data.get("start_line") is None
        assert "get_file_info counts the lines" in data["hint"]
    else:
        assert (data["start_line"], data["end_line"]) == (202, 203)
        assert "end_line=201)" in data["hint"]


async def test_a_tail_of_a_file_of_fewer_lines_than_asked_is_still_its_end_when_the_budget_cuts_it(
    connect: ClientFactory, root: Path, how: dict[str, int]
) -> None:
    (root / "few.txt").write_text("first\nsecond\n" + LONG_LINE, encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = await _tail(client, "few.txt", 100)
    line, left, shown = _shown(data["content"])
    assert (line, left) == (3, len(LONG_LINE) - len(shown))
    assert LONG_LINE.endswith(shown)


async def test_a_head_and_tail_of_one_line_whose_last_line_is_too_long_for_the_budget_shows_that_lines_end(
    connect: ClientFactory, root: Path, how: dict[str, int]
) -> None:
    # max_lines=1 is no head line and one tail line: the tail's line did not fit, and the answer held nothing but
    # the omission marker, its hint saying "showing 0 lines": no call read on from it.
    (root / "few.txt").write_text("first\nsecond\n" + LONG_LINE, encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = structured(await client.call_tool("read_file", {"path": "few.txt", "max_lines": 1}))
    line, left, shown = _shown(data["content"])
    assert (line, left, data["end_line"]) == (3, len(LONG_LINE) - len(shown), 3)
    assert shown
    assert LONG_LINE.endswith(shown)
    assert len(data["content"].encode()) <= BUDGET
    assert f"start_line=3 start_column={_before(LONG_LINE, left)}," in data["hint"]


async def _tail_of_one_line(connect: ClientFactory, root: Path, length: int) -> tuple[str, dict[str, Any]]:
    """A file above the size limit that is one line of ``length`` x's and "the end", and its 5-line tail."""
    body = "x" * length + "the end\n"
    (root / "one.log").write_text(body, encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, max_file_size=LIMIT) as client:
        return body, await _tail(client, "one.log", 5)


async def test_a_last_line_too_long_to_count_says_its_left_out_part_in_bytes(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tails, "COUNTED_BELOW", 1000)
    body, data = await _tail_of_one_line(connect, root, 100_000)
    line, left, shown = _shown(data["content"])
    assert (line, left) == (1, len(body) - len(shown))
    assert data["content"].startswith(f"[line 1 cut: its first {left:,} bytes left out] …")
    assert shown.endswith("the end\n")
    assert "start_line=1 start_column=1" in data["hint"]


async def test_a_last_line_starting_further_back_than_a_tail_looks_is_shown_by_its_end_without_reading_the_rest(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch, bytes_read: list[int]
) -> None:
    # An 8 GB file of one line took 24 s: its start was looked for back to the file's start, then its lines counted.
    monkeypatch.setattr(tails, "LOOKED_BACK", 4000)
    body, data = await _tail_of_one_line(connect, root, 400_000)
    assert data["content"].startswith("[line ? cut: over 4,000 bytes of it left out] …")
    assert data["content"].endswith("the end\n")
    assert body.endswith(data["content"].split(" …", 1)[1])
    assert data.get("start_line") is None
    assert "get_file_info counts the lines" in data["hint"]
    # Its first 64 KiB (its encoding), a few budgets of its end and the 4,000 bytes looked back: not the 400 KB.
    assert sum(bytes_read) <= (64 << 10) + 4000 + 8 * BUDGET
    assert (root / "one.log").read_text(encoding="utf-8") == body


async def test_a_long_last_line_far_into_a_file_above_the_limit_is_not_numbered_and_its_start_is_still_counted(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Numbering it counts every line before it: a read of the whole file, which a tail never is.
    monkeypatch.setattr(tails, "NUMBERED_BELOW", 1000)
    lines = [f"row {i}\n" for i in range(300)]
    (root / "log.txt").write_text("".join(lines) + LONG_LINE, encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, max_file_size=LIMIT) as client:
        data = await _tail(client, "log.txt", 1)
    found = re.match(r"^\[line \? cut: its first ([\d,]+) characters left out\] …", data["content"])
    assert found is not None, data["content"][:80]
    shown = data["content"][found.end() :]
    assert int(found[1].replace(",", "")) == len(LONG_LINE) - len(shown)
    assert LONG_LINE.endswith(shown)
    assert data.get("start_line") is None
    assert "start_line (get_file_info counts the lines) start_column=" in data["hint"]


async def test_the_end_of_a_long_shift_jis_line_is_its_own_text_however_the_file_is_read(
    connect: ClientFactory, root: Path, how: dict[str, int]
) -> None:
    # Every byte of "ぁ" (82 9F) is also a Shift-JIS lead byte: read from inside a character, the line showed as 氓.
    line = "ぁ" * 3000 + "\n"
    data = ("日本語のテキストです。\n" + line).encode("shift_jis")
    (root / "kana.txt").write_bytes(data)
    async with connect(max_response_bytes=BUDGET, **how) as client:
        found = await _tail(client, "kana.txt", 1)
    number, left, shown = _shown(found["content"])
    assert (found["encoding"], number) == ("cp932", 2)
    assert shown == line[left:]
    assert (root / "kana.txt").read_bytes() == data


async def test_a_tail_of_a_file_above_the_size_limit_holding_only_a_bom_names_no_lines(
    connect: ClientFactory, root: Path
) -> None:
    (root / "bom.txt").write_bytes(b"\xff\xfe")
    async with connect(max_file_size=1) as client:
        data = structured(await client.call_tool("read_file", {"path": "bom.txt", "mode": "tail"}))
    assert (data["content"], data.get("start_line"), data.get("end_line")) == ("", None, None)
    assert data["hint"].startswith("bom.txt is 2 bytes, above --max-file-size (1):")  # not "Lines 1-None in bom.txt"


async def test_a_streamed_tail_of_a_file_truncated_while_it_is_read_is_refused_not_shown_as_an_empty_line_end(
    connect: ClientFactory, root: Path, how: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = root / "rotated.log"
    path.write_text("".join(f"entry {i}\n" for i in range(400)), encoding="utf-8")

    def rotated_first(*args: Any, **kwargs: Any) -> Any:
        path.write_bytes(b"")  # copytruncate: the log is emptied after its size was taken
        return take_last(*args, **kwargs)

    monkeypatch.setattr(tails, "take_last", rotated_first)
    async with connect(max_response_bytes=BUDGET, **how) as client:
        result = await client.call_tool("read_file", {"path": "rotated.log", "mode": "tail", "max_lines": 3})
    if path.read_bytes():  # read whole: no tail is streamed, so nothing truncated it
        assert structured(result)["content"] == "entry 397\nentry 398\nentry 399\n"
        return
    assert error_code(result) == "external_change"
    assert "rotated.log shrank while it was read" in text_of(result)
    assert path.read_bytes() == b""


async def test_a_tail_of_a_file_appended_to_after_its_stat_numbers_its_lines_by_the_size_it_was_read_at(
    connect: ClientFactory, root: Path, how: dict[str, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = root / "app.log"
    body = "".join(f"entry {i}\n" for i in range(1, 401))
    path.write_text(body, encoding="utf-8")
    real = ranges.layout
    appended: list[bool] = []

    def appended_first(
        fd: int, size: int, where: object, known: Fingerprint | None = None, head: bytes | None = None
    ) -> ranges.Layout:
        if not appended and path.stat().st_size == size:  # a writer appends between the stat and the first read
            appended.append(True)
            with path.open("a", encoding="utf-8") as log:
                log.write("entry 401\nentry 402\n")
        return real(fd, size, where, known, head)

    monkeypatch.setattr("fsguard.core.reading.layout", appended_first)
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = await _tail(client, "app.log", 3)
    if appended and "total_lines" in data:
        # Hashed: a stat cannot tell an append from a rewrite of the bytes already hashed, so the read went again,
        # by the size the file had then; the lines and the hash are of the 402 lines that pass read.
        assert data["content"] == "entry 400\nentry 401\nentry 402\n"
        assert (data["start_line"], data["end_line"], data["total_lines"]) == (400, 402, 402)
        assert data["content_hash"] == content_hash(path.read_bytes())
        return
    assert data["content"] == "entry 398\nentry 399\nentry 400\n"
    if "total_lines" in data:  # counted: the lines and the hash of the 400 lines read, not of the ones appended
        assert (data["start_line"], data["end_line"], data["total_lines"]) == (398, 400, 400)
        assert data["content_hash"] == content_hash(body.encode())


@pytest.mark.parametrize("count", [3, 100])
async def test_the_call_a_cut_tail_names_for_the_earlier_lines_reads_the_ones_asked_for_just_before_it(
    connect: ClientFactory, root: Path, how: dict[str, int], count: int
) -> None:
    if "max_file_size" in how:
        pytest.skip("lines above --max-file-size are not counted: the hint names get_file_info instead")
    lines = [f"row {i}\n" for i in range(1, 201)] + ["w" * 800 + "\n", "end 1\n", "end 2\n"]
    (root / "log.txt").write_text("".join(lines), encoding="utf-8")
    async with connect(max_response_bytes=BUDGET, **how) as client:
        data = await _tail(client, "log.txt", count)
        named = re.search(r"read the earlier ones with start_line=(\d+) end_line=(\d+)", data["hint"])
        assert named is not None, data["hint"]
        args = {"path": "log.txt", "start_line": int(named[1]), "end_line": int(named[2])}
        earlier = structured(await client.call_tool("read_file", args))
    assert (data["start_line"], int(named[2])) == (202, 201)
    assert earlier["start_line"] == 204 - count  # the first line asked for, not line 1
    assert "".join(lines[203 - count : 201]).startswith(earlier["content"].split("… [line", 1)[0])


async def test_a_range_the_budget_cuts_reads_on_to_the_end_line_asked_not_past_it(
    connect: ClientFactory, root: Path, how: dict[str, int]
) -> None:
    lines = [LONG_LINE] + [f"line {i} " + "x" * 40 + "\n" for i in range(2, 701)]
    (root / "many.txt").write_text("".join(lines), encoding="utf-8")
    asked = {"path": "many.txt", "start_line": 601, "end_line": 680}
    async with (
        connect(max_response_bytes=BUDGET, **how) as client,
        connect(max_response_bytes=BUDGET, compact_mode=True, **how) as compact,
    ):
        data = structured(await client.call_tool("read_file", asked))
        short = text_of(await compact.call_tool("read_file", asked))
        way = re.search(r"read on with start_line=(\d+) end_line=(\d+)", data["hint"])
        assert way is not None, data["hint"]
        rest = structured(await client.call_tool("read_file", {**asked, "start_line": int(way[1])}))
        cut = structured(await client.call_tool("read_file", {"path": "many.txt", "start_line": 1, "end_line": 3}))
    assert (int(way[1]), int(way[2])) == (data["end_line"] + 1, 680)
    assert f"start_line={data['end_line'] + 1} end_line=680" in short.rsplit("[", 1)[1]
    assert rest["start_line"] == data["end_line"] + 1
    assert rest["end_line"] <= 680
    assert re.search(r"read on with start_line=1 start_column=\d+ end_line=3\b", cut["hint"]), cut["hint"]
    assert (root / "many.txt").read_text(encoding="utf-8") == "".join(lines)
