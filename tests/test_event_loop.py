"""Where calls run: quick reads and a stdio server's edits on the event loop (no worker-thread hand-off; only an
edit's temp file is written by a filler thread, while the call backs up); an HTTP server's edits on worker
threads, so a write waiting on the disk never holds up another client's call."""

from __future__ import annotations

import dataclasses
import fcntl
import functools
import hashlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from fsguard.config import Settings, Transport
from fsguard.core.batch import BatchRunner
from fsguard.server import build_server
from tests.conftest import Contention, structured
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio
WAIT_S = 30


@pytest.fixture
def fsync_threads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    real = os.fsync

    def fsync(fd: Any) -> None:
        names.append(threading.current_thread().name)
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return names


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_stdio_server_edits_on_its_event_loop_and_an_http_server_on_worker_threads(
    base_settings: Settings, root: Path, mode: str, transport: Transport, fsync_threads: list[str]
) -> None:
    (root / "f.txt").write_text("old\n", encoding="utf-8")
    server = build_server(dataclasses.replace(base_settings, transport=transport))
    async with Client(server, mode=mode) as client:
        loop_thread = threading.current_thread().name
        fsync_threads.clear()
        await client.call_tool("edit_file", {"path": "f.txt", "old_text": "old", "new_text": "new"})
    assert (root / "f.txt").read_text(encoding="utf-8") == "new\n"
    assert len(fsync_threads) == 3
    # The temp file is written and fsynced by a filler thread while the call's own thread backs up.
    fillers = [name for name in fsync_threads if name.startswith("fsguard-fill")]
    callers = [name for name in fsync_threads if not name.startswith("fsguard-fill")]
    assert len(fillers) == 1
    assert {name == loop_thread for name in callers} == {transport == "stdio"}


@pytest.mark.parametrize(("event", "on_the_loop"), [("pre-delete", True), ("pre-edit", False)])
async def test_a_stdio_edit_leaves_the_loop_only_for_hooks_it_may_fire(
    base_settings: Settings,
    root: Path,
    tmp_path: Path,
    mode: str,
    fsync_threads: list[str],
    event: str,
    on_the_loop: bool,
) -> None:
    # A hook may run for seconds, and on the loop the server reads nothing meanwhile; but a hooks file for deletes
    # only sent every read and edit to a worker thread (0.5 ms more a call).
    config = tmp_path / "hooks.json"
    hook = {"pattern": "*", "hooks": [{"type": "command", "command": "exit 0"}]}
    config.write_text(json.dumps({"hooks": {event: [hook]}}), encoding="utf-8")
    (root / "f.txt").write_text("old\n", encoding="utf-8")
    server = build_server(dataclasses.replace(base_settings, transport="stdio", hooks_config=config))
    async with Client(server, mode=mode) as client:
        loop_thread = threading.current_thread().name
        fsync_threads.clear()
        await client.call_tool("edit_file", {"path": "f.txt", "old_text": "old", "new_text": "new"})
    assert (root / "f.txt").read_text(encoding="utf-8") == "new\n"
    callers = [name for name in fsync_threads if not name.startswith("fsguard-fill")]
    assert {name == loop_thread for name in callers} == {on_the_loop}


async def test_a_write_paused_on_the_disk_does_not_hold_up_another_clients_read_over_http(
    base_settings: Settings, root: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "slow.txt").write_text("old\n", encoding="utf-8")
    (root / "other.txt").write_text("other\n", encoding="utf-8")
    paused, go = threading.Event(), threading.Event()
    real = os.fsync

    def slow_fsync(fd: Any) -> None:
        if not paused.is_set():
            paused.set()
            go.wait(timeout=WAIT_S)  # the disk takes its time
        real(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    server = build_server(dataclasses.replace(base_settings, transport="http"))
    written: list[Any] = []

    async def write(peer: Client) -> None:
        written.append(await peer.call_tool("write_file", {"path": "slow.txt", "content": "new\n"}))

    with anyio.fail_after(WAIT_S):
        async with (
            Client(server, mode=mode) as writer,
            Client(server, mode=mode) as reader,
            anyio.create_task_group() as group,
        ):
            group.start_soon(write, writer)
            try:
                assert await anyio.to_thread.run_sync(paused.wait, WAIT_S)
                read = await reader.call_tool("read_file", {"path": "other.txt"})
                assert structured(read)["content"] == "other\n"
                assert not written  # the write is still waiting on the disk: the read went past it
            finally:
                go.set()
    assert not written[0].is_error
    assert (root / "slow.txt").read_text(encoding="utf-8") == "new\n"


# The child: a stdio-configured server and a client in one process. copy_file of a directory runs on a worker thread
# and reports progress through the event loop while it holds the destination's lock; write_file into that
# destination runs on the loop when it finds no lock taken. The seams start the copy's locking right after that
# look and give it a second to take its lock before the write goes on (threads hit this interleaving now and
# then): taken, the write waited on the loop for the copy's lock, and the copy for the loop to send its progress.
# Exit 0 when both calls answered.
DEADLOCK_CHILD = """
import sys, threading
from pathlib import Path
import anyio
from mcp import Client
from fsguard.config import Settings
from fsguard.core import moving, writing
from fsguard.server import build_server

root, mode = Path(sys.argv[1]), sys.argv[2]
started, looked, locked = threading.Event(), threading.Event(), threading.Event()
real_copy, real_copy_new, real_write = moving.Mover.copy, moving.copy_new, writing.FileWriter.write

def copy(self, *args, **kwargs):
    started.set()
    looked.wait(10)  # the write is running on the loop
    return real_copy(self, *args, **kwargs)

def copy_new(*args, **kwargs):
    locked.set()  # the destination's lock is held
    return real_copy_new(*args, **kwargs)

def write(self, *args, **kwargs):
    if threading.current_thread() is threading.main_thread():  # on the loop
        looked.set()
        locked.wait(1)
    return real_write(self, *args, **kwargs)

moving.Mover.copy, moving.copy_new, writing.FileWriter.write = copy, copy_new, write

async def main():
    copied = []
    async with Client(build_server(Settings(roots=(root,), state_dir=root.parent / "state")), mode=mode) as client:
        async def copy_call():
            copied.append(await client.call_tool("copy_file", {"source_path": "src", "dest_path": "dst"}))

        async with anyio.create_task_group() as group:
            group.start_soon(copy_call)
            await anyio.to_thread.run_sync(started.wait, 10)
            written = await client.call_tool("write_file", {"path": "dst/new.txt", "content": "n"})
            assert not written.is_error, written
    # Either order is right: the copy first, or the write first and then the copy refused (dst exists).
    refused = copied[0].is_error and "already_exists" in str(copied[0].meta)
    print("refused" if refused else "copied" if not copied[0].is_error else copied[0])

anyio.run(main)
"""


def test_an_edit_on_the_loop_never_waits_for_a_lock_held_by_a_call_that_reports_progress_through_the_loop(
    tmp_path: Path, mode: str
) -> None:
    root = tmp_path / "root"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.txt").write_text("a\n", encoding="utf-8")
    try:
        done = subprocess.run(
            [sys.executable, "-c", DEADLOCK_CHILD, str(root), mode],
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=WAIT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail("copy_file and write_file into its destination waited on each other for good (a deadlock)")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("copied", "refused"), done.stdout
    assert (root / "dst" / "a.txt").exists() == (done.stdout.strip() == "copied")
    assert (root / "dst" / "new.txt").read_text(encoding="utf-8") == "n"


class ForeignLock:
    """A lock file held as another fsguard (with another state dir) holds it while it edits (from :meth:`take`, at
    once unless ``later``); let go once, by whichever comes first."""

    def __init__(self, path: Path, *, later: bool = False) -> None:
        self._path = path
        self._fd = -1
        self._guard = threading.Lock()
        if not later:
            self.take()

    def take(self) -> None:
        with self._guard:
            if self._fd < 0:
                fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX)
                self._fd = fd

    def let_go(self) -> None:
        with self._guard:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1


def foreign_lock(user_lock_dir: Path, path: Path, *, later: bool = False) -> ForeignLock:
    """The lock another fsguard holds on ``path`` while it changes it (from its ``take``, with ``later``)."""
    return ForeignLock(user_lock_dir / (hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".lock"), later=later)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "f.txt", "old_text": "old", "new_text": "new"}),
        ("write_file", {"path": "f.txt", "content": "new\n"}),
    ],
)
async def test_a_stdio_server_whose_edit_waits_for_another_processes_lock_answers_other_calls_meanwhile(
    base_settings: Settings, root: Path, mode: str, user_lock_dir: Path, tool: str, arguments: dict[str, str]
) -> None:
    (root / "f.txt").write_text("old\n", encoding="utf-8")
    (root / "other.txt").write_text("other\n", encoding="utf-8")
    foreign = foreign_lock(user_lock_dir, root / "f.txt")
    # Had the edit waited on the event loop, nothing below would run until this lets go: the test then fails (the
    # read answered after the edit) instead of hanging.
    backstop = threading.Timer(WAIT_S / 3, foreign.let_go)
    backstop.start()
    server = build_server(dataclasses.replace(base_settings, transport="stdio"))
    edited: list[Any] = []
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=mode) as client, anyio.create_task_group() as group:

                async def edit() -> None:
                    edited.append(await client.call_tool(tool, arguments))

                group.start_soon(edit)
                read = await client.call_tool("read_file", {"path": "other.txt"})
                assert structured(read)["content"] == "other\n"
                assert not edited  # the edit still waits for the other process, off the loop
                assert (root / "f.txt").read_text(encoding="utf-8") == "old\n"
                foreign.let_go()  # the other process is done
    finally:
        backstop.cancel()
        foreign.let_go()
    assert not edited[0].is_error
    assert (root / "f.txt").read_text(encoding="utf-8") == "new\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "f.txt", "old_text": "old", "new_text": "new"}),
        ("write_file", {"path": "f.txt", "content": "new\n"}),
    ],
)
async def test_a_call_cancelled_while_it_waits_for_another_processes_lock_changes_nothing_once_the_lock_frees(
    contention: Contention,
    root: Path,
    tool: str,
    arguments: dict[str, str],
) -> None:
    (root / "f.txt").write_text("old\n", encoding="utf-8")
    foreign = foreign_lock(contention.user_lock_dir, root / "f.txt")
    server = build_server(contention.settings)
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(
                    client, contention.mode, contention.lock_waits, foreign, (tool, arguments), "f.txt"
                )
                second = await client.call_tool("write_file", {"path": "f.txt", "content": "second\n"})
                assert not second.is_error
                assert (root / "f.txt").read_text(encoding="utf-8") == "second\n"
                undone = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
                assert not undone.is_error, undone
    finally:
        foreign.let_go()
    # Had the cancelled call written once the lock freed, undo would have gone back to its text, not to the original.
    assert (root / "f.txt").read_text(encoding="utf-8") == "old\n"


async def test_a_branch_switch_cancelled_while_another_process_edits_a_file_it_rewrites_switches_nothing(
    contention: Contention,
    root: Path,
) -> None:
    # The switch rewrote the files that differ between the branches under the repository's lock alone: it never
    # waited for another fsguard editing one of them (whose edit could land in the middle of git's rewrite), so a
    # cancellation never stopped it either.
    make_repo(root, commit=False)
    (root / "a.txt").write_bytes(b"main\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-q", "-m", "main")
    git(root, "switch", "-q", "-c", "feature")
    (root / "a.txt").write_bytes(b"feature\n")
    git(root, "commit", "-q", "-am", "feature")
    git(root, "switch", "-q", "main")
    foreign = foreign_lock(contention.user_lock_dir, root / "a.txt")
    server = build_server(contention.settings)
    switch = ("git", {"action": "branch", "name": "feature", "checkout": True})
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(client, contention.mode, contention.lock_waits, foreign, switch, "a.txt")
                assert (root / "a.txt").read_bytes() == b"main\n"
                assert git(root, "symbolic-ref", "--short", "HEAD").strip() == "main"
                switched = await client.call_tool(*switch)  # the same switch, not cancelled, goes through
                assert not switched.is_error, switched
    finally:
        foreign.let_go()
    assert (root / "a.txt").read_bytes() == b"feature\n"
    assert git(root, "symbolic-ref", "--short", "HEAD").strip() == "feature"


async def cancel_once_stopped(
    client: Client,
    mode: str,
    call: tuple[str, dict[str, Any]],
    *,
    stopped: Callable[[], object],
    let_go: Callable[[], object],
) -> None:
    """Start ``call``, cancel it once ``stopped`` (run on a thread: it returns when the call is held up) returns,
    then ``let_go`` of what holds it (on 2025-11-25 once the server has taken the cancellation in)."""
    async with anyio.create_task_group() as group:
        scope, gone = anyio.CancelScope(), anyio.Event()

        async def cancelled_call() -> None:
            try:
                with scope:
                    await client.call_tool(*call)
            finally:
                gone.set()

        group.start_soon(cancelled_call)
        await anyio.to_thread.run_sync(stopped)
        scope.cancel()
        if mode == "legacy":
            await gone.wait()  # the server applies notifications/cancelled before it answers a later call
            await client.call_tool("list_directory", {"path": "."})
        await anyio.to_thread.run_sync(let_go)


async def cancel_while_it_waits(
    client: Client,
    mode: str,
    lock_waits: threading.Event,
    foreign: ForeignLock,
    call: tuple[str, dict[str, Any]],
    held: str,
    meanwhile: Callable[[], object] = lambda: None,
) -> None:
    """Cancel ``call`` once a worker thread waits for ``foreign`` (after ``meanwhile``: what the other process does
    while it holds the lock), let go, and return once that thread let go of ``held``'s lock."""

    def waits() -> None:
        lock_waits.wait(WAIT_S)  # a worker thread waits for the lock
        meanwhile()

    await cancel_once_stopped(client, mode, call, stopped=waits, let_go=foreign.let_go)
    # Over only once the cancelled call's worker thread is: a call taking the same lock waits for that thread (the
    # path's thread lock), and this one changes nothing.
    looked = await client.call_tool("edit_file", {"path": held, "old_text": "\0", "new_text": "-"})
    assert looked.is_error


async def test_a_minify_cancelled_while_it_waits_for_its_outputs_lock_writes_nothing_once_the_lock_frees(
    contention: Contention,
    root: Path,
) -> None:
    # Its input is read under a lock of its own first, released before the output's is taken: that first lock used
    # up the cancellation check, so a call cancelled while it waited for the output's lock wrote the output anyway.
    source = "function add(a, b) {\n  return a + b;\n}\n"
    (root / "app.js").write_text(source, encoding="utf-8")
    foreign = foreign_lock(contention.user_lock_dir, root / "app.min.js")
    server = build_server(contention.settings)
    minify = ("minify_js", {"path": "app.js", "output_path": "app.min.js"})
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(
                    client, contention.mode, contention.lock_waits, foreign, minify, "app.min.js"
                )
    finally:
        foreign.let_go()
    assert not (root / "app.min.js").exists()
    assert (root / "app.js").read_text(encoding="utf-8") == source


@pytest.mark.parametrize("held", ["a.txt", "b.txt"])
async def test_a_git_restore_cancelled_while_it_waits_for_a_files_lock_keeps_the_working_tree_once_the_lock_frees(
    contention: Contention,
    root: Path,
    held: str,
) -> None:
    # It holds the repository's lock, then takes the lock of each file it overwrites, in order: the first of these
    # used up the cancellation check, so a restore cancelled while another process edited a file overwrote it anyway.
    make_repo(root, commit=False)
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"alpha\n")
    git(root, "add", "a.txt", "b.txt")
    git(root, "commit", "-q", "-m", "init")
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"my precious edit\n")
    foreign = foreign_lock(contention.user_lock_dir, root / held)
    server = build_server(contention.settings)
    restore = ("git", {"action": "restore", "paths": ["a.txt", "b.txt"], "force": True})
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                await cancel_while_it_waits(client, contention.mode, contention.lock_waits, foreign, restore, held)
    finally:
        foreign.let_go()
    assert (root / "a.txt").read_bytes() == b"my precious edit\n"
    assert (root / "b.txt").read_bytes() == b"my precious edit\n"


async def test_a_batch_cancelled_while_it_waits_for_a_lock_leaves_the_directory_another_process_made_meanwhile(
    contention: Contention,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The batch logged as its own every directory missing before its write and there after it: the one the other
    # process made while the batch waited for its lock was removed by the cancelled batch's rollback.
    over = threading.Event()
    run = BatchRunner.run

    def counted(self: BatchRunner, *args: Any, **kwargs: Any) -> Any:
        try:
            return run(self, *args, **kwargs)
        finally:
            over.set()  # the rollback included

    monkeypatch.setattr(BatchRunner, "run", counted)
    foreign = foreign_lock(contention.user_lock_dir, root / "shared" / "new.txt")
    server = build_server(contention.settings)
    write = (
        "batch_operations",
        {"request_json": {"operations": [{"type": "write", "path": "shared/new.txt", "content": "mine\n"}]}},
    )
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client:
                made = functools.partial((root / "shared").mkdir)  # the other process's create_directory
                await cancel_while_it_waits(
                    client, contention.mode, contention.lock_waits, foreign, write, "shared/new.txt", made
                )
                assert await anyio.to_thread.run_sync(over.wait, WAIT_S)
    finally:
        foreign.let_go()
    assert (root / "shared").is_dir()
    assert list((root / "shared").iterdir()) == []


async def test_a_server_whose_call_waits_for_another_processes_lock_stops_when_its_client_goes(
    contention: Contention,
    root: Path,
) -> None:
    (root / "f.txt").write_text("old\n", encoding="utf-8")
    foreign = foreign_lock(contention.user_lock_dir, root / "f.txt")
    edit = ("edit_file", {"path": "f.txt", "old_text": "old", "new_text": "new"})
    try:
        await leave_while_it_waits(contention, foreign, edit)
    finally:
        foreign.let_go()
    assert (root / "f.txt").read_text(encoding="utf-8") == "old\n"


async def leave_while_it_waits(contention: Contention, foreign: ForeignLock, call: tuple[str, dict[str, Any]]) -> None:
    """Start ``call`` on a new server, and once a worker thread waits for ``foreign`` cancel it and leave; fails unless
    the server ended before the other process let go.

    The other process holds the lock for good (a timer lets go after a third of the wait, so a failing run ends). Had
    the call gone on waiting in flock, the client's leaving (the server's shutdown waits for its calls) would have
    waited until the lock was let go.
    """
    backstop = threading.Timer(WAIT_S / 3, foreign.let_go)
    backstop.start()
    server = build_server(contention.settings)
    try:
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=contention.mode) as client, anyio.create_task_group() as group:
                scope = anyio.CancelScope()

                async def waiting_call() -> None:
                    with scope:
                        await client.call_tool(*call)

                group.start_soon(waiting_call)
                await anyio.to_thread.run_sync(contention.lock_waits.wait, WAIT_S)  # a worker thread waits for it
                scope.cancel()  # the client gives up, then goes
        assert backstop.is_alive(), "the server ended only once the other process let go"
    finally:
        backstop.cancel()
