"""A request sent under the id of one still in flight (a client retrying after its own timeout) is refused, not run
a second time: JSON-RPC ids name one request each, and the retried write or edit was made twice."""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from tests.test_cancelled_hooks import given_up, held_hook

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
WRITE = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
FIRST = {"name": "write_file", "arguments": {"path": "a.txt", "content": "first\n"}}


WAIT_S = 30


def send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps(message).encode() + b"\n")
    pipe.flush()


@contextlib.contextmanager
def write_in_flight(
    root: Path, tmp_path: Path
) -> Iterator[tuple[Callable[[dict[str, Any]], None], Callable[[], dict[str, Any]], Callable[[], None]]]:
    """A stdio server whose write of a.txt (request 1) waits on its pre-hook: (send, receive, release), receive
    reading the next frame the server writes and release letting the hook end. On exit stdin is closed and the server
    waited for."""
    config, started, release = held_hook(tmp_path)
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(tmp_path / "state")]
    with subprocess.Popen(
        [*command, "--hooks-config", str(config)], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as server:
        stdin, stdout = server.stdin, server.stdout
        assert stdin is not None
        assert stdout is not None
        released = False

        def let_go() -> None:
            nonlocal released
            if not released:
                released = True
                release.write_bytes(b"go\n")

        # Past the bound the server is killed and the pipe the test waits on is opened and closed: the waits end,
        # and the test fails instead of hanging.
        watchdog = threading.Timer(WAIT_S, given_up, (server, started, release))
        watchdog.start()
        try:
            send(stdin, INITIALIZE)
            assert json.loads(stdout.readline())["id"] == 0
            send(stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            send(stdin, {**WRITE, "params": FIRST})
            started.read_bytes()  # the hook runs: request 1 is in flight
            yield (lambda message: send(stdin, message)), (lambda: json.loads(stdout.readline())), let_go
        finally:
            let_go()
            stdin.close()
            server.wait(timeout=WAIT_S)
            watchdog.cancel()


def test_a_request_reusing_the_id_of_one_in_flight_is_refused_and_the_first_is_answered_once(
    root: Path, tmp_path: Path
) -> None:
    with write_in_flight(root, tmp_path) as (send_frame, receive, let_go):
        again = {"name": "write_file", "arguments": {"path": "b.txt", "content": "again\n"}}
        send_frame({**WRITE, "params": again})
        refused = receive()
        let_go()
        answered = receive()
    assert refused["id"] is None
    assert refused["error"]["code"] == -32600
    assert "id 1 is the id of a request still in flight" in refused["error"]["message"]
    assert answered["id"] == 1
    assert not answered["result"].get("isError"), answered
    assert (root / "a.txt").read_bytes() == b"first\n"
    assert not (root / "b.txt").exists()


def test_a_cancellation_naming_true_as_its_request_leaves_request_1_in_flight(root: Path, tmp_path: Path) -> None:
    """Python's True equals 1: the transport took ``"requestId": true`` for request 1, counted it as done and let its
    id be used again while it still ran (and a closed stdin would have cut it short)."""
    with write_in_flight(root, tmp_path) as (send_frame, receive, let_go):
        send_frame({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": True}})
        send_frame({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        refused = receive()
        let_go()
        answered = receive()
    assert refused["id"] is None
    assert "id 1 is the id of a request still in flight" in refused["error"]["message"]
    assert answered["id"] == 1
    assert not answered["result"].get("isError"), answered
    assert (root / "a.txt").read_bytes() == b"first\n"


def test_a_malformed_frame_under_the_id_of_a_request_in_flight_is_refused_under_no_id(
    root: Path, tmp_path: Path
) -> None:
    """Refused under id 1, the answer passed for request 1's (two answers under one id), and counted it as done."""
    with write_in_flight(root, tmp_path) as (send_frame, receive, let_go):
        read = {"name": "read_file", "arguments": {"path": "a.txt"}}
        send_frame({**WRITE, "jsonrpc": "1.0", "params": read})
        refused = receive()
        send_frame({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        reused = receive()
        let_go()
        answered = receive()
    assert (refused["id"], refused["error"]["code"]) == (None, -32600)
    assert "no JSON-RPC 2.0 request" in refused["error"]["message"]
    assert reused["id"] is None
    assert "id 1 is the id of a request still in flight" in reused["error"]["message"]
    assert answered["id"] == 1
    assert not answered["result"].get("isError"), answered
    assert (root / "a.txt").read_bytes() == b"first\n"
