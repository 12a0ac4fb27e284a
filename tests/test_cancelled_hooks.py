"""A call cancelled while its pre-hook runs (a formatter, a policy check: seconds, under the file's lock) stops
before its change: it wrote the file once the hook was done and answered "Request cancelled", so the agent believed
nothing had changed and never got the backup id."""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from fsguard.server import build_server
from tests.conftest import Contention
from tests.test_event_loop import WAIT_S, cancel_once_stopped

pytestmark = pytest.mark.anyio


def held_hook(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A hooks config whose pre-write and pre-edit hook says it runs (a line into the ``started`` pipe), then
    waits until a line comes down the ``release`` pipe: (config, started, release)."""
    started, release = tmp_path / "started", tmp_path / "release"
    os.mkfifo(started)
    os.mkfifo(release)
    hook = {"type": "command", "command": f"echo go > {started}; cat {release} > /dev/null; exit 0", "timeout": 60}
    entry = [{"pattern": "*", "hooks": [hook]}]
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": {"pre-write": entry, "pre-edit": entry}}), encoding="utf-8")
    return config, started, release


@pytest.mark.parametrize(
    "call",
    [
        ("write_file", {"path": "a.txt", "content": "new\n"}),
        ("edit_file", {"path": "a.txt", "old_text": "old", "new_text": "new"}),
    ],
    ids=["write", "edit"],
)
async def test_a_change_cancelled_while_its_pre_hook_runs_is_not_made_once_the_hook_is_done(
    contention: Contention, root: Path, tmp_path: Path, call: tuple[str, dict[str, Any]]
) -> None:
    (root / "a.txt").write_bytes(b"old\n")
    config, started, release = held_hook(tmp_path)
    server = build_server(dataclasses.replace(contention.settings, hooks_config=config))
    released = False

    def let_go() -> None:
        nonlocal released
        if not released:
            released = True
            release.write_bytes(b"go\n")

    with anyio.fail_after(WAIT_S):
        async with Client(server, mode=contention.mode) as client:
            try:
                await cancel_once_stopped(client, contention.mode, call, stopped=started.read_bytes, let_go=let_go)
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(let_go)  # never leave the hook (and the server's shutdown) waiting
            # A call taking a.txt's lock waits for the cancelled call's thread to let go of it (it fails on its
            # match, before any hook).
            looked = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "\0", "new_text": "-"})
            assert looked.is_error
    assert (root / "a.txt").read_bytes() == b"old\n"
