"""A pipeline's dry run says what its real run does: each step planned on what the steps before it would leave,
refused where the real run refuses it, with the counts and risk of a step its gate would block."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def pipeline(client: Client, steps: list[dict[str, Any]], **request: Any) -> CallToolResult:
    return await client.call_tool("batch_operations", {"pipeline_json": {"name": "dry", "steps": steps, **request}})


def edit(step_id: str, old: str, new: str, **where: Any) -> dict[str, Any]:
    return {"id": step_id, "action": "edit", "params": {"files": ["a.txt"], "old_text": old, "new_text": new, **where}}


def statuses(data: dict[str, Any]) -> list[tuple[str, str | None]]:
    return [(step["status"], step.get("error_code")) for step in data["steps"]]


async def test_a_dry_run_plans_an_edit_of_the_text_an_earlier_edit_writes_as_the_real_run_applies_it(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"foo\r\n")
    steps = [edit("one", "foo", "bar"), edit("two", "bar", "baz")]

    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("planned", None), ("planned", None)]
    assert [step["edits"] for step in dry["steps"]] == [1, 1]
    assert (root / "a.txt").read_bytes() == b"foo\r\n"

    real = structured(await pipeline(client, steps))
    assert statuses(real) == [("ok", None), ("ok", None)]
    assert (root / "a.txt").read_bytes() == b"baz\r\n"


async def test_a_dry_run_plans_an_occurrence_edit_on_the_text_an_earlier_edit_writes_as_the_real_run_applies_it(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"foo\n")
    read = {"id": "read", "action": "aggregate", "params": {"files": ["a.txt"]}}
    steps = [
        edit("one", "foo", "x x x"),
        edit("two", "x", "y", occurrence="-1"),
        edit("three", "x", "z", occurrence=2),
        read,
    ]

    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("planned", None), ("planned", None), ("planned", None), ("ok", None)]
    assert dry["steps"][3]["content"] == "x z y\n"
    assert (root / "a.txt").read_bytes() == b"foo\n"

    real = structured(await pipeline(client, steps))
    assert statuses(real) == [("ok", None), ("ok", None), ("ok", None), ("ok", None)]
    assert (root / "a.txt").read_bytes() == b"x z y\n"

    beyond = [edit("one", "z", "x"), edit("two", "x", "w", occurrence=3)]
    dry = structured(await pipeline(client, beyond, dry_run=True))
    assert statuses(dry) == [("planned", None), ("failed", "no_match")]
    assert "occurrence 3 out of range (only 2 matches found)" in dry["steps"][1]["error"]
    assert error_code(await pipeline(client, beyond)) == "batch_failed"
    assert (root / "a.txt").read_bytes() == b"x z y\n"


async def test_a_dry_run_fails_an_edit_of_text_an_earlier_edit_removes_as_the_real_run_does(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"foo\n")
    steps = [edit("one", "foo", "bar"), edit("two", "foo", "qux")]

    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("planned", None), ("failed", "no_match")]

    real = await pipeline(client, steps)
    assert error_code(real) == "batch_failed"
    assert (root / "a.txt").read_bytes() == b"foo\n"


async def test_a_dry_run_edits_counts_and_finds_a_file_where_an_earlier_rename_would_put_it(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"old old\n")
    steps = [
        {"id": "move", "action": "rename", "params": {"files": ["a.txt"], "destination": "moved"}},
        {"id": "fix", "action": "edit", "input_from": "move", "params": {"old_text": "old", "new_text": "new"}},
        {"id": "check", "action": "count_occurrences", "input_from": "move", "params": {"pattern": "new"}},
        {
            "id": "tidy",
            "action": "delete",
            "params": {"files": ["moved/a.txt"]},
            "condition": {"type": "file_not_exists", "path": "a.txt"},
        },
    ]

    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("planned", None), ("planned", None), ("ok", None), ("planned", None)]
    assert (dry["steps"][1]["edits"], dry["steps"][2]["count"]) == (2, 2)
    assert (root / "a.txt").read_bytes() == b"old old\n"
    assert not (root / "moved").exists()

    real = structured(await pipeline(client, steps))
    assert statuses(real) == [("ok", None), ("ok", None), ("ok", None), ("ok", None)]
    assert real["steps"][2]["count"] == 2
    assert not (root / "a.txt").exists()
    assert not (root / "moved" / "a.txt").exists()


async def test_a_dry_run_fails_a_read_of_a_file_an_earlier_step_would_delete_as_the_real_run_does(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"keep\n")
    steps = [
        {"id": "drop", "action": "delete", "params": {"files": ["a.txt"]}},
        {"id": "read", "action": "read_ranges", "params": {"files": ["a.txt"]}},
    ]

    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("planned", None), ("failed", "not_found")]

    real = await pipeline(client, steps)
    assert error_code(real) == "batch_failed"
    assert (root / "a.txt").read_bytes() == b"keep\n"


async def test_a_dry_run_search_counts_the_text_earlier_steps_would_write_and_names_files_it_cannot_judge(
    client: Client, root: Path
) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_bytes(b"foo\n")
    (root / "src" / "b.txt").write_bytes(b"bar\n")
    (root / "c.txt").write_bytes(b"bar\n")
    steps = [
        {"id": "fix", "action": "edit", "params": {"files": ["src/a.txt"], "old_text": "foo", "new_text": "bar bar"}},
        {"id": "gone", "action": "delete", "params": {"files": ["src/b.txt"]}},
        {"id": "bring", "action": "copy", "params": {"files": ["c.txt"], "destination": "src"}},
        {"id": "find", "action": "search", "params": {"pattern": "bar", "path": "src"}},
    ]

    dry = structured(await pipeline(client, steps, dry_run=True))
    found = dry["steps"][3]
    assert (found["status"], found["count"], found["files"]) == ("ok", 2, [str(root / "src" / "a.txt")])
    assert "c.txt" in found["unforeseen"]
    assert sorted(p.name for p in (root / "src").iterdir()) == ["a.txt", "b.txt"]

    real = structured(await pipeline(client, steps))
    assert real["steps"][3]["count"] == 3
    assert real["steps"][3].get("unforeseen") is None
    assert (root / "src" / "a.txt").read_bytes() == b"bar bar\n"


@pytest.mark.parametrize(
    "step",
    [
        {"id": "drop", "action": "delete", "params": {"files": ["{ro}/r.txt"]}},
        {"id": "move", "action": "rename", "params": {"files": ["{ro}/r.txt"], "destination": "{root}/out"}},
        {"id": "move", "action": "rename", "params": {"files": ["{root}/a.txt"], "destination": "{ro}/in"}},
        {"id": "copy", "action": "copy", "params": {"files": ["{root}/a.txt"], "destination": "{ro}/in"}},
    ],
    ids=["delete", "rename-out", "rename-in", "copy-in"],
)
async def test_a_dry_run_fails_a_step_that_changes_a_read_only_root_as_the_real_run_refuses_it(
    connect: ClientFactory, root: Path, tmp_path: Path, step: dict[str, Any]
) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "r.txt").write_bytes(b"mine\n")
    (root / "a.txt").write_bytes(b"yours\n")
    params = {
        key: [v.format(ro=ro, root=root) for v in value] if isinstance(value, list) else value.format(ro=ro, root=root)
        for key, value in step["params"].items()
    }
    steps = [{**step, "params": params}]
    async with connect(read_only_roots=(ro.resolve(),)) as client:
        dry = structured(await pipeline(client, steps, dry_run=True))
        assert statuses(dry) == [("failed", "read_only")]

        real = await pipeline(client, steps)
        assert error_code(real) == "read_only"
    assert (ro / "r.txt").read_bytes() == b"mine\n"
    assert (root / "a.txt").read_bytes() == b"yours\n"
    assert sorted(p.name for p in ro.iterdir()) == ["r.txt"]


async def test_a_dry_run_of_a_step_its_risk_gate_would_block_reports_its_counts_risk_and_force_as_the_next_action(
    client: Client, root: Path
) -> None:
    files = [f"f{number}.txt" for number in range(60)]
    for name in files:
        (root / name).write_bytes(b"foo\n")
    steps = [{"id": "wide", "action": "edit", "params": {"files": files, "old_text": "foo", "new_text": "bar"}}]

    dry = structured(await pipeline(client, steps, dry_run=True))
    (step,) = dry["steps"]
    assert (step["status"], step["error_code"], step["risk_level"]) == ("failed", "risk_blocked", "HIGH")
    assert (step["edits"], len(step["files"])) == (60, 60)
    assert (dry["risk_level"], dry["files_affected"], dry["total_edits"]) == ("HIGH", 60, 60)
    assert 'Set "force": true at the top level of pipeline_json, beside "steps", to run it' in step["error"]
    assert "dry_run=true" not in step["error"]
    assert all((root / name).read_bytes() == b"foo\n" for name in files)

    forced = structured(await pipeline(client, steps, force=True))
    assert (forced["risk_level"], forced["files_affected"]) == ("HIGH", 60)
    assert all((root / name).read_bytes() == b"bar\n" for name in files)


async def test_a_dry_run_fails_a_delete_without_recursive_of_a_directory_that_would_hold_files_as_the_real_run_does(
    client: Client, root: Path
) -> None:
    (root / "full").mkdir()
    (root / "full" / "kept.txt").write_bytes(b"kept\n")
    (root / "empty").mkdir()
    (root / "a.txt").write_bytes(b"foo\n")
    delete = {"id": "rm", "action": "delete", "params": {"files": ["full"]}}
    dry = structured(await pipeline(client, [delete], dry_run=True))
    assert statuses(dry) == [("failed", "invalid_params")]
    assert error_code(await pipeline(client, [delete])) == "batch_failed"
    assert (root / "full" / "kept.txt").read_bytes() == b"kept\n"

    # an empty directory an earlier step would copy a file into is not empty by then
    steps = [
        {"id": "cp", "action": "copy", "params": {"files": ["a.txt"], "destination": "empty"}},
        {"id": "rm", "action": "delete", "params": {"files": ["empty"]}},
    ]
    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("planned", None), ("failed", "invalid_params")]
    recursive = {"id": "rm", "action": "delete", "params": {"files": ["full"], "recursive": True}}
    assert statuses(structured(await pipeline(client, [recursive], dry_run=True))) == [("planned", None)]
    assert (root / "full" / "kept.txt").read_bytes() == b"kept\n"


async def test_a_dry_run_search_under_the_directory_an_earlier_rename_makes_is_not_failed_as_missing(
    client: Client, root: Path
) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_bytes(b"foo\n")
    steps = [
        {"id": "move", "action": "rename", "params": {"files": ["src/a.txt"], "destination": "moved"}},
        {"id": "find", "action": "search", "params": {"pattern": "foo", "path": "moved"}},
    ]

    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("planned", None), ("ok", None)]  # it said "moved does not exist", and failed
    assert "moved" in dry["steps"][1]["unforeseen"]
    assert not (root / "moved").exists()
    assert (root / "src" / "a.txt").read_bytes() == b"foo\n"

    real = structured(await pipeline(client, steps))
    assert statuses(real) == [("ok", None), ("ok", None)]
    assert real["steps"][1]["files"] == [str(root / "moved" / "a.txt")]
    assert (root / "moved" / "a.txt").read_bytes() == b"foo\n"


async def test_a_dry_run_step_error_names_paths_as_the_real_run_error_does(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"x\n")
    steps = [{"id": "cp", "action": "copy", "params": {"path": "a.txt", "destination": "a.txt"}}]
    real = await pipeline(client, steps)
    assert error_code(real) == "batch_failed"
    assert "copy destination a.txt is a file" in text_of(real)
    dry = structured(await pipeline(client, steps, dry_run=True))
    assert statuses(dry) == [("failed", "invalid_params")]
    assert dry["steps"][0]["error"].startswith("copy destination a.txt is a file"), dry["steps"][0]["error"]
    assert (root / "a.txt").read_bytes() == b"x\n"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]
