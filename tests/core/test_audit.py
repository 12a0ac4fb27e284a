"""The audit log on a real directory: line fields, summaries, rotation, retention, metrics, concurrency."""

from __future__ import annotations

import json
import logging
import os
import re
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from fsguard.core.audit import AuditEntry, AuditLog
from fsguard.core.audit_arguments import summarise_arguments
from fsguard.core.stats import CallStats

START = datetime(2026, 5, 1, 12, 0, 0, 123_000, tzinfo=UTC).timestamp()
DAY_S = 86_400.0


class FakeClock:
    """A settable wall clock, so intervals and ages pass without sleeping."""

    def __init__(self, now: float = START) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def ok(tool: str = "read_file", **arguments: object) -> AuditEntry:
    return AuditEntry(tool, dict(arguments), 1.5, "ok")


def lines_of(directory: Path) -> list[dict[str, object]]:
    """Every line of every operations file, parsed; fails on a torn or merged line."""
    raw = b"".join(path.read_bytes() for path in sorted(directory.glob("operations*.jsonl")))
    assert raw.endswith(b"\n")
    return [json.loads(line) for line in raw.split(b"\n")[:-1]]


def rotated_in(directory: Path) -> list[Path]:
    return sorted(directory.glob("operations-*.jsonl"))


def test_each_record_appends_one_line_with_the_call_fields(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    log.record(
        AuditEntry(
            "write_file",
            {"path": "notes.txt", "mode": "overwrite"},
            12.34567,
            "ok",
            path="/root/notes.txt",
            bytes_out=42,
            backup_id="20260501-120000-abcd",
            risk="low",
        )
    )
    said = "missing.txt does not exist. " + "x" * 400
    log.record(AuditEntry("read_file", {"path": "missing.txt"}, 0.5, "error", error_code="not_found", error=said))
    first, second = lines_of(tmp_path)
    assert first == {
        "ts": "2026-05-01T12:00:00.123Z",
        "tool": "write_file",
        "path": "/root/notes.txt",
        "duration_ms": 12.346,
        "status": "ok",
        "bytes_out": 42,
        "backup_id": "20260501-120000-abcd",
        "risk": "low",
        "args": {"path": "notes.txt", "mode": "overwrite"},
    }
    assert second["status"] == "error"
    assert second["error_code"] == "not_found"
    assert second["error"] == said[:300] + "…"  # the error's words, cut
    assert second["path"] == "missing.txt"  # no canonical path known: the argument as given


def test_large_arguments_are_summarised_and_small_ones_kept() -> None:
    edits = [{"old_text": "a" * 60, "new_text": "b" * 60}]
    summary = summarise_arguments(
        {
            "content": "x" * 101,
            "new_text": "short",
            "edits": edits,
            "edits_json": "[]",
            "patterns_json": {"k": "v" * 200},
            "path": "p" * 150,
            "paths": ["q" * 120, "ok"],
            "line": 7,
        }
    )
    assert summary == {
        "content": "(101 chars)",
        "new_text": "short",
        "edits": "(1 items)",
        "edits_json": "[]",
        "patterns_json": "(1 items)",
        "path": "p" * 100 + "…",
        "paths": ["q" * 100 + "…", "ok"],
        "line": 7,
    }
    at_the_limit: dict[str, object] = {"content": "x" * 100, "edits": [{"a": 1}]}
    assert summarise_arguments(at_the_limit) == at_the_limit


def test_a_long_list_or_object_under_any_key_keeps_its_first_ten_items_and_counts_the_rest() -> None:
    lines = [f"secret line {k}" for k in range(50_000)]
    summary = summarise_arguments(
        {"contents": lines, "paths": ["a.txt"] * 3000, "options": {f"k{k}": k for k in range(12)}, "few": [1, 2]}
    )
    assert summary == {
        "contents": [*lines[:10], "… +49990 more"],
        "paths": [*["a.txt"] * 10, "… +2990 more"],
        "options": {**{f"k{k}": k for k in range(10)}, "…": "+2 more"},
        "few": [1, 2],
    }


def test_nesting_past_three_levels_and_a_summary_still_too_long_are_logged_by_their_size() -> None:
    deep = {"a": [{"b": [1, 2, 3]}]}
    wide = [{"k" * 200: "v" * 200} for _ in range(10)]  # each cut to 100 + 100, still past 1,000 in all
    assert summarise_arguments({"deep": deep, "wide": wide}) == {"deep": {"a": ["(1 items)"]}, "wide": "(10 items)"}
    assert summarise_arguments({"name": "x" * 5000}) == {"name": "x" * 100 + "…"}


def test_arguments_past_four_thousand_characters_in_all_are_counted_not_shown() -> None:
    many: dict[str, object] = {f"{k:03}" + "k" * 200: "v" * 90 for k in range(500)}
    summary = summarise_arguments(many)
    assert len(json.dumps(summary)) < 5000
    shown = [key for key in summary if key != "…"]
    assert shown == [(f"{k:03}" + "k" * 200)[:100] + "…" for k in range(len(shown))]  # keys are cut as values are
    assert summary["…"] == f"+{500 - len(shown)} more"


def test_a_line_holds_no_more_than_a_few_kb_whatever_the_call_sent(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    huge = {"contents": ["line"] * 50_000, "x" * 10_000: "y", "content": {"nested": "S" * 1_000_000}}
    log.record(AuditEntry("w" * 100_000, {**huge, "path": "p" * 100_000}, 1.0, "error", error_code="unknown_tool"))
    raw = (tmp_path / "operations.jsonl").read_bytes()
    assert len(raw) < 6000
    (line,) = lines_of(tmp_path)
    assert line["tool"] == "w" * 100 + "…"
    assert line["path"] == "p" * 4096 + "…"


def test_the_paths_a_call_names_share_four_thousand_characters_however_many_and_long_they_are(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    paths = tuple(f"/r/{k:02}" + "d" * 3_900 for k in range(12))
    log.record(AuditEntry("read_file", {"paths": list(paths)}, 1.0, "ok", path=paths[0], paths=paths))
    raw = (tmp_path / "operations.jsonl").read_bytes()
    assert len(raw) < 6_000
    (line,) = lines_of(tmp_path)
    share = 4_096 // 11  # path and the 10 listed
    assert line["path"] == paths[0][:share] + "…"
    assert line["paths"] == [path[:share] + "…" for path in paths[:10]]
    assert line["path_count"] == 12


def test_no_line_passes_ten_kb_even_of_characters_json_escapes_or_utf_8_takes_several_bytes_for(
    tmp_path: Path,
) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    escaped, surrogate = "\x01", "\udcff"  # 6 bytes each in the line: \u0001, and \udcff backslash-escaped
    paths = tuple(surrogate * 4_000 + str(k) for k in range(12))
    arguments: dict[str, object] = {f"k{k}": surrogate * 99 for k in range(900)}
    log.record(AuditEntry(escaped * 100, arguments, 1.0, "error", "error", escaped * 4_096, error=escaped * 300))
    log.record(AuditEntry("read_file", {"path": escaped * 4_096}, 1.0, "ok", paths=paths))
    raw = (tmp_path / "operations.jsonl").read_bytes()
    assert max(len(line) + 1 for line in raw.splitlines()) <= 10_240
    refused, read = lines_of(tmp_path)
    # Cut as far as a line goes: a path by its first 100 characters, the arguments counted.
    assert (refused["path"], refused["args"]) == (escaped * 100 + "…", {"…": "+900 more"})
    assert refused["error"] == escaped * 300
    # A quarter of the characters first: here enough, 1,024 shared by the path and the 10 listed.
    assert read["path"] == escaped * 93 + "…"
    assert read["paths"] == [path[:93] + "…" for path in paths[:10]]
    assert read["path_count"] == 12


def test_summarised_arguments_are_what_the_line_records(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    log.record(ok("write_file", path="a.txt", content="z" * 5000))
    (line,) = lines_of(tmp_path)
    assert line["args"] == {"path": "a.txt", "content": "(5000 chars)"}


def test_the_content_a_call_carries_is_logged_as_its_size_in_bytes(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    log.record(ok("write_file", path="a.txt", content="\u00e9" * 101))  # summarised as "(101 chars)"
    log.record(ok("edit_file", path="a.txt", old_text="x", new_text="\u20ac"))
    log.record(ok("write_file", path="b.bin", content_base64="AAEC AwQ="))
    log.record(ok("read_file", path="a.txt"))
    assert [line.get("content_bytes") for line in lines_of(tmp_path)] == [202, 3, 5, None]


def test_the_content_of_a_request_s_writes_and_edits_is_logged_as_its_size_json_text_or_not(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    edits = [{"old_text": "a" * 50, "new_text": "\u00e9"}, {"old_text": "b", "new_text": "xy"}]
    log.record(ok("multi_edit", path="a.txt", edits_json=edits))
    log.record(ok("multi_edit", path="a.txt", edits_json=json.dumps(edits)))
    operations = [{"type": "write", "path": "a", "content": "abc"}, {"type": "edit", "path": "b", "new_text": "d"}]
    log.record(ok("batch_operations", request_json=json.dumps({"operations": operations})))
    steps = [{"id": "s", "action": "edit", "params": {"path": "a", "old_text": "x", "new_text": "\u20ac"}}]
    log.record(ok("batch_operations", pipeline_json={"name": "p", "steps": steps}))
    log.record(ok("batch_operations", request_json="{not json"))
    rules = [{"pattern": "a", "replacement": "\u00e9"}, {"pattern": "b", "replacement": "xy"}]
    regex = [{"id": "r", "action": "regex_transform", "params": {"files": ["a"], "patterns": rules}}]
    log.record(ok("batch_operations", pipeline_json=json.dumps({"name": "p", "steps": regex})))
    assert [line.get("content_bytes") for line in lines_of(tmp_path)] == [4, 4, 4, 3, None, 4]


def test_new_text_under_another_spelling_is_counted_and_logged_by_its_size_as_new_text_is(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    log.record(ok("edit_file", path="a.txt", old_string="o" * 101, new_str="\u20ac" * 101))
    (line,) = lines_of(tmp_path)
    assert line["content_bytes"] == 303
    assert line["args"] == {"path": "a.txt", "old_string": "(101 chars)", "new_str": "(101 chars)"}


def test_a_line_lists_the_first_ten_paths_and_backups_of_a_call_and_counts_them(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    paths = tuple(f"/r/f{k}.txt" for k in range(25))
    ids = tuple(f"b{k}" for k in range(12))
    log.record(AuditEntry("delete_file", {}, 1.0, "ok", path=paths[0], paths=paths, backup_id=ids[0], backup_ids=ids))
    log.record(
        AuditEntry("write_file", {}, 1.0, "ok", path=paths[0], paths=paths[:1], backup_id="b", backup_ids=("b",))
    )
    many, one = lines_of(tmp_path)
    assert (many["path"], many["paths"], many["path_count"]) == (paths[0], list(paths[:10]), 25)
    assert (many["backup_id"], many["backup_ids"], many["backup_count"]) == (ids[0], list(ids[:10]), 12)
    assert (one["path"], one["backup_id"]) == (paths[0], "b")
    assert not {"paths", "path_count", "backup_ids", "backup_count"} & one.keys()


def test_rotation_at_a_tiny_limit_loses_and_splits_no_line(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), max_bytes=1000, clock=FakeClock())
    for number in range(100):
        log.record(ok(path=f"file-{number}.txt"))
    rotated = rotated_in(tmp_path)
    assert len(rotated) > 5
    # All rotations happened within one clock second: the names take a counter suffix.
    assert all(re.fullmatch(r"operations-20260501-120000(-\d+)?\.jsonl", path.name) for path in rotated)
    assert all(path.stat().st_size <= 1000 for path in [*rotated, tmp_path / "operations.jsonl"])
    assert sorted(str(line["path"]) for line in lines_of(tmp_path)) == sorted(f"file-{n}.txt" for n in range(100))


def test_rotation_starts_a_fresh_current_file(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), max_bytes=300, clock=FakeClock())
    log.record(ok(path="first", note="n" * 200))
    log.record(ok(path="second", note="n" * 200))
    (rotated,) = rotated_in(tmp_path)
    assert [line["path"] for line in lines_of(tmp_path)] == ["first", "second"]
    assert json.loads(rotated.read_text(encoding="utf-8"))["path"] == "first"
    assert json.loads((tmp_path / "operations.jsonl").read_text(encoding="utf-8"))["path"] == "second"


def test_rotated_files_older_than_keep_days_are_removed_at_rotation(tmp_path: Path) -> None:
    clock = FakeClock()
    old = tmp_path / "operations-20260420-120000.jsonl"  # 11 days before START
    old_suffixed = tmp_path / "operations-20260420-120000-2.jsonl"
    recent = tmp_path / "operations-20260422-120000.jsonl"  # 9 days before START
    unrelated = tmp_path / "operations-notes.jsonl"
    for path in (old, old_suffixed, recent, unrelated):
        path.write_text("{}\n", encoding="utf-8")
    log = AuditLog(tmp_path, CallStats(), max_bytes=300, keep_days=10, clock=clock)
    log.record(ok(note="n" * 200))
    assert old.exists()  # nothing is removed until the log rotates
    log.record(ok(note="n" * 200))
    assert not old.exists()
    assert not old_suffixed.exists()
    assert recent.exists()
    assert unrelated.exists()
    assert (tmp_path / "operations-20260501-120000.jsonl").exists()


def test_metrics_are_written_only_once_the_interval_has_passed(tmp_path: Path) -> None:
    clock = FakeClock()
    stats = CallStats()
    log = AuditLog(tmp_path, stats, metrics_interval_s=30, clock=clock)
    metrics = tmp_path / "metrics.json"
    for seconds in (0, 29.9):
        clock.advance(seconds)
        stats.record("read_file", None)
        log.record(ok())
        assert not metrics.exists()
    clock.advance(0.1)
    stats.record("write_file", "stale_edit")
    log.record(AuditEntry("write_file", {}, 3.0, "error", error_code="stale_edit"))
    written = json.loads(metrics.read_text(encoding="utf-8"))
    assert written["updated_at"] == "2026-05-01T12:00:30.123Z"
    clock.advance(10)
    stats.record("read_file", None)
    log.record(ok())
    assert json.loads(metrics.read_text(encoding="utf-8")) == written  # next write is due 30 s after the last one


def test_metrics_hold_the_call_stats_counters(tmp_path: Path) -> None:
    stats = CallStats()
    for tool, code in [("read_file", None), ("read_file", "not_found"), ("edit_file", None), ("edit_file", "no_match")]:
        stats.record(tool, code)
    AuditLog(tmp_path, stats, clock=FakeClock()).flush()
    metrics = json.loads((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    by_tool, errors = stats.snapshot()
    assert metrics["by_tool"] == by_tool
    assert metrics["errors_by_code"] == errors
    assert (metrics["ops_total"], metrics["errors_total"]) == (4, 2)
    assert metrics["uptime_s"] >= 0
    assert metrics["ops_per_sec"] >= 0
    assert metrics["memory_mb"] > 0
    assert set(metrics) == {
        "updated_at",
        "uptime_s",
        "ops_total",
        "ops_per_sec",
        "errors_total",
        "by_tool",
        "errors_by_code",
        "memory_mb",
    }


def test_flush_writes_metrics_at_once_by_replacing_the_file(tmp_path: Path) -> None:
    stats = CallStats()
    log = AuditLog(tmp_path, stats, clock=FakeClock())
    metrics = tmp_path / "metrics.json"
    log.flush()
    before = metrics.stat().st_ino
    stats.record("list_directory", None)
    log.flush()
    assert metrics.stat().st_ino != before  # a new file renamed over the old one, never rewritten in place
    assert json.loads(metrics.read_text(encoding="utf-8"))["by_tool"] == {"list_directory": 1}
    assert sorted(path.name for path in tmp_path.iterdir() if path.is_file()) == ["metrics.json"]


def test_eight_threads_recording_at_once_leave_1600_whole_lines(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), max_bytes=64 * 1024)
    start = threading.Barrier(8)

    def worker(number: int) -> None:
        start.wait()
        for index in range(200):
            log.record(ok(path=f"t{number}/{index}", content="c" * (index % 150)))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    paths = [str(line["path"]) for line in lines_of(tmp_path)]
    assert len(paths) == 1600
    assert set(paths) == {f"t{n}/{i}" for n in range(8) for i in range(200)}
    assert rotated_in(tmp_path)  # rotation happened under contention too


def test_log_files_are_private_including_rotated_ones(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), max_bytes=300, clock=FakeClock())
    for _ in range(3):
        log.record(ok(note="n" * 200))
    files = [tmp_path / "operations.jsonl", *rotated_in(tmp_path)]
    assert len(files) == 3
    assert {stat.S_IMODE(path.stat().st_mode) for path in files} == {0o600}


def test_a_current_file_found_with_a_wider_mode_is_made_private(tmp_path: Path) -> None:
    current = tmp_path / "operations.jsonl"
    current.write_text("", encoding="utf-8")
    current.chmod(0o644)
    AuditLog(tmp_path, CallStats(), clock=FakeClock()).record(ok())
    assert stat.S_IMODE(current.stat().st_mode) == 0o600


def test_undecodable_path_bytes_still_give_a_valid_utf8_line(tmp_path: Path) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    log.record(ok(path=os.fsdecode(b"caf\xe9.txt")))
    (line,) = lines_of(tmp_path)
    assert line["path"] == "caf\udce9.txt"


def test_a_write_that_fails_is_logged_and_does_not_fail_the_call(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "operations.jsonl").mkdir()
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    with caplog.at_level(logging.WARNING, logger="fsguard.core.audit"):
        log.record(ok())
    assert "could not record read_file" in caplog.text


def test_a_link_planted_at_the_logs_name_is_not_followed(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_bytes(b"kept\n")
    elsewhere.chmod(0o644)
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "operations.jsonl").symlink_to(elsewhere)
    log = AuditLog(logs, CallStats(), clock=FakeClock())
    with caplog.at_level(logging.WARNING, logger="fsguard.core.audit"):
        log.record(ok())
    assert elsewhere.read_bytes() == b"kept\n"
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o644


def test_a_line_a_full_disk_cuts_short_is_taken_back_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = AuditLog(tmp_path, CallStats(), clock=FakeClock())
    log.record(ok(path="first.txt"))
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, data[:10]))  # what a full disk does
    log.record(ok(path="cut.txt"))
    monkeypatch.undo()
    log.record(ok(path="after.txt"))
    assert [line["path"] for line in lines_of(tmp_path)] == ["first.txt", "after.txt"]
