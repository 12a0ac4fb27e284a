"""A pipeline run on past a failed step (stop_on_error false), in both protocol eras: what refers to the failed step
never reads its missing result as "nothing found". The bytes on disk are the oracle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

FAILING_SEARCH: dict[str, Any] = {"id": "find", "action": "search", "params": {"pattern": "old()", "path": "absent"}}


async def run(client: Client, *steps: dict[str, Any]) -> dict[str, Any]:
    request = {"name": "failed-step", "stop_on_error": False, "steps": list(steps)}
    return structured(await client.call_tool("batch_operations", {"pipeline_json": request}))


@pytest.mark.parametrize(
    "condition",
    [
        {"type": "no_matches", "step_ref": "find"},
        {"type": "count_eq", "step_ref": "find", "value": 0},
        {"type": "count_lt", "step_ref": "find", "value": 1},
    ],
    ids=["no_matches", "count_eq", "count_lt"],
)
async def test_a_count_condition_on_a_failed_search_skips_the_delete_it_guards_and_leaves_the_file(
    client: Client, root: Path, condition: dict[str, Any]
) -> None:
    # The failed search counted as 0 matches, so "delete old.py if nothing uses it" deleted a file still in use.
    (root / "old.py").write_bytes(b"def old(): pass\n")
    (root / "use.py").write_bytes(b"old()\n")
    guarded = {"id": "rm", "action": "delete", "params": {"files": ["old.py"]}, "condition": condition}
    result = await run(client, FAILING_SEARCH, guarded)
    assert [(step["id"], step["status"]) for step in result["steps"]] == [("find", "failed"), ("rm", "skipped")]
    assert "'find': it failed" in result["steps"][1]["skip_reason"]
    assert (root / "old.py").read_bytes() == b"def old(): pass\n"
    assert (root / "use.py").read_bytes() == b"old()\n"


async def test_step_failed_on_a_failed_step_still_runs_the_step_it_guards(client: Client, root: Path) -> None:
    (root / "log.txt").write_bytes(b"status: pending\n")
    fallback = {
        "id": "note",
        "action": "edit",
        "params": {"files": ["log.txt"], "old_text": "pending", "new_text": "search failed"},
        "condition": {"type": "step_failed", "step_ref": "find"},
    }
    result = await run(client, FAILING_SEARCH, fallback)
    assert [(step["id"], step["status"]) for step in result["steps"]] == [("find", "failed"), ("note", "ok")]
    assert (root / "log.txt").read_bytes() == b"status: search failed\n"


async def test_a_step_reading_the_files_of_a_failed_step_is_skipped_naming_it_and_changes_nothing(
    client: Client, root: Path
) -> None:
    # It ran on the empty set the failed search left and answered "ok", 0 edits, for an edit it never had files for.
    (root / "use.py").write_bytes(b"old()\n")
    fix = {
        "id": "fix",
        "action": "edit",
        "input_from": "find",
        "params": {"files": ["use.py"], "old_text": "old()", "new_text": "new()"},
    }
    result = await run(client, FAILING_SEARCH, fix)
    assert [(step["id"], step["status"]) for step in result["steps"]] == [("find", "failed"), ("fix", "skipped")]
    assert result["steps"][1]["skip_reason"] == "its input step 'find' failed, so it has no files to act on"
    assert (root / "use.py").read_bytes() == b"old()\n"


async def test_a_rolled_back_pipeline_names_each_file_it_restored_once_and_leaves_the_bytes(
    client: Client, root: Path
) -> None:
    # A file changed by two steps (copied, then transformed) was listed twice in rolled_back; a batch lists it once.
    (root / "b.py").write_bytes(b"x = 1\n")
    (root / "dest").mkdir()
    steps = [
        {"id": "cp", "action": "copy", "params": {"files": ["b.py"], "destination": "dest"}},
        {
            "id": "rx",
            "action": "regex_transform",
            "params": {"files": ["dest/b.py"], "patterns": [{"pattern": "1", "replacement": "2"}]},
        },
        {"id": "boom", "action": "edit", "params": {"files": ["b.py"], "old_text": "absent", "new_text": "x"}},
    ]
    result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "twice", "steps": steps}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (result.meta or {})["fsguard/error"]["rolled_back"] == [str(root / "dest" / "b.py")]
    assert "Rolled back all 2 changes the pipeline had made to 1 path (b.py)" in text_of(result)
    assert (root / "b.py").read_bytes() == b"x = 1\n"
    assert list((root / "dest").iterdir()) == []


async def test_a_step_quoting_a_failed_step_in_a_template_is_skipped_and_writes_no_made_up_count(
    client: Client, root: Path
) -> None:
    # The failed search's count was filled in as 0: "uses: 0" was written though nothing had been counted.
    (root / "report.txt").write_bytes(b"uses: unknown\n")
    report = {
        "id": "report",
        "action": "edit",
        "params": {"files": ["report.txt"], "old_text": "unknown", "new_text": "{{find.count}}"},
    }
    result = await run(client, FAILING_SEARCH, report)
    assert [(step["id"], step["status"]) for step in result["steps"]] == [("find", "failed"), ("report", "skipped")]
    assert "quotes step 'find' in a template, and that step failed" in result["steps"][1]["skip_reason"]
    assert (root / "report.txt").read_bytes() == b"uses: unknown\n"


async def test_a_pipeline_run_on_past_failures_whose_every_step_failed_is_an_error_listing_each_failure(
    client: Client, root: Path
) -> None:
    # It answered success, status "partial", 0/2 steps completed.
    (root / "a.txt").write_bytes(b"one\n")
    edit = {"id": "fix", "action": "edit", "params": {"files": ["a.txt"], "old_text": "absent", "new_text": "x"}}
    request = {"name": "all-failed", "stop_on_error": False, "steps": [FAILING_SEARCH, edit]}
    result = await client.call_tool("batch_operations", {"pipeline_json": request})
    assert error_code(result) == "not_found", text_of(result)  # the first failed step's
    fields = (result.meta or {})["fsguard/error"]
    assert [error.split(":")[0] for error in fields["errors"]] == [
        "step 1 'find' (search) (not_found)",
        "step 2 'fix' (edit) (no_match)",
    ]
    assert text_of(result).startswith("pipeline all-failed: none of its 2 steps succeeded (stop_on_error: false)")
    assert (root / "a.txt").read_bytes() == b"one\n"
