"""A call of several steps cancelled while it waits for another process's lock of a later file (or of its second file)
changes nothing more once that lock frees: the file it waited for and every later one keep their bytes."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from fsguard.config import Settings
from fsguard.core.editing import EditOptions, Editor, EditReport
from fsguard.core.modes import Planner
from fsguard.server import build_server
from tests.conftest import Contention, structured
from tests.test_event_loop import WAIT_S, cancel_while_it_waits, foreign_lock, leave_while_it_waits

pytestmark = pytest.mark.anyio


async def cancelled_with(
    contention: Contention, call: tuple[str, dict[str, Any]], held: Path, settings: Settings | None = None
) -> None:
    """Run ``call`` on a new server (with ``settings``, else the contention's) until it waits for ``held``'s lock
    another process holds, cancel it, let go; then check the server still answers."""
    settings = settings or contention.settings
    foreign = foreign_lock(contention.user_lock_dir, held)
    server = build_server(settings)
    name = held.relative_to(settings.roots[0]).as_posix()
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(client, contention.mode, contention.lock_waits, foreign, call, name)
                listed = await client.call_tool("list_directory", {"path": "."})
                assert not listed.is_error, listed
    finally:
        foreign.let_go()


async def test_a_project_replace_cancelled_while_it_waits_for_a_later_files_lock_leaves_that_file_untouched(
    contention: Contention,
    root: Path,
) -> None:
    # Files change in path order, each under its own lock: only the first lock asked whether the call was cancelled,
    # so a run cancelled while another process held b.txt replaced in it (and every later file) once it let go.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"old value\n")
    replace = ("project_replace", {"find": "old", "replace": "new"})
    await cancelled_with(contention, replace, root / "b.txt")
    assert (root / "a.txt").read_bytes() == b"new value\n"  # changed before the cancellation: it stays, backed up
    assert (root / "b.txt").read_bytes() == b"old value\n"
    assert (root / "c.txt").read_bytes() == b"old value\n"


async def test_a_call_cancelled_after_it_changed_a_file_is_counted_and_audited_as_cancelled(
    contention: Contention,
    root: Path,
    tmp_path: Path,
) -> None:
    # A cancelled call gets no answer, and it wrote no audit line either: a.txt changed (and was backed up) with no
    # trace in operations.jsonl, though every call appends one.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"old value\n")
    logs = tmp_path / "logs"
    settings = dataclasses.replace(contention.settings, log_dir=logs)
    foreign = foreign_lock(contention.user_lock_dir, root / "b.txt")
    replace = ("project_replace", {"find": "old", "replace": "new"})
    server = build_server(settings)
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(client, contention.mode, contention.lock_waits, foreign, replace, "b.txt")
    finally:
        foreign.let_go()
    # Read once the client closed: the cancelled call ends (and is accounted) when its worker thread does, which may
    # be after the calls that follow it.
    assert (root / "a.txt").read_bytes() == b"new value\n"
    lines = [json.loads(line) for line in (logs / "operations.jsonl").read_text(encoding="utf-8").splitlines()]
    audited = [(line["status"], line["error_code"], line["bytes_out"]) for line in lines if line["tool"] == replace[0]]
    assert audited == [("error", "cancelled", 0)]
    by_tool, errors = server.groundwork.stats.snapshot()
    assert (by_tool[replace[0]], errors["cancelled"]) == (1, 1)


@pytest.mark.parametrize("atomic", [False, True])
async def test_a_batch_cancelled_while_it_waits_for_a_later_operations_lock_leaves_that_file_untouched(
    contention: Contention,
    root: Path,
    atomic: bool,
) -> None:
    # Each operation takes its own lock: a non-atomic batch cancelled while another process held b.txt wrote it (and
    # c.txt) once it let go, and kept them; an atomic one wrote them, then rolled everything back.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"old\n")
    inodes = {name: (root / name).stat().st_ino for name in ("b.txt", "c.txt")}
    writes = [{"type": "write", "path": name, "content": "new\n"} for name in ("a.txt", "b.txt", "c.txt")]
    batch = ("batch_operations", {"request_json": {"operations": writes, "atomic": atomic}})
    await cancelled_with(contention, batch, root / "b.txt")
    # Done before the cancellation: rolled back when atomic, kept (and restorable as the batch's group) when not.
    assert (root / "a.txt").read_bytes() == (b"old\n" if atomic else b"new\n")
    assert (root / "b.txt").read_bytes() == b"old\n"
    assert (root / "c.txt").read_bytes() == b"old\n"
    # Never written: a write (and its rollback) puts a new file in place, the old one is still there.
    assert {name: (root / name).stat().st_ino for name in inodes} == inodes


@pytest.mark.parametrize("atomic", [False, True])
async def test_an_extract_cancelled_while_it_waits_for_its_second_files_lock_moves_no_line(
    contention: Contention,
    root: Path,
    atomic: bool,
) -> None:
    # Its two files are locked in path order (dest.txt, then source.txt): the first lock used up the cancellation
    # check, so an extract cancelled while another process held source.txt moved the lines once it let go (and kept
    # them, in a batch that is not atomic; an atomic one wrote both files, then rolled them back).
    (root / "source.txt").write_bytes(b"one\ntwo\nthree\n")
    extract = {"type": "extract", "path": "source.txt", "destination": "dest.txt", "start_line": 2, "end_line": 2}
    batch = ("batch_operations", {"request_json": {"operations": [extract], "atomic": atomic}})
    await cancelled_with(contention, batch, root / "source.txt")
    assert (root / "source.txt").read_bytes() == b"one\ntwo\nthree\n"
    assert not (root / "dest.txt").exists()


async def test_a_pipeline_multi_edit_cancelled_while_it_waits_for_its_second_files_lock_edits_no_file(
    contention: Contention,
    root: Path,
) -> None:
    # The step previews every file (each under its lock), then edits them: the preview of a.txt used up the
    # cancellation check, so a step cancelled while another process held b.txt edited both once it let go.
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"alpha beta\n")
    edits = [{"old_text": "alpha", "new_text": "ALPHA"}, {"old_text": "beta", "new_text": "BETA"}]
    step = {"id": "m", "action": "multi_edit", "params": {"files": ["a.txt", "b.txt"], "edits": edits}}
    pipeline = ("batch_operations", {"pipeline_json": {"name": "cancelled", "steps": [step]}})
    await cancelled_with(contention, pipeline, root / "b.txt")
    assert (root / "a.txt").read_bytes() == b"alpha beta\n"
    assert (root / "b.txt").read_bytes() == b"alpha beta\n"


@pytest.mark.parametrize("first", [True, False])
async def test_a_pipeline_edit_step_cancelled_while_it_previews_a_held_file_stops_before_that_file_is_let_go(
    contention: Contention,
    root: Path,
    first: bool,
) -> None:
    # The preview of a.txt (or the step before, which edited c.txt) used up the cancellation check: the preview of
    # b.txt waited in flock, cancelled or not, until the other process let go, and the server's shutdown with it.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"alpha\n")
    foreign = foreign_lock(contention.user_lock_dir, root / "b.txt")
    before = {"id": "c", "action": "edit", "params": {"files": ["c.txt"], "old_text": "alpha", "new_text": "C"}}
    edit = {"id": "e", "action": "edit", "params": {"files": ["a.txt", "b.txt"], "old_text": "alpha", "new_text": "A"}}
    pipeline = ("batch_operations", {"pipeline_json": {"name": "p", "steps": [edit] if first else [before, edit]}})
    try:
        await leave_while_it_waits(contention, foreign, pipeline)
    finally:
        foreign.let_go()
    assert (root / "a.txt").read_bytes() == b"alpha\n"
    assert (root / "b.txt").read_bytes() == b"alpha\n"
    assert (root / "c.txt").read_bytes() == (b"alpha\n" if first else b"C\n")  # an earlier step's edit stays


async def test_a_pipeline_edit_step_cancelled_while_it_waits_to_edit_a_later_file_edits_no_more(
    contention: Contention,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its files are edited one after another, each under its own lock: the first edit used up the cancellation check,
    # so a step cancelled while another process held b.txt edited it (and c.txt) once it let go.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"alpha\n")
    later = foreign_lock(contention.user_lock_dir, root / "b.txt", later=True)
    run = Editor.run

    def previewed(self: Editor, user_path: str, planner: Planner, options: EditOptions) -> EditReport:
        report = run(self, user_path, planner, options)
        if options.dry_run and report.path == root / "c.txt":  # every file previewed: the other process comes in
            later.take()
        return report

    monkeypatch.setattr(Editor, "run", previewed)
    files = ["a.txt", "b.txt", "c.txt"]
    step = {"id": "e", "action": "edit", "params": {"files": files, "old_text": "alpha", "new_text": "A"}}
    pipeline = ("batch_operations", {"pipeline_json": {"name": "p", "steps": [step]}})
    server = build_server(contention.settings)
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(client, contention.mode, contention.lock_waits, later, pipeline, "b.txt")
    finally:
        later.let_go()
    assert [(root / name).read_bytes() for name in files] == [b"A\n", b"alpha\n", b"alpha\n"]


async def test_a_pipeline_copy_cancelled_while_it_waits_for_a_later_targets_lock_copies_no_more(
    contention: Contention,
    root: Path,
) -> None:
    # Each file is copied under its target's lock: the first target's lock used up the cancellation check, so a step
    # cancelled while another process held out/b.txt copied b.txt (and c.txt) once it let go.
    (root / "out").mkdir()
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(name.encode())
    files = ["a.txt", "b.txt", "c.txt"]
    step = {"id": "c", "action": "copy", "params": {"files": files, "destination": "out"}}
    pipeline = ("batch_operations", {"pipeline_json": {"name": "cancelled", "steps": [step]}})
    await cancelled_with(contention, pipeline, root / "out" / "b.txt")
    assert (root / "out" / "a.txt").read_bytes() == b"a.txt"  # copied before the cancellation: it stays, as a group
    assert sorted(path.name for path in (root / "out").iterdir()) == ["a.txt"]
    assert [(root / name).read_bytes() for name in files] == [name.encode() for name in files]


async def test_a_batch_rename_cancelled_while_it_waits_for_a_later_files_lock_renames_no_more(
    contention: Contention,
    root: Path,
) -> None:
    # Each rename takes its own files' locks: the first used up the cancellation check, so a set cancelled while
    # another process held b.txt renamed it (and c.txt) once it let go.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(name.encode())
    renames = ("batch_operations", {"rename_json": {"path": ".", "mode": "add_prefix", "prefix": "old_"}})
    await cancelled_with(contention, renames, root / "b.txt")
    # Renamed before the cancellation: it stays, restorable as the set's group.
    assert {path.name: path.read_bytes() for path in root.iterdir()} == {
        "old_a.txt": b"a.txt",
        "b.txt": b"b.txt",
        "c.txt": b"c.txt",
    }


async def test_a_server_runs_a_project_replace_to_the_end_after_one_was_cancelled(
    contention: Contention, root: Path
) -> None:
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"old\n")
    foreign = foreign_lock(contention.user_lock_dir, root / "b.txt")
    server = build_server(contention.settings)
    replace = ("project_replace", {"find": "old", "replace": "new"})
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(client, contention.mode, contention.lock_waits, foreign, replace, "b.txt")
                again = await client.call_tool(*replace)
                assert not again.is_error, again
                assert structured(again)["files_changed"] == 1
    finally:
        foreign.let_go()
    assert (root / "a.txt").read_bytes() == b"new\n"
    assert (root / "b.txt").read_bytes() == b"new\n"
