"""A git action its client cancels while git runs a repository hook (allowed with --git-hooks) stops: the hook and git
are killed, nothing is committed or pushed, and the server ends without waiting for them."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from tests.conftest import ClientFactory
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio

WAIT_S = 30


class HeldHook:
    """A repository hook that says it started (opening ``started`` for writing, which waits for the test to read it)
    and then waits on ``release`` for a writer, that only :meth:`release` (or the backstop) gives it."""

    def __init__(self, repo: Path, name: str, scratch: Path) -> None:
        self.started, self.released = scratch / "started", scratch / "release"
        os.mkfifo(self.started)
        os.mkfifo(self.released)
        git(repo, "config", "core.hooksPath", ".githooks")
        hook = repo / ".githooks" / name
        hook.parent.mkdir(exist_ok=True)
        hook.write_text(f"#!/bin/sh\n: > '{self.started}'\nread _ < '{self.released}'\n", encoding="utf-8")
        hook.chmod(0o755)
        self.backstop_fired = threading.Event()
        self._backstop = threading.Timer(WAIT_S / 3, self._backstop_release)

    def wait_started(self) -> None:
        """Return once the hook runs (blocks on the FIFO until the hook opens it)."""
        self._backstop.start()
        with self.started.open("rb") as started:
            started.read()

    def _backstop_release(self) -> None:
        self.backstop_fired.set()
        self.release()

    def release(self) -> None:
        """Give a hook still waiting its line (none waiting: nothing to do)."""
        with contextlib.suppress(OSError):  # ENXIO: no hook waits on it
            os.close(os.open(self.released, os.O_WRONLY | os.O_NONBLOCK))

    def close(self) -> None:
        self._backstop.cancel()
        self.release()


async def cancel_while_the_hook_runs(client: Client, hook: HeldHook, arguments: dict[str, Any]) -> None:
    """Start the git call, cancel it once its hook runs, and check the server still answers."""
    async with anyio.create_task_group() as group:
        scope = anyio.CancelScope()

        async def cancelled_call() -> None:
            with scope:
                await client.call_tool("git", arguments)

        group.start_soon(cancelled_call)
        await anyio.to_thread.run_sync(hook.wait_started)
        scope.cancel()
    listed = await client.call_tool("list_directory", {"path": "."})
    assert not listed.is_error, listed


async def test_a_commit_cancelled_while_its_pre_commit_hook_runs_kills_it_and_commits_nothing(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # git ran on the call's worker thread until it exited, asked nothing: a cancelled commit waited for its hook
    # (up to the 60 s git timeout), committed once the hook let go, and the server's end waited for it.
    repo = make_repo(root)
    head = git(repo, "rev-parse", "HEAD")
    hook = HeldHook(repo, "pre-commit", tmp_path)
    (repo / "a.txt").write_text("changed\n", encoding="utf-8")
    git(repo, "add", "a.txt")
    try:
        with anyio.fail_after(WAIT_S):
            async with connect(git_hooks=True) as client:
                await cancel_while_the_hook_runs(client, hook, {"action": "commit", "message": "never"})
        assert not hook.backstop_fired.is_set(), "the cancelled commit went on until its hook let go"
    finally:
        hook.close()
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "diff", "--cached", "--name-only") == "a.txt\n"  # staged as before
    assert not list((repo / ".git").glob("*.lock"))


async def test_a_push_cancelled_while_its_pre_push_hook_runs_kills_it_and_pushes_nothing(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    repo = make_repo(root / "work")
    remote = root / "remote.git"
    git(root, "init", "-q", "--bare", "-b", "main", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    hook = HeldHook(repo, "pre-push", tmp_path)
    try:
        with anyio.fail_after(WAIT_S):
            async with connect(git_hooks=True) as client:
                arguments = {"action": "push", "path": "work", "remote": "origin", "name": "main"}
                await cancel_while_the_hook_runs(client, hook, arguments)
        assert not hook.backstop_fired.is_set(), "the cancelled push went on until its hook let go"
    finally:
        hook.close()
    assert git(remote, "for-each-ref") == ""  # nothing reached the remote
