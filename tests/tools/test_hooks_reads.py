"""Read and search hooks fire for every way fsguard reads a file, in both eras: read_file's base64 mode, and a
batch_operations pipeline's search, count_occurrences, read_ranges, aggregate and diff steps, so a hook keeping
read_file or search_files out of a folder keeps a pipeline out of it too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_hooks import hook_config, python_hook

pytestmark = pytest.mark.anyio


def recording(tmp_path: Path, *events: str) -> tuple[Path, dict[str, list[dict[str, Any]]]]:
    """A hook appending each event's JSON to a log, configured for ``events``; the log and the hooks."""
    log = tmp_path / "events.jsonl"
    record = python_hook(tmp_path, "record", f"open({str(log)!r}, 'a').write(json.dumps(event) + '\\n')")
    return log, {event: [{"hooks": [{"type": "command", "command": record}]}] for event in events}


def fired(log: Path) -> list[tuple[str, str, str]]:
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [(e["event"], e["operation"], e["file_path"]) for e in map(json.loads, lines)]


def pipeline(*steps: dict[str, Any]) -> dict[str, str]:
    return {"pipeline_json": json.dumps({"name": "p", "steps": list(steps)})}


async def test_a_base64_read_fires_post_read_as_a_text_read_does(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log, hooks = recording(tmp_path, "pre-read", "post-read")
    (root / "a.txt").write_bytes(b"x\n")
    async with connect(hooks_config=hook_config(tmp_path, hooks)) as client:
        structured(await client.call_tool("read_file", {"path": "a.txt", "encoding": "base64"}))
    a = str(root / "a.txt")
    assert fired(log) == [("pre-read", "read_file:base64", a), ("post-read", "read_file:base64", a)]


async def test_a_pipelines_reading_steps_fire_the_read_and_search_hooks_once_per_file(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log, hooks = recording(tmp_path, "pre-read", "post-read", "pre-search", "post-search")
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_bytes(b"needle\n")
    (root / "src" / "b.txt").write_bytes(b"needle needle\n")
    steps = (
        {"id": "s", "action": "search", "params": {"path": "src", "pattern": "needle"}},
        {"id": "c", "action": "count_occurrences", "input_from": "s", "params": {"pattern": "needle"}},
        {"id": "r", "action": "read_ranges", "input_from": "s", "params": {"start_line": 1, "end_line": 1}},
    )
    async with connect(hooks_config=hook_config(tmp_path, hooks)) as client:
        structured(await client.call_tool("batch_operations", pipeline(*steps)))
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    a, b = str(root / "src" / "a.txt"), str(root / "src" / "b.txt")
    steps_named = ("search", "count_occurrences", "read_ranges")
    search, count, read = (f"batch_operations:pipeline_{step}" for step in steps_named)
    assert fired(log) == [
        ("pre-search", search, str(root / "src")),
        ("post-search", search, str(root / "src")),
        ("pre-search", count, a),
        ("post-search", count, a),
        ("pre-search", count, b),
        ("post-search", count, b),
        ("pre-read", read, a),
        ("post-read", read, a),
        ("pre-read", read, b),
        ("post-read", read, b),
    ]
    assert {e["tool_name"] for e in events} == {"batch_operations"}
    assert events[1]["metadata"] == {"pattern": "needle", "mode": "count", "total_matches": 3}
    assert events[5]["metadata"] == {"pattern": "needle", "mode": "count", "total_matches": 2}


@pytest.mark.parametrize(
    "steps",
    [
        ({"id": "r", "action": "read_ranges", "params": {"files": ["secret/k.txt"], "start_line": 1}},),
        ({"id": "a", "action": "aggregate", "params": {"files": ["secret/k.txt"]}},),
        ({"id": "d", "action": "diff", "params": {"file_a": "open.txt", "file_b": "secret/k.txt"}},),
        ({"id": "c", "action": "count_occurrences", "params": {"files": ["secret/k.txt"], "pattern": "password"}},),
        ({"id": "s", "action": "search", "params": {"path": "secret/k.txt", "pattern": "password"}},),
    ],
    ids=["read_ranges", "aggregate", "diff", "count_occurrences", "search"],
)
async def test_a_hook_keeping_read_file_and_search_files_out_of_a_folder_keeps_a_pipeline_step_out(
    connect: ClientFactory, root: Path, tmp_path: Path, steps: tuple[dict[str, Any], ...]
) -> None:
    deny = [{"path": "secret/**", "hooks": [{"type": "command", "command": "echo 'secret folder' >&2; exit 2"}]}]
    config = hook_config(tmp_path, {"pre-read": deny, "pre-search": deny})
    (root / "secret").mkdir()
    (root / "secret" / "k.txt").write_bytes(b"password=hunter2\n")
    (root / "open.txt").write_bytes(b"open\n")
    async with connect(hooks_config=config) as client:
        refused = await client.call_tool("batch_operations", pipeline(*steps))
    assert error_code(refused) == "batch_failed"
    assert "hook denied batch_operations on secret" in text_of(refused)
    assert "hunter2" not in text_of(refused) + json.dumps(refused.structured_content)


_SECRET_DIFF = [
    ("edit_file", {"path": "secret/m.js", "old_text": "SECRETDATA", "new_text": "x", "dry_run": True}),
    ("edit_file", {"path": "secret/m.js", "mode": "delete_range", "start_line": 1, "end_line": 1, "dry_run": True}),
    ("multi_edit", {"path": "secret/m.js", "edits": [{"old_text": "SECRETDATA", "new_text": "x"}], "dry_run": True}),
    ("analyze_operation", {"operation": "edit", "path": "secret/m.js", "old_text": "SECRET", "new_text": "x"}),
    ("minify_js", {"path": "secret/m.js", "dry_run": True}),
    ("minify_js", {"path": "secret/m.js", "output_path": "out.js"}),
]


@pytest.mark.parametrize(("tool", "arguments"), _SECRET_DIFF)
async def test_a_hook_keeping_read_file_out_of_a_folder_keeps_out_dry_runs_analyses_and_minified_copies(
    connect: ClientFactory, root: Path, tmp_path: Path, tool: str, arguments: dict[str, Any]
) -> None:
    deny = [{"path": "secret/**", "hooks": [{"type": "command", "command": "echo 'secret folder' >&2; exit 2"}]}]
    (root / "secret").mkdir()
    (root / "secret" / "m.js").write_bytes(b"var SECRETDATA = 1;\n")
    async with connect(hooks_config=hook_config(tmp_path, {"pre-read": deny})) as client:
        refused = await client.call_tool(tool, arguments)
    assert error_code(refused) == "hook_denied"
    assert "pre-read hook denied" in text_of(refused)
    assert "SECRETDATA" not in text_of(refused)
    assert (root / "secret" / "m.js").read_bytes() == b"var SECRETDATA = 1;\n"
    assert sorted(p.name for p in root.iterdir()) == ["secret"]
