"""Files bigger than --max-file-size (tiny here) read in ranges, bounded responses, streamed hashes."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from fsguard.core import disk, ranges, trees
from fsguard.core.hashing import content_hash
from tests import media_samples
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

LIMIT = 1000
LINES = [f"line {i:04d}\n" for i in range(1, 1001)]  # 10 bytes a line, 10,000 bytes


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 7 bytes: every line break, CRLF and character meets a chunk boundary somewhere."""
    monkeypatch.setattr(ranges, "CHUNK", 7)


@pytest.mark.parametrize(
    ("args", "first", "last"),
    [
        ({"mode": "tail", "max_lines": 5}, 996, 1000),
        ({"mode": "head", "max_lines": 3}, 1, 3),
        ({"start_line": 500, "end_line": 502}, 500, 502),
    ],
)
async def test_a_file_over_the_size_limit_is_read_in_ranges(
    connect: ClientFactory, root: Path, args: dict[str, object], first: int, last: int
) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        data = structured(await client.call_tool("read_file", {"path": "big.log", **args}))
    assert data["content"] == "".join(LINES[first - 1 : last])
    assert data.get("content_hash") is None
    assert data["truncated"] is True
    assert "cannot be edited" in data["hint"]
    assert "--max-file-size" in data["hint"]
    if args.get("mode") != "tail":
        assert (data["start_line"], data["end_line"]) == (first, last)


async def test_a_tail_keeps_crlf_and_a_missing_final_newline(connect: ClientFactory, root: Path) -> None:
    body = b"".join(f"row {i}\r\n".encode() for i in range(400)) + b"last\rpiece"
    (root / "crlf.log").write_bytes(body)
    async with connect(max_file_size=LIMIT) as client:
        data = structured(await client.call_tool("read_file", {"path": "crlf.log", "mode": "tail", "max_lines": 3}))
    assert data["content"] == "row 399\r\nlast\rpiece"


async def test_utf16_big_file_is_read_in_ranges(connect: ClientFactory, root: Path) -> None:
    text = "".join(f"zeile {i} ü €\n" for i in range(300))
    (root / "u16.txt").write_bytes(b"\xff\xfe" + text.encode("utf-16-le"))
    async with connect(max_file_size=LIMIT) as client:
        tail = structured(await client.call_tool("read_file", {"path": "u16.txt", "mode": "tail", "max_lines": 2}))
        middle = structured(await client.call_tool("read_file", {"path": "u16.txt", "start_line": 11, "end_line": 11}))
    assert tail["encoding"] == "utf-16-le"
    assert tail["content"] == "zeile 298 ü €\nzeile 299 ü €\n"
    assert middle["content"] == "zeile 10 ü €\n"


async def test_a_start_line_past_the_end_of_a_big_file_is_refused(connect: ClientFactory, root: Path) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool("read_file", {"path": "big.log", "start_line": 1001})
    assert error_code(result) == "invalid_params"


async def test_a_head_or_range_of_a_big_file_reaching_its_last_line_answers_as_the_whole_read(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Lines of 8 bytes, chunks of 8 then 7: a read stops where a chunk ends both mid-file and at the file's end.
    monkeypatch.setattr(ranges, "FIRST_CHUNK", 8)
    text = "".join(f"line {i:02d}\n" for i in range(1, 13))
    files = {
        "lf.txt": text.encode(),
        "crlf.txt": text.replace("\n", "\r\n").encode(),
        "u16.txt": b"\xff\xfe" + text.replace("line", "lüne").encode("utf-16-le"),
    }
    for name, raw in files.items():
        (root / name).write_bytes(raw)
    reads: list[dict[str, Any]] = [
        {"mode": "head", "max_lines": 12},
        {"start_line": 1, "end_line": 12},
        {"start_line": 5, "end_line": 12},
    ]

    def shown(name: str, data: dict[str, Any]) -> tuple[object, ...]:
        hint = (data.get("hint") or "").split(f"{name} is ")[0].removesuffix(". ")  # less the above-limit note
        fields = (data["content"], data["start_line"], data["end_line"], data["truncated"])
        return (*fields, hint.replace(" of 12 total lines", ""))

    answers: dict[int, list[tuple[object, ...]]] = {}
    for limit in (64, 1 << 20):
        async with connect(max_file_size=limit) as client:
            answers[limit] = [
                shown(name, structured(await client.call_tool("read_file", {"path": name, **args})))
                for name in files
                for args in reads
            ]
            if limit == 64:
                head8 = {"path": "lf.txt", "mode": "head", "max_lines": 8}
                mid = structured(await client.call_tool("read_file", head8))
    assert answers[64] == answers[1 << 20]
    assert answers[64][0][3] is False  # a head of every line: the whole file
    assert (mid["truncated"], mid["end_line"]) == (True, 8)  # line 8 ends where a chunk does (byte 64), mid-file
    assert "start_line=9" in mid["hint"]


async def test_a_long_line_is_cut_with_a_marker_within_the_budget_and_the_rest_is_reachable(
    connect: ClientFactory, root: Path
) -> None:
    line = "".join(chr(ord("a") + i % 26) for i in range(2500)) + "é" * 10
    (root / "min.js").write_text(line + "\nsecond\n", encoding="utf-8")
    pieces = []
    async with connect(max_response_bytes=1000) as client:
        args: dict[str, object] = {"path": "min.js"}
        for _ in range(10):
            result = await client.call_tool("read_file", args)
            data = structured(result)
            if "start_column=" not in (data["hint"] or ""):
                pieces.append(data["content"])
                break
            content = data["content"]
            assert "… [line 1 cut at" in content
            assert len(content.encode()) <= 1000  # the marker within the budget, as a tail's is
            assert "start_column=" in text_of(result)
            pieces.append(content[: content.index("… [line 1 cut at")])
            args = {"path": "min.js", "start_line": 1, "start_column": int(data["hint"].rsplit("=", 1)[1])}
    assert "".join(pieces) == (root / "min.js").read_text(encoding="utf-8")


async def test_a_whole_read_is_bounded_and_says_where_to_read_on(connect: ClientFactory, root: Path) -> None:
    (root / "wide.txt").write_text("x" * 99 + "\n" + "".join(LINES), encoding="utf-8")
    async with connect(max_response_bytes=300) as client:
        data = structured(await client.call_tool("read_file", {"path": "wide.txt"}))
    assert data["content"] == ("x" * 99 + "\n" + "".join(LINES))[: 100 + 20 * 10]
    assert data["end_line"] == 21
    assert "start_line=22" in data["hint"]


async def test_a_streamed_read_within_the_limit_gives_the_whole_file_hash_and_lines(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 100)
    monkeypatch.setattr("fsguard.core.metadata.STREAM_ABOVE", 100)
    raw = "".join(LINES).encode("utf-8")
    (root / "mid.log").write_bytes(raw)
    async with connect() as client:
        read = structured(await client.call_tool("read_file", {"path": "mid.log", "mode": "tail", "max_lines": 2}))
        info = structured(await client.call_tool("get_file_info", {"path": "mid.log"}))
        edit = await client.call_tool(
            "edit_file",
            {
                "path": "mid.log",
                "old_string": "line 0001",
                "new_string": "LINE 1",
                "expected_hash": read["content_hash"],
            },
        )
    assert read["content_hash"] == info["content_hash"] == content_hash(raw)
    assert (read["total_lines"], info["line_count"], read["start_line"]) == (1000, 1000, 999)
    assert read["line_ending"] == "lf"
    assert not edit.is_error
    assert (root / "mid.log").read_bytes() == raw.replace(b"line 0001", b"LINE 1", 1)


@pytest.mark.parametrize("bom", [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"], ids=["utf-8", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize(
    "selection",
    [{"mode": "head", "max_lines": 5}, {"mode": "tail", "max_lines": 5}, {"max_lines": 4}, {}, {"start_line": 1}],
)
async def test_a_streamed_read_of_a_byte_order_mark_alone_answers_no_line_as_the_whole_read(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch, bom: bytes, selection: dict[str, Any]
) -> None:
    # Streamed, it answered "start_line 1 is past the end (0 lines)" where the whole read answers an empty text.
    (root / "bom.txt").write_bytes(bom)
    async with connect() as client:
        whole = structured(await client.call_tool("read_file", {"path": "bom.txt", **selection}))
        monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 0)
        streamed = structured(await client.call_tool("read_file", {"path": "bom.txt", **selection}))
    assert streamed == whole
    assert streamed["content"] == ""
    assert (root / "bom.txt").read_bytes() == bom


async def test_info_of_a_file_over_the_limit_counts_lines_without_a_hash(connect: ClientFactory, root: Path) -> None:
    (root / "big.log").write_text("".join(LINES) + "tail", encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        data = structured(await client.call_tool("get_file_info", {"path": "big.log"}))
    assert data["line_count"] == 1001
    assert data.get("content_hash") is None
    assert data["size"] == 10_004


@pytest.fixture
def loaded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The stat sizes of the files read whole (every whole-file read ends in disk.read_all)."""
    sizes: list[int] = []
    real = disk.read_all

    def spy(fd: int, size_hint: int, *rest: int | None) -> bytes:
        sizes.append(size_hint)
        return real(fd, size_hint, *rest)

    monkeypatch.setattr(disk, "read_all", spy)
    return sizes


@pytest.mark.parametrize(
    ("tool", "args"),
    [("move_file", {"source_path": "big.log", "dest_path": "moved.log"}), ("delete_file", {"path": "big.log"})],
)
async def test_a_move_or_trashing_of_a_file_over_the_size_limit_never_loads_it(
    connect: ClientFactory, root: Path, loaded: list[int], tool: str, args: dict[str, object]
) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        structured(await client.call_tool(tool, args))
    assert not (root / "big.log").exists()
    if tool == "move_file":
        assert (root / "moved.log").read_text(encoding="utf-8") == "".join(LINES)
    assert all(size <= LIMIT for size in loaded)


async def test_a_file_over_the_size_limit_is_not_deleted_permanently_since_it_cannot_be_backed_up(
    connect: ClientFactory, root: Path
) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool("delete_file", {"path": "big.log", "permanent": True})
    assert error_code(result) == "too_large"
    assert "without permanent" in text_of(result)
    assert (root / "big.log").read_text(encoding="utf-8") == "".join(LINES)


async def test_the_expected_hash_of_a_file_over_the_size_limit_is_checked_on_a_move(
    connect: ClientFactory, root: Path, loaded: list[int]
) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    right = content_hash("".join(LINES).encode())
    async with connect(max_file_size=LIMIT) as client:
        stale = await client.call_tool(
            "move_file", {"source_path": "big.log", "dest_path": "m.log", "expected_hash": "0"}
        )
        assert error_code(stale) == "stale_edit"
        moved = {"source_path": "big.log", "dest_path": "m.log", "expected_hash": right}
        structured(await client.call_tool("move_file", moved))
    assert (root / "m.log").read_text(encoding="utf-8") == "".join(LINES)
    assert all(size <= LIMIT for size in loaded)


async def test_a_move_within_a_filesystem_hashes_nothing(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("a rename needs no fingerprint")

    monkeypatch.setattr(trees, "_file_digest", refuse)
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        structured(await client.call_tool("move_file", {"source_path": "big.log", "dest_path": "moved.log"}))
    assert (root / "moved.log").read_text(encoding="utf-8") == "".join(LINES)


async def test_the_analysis_of_a_delete_counts_from_stats_and_reads_nothing(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object) -> None:
        raise AssertionError("sizes come from stats")

    monkeypatch.setattr(trees, "_file_digest", refuse)
    (root / "logs").mkdir()
    (root / "logs" / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        result = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "logs"}))
    assert "1 file, 10,000 bytes" in result["risk_factors"]


@pytest.mark.parametrize("limit", [LIMIT, 1 << 20], ids=["over the size limit", "within it"])
async def test_a_head_and_tail_cut_by_the_budget_ends_at_the_last_line_and_says_how_many_lines_it_shows(
    connect: ClientFactory, root: Path, limit: int
) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=limit, max_response_bytes=300) as client:
        result = await client.call_tool("read_file", {"path": "big.log", "max_lines": 500})
    data = structured(result)
    top, bottom = data["content"].split("... [", 1)
    bottom = bottom.split("] ...\n", 1)[1]
    head, tail = top.count("\n"), bottom.count("\n")
    assert top == "".join(LINES[:head])
    assert bottom == "".join(LINES[-tail:])
    assert f"({head} head + {tail} tail; 500 asked" in data["hint"]
    assert "--max-response-bytes 300" in text_of(result)
    assert len(data["content"].encode()) <= 300


async def test_a_tail_of_a_file_over_the_limit_cut_by_the_budget_is_the_end_of_the_file_and_says_so(
    connect: ClientFactory, root: Path
) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    async with connect(max_file_size=LIMIT, max_response_bytes=300) as client:
        data = structured(await client.call_tool("read_file", {"path": "big.log", "mode": "tail", "max_lines": 500}))
    assert data["content"] == "".join(LINES[-30:])
    assert data["hint"].startswith("Last 30 lines of big.log (500 asked: the response budget (--max-response-bytes 300")


async def test_a_streamed_file_that_is_not_utf8_past_its_first_64_kib_reads_in_the_encoding_an_edit_writes(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 100)
    monkeypatch.setattr("fsguard.core.metadata.STREAM_ABOVE", 100)
    raw = b"ascii line\n" * 7000 + "café au lait\n".encode("cp1252")  # past the 64 KiB the encoding is judged on
    (root / "late.txt").write_bytes(raw)
    async with connect() as client:
        read = structured(await client.call_tool("read_file", {"path": "late.txt", "mode": "tail", "max_lines": 1}))
        info = structured(await client.call_tool("get_file_info", {"path": "late.txt"}))
        edit = {"path": "late.txt", "old_string": read["content"], "new_string": "thé\n"}
        structured(await client.call_tool("edit_file", edit))
    assert read["content"] == "café au lait\n"
    assert read["encoding"] == info["encoding"] == "cp1252"
    assert (root / "late.txt").read_bytes() == b"ascii line\n" * 7000 + "thé\n".encode("cp1252")


async def test_a_file_over_the_limit_among_several_paths_is_named_by_its_absolute_path_and_says_to_read_ranges(
    connect: ClientFactory, root: Path
) -> None:
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    (root / "small.txt").write_text("small\n", encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        data = structured(await client.call_tool("read_file", {"paths": ["big.log", "small.txt"]}))
    big, small = data["files"]
    assert (big["path"], big["error_code"]) == (str(root / "big.log"), "too_large")
    assert "start_line/end_line" in big["error"]
    assert f"=== {root / 'big.log'} ===\nERROR:" in data["content"]
    assert (small["path"], small["content"]) == (str(root / "small.txt"), "small\n")


async def test_a_file_over_the_limit_left_out_of_several_paths_by_the_budget_is_named_with_a_ranged_read(
    connect: ClientFactory, root: Path
) -> None:
    (root / "small.txt").write_text("small line\n" * 20, encoding="utf-8")
    (root / "big.log").write_text("".join(LINES), encoding="utf-8")
    (root / "late.txt").write_text("late\n", encoding="utf-8")
    async with connect(max_file_size=LIMIT, max_response_bytes=200) as client:
        data = structured(await client.call_tool("read_file", {"paths": ["small.txt", "big.log", "late.txt"]}))
        big, late = data["files"][1:]
        ranged = structured(await client.call_tool("read_file", {"path": "big.log", "mode": "tail", "max_lines": 1}))
    assert (big["truncated"], big.get("content")) == (True, None)
    assert f'read_file(path="{root / "big.log"}", mode="tail", max_lines=100)' in big["hint"]
    assert "above --max-file-size (1,000)" in big["hint"]
    assert ranged["content"] == LINES[-1]  # the read the hint names is answered
    assert late["hint"].endswith(f'Read it on its own: read_file(path="{root / "late.txt"}")')
    assert (root / "big.log").read_text(encoding="utf-8") == "".join(LINES)


async def test_a_base64_read_longer_than_the_response_budget_is_refused_and_names_what_else_to_do(
    connect: ClientFactory, root: Path
) -> None:
    raw = bytes(range(256)) * 3  # 768 bytes, 1,024 as base64
    (root / "blob.bin").write_bytes(raw)
    async with connect(max_response_bytes=1023) as client:
        refused = await client.call_tool("read_file", {"path": "blob.bin", "encoding": "base64"})
    async with connect(max_response_bytes=1024) as client:
        data = structured(await client.call_tool("read_file", {"path": "blob.bin", "encoding": "base64"}))
    assert error_code(refused) == "too_large"
    assert "--max-response-bytes 1,023" in text_of(refused)
    assert "get_file_info" in text_of(refused)
    assert base64.b64decode(data["content"]) == raw == (root / "blob.bin").read_bytes()


async def test_a_linked_image_too_big_for_a_base64_read_does_not_suggest_one(
    connect: ClientFactory, root: Path
) -> None:
    raw = media_samples.png(64, 64)
    (root / "big.png").write_bytes(raw)
    async with connect(max_media_bytes=len(raw) - 1, max_response_bytes=len(raw)) as client:
        data = structured(await client.call_tool("read_file", {"path": "big.png"}))
    assert "linked, not inlined" in data["hint"]
    assert "base64" not in data["hint"]


async def test_a_streamed_cp1252_file_with_an_undefined_byte_past_its_first_64_kib_reads_as_an_edit_sees_it(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 100)
    head = "prix 5 €, café\n".encode("cp1252") * 5000  # judged cp1252 on its first 64 KiB
    raw = head + b"\x81 \x80 end\n"  # 0x81 is undefined in cp1252: the whole file reads as Latin-1
    (root / "late.txt").write_bytes(raw)
    async with connect() as client:
        read = structured(await client.call_tool("read_file", {"path": "late.txt", "mode": "tail", "max_lines": 1}))
        edit = {"path": "late.txt", "old_string": read["content"], "new_string": "fin\n"}
        structured(await client.call_tool("edit_file", edit))
    assert read["content"] == "\x81 \x80 end\n"
    assert read["encoding"] == "iso8859-1"
    assert (root / "late.txt").read_bytes() == head + b"fin\n"


@pytest.mark.parametrize(
    "args",
    [{"mode": "tail", "max_lines": 2}, {"start_line": 7001, "end_line": 7002}, {"start_line": 7001}],
)
async def test_a_file_over_the_limit_not_utf8_past_its_first_64_kib_reads_as_a_whole_read_does(
    connect: ClientFactory, root: Path, args: dict[str, object]
) -> None:
    # Its start gives UTF-8 (ASCII); the lines read are cp1252, and a whole read judges the file by them: so does
    # a ranged read, in place of U+FFFD for each accented letter.
    raw = b"ascii line\n" * 7000 + "café au lait\n".encode("cp1252") + b"end\n"
    (root / "late.log").write_bytes(raw)
    async with connect(max_file_size=LIMIT) as client:
        ranged = structured(await client.call_tool("read_file", {"path": "late.log", **args}))
        info = structured(await client.call_tool("get_file_info", {"path": "late.log"}))
    async with connect() as client:
        whole = structured(await client.call_tool("read_file", {"path": "late.log", **args}))
    assert ranged["content"] == whole["content"] == "café au lait\nend\n"
    assert ranged["encoding"] == whole["encoding"] == info["encoding"] == "cp1252"
    assert (root / "late.log").read_bytes() == raw


async def test_a_small_file_over_the_limit_is_judged_on_all_its_bytes_its_last_line_too(
    connect: ClientFactory, root: Path
) -> None:
    # CR-ended lines, the accents that tell cp1252 from cp1251 in the last one: judging the bytes up to the last
    # "\n" alone read it as Cyrillic.
    raw = b"\r" + b"x" * 50 + b"\r\r\n\r\r\n\r\na\xe9\r\xfc\xfc\r" + b"x" * 50 + b"\na" + b"x" * 50 + b"\xe9 \t"
    (root / "short.txt").write_bytes(raw)
    async with connect(max_file_size=64) as client:
        ranged = structured(await client.call_tool("read_file", {"path": "short.txt", "mode": "head", "max_lines": 99}))
    async with connect() as client:
        whole = structured(await client.call_tool("read_file", {"path": "short.txt"}))
    assert ranged["content"] == whole["content"] == raw.decode("cp1252")
    assert ranged["encoding"] == whole["encoding"]


@pytest.mark.parametrize(
    "raw",
    [b"ascii\ncaf\xe9", b"ascii line\n" * 7000 + b"caf\xe9", b"x\ncaf\xc3"],
    ids=["small", "past the first 64 KiB", "utf8 cut short"],
)
async def test_a_file_over_the_limit_whose_last_byte_is_latin1_reads_and_is_described_as_a_whole_read_does(
    connect: ClientFactory, root: Path, raw: bytes
) -> None:
    # Its last byte alone is not UTF-8 ("caf\xe9" in Latin-1, or a UTF-8 character cut short by the end of the file):
    # judged as the start of a character the end of the file had not reached yet, it read as UTF-8 with U+FFFD.
    (root / "end.txt").write_bytes(raw)
    async with connect(max_file_size=3) as client:
        ranged = structured(await client.call_tool("read_file", {"path": "end.txt", "mode": "tail", "max_lines": 1}))
        info = structured(await client.call_tool("get_file_info", {"path": "end.txt"}))
    async with connect() as client:
        whole = structured(await client.call_tool("read_file", {"path": "end.txt", "mode": "tail", "max_lines": 1}))
    assert ranged["content"] == whole["content"] == raw.rsplit(b"\n", 1)[1].decode("cp1252")
    assert ranged["encoding"] == whole["encoding"] == info["encoding"] == "cp1252"
    assert (root / "end.txt").read_bytes() == raw


async def test_lines_over_the_limit_read_as_every_window_reads_them_whatever_bad_byte_the_read_ahead_meets(
    connect: ClientFactory, root: Path
) -> None:
    # Valid UTF-8 lines past the 64 KiB the encoding is judged by, then one with a byte UTF-8 never holds: the chunk
    # read ahead past a window near the end reached that byte, and the whole window came back as cp1252 ("grÃ¶ÃŸe").
    lines = [f"zeile {n} größe €\n".encode() for n in range(1, 4001)] + [b"bad \xff byte\n"]
    (root / "log.txt").write_bytes(b"".join(lines))
    async with connect(max_file_size=100) as client:
        for number in (1, 2000, 3990, 3999, 4000):
            read = {"path": "log.txt", "start_line": number, "end_line": number}
            found = structured(await client.call_tool("read_file", read))
            assert (found["content"], found["encoding"]) == (lines[number - 1].decode(), "utf-8"), number
        end = structured(await client.call_tool("read_file", {"path": "log.txt", "start_line": 3901, "end_line": 4000}))
        last = structured(await client.call_tool("read_file", {"path": "log.txt", "start_line": 4001}))
    assert end["content"].encode() == b"".join(lines[3900:4000])
    assert (last["content"], last["encoding"]) == ("bad \xff byte\n", "cp1252")  # the bytes it holds judge it


@pytest.fixture
def bytes_read(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every piece a streamed read takes from disk."""
    sizes: list[int] = []
    real = ranges._pread

    def spy(fd: int, length: int, offset: int) -> bytes:
        data = real(fd, length, offset)
        sizes.append(len(data))
        return data

    monkeypatch.setattr(ranges, "_pread", spy)
    return sizes


HUGE = "x" * 100_000 + "\n"


async def test_a_head_and_tail_of_a_file_of_a_few_huge_lines_reads_its_two_ends_only(
    connect: ClientFactory, root: Path, bytes_read: list[int]
) -> None:
    (root / "dump.log").write_text("short\n" * 3 + HUGE * 3 + "end\n" * 2, encoding="utf-8")
    async with connect(max_file_size=LIMIT, max_response_bytes=300) as client:
        data = structured(await client.call_tool("read_file", {"path": "dump.log", "max_lines": 100}))
    assert data["content"] == "short\n" * 3 + "... [lines omitted] ...\n" + "end\n" * 2
    assert "(3 head + 2 tail; 100 asked" in data["hint"]
    assert sum(bytes_read) < 150_000  # the file is 300,026 bytes


async def test_a_head_and_tail_asking_for_every_line_of_a_streamed_file_answers_as_the_whole_read(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "dump.log").write_text("short\n" * 3 + HUGE * 3 + "end\n" * 2, encoding="utf-8")
    args = {"path": "dump.log", "max_lines": 100}
    async with connect(max_response_bytes=300) as client:
        whole = structured(await client.call_tool("read_file", args))
        monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 100)
        streamed = structured(await client.call_tool("read_file", args))
    assert whole["content"] == "short\n" * 3
    assert "start_line=4" in whole["hint"]
    assert streamed == whole


@pytest.mark.parametrize(
    "raw",
    [
        b"\xef\xbb\xbf" + "".join(LINES).encode("utf-8") + b"bad \xff byte\n",
        b"\xff\xfe" + "".join(LINES).encode("utf-16-le") + b"\x00\xd8" + "lone surrogate\n".encode("utf-16-le"),
    ],
    ids=["utf-8", "utf-16"],
)
async def test_a_streamed_read_of_a_file_not_in_the_encoding_its_bom_names_is_refused_as_the_whole_read_is(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch, raw: bytes
) -> None:
    (root / "whole.log").write_bytes(raw)
    (root / "streamed.log").write_bytes(raw)  # a file of its own: no fingerprint the whole read left
    tail = {"mode": "tail", "max_lines": 2}
    async with connect() as client:
        whole = await client.call_tool("read_file", {"path": "whole.log", **tail})
        whole_info = structured(await client.call_tool("get_file_info", {"path": "whole.log"}))
        monkeypatch.setattr("fsguard.core.reading.STREAM_ABOVE", 100)
        monkeypatch.setattr("fsguard.core.metadata.STREAM_ABOVE", 100)
        streamed = await client.call_tool("read_file", {"path": "streamed.log", **tail})
        streamed_info = structured(await client.call_tool("get_file_info", {"path": "streamed.log"}))
    assert error_code(whole) == error_code(streamed) == "encoding_error"
    assert "encoding='base64'" in text_of(streamed)
    assert streamed_info.get("line_count") == whole_info.get("line_count")
    assert streamed_info.get("encoding") == whole_info.get("encoding")


async def test_a_tail_of_a_file_of_a_few_huge_lines_reads_its_end_only(
    connect: ClientFactory, root: Path, bytes_read: list[int]
) -> None:
    (root / "dump.log").write_text(HUGE * 3 + "end 1\nend 2\n", encoding="utf-8")
    async with connect(max_file_size=LIMIT, max_response_bytes=300) as client:
        data = structured(await client.call_tool("read_file", {"path": "dump.log", "mode": "tail", "max_lines": 5}))
    assert data["content"] == "end 1\nend 2\n"
    assert data["hint"].startswith("Last 2 lines of dump.log (5 asked")
    assert sum(bytes_read) < 150_000
