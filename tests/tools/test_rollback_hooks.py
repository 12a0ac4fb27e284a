"""A failed batch, pipeline or rename set is rolled back whatever the operator's pre-hooks say, in both eras.

A rollback fired the events of the agent's own undo (``backup``/``undo_last``, ``move_file``, ``restore_trash``), so
a hook keeping those tools from the agent left an atomic call half done. It now fires no pre-hook, and its post-events
name ``batch_operations`` with operation ``rollback``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_hooks import hook_config, python_hook

pytestmark = pytest.mark.anyio

REFUSE = [{"type": "command", "command": "echo 'no undo allowed' >&2; exit 2"}]
# What an operator keeping undo, restore_trash and move_file from the agent writes.
NO_UNDO: dict[str, list[dict[str, Any]]] = {
    "pre-write": [{"pattern": "backup", "hooks": REFUSE}],
    "pre-move": [{"pattern": "backup", "hooks": REFUSE}, {"pattern": "move_file", "hooks": REFUSE}],
}
FAILING_EDIT = {"type": "edit", "path": "b.txt", "old_text": "zzz", "new_text": "q"}


def files(root: Path) -> dict[str, bytes]:
    return {path.relative_to(root).as_posix(): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def seed(root: Path) -> dict[str, bytes]:
    (root / "b.txt").write_bytes(b"one\r\ntwo\n")
    (root / "d.txt").write_bytes(b"doomed\n")
    (root / "m.txt").write_bytes(b"moved\n")
    return files(root)


async def test_a_pre_hook_refusing_the_agent_undo_does_not_stop_a_failed_atomic_batch_s_rollback(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    before = seed(root)
    operations = [
        {"type": "edit", "path": "b.txt", "old_text": "one", "new_text": "ONE"},
        {"type": "delete", "path": "d.txt"},
        {"type": "move", "path": "m.txt", "destination": "n.txt"},
        FAILING_EDIT,
    ]
    async with connect(hooks_config=hook_config(tmp_path, NO_UNDO)) as client:
        failed = await client.call_tool(
            "batch_operations", {"request_json": {"atomic": True, "operations": operations}}
        )
        listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert error_code(failed) == "batch_failed"
    assert "no undo allowed" not in text_of(failed)
    assert files(root) == before
    assert listing["groups"] == []  # nothing stayed to restore


async def test_a_pre_hook_refusing_the_agent_undo_does_not_stop_a_failed_pipeline_s_rollback(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    before = seed(root)
    steps = [
        {"id": "s1", "action": "edit", "params": {"path": "b.txt", "old_text": "one", "new_text": "ONE"}},
        {"id": "s2", "action": "edit", "params": {"path": "b.txt", "old_text": "zzz", "new_text": "q"}},
    ]
    async with connect(hooks_config=hook_config(tmp_path, NO_UNDO)) as client:
        failed = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}})
    assert error_code(failed) == "batch_failed"
    assert "Rolled back the 1 change the pipeline" in text_of(failed)
    assert files(root) == before


async def test_a_pre_move_hook_refusing_move_file_does_not_stop_a_failed_rename_set_moving_its_names_back(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # The rename of c.txt fails (its own hook); a.txt and b.txt were renamed and must come back.
    hooks = {"pre-move": [*NO_UNDO["pre-move"], {"path": "c.txt", "hooks": REFUSE}]}
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(name.encode())
    before = files(root)
    rename = {"path": ".", "mode": "add_prefix", "prefix": "x_"}
    async with connect(hooks_config=hook_config(tmp_path, hooks)) as client:
        failed = await client.call_tool("batch_operations", {"rename_json": rename})
    assert error_code(failed) == "batch_failed"
    assert "every name is as before" in text_of(failed)
    assert files(root) == before


async def test_a_rollback_fires_no_pre_hook_and_its_post_events_name_batch_operations_and_rollback(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    record = python_hook(
        tmp_path, "record", f"open({str(log)!r}, 'a', encoding='utf-8').write(json.dumps(event) + '\\n')"
    )
    every = [{"hooks": [{"type": "command", "command": record}]}]
    config = hook_config(
        tmp_path, {f"{phase}-{family}": every for phase in ("pre", "post") for family in ("write", "move")}
    )
    before = seed(root)
    operations = [
        {"type": "edit", "path": "b.txt", "old_text": "one", "new_text": "ONE"},
        {"type": "delete", "path": "d.txt"},
        {"type": "move", "path": "m.txt", "destination": "n.txt"},
        FAILING_EDIT,
    ]
    async with connect(hooks_config=config) as client:
        failed = await client.call_tool(
            "batch_operations", {"request_json": {"atomic": True, "operations": operations}}
        )
    assert error_code(failed) == "batch_failed"
    assert files(root) == before
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    rollback = [event for event in events if event["operation"] == "rollback"]
    assert [(e["event"], e["tool_name"], Path(e["file_path"]).name) for e in rollback] == [
        ("post-move", "batch_operations", "n.txt"),  # moved back to m.txt, newest first
        ("post-move", "batch_operations", "d.txt"),  # out of the trash
        ("post-write", "batch_operations", "b.txt"),
    ]
    assert {event["tool_name"] for event in events} == {"batch_operations"}  # never the agent's backup or move_file
