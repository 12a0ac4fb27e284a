"""A request sent under the id of one still in flight (a client retrying after its own timeout) is refused, not run
a second time: JSON-RPC ids name one request each, and the retried write or edit was made twice."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

from tests.test_cancelled_hooks import held_hook

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


WAIT_S = 30


def send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps(message).encode() + b"\n")
    pipe.flush()


def given_up(server: subprocess.Popen[bytes], started: Path) -> None:
    server.kill()
    with contextlib.suppress(OSError):  # ENXIO: nobody waits on it
        os.close(os.open(started, os.O_WRONLY | os.O_NONBLOCK))


def test_a_request_reusing_the_id_of_one_in_flight_is_refused_and_the_first_is_answered_once(
    root: Path, tmp_path: Path
) -> None:
    config, started, release = held_hook(tmp_path)  # the first write's pre-hook holds it in flight
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(tmp_path / "state")]
    with subprocess.Popen(
        [*command, "--hooks-config", str(config)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as server:
        assert server.stdin is not None
        assert server.stdout is not None
        # Past the bound the server is killed and the pipe the test waits on is opened and closed: the waits end,
        # and the test fails instead of hanging.
        watchdog = threading.Timer(WAIT_S, given_up, (server, started))
        watchdog.start()
        try:
            send(server.stdin, INITIALIZE)
            assert json.loads(server.stdout.readline())["id"] == 0
            send(server.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            write = {"jsonrpc": "2.0", "id": 5, "method": "tools/call"}
            first = {"name": "write_file", "arguments": {"path": "a.txt", "content": "first\n"}}
            send(server.stdin, {**write, "params": first})
            started.read_bytes()  # the hook runs: request 5 is in flight
            again = {"name": "write_file", "arguments": {"path": "b.txt", "content": "again\n"}}
            send(server.stdin, {**write, "params": again})
            refused = json.loads(server.stdout.readline())
        finally:
            release.write_bytes(b"go\n")
        answered = json.loads(server.stdout.readline())
        server.stdin.close()
        server.wait(timeout=WAIT_S)
        watchdog.cancel()
    assert refused["id"] is None
    assert refused["error"]["code"] == -32600
    assert "id 5 is the id of a request still in flight" in refused["error"]["message"]
    assert answered["id"] == 5
    assert not answered["result"].get("isError"), answered
    assert (root / "a.txt").read_bytes() == b"first\n"
    assert not (root / "b.txt").exists()
