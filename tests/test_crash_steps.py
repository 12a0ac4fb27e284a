"""An edit's durable steps: exactly three fsyncs, and a kill -9 at any step leaves the file old or new with a
working undo.

The edit sequence: record the temp file's name (so a crash leaves no stray); then, on two threads at once, append
the backup and its chain link to the file's journal (one write) and fsync it, and write the temp file and fsync
it; then rename the temp over the file and fsync the directory. The crash test runs the engine in a child process
that SIGKILLs itself just before its Nth call of those (a patched ``os`` function counting the calls of both
threads). As the threads interleave, call N is not always the same step: the child reports each step it finished,
and the parent checks the disk against that report, then undoes with a fresh engine as the next server would.
A project_replace killed before any of its renames leaves the files before it new, the rest old, each undoable;
an undo killed at any step leaves the file edited or restored, and the next undo_last finishes it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.config import Settings
from fsguard.core.errors import NothingToUndoError
from fsguard.core.replacing import ReplaceRequest
from fsguard.services import Services
from tests.conftest import ClientFactory, structured

OLD = b"alpha\nbeta\ngamma\n"
NEW = b"alpha\nBETA\ngamma\n"
STEPS = ["temp name record", "journal write", "journal fsync", "temp write", "temp fsync", "rename", "directory fsync"]

# The child: run one write through the engine, dying by SIGKILL just before the call numbered ``kill_at`` among
# the calls of the steps above (a number past the last lets it finish). Each step it finishes is written to
# stderr as "done <step>", the step named after the file its descriptor is open on. With "hold", the temp's
# fsync starts only once the journal's has finished: the last step before the rename is then the other thread's.
CHILD = textwrap.dedent(
    """
    import itertools, os, signal, sys, threading
    from pathlib import Path
    from fsguard.config import Settings
    from fsguard.core import setaside
    from fsguard.services import Services

    root, state, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    services = Services.create(Settings(roots=(root,), state_dir=state))
    calls = itertools.count(1)  # next() is atomic: the two threads never draw the same number
    real_write = os.write
    journal_synced = threading.Event()
    hold = sys.argv[5] == "hold"

    def step(name, fd):
        if name == "rename":
            return "rename"
        target = os.readlink(f"/proc/self/fd/{fd}")
        kind = "journal" if "/journal/" in target else "temp" if ".fsguard-tmp-" in target else None
        if name == "fsync":
            return f"{kind or 'directory'} fsync"
        return "temp name record" if "/inflight/" in target else f"{kind} write"

    def counted(name, real):
        def call(*args, **kwargs):
            done = step(name, args[0])
            if hold and done == "temp fsync":
                journal_synced.wait(timeout=30)
            if next(calls) == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            result = real(*args, **kwargs)
            real_write(2, f"done {done}\\n".encode())
            if done == "journal fsync":
                journal_synced.set()
            return result
        return call

    for name in ("writev", "fsync", "rename"):
        setattr(os, name, counted(name, getattr(os, name)))
    setaside.exchange = counted("rename", setaside.exchange)  # the rename over an existing file is an exchange
    write = counted("write", real_write)
    os.write = lambda fd, data: write(fd, data) if fd > 2 else real_write(fd, data)
    if sys.argv[6] == "undo":
        services.restorer.undo_last(str(root / "f.txt"))
    else:
        services.writer.write(str(root / "f.txt"), sys.argv[4])
    """
)


def run_child(
    root: Path, state: Path, kill_at: int, *, hold: bool = False, action: str = "write"
) -> tuple[int, list[str]]:
    """The child's exit code and the steps it finished, in order (``action``: write NEW, or undo_last)."""
    hold_arg = "hold" if hold else "-"
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(state), str(kill_at), NEW.decode(), hold_arg, action],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode, [line[5:] for line in done.stderr.splitlines() if line.startswith("done ")]


@pytest.mark.parametrize(
    "kill_at", range(1, len(STEPS) + 2), ids=[*(f"call {n}" for n in range(1, len(STEPS) + 1)), "none"]
)
def test_a_kill_at_any_step_of_an_edit_leaves_the_file_old_or_new_and_undo_restores_the_old_bytes(
    tmp_path: Path, kill_at: int
) -> None:
    root, state = tmp_path / "root", tmp_path / "state"
    root.mkdir()
    (root / "f.txt").write_bytes(OLD)
    code, done = run_child(root, state, kill_at)
    assert (code == 0) == (kill_at > len(STEPS))
    assert len(done) == min(kill_at - 1, len(STEPS)) or 0 < kill_at - 1 - len(done) <= 1  # one may be mid-call
    on_disk = (root / "f.txt").read_bytes()
    assert on_disk == (NEW if "rename" in done else OLD)
    if "rename" in done:  # the file is replaced only once its backup and the new bytes are durable
        assert {"journal fsync", "temp fsync"} <= set(done[: done.index("rename")])

    services = Services.create(Settings(roots=(root,), state_dir=state))  # the next server, on what was left
    assert not [p.name for p in root.iterdir() if p.name != "f.txt"]  # no temp file survives its start-up
    try:
        report = services.restorer.undo_last(str(root / "f.txt"))
    except NothingToUndoError:
        assert "journal write" not in done  # killed before the backup was written: the edit never happened
    else:
        assert report.already_there == (on_disk == OLD)  # the edit never reached the file: the chain steps back
    assert (root / "f.txt").read_bytes() == OLD
    # The chain is whole: the next edit and its undo work as on a store no crash ever touched.
    services.writer.write(str(root / "f.txt"), NEW.decode())
    services.restorer.undo_last(str(root / "f.txt"))
    assert (root / "f.txt").read_bytes() == OLD
    with pytest.raises(NothingToUndoError):
        services.restorer.undo_last(str(root / "f.txt"))


# An undo: its safety backup of the bytes it replaces (journal write and fsync), the temp, the rename, the directory
# fsync, then the step back of the chain (one more journal write, not fsynced).
UNDO_STEPS = len(STEPS) + 1


@pytest.mark.parametrize(
    "kill_at", range(1, UNDO_STEPS + 2), ids=[*(f"call {n}" for n in range(1, UNDO_STEPS + 1)), "none"]
)
def test_a_kill_at_any_step_of_an_undo_leaves_the_file_edited_or_restored_and_the_chain_steps_back_once(
    tmp_path: Path, kill_at: int
) -> None:
    root, state = tmp_path / "root", tmp_path / "state"
    root.mkdir()
    (root / "f.txt").write_bytes(OLD)
    Services.create(Settings(roots=(root,), state_dir=state)).writer.write(str(root / "f.txt"), NEW.decode())
    code, done = run_child(root, state, kill_at, action="undo")
    assert (code == 0) == (kill_at > UNDO_STEPS)
    on_disk = (root / "f.txt").read_bytes()
    assert on_disk == (OLD if "rename" in done else NEW)

    services = Services.create(Settings(roots=(root,), state_dir=state))  # the next server, on what was left
    assert not [p.name for p in root.iterdir() if p.name != "f.txt"]
    try:
        report = services.restorer.undo_last(str(root / "f.txt"))
    except NothingToUndoError:
        assert code == 0  # only a finished undo has stepped the chain back
    else:  # the undo did not finish: this one does it, writing only if the file was not restored yet
        assert report.already_there == (on_disk == OLD)
    assert (root / "f.txt").read_bytes() == OLD
    with pytest.raises(NothingToUndoError):
        services.restorer.undo_last(str(root / "f.txt"))
    services.writer.write(str(root / "f.txt"), NEW.decode())  # and the chain goes on as if nothing happened
    services.restorer.undo_last(str(root / "f.txt"))
    assert (root / "f.txt").read_bytes() == OLD


def test_an_edit_s_steps_are_the_seven_counted_and_the_rename_waits_for_both_fsyncs(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    (root / "f.txt").write_bytes(OLD)
    code, done = run_child(root, tmp_path / "state", len(STEPS) + 1, hold=True)
    assert code == 0
    assert sorted(done) == sorted(STEPS)
    assert done.index("journal fsync") < done.index("temp fsync")  # held: the new bytes are the last made durable
    assert done[0] == "temp name record"
    assert done.index("journal write") < done.index("journal fsync") < done.index("rename")
    assert done.index("temp write") < done.index("temp fsync") < done.index("rename")
    assert done[-2:] == ["rename", "directory fsync"]


@pytest.fixture
def fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every fsync from now on, by file descriptor."""
    calls: list[int] = []
    real = os.fsync

    def fsync(fd: Any) -> None:
        calls.append(fd)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return calls


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "f.txt", "old_text": "beta", "new_text": "BETA"}),
        ("write_file", {"path": "f.txt", "content": NEW.decode()}),
        ("multi_edit", {"path": "f.txt", "edits": [{"old_text": "beta", "new_text": "BETA"}]}),
    ],
)
async def test_an_edit_with_its_backup_costs_exactly_three_fsyncs(
    connect: ClientFactory, root: Path, fsyncs: list[int], tool: str, arguments: dict[str, Any]
) -> None:
    (root / "f.txt").write_bytes(OLD)
    async with connect() as client:
        fsyncs.clear()  # the server's start-up is not the edit's
        result = await client.call_tool(tool, arguments)
        assert structured(result)["backup_id"]
        assert len(fsyncs) == 3, fsyncs  # journal (backup + chain link), new file, its directory
        fsyncs.clear()
        await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
        assert len(fsyncs) == 3
    assert (root / "f.txt").read_bytes() == OLD


@pytest.mark.anyio
async def test_creating_a_file_costs_two_fsyncs(client: Client, root: Path, fsyncs: list[int]) -> None:
    fsyncs.clear()
    await client.call_tool("write_file", {"path": "new.txt", "content": "n\n"})
    assert len(fsyncs) == 2  # nothing to back up: the new file and its directory
    assert (root / "new.txt").read_bytes() == b"n\n"


@pytest.mark.anyio
async def test_project_replace_fsyncs_each_directory_once_not_once_per_file(
    client: Client, root: Path, fsyncs: list[int]
) -> None:
    names = ["a/1.txt", "a/2.txt", "a/3.txt", "b/4.txt", "b/5.txt"]
    for name in names:
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(f"{name}: OldName here\n", encoding="utf-8")
    fsyncs.clear()
    result = await client.call_tool("project_replace", {"find": "OldName", "replace": "NewName", "force": True})
    assert structured(result)["files_changed"] == 5
    # Per file its journal (backup + chain link) and its new bytes; per directory one fsync; then the change
    # group's record and its directory: 5 + 5 + 2 + 2 (once per file, the directories alone would be 5).
    assert len(fsyncs) == 14
    for name in names:
        assert (root / name).read_text(encoding="utf-8") == f"{name}: NewName here\n"


FILES = ["a/1.txt", "a/2.txt", "b/3.txt", "b/4.txt"]

# The child: one project_replace over FILES, dying by SIGKILL just before its rename numbered ``kill_at`` (one per
# file, in path order, then the change group's record); each rename it finished is written to stderr.
REPLACE_CHILD = textwrap.dedent(
    """
    import itertools, os, signal, sys
    from pathlib import Path
    from fsguard.config import Settings
    from fsguard.core import setaside
    from fsguard.core.replacing import ReplaceRequest
    from fsguard.services import Services

    root, state, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    services = Services.create(Settings(roots=(root,), state_dir=state))
    calls = itertools.count(1)

    def counted(real):
        def rename(*args, **kwargs):
            if next(calls) == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            done = real(*args, **kwargs)
            os.write(2, b"renamed\\n")
            return done
        return rename

    os.rename = counted(os.rename)
    setaside.exchange = counted(setaside.exchange)  # the rename over an existing file is an exchange
    services.replacer.run(ReplaceRequest(path=str(root), find="beta", replace="BETA", force=True))
    """
)


@pytest.mark.parametrize("kill_at", range(1, len(FILES) + 3), ids=[*(f"rename {n}" for n in range(1, 6)), "none"])
def test_a_kill_during_a_project_replace_leaves_each_file_old_or_new_in_path_order_and_each_undoable(
    tmp_path: Path, kill_at: int
) -> None:
    root, state = tmp_path / "root", tmp_path / "state"
    for name in FILES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(OLD)
    done = subprocess.run(
        [sys.executable, "-c", REPLACE_CHILD, str(root), str(state), str(kill_at)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode == (0 if kill_at > len(FILES) + 1 else -signal.SIGKILL), done.stderr
    renamed = min(done.stderr.count("renamed\n"), len(FILES))
    assert [(root / name).read_bytes() for name in FILES] == [NEW] * renamed + [OLD] * (len(FILES) - renamed)

    services = Services.create(Settings(roots=(root,), state_dir=state))  # the next server, on what was left
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()) == FILES  # no temp left
    for name in FILES:
        try:
            report = services.restorer.undo_last(str(root / name))
        except NothingToUndoError:
            assert name not in FILES[:renamed]
        else:
            assert report.already_there == (name not in FILES[:renamed])
    assert [(root / name).read_bytes() for name in FILES] == [OLD] * len(FILES)
    # The stores are whole: a replace run again changes every file, and its group takes them all back.
    again = services.replacer.run(ReplaceRequest(path=str(root), find="beta", replace="BETA", force=True))
    assert [(root / name).read_bytes() for name in FILES] == [NEW] * len(FILES)
    assert again.group_id is not None
    services.reverter.restore(services.groups.get(again.group_id), services.groups)
    assert [(root / name).read_bytes() for name in FILES] == [OLD] * len(FILES)
