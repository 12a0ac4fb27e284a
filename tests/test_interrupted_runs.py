"""A batch or pipeline killed mid-run: the next server on its state directory ends it before it serves anything.

The kill is real: the run goes on in a child process that leaves with ``os._exit`` right after it has replaced a
chosen file (its rename done, its change not yet logged: the moment the probe's SIGKILL hit), or stops there and
waits, alive, until the test kills it. An atomic run is then rolled back file by file where a file holds exactly
what the run wrote, a file changed since is left and named; a non-atomic one's changes stay. Either way its group is
listed, marked interrupted, and the audit log has a line for it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from fsguard.config import Settings
from fsguard.core.batchplan import parse_request
from fsguard.core.runs import RUNS
from fsguard.services import Services
from tests.conftest import ClientFactory, structured, text_of

pytestmark = pytest.mark.anyio

OLD = "old\n" * 1000
NEW = "new\n" * 1000
NAMES = [f"f{k}.txt" for k in range(4)]

# The child: run a batch (argv[3]: its request as JSON), a pipeline ("pipeline:" + JSON) or a rename set ("rename:" +
# JSON) through the engine, and
# once the file named argv[4] has been put in place (renamed, or exchanged with the old file), leave at once ("exit")
# or say "replaced" and wait ("wait").
CHILD = textwrap.dedent(
    """
    import json, os, sys
    from pathlib import Path
    from fsguard.config import Settings
    from fsguard.core.batchplan import parse_request
    from fsguard.core.pipeline_request import parse_pipeline
    from fsguard.core.renaming import RenameRequest
    from fsguard.services import Services

    root, state, request, last, how = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
    from fsguard.core import setaside, transfer

    services = Services.create(Settings(roots=(root,), state_dir=state))
    real_rename, real_exchange, real_no_replace = os.rename, setaside.exchange, transfer.rename_no_replace

    name_at, _, nth = last.partition("#")  # "item#3": the third time a name "item" is put in place
    seen = []

    def landed(name):
        seen.append(name)
        if name == name_at and seen.count(name) == int(nth or 1):
            if how == "exit":
                os._exit(9)
            print("replaced", flush=True)
            sys.stdin.read()

    def rename(src, dst, **kwargs):
        real_rename(src, dst, **kwargs)
        landed(dst)

    def exchange(temp, entry):  # a file replaced is exchanged with its new bytes; the old ones lie at the temp's name
        swapped = real_exchange(temp, entry)
        if swapped:
            landed(entry.name)
        return swapped

    def rename_no_replace(source, target):  # a move's (and a rename set's) no-clobber rename
        real_no_replace(source, target)
        landed(target.name)

    os.rename, setaside.exchange = rename, exchange
    transfer.rename_no_replace = rename_no_replace
    if request.startswith("pipeline:"):
        services.pipelines.run(parse_pipeline(json.loads(request.removeprefix("pipeline:"))))
    elif request.startswith("rename:"):
        services.renamer.run(RenameRequest(**json.loads(request.removeprefix("rename:"))))
    else:
        services.batch.run(parse_request(json.loads(request)))
    """
)


def writes(root: Path, *, atomic: bool = True) -> str:
    return json.dumps(
        {"operations": [{"type": "write", "path": str(root / n), "content": NEW} for n in NAMES], "atomic": atomic}
    )


def killed(root: Path, state: Path, request: str, last: str) -> None:
    """Run ``request`` in a child that dies right after ``last`` was replaced."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(state), request, last, "exit"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )
    assert done.returncode == 9, done.stderr


@pytest.fixture
def project(root: Path) -> Path:
    for name in NAMES:
        (root / name).write_text(OLD, encoding="utf-8")
    return root


@pytest.fixture
def log_dir(tmp_path: Path) -> Path:
    return tmp_path / "log"


def contents(root: Path) -> list[str]:
    return [
        "new"
        if (root / n).read_text(encoding="utf-8") == NEW
        else "old"
        if (root / n).read_text(encoding="utf-8") == OLD
        else "other"
        for n in NAMES
    ]


def audit_lines(log_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (log_dir / "operations.jsonl").read_text(encoding="utf-8").splitlines()]


async def test_an_atomic_batch_killed_after_replacing_two_files_is_rolled_back_by_the_next_start_and_listed(
    project: Path, state_dir: Path, log_dir: Path, connect: ClientFactory
) -> None:
    killed(project, state_dir, writes(project), "f1.txt")
    assert contents(project) == ["new", "new", "old", "old"]  # half applied, f1's change never logged

    async with connect(log_dir=log_dir) as client:
        assert contents(project) == ["old"] * 4  # before the first call: the server ended the run as it started
        listed = structured(await client.call_tool("backup", {"action": "list"}))
        (group,) = listed["groups"]
        assert group["interrupted"] == "rolled_back"
        assert group["operation"] == "batch_operations"
        assert group["files"] == [str(project / "f0.txt"), str(project / "f1.txt")]
        assert "(interrupted, rolled back)" in text_of(await client.call_tool("backup", {"action": "list"}))
        info = await client.call_tool("backup", {"action": "info", "backup_id": group["group_id"]})
        assert structured(info)["group"]["rolled_back"] == group["files"]
        assert structured(info)["group"]["changes"] == []
        assert "the next start rolled it back" in text_of(info)
        # Each file's undo chain reads as if the batch never ran.
        undo = await client.call_tool("backup", {"action": "undo_last", "file_path": str(project / "f0.txt")})
        assert undo.is_error
        assert "Nothing to undo" in text_of(undo)
    (line,) = [e for e in audit_lines(log_dir) if e["tool"] == "batch_operations"]
    assert line["error_code"] == "interrupted"
    assert line["backup_id"] == group["group_id"]
    assert line["via"] == "restart"
    assert not list((state_dir / RUNS).iterdir())


async def test_a_file_changed_after_the_kill_is_left_and_named_while_the_others_are_rolled_back(
    project: Path, state_dir: Path, connect: ClientFactory
) -> None:
    killed(project, state_dir, writes(project), "f2.txt")
    (project / "f1.txt").write_text("edited by hand\n", encoding="utf-8")

    async with connect() as client:
        assert [(project / n).read_text(encoding="utf-8") for n in NAMES] == [OLD, "edited by hand\n", OLD, OLD]
        (group,) = structured(await client.call_tool("backup", {"action": "list"}))["groups"]
        info = await client.call_tool("backup", {"action": "info", "backup_id": group["group_id"]})
    shown = structured(info)["group"]
    assert shown["interrupted"] == "rolled_back"
    assert shown["rolled_back"] == [str(project / "f0.txt"), str(project / "f2.txt")]
    assert [(c["kind"], c["path"]) for c in shown["changes"]] == [("modified", str(project / "f1.txt"))]
    assert "left as they are: their files changed since" in text_of(info)


async def test_the_compact_info_of_a_rolled_back_group_names_the_change_it_left_as_verbose_does(
    project: Path, state_dir: Path, connect: ClientFactory
) -> None:
    killed(project, state_dir, writes(project), "f2.txt")
    (project / "f0.txt").write_text("edited by hand\n", encoding="utf-8")

    texts = []
    for compact in (False, True):
        async with connect(compact_mode=compact) as client:
            (group,) = structured(await client.call_tool("backup", {"action": "list"}))["groups"]
            texts.append(text_of(await client.call_tool("backup", {"action": "info", "backup_id": group["group_id"]})))
    for text in texts:  # "the changes listed" are listed: compact named none of them
        assert "The changes listed were left as they are: their files changed since." in text
        assert text.endswith("\nmodified f0.txt")
    assert (project / "f0.txt").read_text(encoding="utf-8") == "edited by hand\n"
    assert contents(project)[1:] == ["old", "old", "old"]


async def test_a_non_atomic_batch_killed_mid_run_keeps_its_changes_in_a_group_whose_restore_undoes_them(
    project: Path, state_dir: Path, connect: ClientFactory
) -> None:
    killed(project, state_dir, writes(project, atomic=False), "f1.txt")

    async with connect() as client:
        assert contents(project) == ["new", "new", "old", "old"]  # no automatic rollback
        (group,) = structured(await client.call_tool("backup", {"action": "list"}))["groups"]
        assert group["interrupted"] == "kept"
        assert group["files"] == [str(project / "f0.txt"), str(project / "f1.txt")]
        restored = await client.call_tool("backup", {"action": "restore", "backup_id": group["group_id"]})
        assert not restored.is_error, text_of(restored)
    assert contents(project) == ["old"] * 4


def test_a_pipeline_killed_mid_run_is_rolled_back_as_its_stop_on_error_promises(project: Path, state_dir: Path) -> None:
    steps = [{"action": "edit", "files": [str(project / n)], "old_text": OLD, "new_text": NEW} for n in NAMES]
    killed(project, state_dir, "pipeline:" + json.dumps({"name": "four", "steps": steps}), "f2.txt")
    assert contents(project) == ["new", "new", "new", "old"]

    services = Services.create(Settings(roots=(project,), state_dir=state_dir))
    assert contents(project) == ["old"] * 4
    (group,) = services.groups.groups()
    assert (group.interrupted, group.operation.startswith("pipeline:")) == ("rolled_back", True)


def test_an_atomic_batch_killed_right_after_a_move_before_logging_it_is_rolled_back_whole(
    project: Path, state_dir: Path
) -> None:
    operations = [
        {"type": "write", "path": str(project / "f0.txt"), "content": NEW},
        {"type": "write", "path": str(project / "f1.txt"), "content": NEW},
        {"type": "move", "source": str(project / "f1.txt"), "destination": str(project / "g1.txt")},
    ]
    killed(project, state_dir, json.dumps({"operations": operations}), "g1.txt")
    assert (project / "g1.txt").read_text(encoding="utf-8") == NEW  # moved, its change never logged

    services = Services.create(Settings(roots=(project,), state_dir=state_dir))
    assert contents(project) == ["old"] * 4  # the move taken back, then f1's write: nothing "changed meanwhile"
    assert not (project / "g1.txt").exists()
    (group,) = services.groups.groups()
    assert (group.interrupted, group.changes) == ("rolled_back", ())


def test_a_rename_set_killed_half_way_is_moved_back_whole_by_the_next_start(project: Path, state_dir: Path) -> None:
    rename = {"path": str(project), "mode": "add_prefix", "prefix": "new_"}
    killed(project, state_dir, "rename:" + json.dumps(rename), "new_f2.txt")
    assert sorted(p.name for p in project.iterdir()) == ["f3.txt", "new_f0.txt", "new_f1.txt", "new_f2.txt"]

    services = Services.create(Settings(roots=(project,), state_dir=state_dir))
    assert sorted(p.name for p in project.iterdir()) == NAMES  # every name as before, none left half renamed
    assert contents(project) == ["old"] * 4
    (group,) = services.groups.groups()
    assert (group.interrupted, group.operation, group.changes) == ("rolled_back", "batch_rename", ())
    assert group.rolled_back == tuple(str(project / f"new_f{k}.txt") for k in range(3))


def test_a_pipeline_killed_inside_a_rename_step_puts_back_its_files_and_removes_the_directory_it_made(
    project: Path, state_dir: Path
) -> None:
    step = {"action": "rename", "files": [str(project / n) for n in NAMES], "destination": str(project / "moved")}
    killed(project, state_dir, "pipeline:" + json.dumps({"name": "away", "steps": [step]}), "f2.txt")
    assert sorted(p.name for p in (project / "moved").iterdir()) == ["f0.txt", "f1.txt", "f2.txt"]  # none logged

    services = Services.create(Settings(roots=(project,), state_dir=state_dir))
    assert sorted(p.name for p in project.iterdir()) == NAMES  # no empty "moved" left behind either
    assert contents(project) == ["old"] * 4
    (group,) = services.groups.groups()
    assert (group.interrupted, group.changes) == ("rolled_back", ())


def test_a_pipeline_killed_inside_a_delete_step_brings_back_every_file_it_had_trashed(
    project: Path, state_dir: Path
) -> None:
    step = {"action": "delete", "files": [str(project / n) for n in NAMES]}
    killed(project, state_dir, "pipeline:" + json.dumps({"name": "drop", "steps": [step]}), "item#3")  # in the trash
    assert sorted(p.name for p in project.iterdir()) == ["f3.txt"]  # three trashed, the step's changes unlogged

    services = Services.create(Settings(roots=(project,), state_dir=state_dir))
    assert sorted(p.name for p in project.iterdir()) == NAMES  # it said "0 backups": three files were gone
    assert contents(project) == ["old"] * 4
    (group,) = services.groups.groups()
    assert (group.interrupted, group.changes) == ("rolled_back", ())


@pytest.fixture
def paused(project: Path, state_dir: Path) -> Iterator[subprocess.Popen[str]]:
    """A batch alive in another process, stopped just after it replaced f1.txt."""
    with subprocess.Popen(
        [sys.executable, "-c", CHILD, str(project), str(state_dir), writes(project), "f1.txt", "wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    ) as child:
        assert child.stdout is not None
        assert child.stdout.readline() == "replaced\n"
        yield child
        if child.poll() is None:
            child.kill()


def test_a_batch_still_running_in_another_process_is_left_alone_and_rolled_back_once_that_process_is_killed(
    project: Path, state_dir: Path, paused: subprocess.Popen[str]
) -> None:
    Services.create(Settings(roots=(project,), state_dir=state_dir))  # another server starts meanwhile
    assert contents(project) == ["new", "new", "old", "old"]
    assert len(list((state_dir / RUNS).iterdir())) == 1

    os.kill(paused.pid, signal.SIGKILL)
    paused.wait(timeout=60)
    services = Services.create(Settings(roots=(project,), state_dir=state_dir))
    assert contents(project) == ["old"] * 4
    assert [g.interrupted for g in services.groups.groups()] == ["rolled_back"]


def test_a_run_whose_files_lie_outside_the_roots_is_left_for_a_server_that_serves_them(
    project: Path, state_dir: Path, tmp_path: Path
) -> None:
    killed(project, state_dir, writes(project), "f1.txt")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    Services.create(Settings(roots=(elsewhere,), state_dir=state_dir))
    assert contents(project) == ["new", "new", "old", "old"]

    Services.create(Settings(roots=(project,), state_dir=state_dir))
    assert contents(project) == ["old"] * 4


def test_a_finished_batch_leaves_no_run_record(project: Path, state_dir: Path) -> None:
    services = Services.create(Settings(roots=(project,), state_dir=state_dir))
    report = services.batch.run(parse_request(json.loads(writes(project))))
    assert report.status == "applied"
    assert contents(project) == ["new"] * 4
    assert not list((state_dir / RUNS).iterdir())
    assert [g.interrupted for g in services.groups.groups()] == [None]


async def test_a_pre_hook_refusing_the_agent_undo_does_not_stop_the_next_start_rolling_a_killed_batch_back(
    project: Path, state_dir: Path, tmp_path: Path, connect: ClientFactory
) -> None:
    # The rollback at start fired pre-write as backup/undo_last: this hook kept f0 and f1 as the kill left them.
    refuse = [{"type": "command", "command": "echo 'no undo allowed' >&2; exit 2"}]
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": {"pre-write": [{"pattern": "backup", "hooks": refuse}]}}), encoding="utf-8")
    killed(project, state_dir, writes(project), "f1.txt")

    async with connect(hooks_config=config):
        assert [(project / n).read_text(encoding="utf-8") for n in NAMES] == [OLD] * 4
