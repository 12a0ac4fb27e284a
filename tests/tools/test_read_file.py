"""read_file through the in-memory Client, in both protocol eras, checked against the bytes on disk."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.hashing import content_hash
from tests import media_samples
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("data", "expected"),
    [(b"", "811c9dc5"), (b"hello world", "d58b3fa7"), (b"alpha\nbeta\n", "d4d8adf9")],
)
async def test_read_returns_the_golden_fnv_hash_of_the_bytes(
    client: Client, root: Path, data: bytes, expected: str
) -> None:
    (root / "f.txt").write_bytes(data)
    result = structured(await client.call_tool("read_file", {"path": "f.txt"}))
    assert result["content_hash"] == expected
    assert result["content"] == data.decode()


async def test_read_text_block_is_the_content_without_a_hash_trailer(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"alpha\nbeta\n")
    result = await client.call_tool("read_file", {"path": str(root / "a.txt")})
    assert text_of(result) == "alpha\nbeta\n"
    assert structured(result)["path"] == str(root / "a.txt")


async def test_range_returns_only_those_lines_and_a_hint_for_the_next(client: Client, root: Path) -> None:
    (root / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 87)), encoding="utf-8")
    result = await client.call_tool("read_file", {"path": "n.txt", "start_line": 15, "end_line": 50})
    data = structured(result)
    assert data["content"] == "".join(f"line {i}\n" for i in range(15, 51))
    assert (data["start_line"], data["end_line"], data["total_lines"]) == (15, 50, 86)
    assert "of 86 total lines" in data["hint"]
    assert "start_line=51 end_line=86" in data["hint"]
    assert data["content_hash"] == structured(await client.call_tool("read_file", {"path": "n.txt"}))["content_hash"]


async def test_range_past_the_end_reports_the_real_total_without_a_read_more_hint(client: Client, root: Path) -> None:
    (root / "s.txt").write_text("a\nb\nc\n", encoding="utf-8")
    data = structured(await client.call_tool("read_file", {"path": "s.txt", "start_line": 2, "end_line": 99}))
    assert data["content"] == "b\nc\n"
    assert data["hint"] == "Lines 2-3 of 3 total lines in s.txt"


@pytest.mark.parametrize(
    ("max_file_size", "says"),
    [
        (None, "(1 line). Use start_line <= 1."),  # read whole: the total is known
        (16, "(fewer lines). Use a smaller start_line, or mode=tail."),  # streamed: the file is over the limit
    ],
)
async def test_a_start_line_past_the_end_of_a_one_line_file_names_one_line_and_the_way_on(
    connect: ClientFactory, root: Path, max_file_size: int | None, says: str
) -> None:
    (root / "one.txt").write_text("x" * 40, encoding="utf-8")
    limits = {} if max_file_size is None else {"max_file_size": max_file_size}
    async with connect(**limits) as client:
        result = await client.call_tool("read_file", {"path": "one.txt", "start_line": 3, "end_line": 4})
    assert error_code(result) == "invalid_params"
    assert f"start_line 3 is past the end of one.txt {says}" in text_of(result)


async def test_files_over_300_lines_are_cut_with_a_hint(client: Client, root: Path) -> None:
    (root / "big.py").write_text("".join(f"x{i}\n" for i in range(1, 451)), encoding="utf-8")
    result = await client.call_tool("read_file", {"path": "big.py"})
    data = structured(result)
    assert data["truncated"] is True
    assert data["content"].splitlines()[-1] == "x300"
    assert "x301" not in data["content"]
    assert "[Lines 1-300 of 450 total lines in big.py" in text_of(result)
    assert "start_line=301 end_line=450" in text_of(result)


async def test_head_and_tail_return_the_requested_ends(client: Client, root: Path) -> None:
    (root / "log.txt").write_text("".join(f"{i}\n" for i in range(1, 11)), encoding="utf-8")
    head = structured(await client.call_tool("read_file", {"path": "log.txt", "max_lines": 3, "mode": "head"}))
    tail = structured(await client.call_tool("read_file", {"path": "log.txt", "max_lines": 2, "mode": "tail"}))
    middle = structured(await client.call_tool("read_file", {"path": "log.txt", "max_lines": 4}))
    assert head["content"] == "1\n2\n3\n"
    assert tail["content"] == "9\n10\n"
    assert middle["content"] == "1\n2\n... [6 lines omitted] ...\n9\n10\n"
    assert all(d["truncated"] for d in (head, tail, middle))


async def test_a_head_and_tail_whose_first_line_fills_half_the_budget_returns_max_lines_lines_not_the_file(
    connect: ClientFactory, root: Path
) -> None:
    (root / "wide.txt").write_text("x" * 200 + "\n" + "".join(f"{i}\n" for i in range(20)), encoding="utf-8")
    async with connect(max_response_bytes=300) as client:
        data = structured(await client.call_tool("read_file", {"path": "wide.txt", "max_lines": 2}))
    assert data["content"] == "x" * 200 + "\n0\n"
    assert (data["start_line"], data["end_line"], data["truncated"]) == (1, 2, True)
    assert "start_line=3" in data["hint"]


async def test_range_and_max_lines_together_are_refused(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    result = await client.call_tool("read_file", {"path": "a.txt", "start_line": 1, "max_lines": 3})
    assert error_code(result) == "invalid_params"


async def test_end_before_start_is_refused_with_both_numbers(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\nb\n", encoding="utf-8")
    result = await client.call_tool("read_file", {"path": "a.txt", "start_line": 2, "end_line": 1})
    assert error_code(result) == "invalid_params"
    assert "end_line (1) must be >= start_line (2)" in text_of(result)


async def test_base64_round_trips_the_exact_bytes(client: Client, root: Path) -> None:
    raw = bytes([0, 1, 2, 0xFF, 0xFE, 0xFD])
    (root / "b.bin").write_bytes(raw)
    data = structured(await client.call_tool("read_file", {"path": "b.bin", "encoding": "base64"}))
    assert data["content"] == "AAEC//79"
    assert base64.b64decode(data["content"]) == raw
    assert data["size"] == 6


async def test_binary_file_is_refused_as_text_with_a_base64_hint(client: Client, root: Path) -> None:
    (root / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    result = await client.call_tool("read_file", {"path": "img.png"})
    assert error_code(result) == "binary_file"
    assert "encoding='base64'" in text_of(result)


@pytest.mark.parametrize(
    ("raw", "encoding", "line_ending"),
    [
        (b"\xef\xbb\xbfbom\r\nline\r\n", "utf-8", "crlf"),
        ("utf16 \u00e9\n".encode("utf-16-le").join([b"\xff\xfe", b""]), "utf-16-le", "lf"),
        (b"\xfe\xff" + "be\r".encode("utf-16-be"), "utf-16-be", "cr"),
        (b"mixed\r\nends\n", "utf-8", "mixed"),
    ],
)
async def test_encoding_and_line_endings_are_detected_and_reported(
    client: Client, root: Path, raw: bytes, encoding: str, line_ending: str
) -> None:
    (root / "t.txt").write_bytes(raw)
    data = structured(await client.call_tool("read_file", {"path": "t.txt"}))
    assert (data["encoding"], data["line_ending"]) == (encoding, line_ending)
    assert data["size"] == len(raw)


async def test_latin1_file_is_decoded_not_refused(client: Client, root: Path) -> None:
    raw = "Café crème brûlée, déjà vu à Noël — très élégant.\n".replace("—", "-").encode("latin-1") * 3
    (root / "fr.txt").write_bytes(raw)
    data = structured(await client.call_tool("read_file", {"path": "fr.txt"}))
    assert "Café crème" in data["content"]
    assert data["encoding"] not in ("utf-8", "base64")


async def test_several_paths_report_each_file_and_failures_in_place(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("A\n", encoding="utf-8")
    (root / "b.txt").write_text("B", encoding="utf-8")
    result = await client.call_tool("read_file", {"paths": ["a.txt", "missing.txt", "b.txt"]})
    data = structured(result)
    files = data["files"]
    assert [f.get("content") for f in files] == ["A\n", None, "B"]
    assert files[1]["error_code"] == "not_found"
    assert [f.get("content_hash") for f in files] == [content_hash(b"A\n"), None, content_hash(b"B")]
    assert f"=== {root / 'a.txt'} ===\nA\n" in data["content"]
    assert "ERROR:" in text_of(result)


async def test_path_with_range_wins_over_paths(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("1\n2\n3\n", encoding="utf-8")
    args = {"path": "a.txt", "paths": ["b.txt"], "start_line": 2, "end_line": 2}
    assert structured(await client.call_tool("read_file", args))["content"] == "2\n"


async def test_missing_file_is_not_found_and_a_seen_path_gets_the_mismatch_hint(client: Client, root: Path) -> None:
    target = root / "gone.txt"
    first = await client.call_tool("read_file", {"path": "gone.txt"})
    assert error_code(first) == "not_found"
    assert "mismatch" not in text_of(first).lower()
    target.write_text("here\n", encoding="utf-8")
    structured(await client.call_tool("read_file", {"path": "gone.txt"}))
    target.unlink()
    again = await client.call_tool("read_file", {"path": "gone.txt"})
    assert error_code(again) == "not_found"
    assert "Filesystem mismatch?" in text_of(again)


async def test_a_path_this_server_deleted_or_moved_away_gets_no_mismatch_hint(client: Client, root: Path) -> None:
    # The hint says another tool may have touched the path; it came after this server's own delete_file too.
    (root / "d").mkdir()
    (root / "d" / "inner.txt").write_text("in\n", encoding="utf-8")
    (root / "moved.txt").write_text("m\n", encoding="utf-8")
    for path in ("d", "d/inner.txt", "moved.txt"):
        assert not (await client.call_tool("get_file_info", {"path": path})).is_error
    structured(await client.call_tool("delete_file", {"path": "d", "recursive": True}))
    structured(await client.call_tool("move_file", {"source_path": "moved.txt", "dest_path": "there.txt"}))
    for path in ("d", "d/inner.txt", "moved.txt"):
        missing = await client.call_tool("get_file_info", {"path": path})
        assert error_code(missing) == "not_found"
        assert "mismatch" not in text_of(missing).lower(), path
    assert not (root / "d").exists()
    assert (root / "there.txt").read_bytes() == b"m\n"


async def test_directory_is_refused_as_a_file(client: Client, root: Path) -> None:
    (root / "d").mkdir()
    assert error_code(await client.call_tool("read_file", {"path": "d"})) == "is_directory"


async def test_file_over_the_size_limit_is_too_large(connect: ClientFactory, root: Path) -> None:
    (root / "big.txt").write_bytes(b"x" * 2048)
    async with connect(max_file_size=1024) as client:
        result = await client.call_tool("read_file", {"path": "big.txt"})
    assert error_code(result) == "too_large"
    assert "--max-file-size" in text_of(result)


async def test_read_without_path_or_paths_is_invalid(client: Client) -> None:
    assert error_code(await client.call_tool("read_file", {})) == "invalid_params"


async def test_reading_changes_nothing_on_disk(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"keep\r\n")
    before = (root / "a.txt").stat()
    await client.call_tool("read_file", {"path": "a.txt"})
    after = (root / "a.txt").stat()
    assert (root / "a.txt").read_bytes() == b"keep\r\n"
    assert (before.st_mtime_ns, before.st_size) == (after.st_mtime_ns, after.st_size)


@pytest.mark.parametrize(
    "args",
    [
        {"path": "b.txt", "paths": ["a.txt"]},
        {"paths": ["a.txt"], "start_line": 2},
        {"paths": ["a.txt"], "max_lines": 1, "mode": "head"},
        {"paths": ["a.txt"], "encoding": "base64"},
    ],
)
async def test_paths_with_single_file_options_is_refused_not_silently_ignored(
    client: Client, root: Path, args: dict[str, object]
) -> None:
    (root / "a.txt").write_text("1\n2\n", encoding="utf-8")
    result = await client.call_tool("read_file", args)
    assert error_code(result) == "invalid_params"
    assert "paths reads whole files" in text_of(result)


@pytest.mark.parametrize(
    ("args", "named"),
    [
        ({"paths": ["a.txt"], "start_column": 2}, "paths reads whole files; drop start_column, or"),
        ({"paths": ["a.txt"], "encoding": "base64", "mode": "tail"}, "paths reads whole files; drop mode and encoding"),
        ({"path": "a.txt", "encoding": "base64", "start_column": 2}, "returns the whole file; drop start_column."),
        ({"path": "a.txt", "encoding": "base64", "mode": "tail"}, "returns the whole file; drop mode."),
        ({"path": "p.png", "start_column": 2}, "it is read whole, as an image block. Drop start_column, or"),
        ({"path": "p.png", "max_lines": 3}, "it is read whole, as an image block. Drop max_lines, or"),
    ],
    ids=["paths-column", "paths-mode-base64", "base64-column", "base64-mode", "image-column", "image-max-lines"],
)
async def test_a_refused_line_selection_names_the_parameters_passed(
    client: Client, root: Path, args: dict[str, object], named: str
) -> None:
    # A caller who passed start_column (or mode) was told to drop start_line/end_line/max_lines: not what it sent.
    (root / "a.txt").write_text("hello\n", encoding="utf-8")
    (root / "p.png").write_bytes(media_samples.png(3, 3))
    result = await client.call_tool("read_file", args)
    assert error_code(result) == "invalid_params"
    assert named in text_of(result)


async def test_an_empty_paths_list_says_it_is_empty(client: Client) -> None:
    result = await client.call_tool("read_file", {"paths": []})
    assert error_code(result) == "invalid_params"
    assert "paths array is empty" in text_of(result)


@pytest.mark.parametrize("encoding", ["utf-8", "UTF-8", "utf8", "text", "", "latin-1", "auto"])
async def test_an_encoding_other_than_base64_is_a_normal_read(client: Client, root: Path, encoding: str) -> None:
    (root / "a.txt").write_bytes(b"caf\xc3\xa9\r\nline\r\n")
    data = structured(await client.call_tool("read_file", {"path": "a.txt", "encoding": encoding}))
    plain = structured(await client.call_tool("read_file", {"path": "a.txt"}))
    assert data == plain
    assert data["encoding"] == "utf-8"


async def test_base64_is_recognised_in_any_case(client: Client, root: Path) -> None:
    (root / "b.bin").write_bytes(b"\x00\x01")
    data = structured(await client.call_tool("read_file", {"path": "b.bin", "encoding": " Base64 "}))
    assert data["content"] == "AAE="


async def test_paths_with_a_text_encoding_reads_every_file(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"A\n")
    (root / "b.txt").write_bytes(b"B\n")
    data = structured(await client.call_tool("read_file", {"paths": '["a.txt", "b.txt"]', "encoding": "utf-8"}))
    assert [f["content"] for f in data["files"]] == ["A\n", "B\n"]


async def test_several_paths_keep_each_content_pure_and_mark_the_file_that_was_cut(client: Client, root: Path) -> None:
    (root / "f0.txt").write_bytes(b"".join(b"L%d\n" % i for i in range(1, 401)))
    (root / "f1.txt").write_bytes(b"short\n")
    result = await client.call_tool("read_file", {"paths": ["f0.txt", "f1.txt"]})
    data = structured(result)
    cut, whole = data["files"]
    assert cut["content"] == "".join(f"L{i}\n" for i in range(1, 301))
    assert (cut["truncated"], cut["start_line"], cut["end_line"], cut["total_lines"]) == (True, 1, 300, 400)
    assert "start_line=301" in cut["hint"]
    assert cut["content_hash"] == content_hash((root / "f0.txt").read_bytes())
    assert (whole["content"], whole["truncated"]) == ("short\n", False)
    assert "hint" not in whole
    assert data["truncated"] is True
    assert "L300\n\n[Lines 1-300 of 400 total lines in f0.txt" in text_of(result)


async def test_several_whole_paths_are_not_truncated(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"A\n")
    (root / "b.txt").write_bytes(b"B\n")
    data = structured(await client.call_tool("read_file", {"paths": ["a.txt", "b.txt"]}))
    assert data["truncated"] is False
    assert [f["truncated"] for f in data["files"]] == [False, False]


async def test_several_paths_share_one_response_budget_and_a_file_left_out_says_how_to_read_it(
    connect: ClientFactory, root: Path
) -> None:
    for name in ("a", "b", "c", "d"):
        (root / f"{name}.txt").write_text("".join(f"{name}{i:08}\n" for i in range(40)), encoding="utf-8")
    async with connect(max_response_bytes=1000) as client:
        result = await client.call_tool("read_file", {"paths": ["a.txt", "b.txt", "c.txt", "d.txt"]})
    data = structured(result)
    a, b, c, d = data["files"]
    assert [a["content"], b["content"]] == [(root / name).read_text(encoding="utf-8") for name in ("a.txt", "b.txt")]
    assert c["content"] == "".join(f"c{i:08}\n" for i in range(20))
    assert (c["truncated"], c["end_line"]) == (True, 20)
    assert "start_line=21" in c["hint"]
    assert "content" not in d
    assert d["truncated"] is True
    assert f'read_file(path="{root / "d.txt"}")' in d["hint"]
    assert d["path"] == str(root / "d.txt")
    assert sum(len(f.get("content", "")) for f in data["files"]) <= 1000
    assert data["truncated"] is True
    assert "d.txt" in text_of(result)
    assert "read_file(path=" in text_of(result)


async def test_several_paths_of_one_long_line_each_stay_inside_one_budget(connect: ClientFactory, root: Path) -> None:
    for i in range(3):
        (root / f"long{i}.txt").write_bytes(b"z" * 4000 + b"\n")
    async with connect(max_response_bytes=1000) as client:
        result = await client.call_tool("read_file", {"paths": [f"long{i}.txt" for i in range(3)]})
    data = structured(result)
    first, *rest = data["files"]
    shown = len(first["content"]) - len(first["content"].lstrip("z"))
    assert first["content"] == "z" * shown + f"… [line 1 cut at {shown} characters]"
    assert len(first["content"].encode()) <= 1000  # the cut marker within the budget too
    assert f"start_column={shown + 1}" in first["hint"]
    assert all("content" not in f and f["truncated"] for f in rest)
    assert len(text_of(result).encode()) < 2000


@pytest.mark.parametrize("left", [65, 100, 128])
async def test_several_paths_keep_a_cut_line_and_its_marker_within_the_budget_the_files_before_it_left(
    connect: ClientFactory, root: Path, left: int
) -> None:
    # A budget of 65-128 bytes left is no room to cut a line into: its marker came on top of the budget.
    (root / "a.txt").write_bytes(b"a" * (999 - left) + b"\n")
    (root / "long.txt").write_bytes(b"z" * 4000 + b"\n")
    async with connect(max_response_bytes=1000) as client:
        result = await client.call_tool("read_file", {"paths": ["a.txt", "long.txt"]})
    a, long = structured(result)["files"]
    assert a["content"] == (root / "a.txt").read_text(encoding="utf-8")
    assert sum(len(f.get("content", "").encode()) for f in (a, long)) <= 1000
    assert long["truncated"] is True
    assert f'read_file(path="{root / "long.txt"}")' in long["hint"]


@pytest.mark.parametrize("max_file_size", [None, 10], ids=["read whole", "over the size limit"])
async def test_a_start_column_past_the_end_of_its_line_is_refused_naming_the_lines_length(
    connect: ClientFactory, root: Path, max_file_size: int | None
) -> None:
    # It gave an empty read, or the lines after it, where a start_line past the end is refused.
    (root / "s.txt").write_bytes("abc\nhéllo\n\nlast".encode())
    limit = {} if max_file_size is None else {"max_file_size": max_file_size}
    async with connect(**limit) as client:
        past = await client.call_tool("read_file", {"path": "s.txt", "start_line": 2, "start_column": 7})
        empty = await client.call_tool("read_file", {"path": "s.txt", "start_line": 3, "start_column": 2})
        last = await client.call_tool("read_file", {"path": "s.txt", "start_line": 4, "start_column": 9})
        at_end = structured(await client.call_tool("read_file", {"path": "s.txt", "start_line": 2, "start_column": 6}))
        end = await client.call_tool("read_file", {"path": "s.txt", "start_line": 4, "start_column": 5})
        last_end = structured(end)
    assert (error_code(past), error_code(empty), error_code(last)) == ("invalid_params",) * 3
    assert text_of(past).startswith(
        "start_column 7 is past the end of line 2 of s.txt (5 characters). "
        "Use start_column <= 6 (right after its last character), or start_line=3 for the next line."
    )
    assert text_of(empty).startswith("start_column 2 is past the end of line 3 of s.txt (0 characters).")
    assert "past the end of line 4 of s.txt (4 characters). Use start_column <= 5 " in text_of(last)
    assert at_end["content"].startswith("\n")  # right after its last character: the rest of the line is its break
    assert last_end["content"] == ""  # the column the refusal names as the limit is accepted: the file's end
    assert (root / "s.txt").read_bytes() == "abc\nhéllo\n\nlast".encode()


@pytest.mark.parametrize(
    ("selection", "named"),
    [
        ({"start_column": 3, "mode": "tail"}, "start_column and mode both select lines"),
        ({"start_line": 2, "end_line": 3, "max_lines": 2}, "start_line and end_line and max_lines both select lines"),
    ],
)
async def test_a_range_and_a_window_together_are_refused_naming_the_parameters_passed(
    client: Client, root: Path, selection: dict[str, object], named: str
) -> None:
    (root / "s.txt").write_bytes(b"one\ntwo\nthree\n")
    refused = await client.call_tool("read_file", {"path": "s.txt", **selection})
    assert error_code(refused) == "invalid_params"
    assert text_of(refused).startswith(named)
    assert (root / "s.txt").read_bytes() == b"one\ntwo\nthree\n"
