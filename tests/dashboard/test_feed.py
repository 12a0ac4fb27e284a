"""Reading the audit log while servers write it (feed), and the Statistics page's numbers (charts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fsguard.core.paths import PathPolicy
from fsguard.dashboard.app import short_path
from fsguard.dashboard.charts import bucket_width, human_bytes, statistics, written_bytes
from fsguard.dashboard.feed import ActivityEntry, ActivityFilter, AuditTail, feed_page, parse_line, read_log


def _line(tool: str, ts: str = "2026-12-01T10:00:00.000Z", **extra: object) -> bytes:
    return (json.dumps({"ts": ts, "tool": tool, "status": "ok", "duration_ms": 1, **extra}) + "\n").encode()


def _entry(tool: str, ts: str, **extra: object) -> ActivityEntry:
    parsed = parse_line(_line(tool, ts, **extra))
    assert parsed is not None
    return parsed


def test_torn_and_foreign_lines_are_skipped() -> None:
    assert parse_line(b'{"ts":"2026-12-01T10:00:00Z","tool":"read_fi') is None
    assert parse_line(b"[1, 2]") is None
    assert parse_line(b'{"tool": 3, "ts": "x"}') is None
    entry = parse_line(_line("edit_file", status="error", error_code="no_match", args="not a dict"))
    assert entry is not None
    assert (entry.status, entry.error_code, entry.args) == ("error", "no_match", {})


@pytest.mark.parametrize(
    "fields",
    [
        b'"duration_ms":"slow"',
        b'"duration_ms":[1]',
        b'"bytes_out":1e400',
        b'"bytes_out":' + b"9" * 400,
        b'"duration_ms":-1',
        b'"args":' + b"[" * 100_000 + b"]" * 100_000,
    ],
)
def test_a_line_with_fields_fsguard_never_writes_is_foreign(fields: bytes) -> None:
    assert parse_line(b'{"ts":"2026-12-01T10:00:00Z","tool":"x",' + fields + b"}") is None


def test_the_log_is_read_across_rotated_files_and_the_cursor_stops_before_a_torn_line(tmp_path: Path) -> None:
    (tmp_path / "operations-20261201-090000.jsonl").write_bytes(_line("old"))
    current = tmp_path / "operations.jsonl"
    current.write_bytes(_line("a") + _line("b") + b'{"ts":"torn')
    entries, (inode, offset) = read_log(tmp_path)
    assert [entry.tool for entry in entries] == ["old", "a", "b"]
    assert inode == current.stat().st_ino
    assert offset == len(_line("a") + _line("b"))
    assert [e.tool for e in feed_page(tmp_path, ActivityFilter(), 2).entries] == ["b", "a"]
    assert read_log(None) == ([], (0, 0))


def test_the_tail_yields_new_lines_once_whole_and_follows_a_rotation(tmp_path: Path) -> None:
    current = tmp_path / "operations.jsonl"
    current.write_bytes(_line("before"))
    tail = AuditTail(tmp_path)
    assert tail.poll() == []
    with current.open("ab") as log:
        log.write(_line("one") + b'{"ts":"2026-12-01T10:00:00Z","tool":"tw')
    assert [entry.tool for entry in tail.poll()] == ["one"]
    with current.open("ab") as log:
        log.write(b'o","status":"ok"}\n' + _line("three"))
    current.rename(tmp_path / "operations-20261201-100000.jsonl")  # the server rotates …
    current.write_bytes(_line("four"))  # … and goes on in a new file
    assert [entry.tool for entry in tail.poll()] == ["two", "three", "four"]
    assert tail.poll() == []


def test_a_tail_from_a_pages_cursor_misses_nothing_written_in_between(tmp_path: Path) -> None:
    current = tmp_path / "operations.jsonl"
    current.write_bytes(_line("seen"))
    _, cursor = read_log(tmp_path)
    with current.open("ab") as log:
        log.write(_line("between"))
    assert [entry.tool for entry in AuditTail(tmp_path, cursor).poll()] == ["between"]
    # A page that saw no log at all: the tail reads the file from its start once it appears.
    empty = tmp_path / "empty"
    empty.mkdir()
    _, nothing = read_log(empty)
    (empty / "operations.jsonl").write_bytes(_line("first"))
    assert [entry.tool for entry in AuditTail(empty, nothing).poll()] == ["first"]


def test_a_feed_page_holds_the_newest_matches_every_tool_and_the_line_count(tmp_path: Path) -> None:
    lines = [
        _line("write_file", path="/r/\u00c9t\u00e9/Notes.txt"),
        _line("read_file", path='/r/say "hi".txt', args={"tool": "not-a-tool-name"}),
        _line("edit_file", path="/r/src/App.py"),
        _line("edit_file", path="/r/src/other.py", status="error"),
    ]
    (tmp_path / "operations.jsonl").write_bytes(b"".join(lines))
    page = feed_page(tmp_path, ActivityFilter(), 10)
    assert page.total == 4
    assert page.tools == ["edit_file", "read_file", "write_file"]
    assert [e.tool for e in page.entries] == ["edit_file", "edit_file", "read_file", "write_file"]

    def paths(**wanted: str) -> list[str | None]:
        return [e.path for e in feed_page(tmp_path, ActivityFilter(**wanted), 10).entries]

    assert paths(path="app.PY") == ["/r/src/App.py"]
    assert paths(path="\u00e9t\u00e9/notes") == ["/r/\u00c9t\u00e9/Notes.txt"]  # non-ASCII: compared parsed
    assert paths(path='"hi"') == ['/r/say "hi".txt']  # escaped in JSON: compared parsed
    assert paths(tool="edit_file", status="ok") == ["/r/src/App.py"]
    assert len(feed_page(tmp_path, ActivityFilter(tool="edit_file"), 1).entries) == 1
    assert feed_page(None, ActivityFilter(), 5) == feed_page(tmp_path / "missing", ActivityFilter(), 5)


def test_filters_match_tool_exactly_path_in_any_case_and_status() -> None:
    entry = _entry("write_file", "2026-12-01T10:00:00Z", path="/r/Src/App.py")
    assert ActivityFilter(tool="write_file", path="src/app", status="ok").admits(entry)
    assert not ActivityFilter(tool="write").admits(entry)
    assert not ActivityFilter(status="error").admits(entry)


def test_written_bytes_reads_sizes_from_the_logged_arguments() -> None:
    assert written_bytes(_entry("write_file", "2026-12-01T10:00:00Z", args={"content": "(5000 chars)"})) == 5000
    assert written_bytes(_entry("write_file", "2026-12-01T10:00:00Z", args={"content": "h\u00e9"})) == 3
    assert written_bytes(_entry("write_file", "2026-12-01T10:00:00Z", args={"content_base64": "(400 chars)"})) == 300
    failed = _entry("write_file", "2026-12-01T10:00:00Z", status="error", args={"content": "abc"})
    assert written_bytes(failed) == 0


def test_written_bytes_are_the_lines_byte_count_where_it_has_one() -> None:
    long = _entry("write_file", "2026-12-01T10:00:00Z", args={"content": "(101 chars)"}, content_bytes=202)
    assert written_bytes(long) == 202
    assert _entry("write_file", "2026-12-01T10:00:00Z", content_bytes=0).content_bytes == 0
    assert parse_line(_line("write_file", content_bytes="202")) is None


def test_statistics_buckets_calls_per_tool_and_counts_errors_by_code() -> None:
    entries = [
        _entry("write_file", "2026-12-01T10:00:10Z", args={"content": "abcd"}),
        _entry("read_file", "2026-12-01T10:00:50Z"),
        _entry("read_file", "2026-12-01T10:30:00Z", status="error", error_code="not_found"),
        _entry("read_file", "not a time"),
    ]
    drawn = statistics(entries, [(100.0, 10), (160.0, 30)], {})
    assert drawn.labels[0] == "12-01 10:00"
    assert len(drawn.labels) == 31  # 10:00 … 10:30 in one-minute buckets (under MAX_BUCKETS)
    counts = {series.label: sum(series.values) for series in drawn.per_tool}
    assert counts == {"read_file": 2, "write_file": 1}
    assert drawn.errors_by_code == {"not_found": 1}
    assert sum(drawn.bytes_written) == 4
    assert drawn.store_bytes[-1] == 40
    assert statistics([], [], {}).labels == []


def test_bucket_widths_keep_charts_under_fifty_bars() -> None:
    assert bucket_width(0, 10) == 1
    assert bucket_width(0, 3_600) == 300
    assert bucket_width(0, 30 * 86_400) == 86_400
    assert human_bytes(1536) == "1.5 KiB"
    assert human_bytes(12) == "12 B"


def test_paths_inside_the_roots_are_shown_relative_to_their_root(tmp_path: Path) -> None:
    policy = PathPolicy.create([tmp_path])
    root = policy.roots[0]
    assert short_path(policy, str(root / "src" / "a.py")) == "src/a.py"
    assert short_path(policy, str(root)) == str(root)
    assert short_path(policy, "/elsewhere/x") == "/elsewhere/x"
    assert short_path(policy, "relative.txt") == "relative.txt"
    assert short_path(policy, None) == ""
