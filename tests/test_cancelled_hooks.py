"""A call cancelled while its pre-hook runs (a formatter, a policy check: seconds, under the file's lock) stops
before its change, and its hook is killed: the call wrote the file once the hook was done and answered "Request
cancelled", so the agent believed nothing had changed and never got the backup id; and a server told to stop
waited for the hook to end (up to its timeout, 60 s by default)."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, BinaryIO

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError
from starlette.types import Message, Receive, Scope, Send

from fsguard.listeners import STOPPED_MESSAGE, StoppedStreams
from fsguard.server import build_server
from tests.conftest import Contention
from tests.test_event_loop import WAIT_S, cancel_once_stopped
from tests.test_http_startup import child_environment
from tests.test_lock_cleanup import free_port

pytestmark = pytest.mark.anyio

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def held_hook(tmp_path: Path, *, kept: bool = False) -> tuple[Path, Path, Path]:
    """A hooks config whose pre-write and pre-edit hook says it runs (a line into the ``started`` pipe), then
    waits until a line comes down the ``release`` pipe: (config, started, release). A ``kept`` hook (and the ``cat``
    it waits in) holds ``started`` open while it lives: read to its end, the pipe says the hook is gone."""
    started, release = tmp_path / "started", tmp_path / "release"
    os.mkfifo(started)
    os.mkfifo(release)
    says = f"exec 3> {started}; echo go >&3" if kept else f"echo go > {started}"
    hook = {"type": "command", "command": f"{says}; cat {release} > /dev/null; exit 0", "timeout": 60}
    entry = [{"pattern": "*", "hooks": [hook]}]
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": {"pre-write": entry, "pre-edit": entry}}), encoding="utf-8")
    return config, started, release


def let_go(release: Path) -> bool:
    """Let the held hook end if it still waits on ``release``: whether one did (a killed hook reads it no more)."""
    try:
        pipe = os.open(release, os.O_WRONLY | os.O_NONBLOCK)
    except OSError as exc:
        if exc.errno != errno.ENXIO:  # ENXIO: no one reads it
            raise
        return False
    with os.fdopen(pipe, "wb") as writer:
        writer.write(b"go\n")
    return True


def given_up(server: subprocess.Popen[bytes], started: Path, release: Path) -> None:
    """Past a test's bound: kill ``server``, end any wait on ``started`` and let the hook go, so the test fails
    instead of hanging."""
    server.kill()
    with contextlib.suppress(OSError):  # ENXIO: nobody waits on it
        os.close(os.open(started, os.O_WRONLY | os.O_NONBLOCK))
    let_go(release)


@pytest.mark.parametrize(
    "call",
    [
        ("write_file", {"path": "a.txt", "content": "new\n"}),
        ("edit_file", {"path": "a.txt", "old_text": "old", "new_text": "new"}),
    ],
    ids=["write", "edit"],
)
async def test_a_change_cancelled_while_its_pre_hook_runs_is_not_made_and_the_hook_is_killed(
    contention: Contention, root: Path, tmp_path: Path, call: tuple[str, dict[str, Any]]
) -> None:
    (root / "a.txt").write_bytes(b"old\n")
    config, started, release = held_hook(tmp_path, kept=True)
    server = build_server(dataclasses.replace(contention.settings, hooks_config=config))
    hook_out: list[BinaryIO] = []

    def stopped() -> None:
        hook_out.append(started.open("rb"))  # opened once the hook opens it
        hook_out[0].readline()

    with anyio.fail_after(WAIT_S):
        async with Client(server, mode=contention.mode) as client:
            try:
                # Nobody lets the hook go: the cancellation alone has to end it.
                await cancel_once_stopped(client, contention.mode, call, stopped=stopped, let_go=lambda: None)
                # A call taking a.txt's lock waits for the cancelled call's thread to let go of it (it fails on its
                # match, before any hook), and that thread for the hook.
                looked = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "\0", "new_text": "-"})
                left = await anyio.to_thread.run_sync(hook_out[0].read, abandon_on_cancel=True)  # the hook is gone
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(let_go, release)  # never leave the hook waiting
                for pipe in hook_out:
                    pipe.close()
    assert looked.is_error
    assert left == b""
    assert (root / "a.txt").read_bytes() == b"old\n"


def test_sigterm_ends_a_stdio_server_at_once_killing_the_pre_hook_its_write_waits_on(
    root: Path, tmp_path: Path
) -> None:
    config, started, release = held_hook(tmp_path, kept=True)
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(tmp_path / "state")]
    with subprocess.Popen(
        [*command, "--hooks-config", str(config)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as server:
        assert server.stdin is not None
        assert server.stdout is not None
        watchdog = threading.Timer(WAIT_S, given_up, (server, started, release))
        watchdog.start()
        try:
            server.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
            server.stdin.flush()
            assert json.loads(server.stdout.readline())["id"] == 0
            write = {"name": "write_file", "arguments": {"path": "a.txt", "content": "new\n"}}
            frames = [
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": write},
            ]
            server.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in frames))
            server.stdin.flush()
            with started.open("rb") as hook_out:
                hook_out.readline()  # the hook runs
                server.send_signal(signal.SIGTERM)
                returncode = server.wait(timeout=WAIT_S / 2)  # the watchdog's kill would come later
                left = hook_out.read()  # once the hook is gone
        finally:
            watchdog.cancel()
            let_go(release)
            server.kill()
    assert returncode == 0
    assert left == b""
    assert not (root / "a.txt").exists()


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
async def test_sigterm_or_ctrl_c_ends_an_http_server_at_once_killing_the_pre_hook_its_write_waits_on(
    root: Path, tmp_path: Path, mode: str, stop: signal.Signals
) -> None:
    # A 2026-07-28 call runs in its HTTP request, which uvicorn's graceful shutdown waited for: the hook ran to its
    # end, the write was made after the signal, and only then did the server exit.
    # A 2025-11-25 call's event stream ended with no answer, which a client cannot tell from a dropped connection.
    (root / "a.txt").write_bytes(b"old\n")
    config, started, release = held_hook(tmp_path, kept=True)
    port = free_port()
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(tmp_path / "state"), "--transport"]
    command += ["http", "--port", str(port), "--hooks-config", str(config)]
    told: list[str] = []
    hook_out: list[BinaryIO] = []

    async def write(client: Client) -> None:
        try:
            await client.call_tool("write_file", {"path": "a.txt", "content": "new\n"})
        except MCPError as exc:
            told.append(exc.message)

    try:
        with anyio.fail_after(WAIT_S):
            async with await anyio.open_process(command, env=child_environment(), stdout=subprocess.DEVNULL) as server:
                assert server.stderr is not None
                logged = b""
                while b"Uvicorn running on" not in logged:
                    logged += await server.stderr.receive()
                async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client, anyio.create_task_group() as tg:
                    tg.start_soon(write, client)
                    hook_out.append(await anyio.to_thread.run_sync(started.open, "rb", abandon_on_cancel=True))
                    await anyio.to_thread.run_sync(hook_out[0].readline, abandon_on_cancel=True)  # the hook runs
                    server.send_signal(stop)
                    async for chunk in server.stderr:  # drained, so the server never blocks on a full pipe
                        logged += chunk
                    code = await server.wait()
                left = await anyio.to_thread.run_sync(hook_out[0].read, abandon_on_cancel=True)  # the hook is gone
    finally:
        with contextlib.suppress(OSError):  # ENXIO: nobody waits on it
            os.close(os.open(started, os.O_WRONLY | os.O_NONBLOCK))
        let_go(release)  # never leave the hook waiting
        for pipe in hook_out:
            pipe.close()
    assert (code, b"Traceback" in logged) == (0, False)
    assert left == b""
    assert (root / "a.txt").read_bytes() == b"old\n"
    assert told == [STOPPED_MESSAGE]


@pytest.mark.parametrize("answered", [False, True], ids=["cut", "answered"])
async def test_a_2025_event_stream_the_stop_ends_is_told_the_server_stopped_unless_its_call_answered(
    answered: bool,
) -> None:
    # The answer already sent stands: a call that made its change is never told after it that the server stopped.
    answer = b'event: message\r\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\r\n\r\n'
    sent: list[Message] = []

    async def transport(scope: Scope, receive: Receive, send: Send) -> None:
        await receive()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
        await send({"type": "http.response.body", "body": answer if answered else b": ping\r\n\r\n", "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def receive() -> Message:
        body = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write_file"}}'
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": []}
    await StoppedStreams(transport, lambda: True)(scope, receive, send)
    events = b"".join(message.get("body", b"") for message in sent[1:])
    told = [json.loads(line[5:]) for line in events.splitlines() if line.startswith(b"data:")]
    expected = {"jsonrpc": "2.0", "id": 7, "error": {"code": -32000, "message": STOPPED_MESSAGE}}
    assert told == ([{"jsonrpc": "2.0", "id": 7, "result": {}}] if answered else [expected])
    assert sent[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
