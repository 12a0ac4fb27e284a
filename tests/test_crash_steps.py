"""An edit's durable steps: exactly three fsyncs, and a kill -9 before any step leaves the file old or new with a
working undo.

The edit sequence is: append the backup and its chain link to the file's journal (one write), fsync the journal,
record the temp file's name (so a crash leaves no stray), write the temp file, fsync it, rename it over the file,
fsync the directory. The crash test runs the engine in a
child process that SIGKILLs itself just before step N (a patched ``os`` function counting the calls), then checks
what the disk holds from the parent, and undoes with a fresh engine as the next server would.
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
from fsguard.services import Services
from tests.conftest import ClientFactory, structured

OLD = b"alpha\nbeta\ngamma\n"
NEW = b"alpha\nBETA\ngamma\n"
STEPS = ["journal write", "journal fsync", "temp name record", "temp write", "temp fsync", "rename", "directory fsync"]

# The child: run one write through the engine, dying by SIGKILL just before the call numbered ``kill_at``
# among the calls of the sequence above (a number past the last lets it finish).
CHILD = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from fsguard.config import Settings
    from fsguard.services import Services

    root, state, kill_at = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    services = Services.create(Settings(roots=(root,), state_dir=state))
    calls = [0]

    def counted(real):
        def call(*args, **kwargs):
            calls[0] += 1
            if calls[0] == kill_at:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(*args, **kwargs)
        return call

    for name in ("writev", "fsync", "rename"):
        setattr(os, name, counted(getattr(os, name)))
    real_write = os.write
    os.write = lambda fd, data: (counted(real_write)(fd, data) if fd > 2 else real_write(fd, data))
    services.writer.write(str(root / "f.txt"), sys.argv[4])
    """
)


def run_child(root: Path, state: Path, kill_at: int) -> int:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(state), str(kill_at), NEW.decode()],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done.returncode


@pytest.mark.parametrize("kill_at", range(1, len(STEPS) + 2), ids=[*STEPS, "none"])
def test_a_kill_before_any_step_of_an_edit_leaves_the_file_old_or_new_and_undo_restores_the_old_bytes(
    tmp_path: Path, kill_at: int
) -> None:
    root, state = tmp_path / "root", tmp_path / "state"
    root.mkdir()
    (root / "f.txt").write_bytes(OLD)
    code = run_child(root, state, kill_at)
    assert (code == 0) == (kill_at > len(STEPS))
    on_disk = (root / "f.txt").read_bytes()
    assert on_disk == (NEW if kill_at > STEPS.index("rename") + 1 else OLD)

    services = Services.create(Settings(roots=(root,), state_dir=state))  # the next server, on what was left
    assert not [p.name for p in root.iterdir() if p.name != "f.txt"]  # no temp file survives its start-up
    try:
        report = services.restorer.undo_last(str(root / "f.txt"))
    except NothingToUndoError:
        assert kill_at == 1  # killed before the backup was written: nothing happened at all
    else:
        assert report.already_there == (on_disk == OLD)  # the edit never reached the file: the chain steps back
    assert (root / "f.txt").read_bytes() == OLD
    # The chain is whole: the next edit and its undo work as on a store no crash ever touched.
    services.writer.write(str(root / "f.txt"), NEW.decode())
    services.restorer.undo_last(str(root / "f.txt"))
    assert (root / "f.txt").read_bytes() == OLD
    with pytest.raises(NothingToUndoError):
        services.restorer.undo_last(str(root / "f.txt"))


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
