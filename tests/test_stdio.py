"""fsguard's stdio transport when it ends: what the pipe has not taken yet still reaches the client, and requests
read before the end of input are answered, from and to files too."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from fsguard.stdio import _InFlight, _Stdout, closed_flushed
from tests.test_cancelled_hooks import given_up, held_hook
from tests.test_request_ids import WAIT_S
from tests.test_transports import INITIALIZE


def test_closing_stdout_flushes_what_the_pipe_had_not_taken_yet() -> None:
    read_end, write_end = os.pipe()
    payload = os.urandom(1 << 20)  # far more than a pipe holds: most of it waits in the transport's buffer
    received = bytearray()

    def read() -> None:
        with os.fdopen(read_end, "rb", 0) as pipe:
            while chunk := pipe.read(1 << 16):
                received.extend(chunk)

    reader = threading.Thread(target=read)

    async def answer_then_end() -> None:
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(write_end, "wb", 0)
        # stdout's protocol as the server makes it (the stream's own has no way to wait for the close)
        transport, protocol = await loop.connect_write_pipe(lambda: _Stdout(_InFlight()), pipe)
        writer = asyncio.StreamWriter(transport, protocol, None, loop)
        writer.write(payload)
        reader.start()  # the client reads only now: the pipe is full and the rest is in the transport's buffer
        await closed_flushed(writer)

    anyio.run(answer_then_end)  # the loop ends with the call, as the server's does
    reader.join(timeout=60)
    assert not reader.is_alive()
    assert bytes(received) == payload


@pytest.mark.parametrize("files", ["stdin", "stdout", "stdin and stdout"])
def test_stdio_on_regular_files_answers_the_requests_read_before_the_end_of_input(
    root: Path, state_dir: Path, tmp_path: Path, files: str
) -> None:
    """``fsguard ROOT < requests.jsonl > answers.jsonl``: the SDK's transport, which served files, ended at the end of
    input with the write still in flight (its pre-hook holds it) cancelled, and the answer after it never written."""
    config, started, release = held_hook(tmp_path)
    write = {"name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}
    read = {"name": "read_file", "arguments": {"path": "missing.txt"}}
    frames = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": write},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": read},
    ]
    requests = INITIALIZE.encode() + b"".join(json.dumps(frame).encode() + b"\n" for frame in frames)
    (tmp_path / "requests.jsonl").write_bytes(requests)
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir), "--hooks-config", str(config)]
    with (
        (tmp_path / "requests.jsonl").open("rb") as requests_file,
        (tmp_path / "answers.jsonl").open("wb") as answers_file,
        (tmp_path / "stderr.txt").open("wb") as stderr,
    ):
        stdin = requests_file if "stdin" in files else subprocess.PIPE
        stdout = answers_file if "stdout" in files else subprocess.PIPE
        with subprocess.Popen(command, stdin=stdin, stdout=stdout, stderr=stderr) as server:
            watchdog = threading.Timer(WAIT_S, given_up, (server, started, release))  # a hang fails the test instead
            watchdog.start()
            try:
                if server.stdin is not None:
                    server.stdin.write(requests)
                    server.stdin.close()
                started.read_bytes()  # the write's hook runs: stdin has ended, or is about to
                release.write_bytes(b"go\n")
                piped = server.stdout.read() if server.stdout is not None else b""
                returncode = server.wait(timeout=WAIT_S)
            finally:
                watchdog.cancel()
    written = piped or (tmp_path / "answers.jsonl").read_bytes()

    answers = {answer["id"]: answer for answer in map(json.loads, written.splitlines())}
    assert sorted(answers) == [1, 2, 3], (tmp_path / "stderr.txt").read_text(encoding="utf-8")[-2000:]
    assert not answers[2]["result"]["isError"], answers[2]
    assert answers[3]["result"]["_meta"]["fsguard/error"]["code"] == "not_found"
    assert (root / "a.txt").read_bytes() == b"a\n"
    assert returncode == 0


@contextlib.contextmanager
def asked_to_delete(root: Path, state_dir: Path, tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A server over stdio whose client (it declares elicitation) asked for a permanent delete of keep.txt, its
    question to the client read: the server waits for the answer."""
    (root / "keep.txt").write_bytes(b"precious\n")
    initialize = json.loads(INITIALIZE)
    initialize["params"]["capabilities"] = {"elicitation": {"form": {}}}
    delete = {"name": "delete_file", "arguments": {"path": "keep.txt", "permanent": True}}
    frames = [
        initialize,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": delete},
    ]
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    with (
        (tmp_path / "stderr.txt").open("wb") as stderr,
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr) as server,
    ):
        assert server.stdin is not None
        assert server.stdout is not None
        watchdog = threading.Timer(WAIT_S, server.kill)
        watchdog.start()
        try:
            server.stdin.write(b"".join(json.dumps(frame).encode() + b"\n" for frame in frames))
            server.stdin.flush()
            assert json.loads(server.stdout.readline())["id"] == 1
            question = json.loads(server.stdout.readline())
            assert question["method"] == "elicitation/create"
            yield server
        finally:
            watchdog.cancel()


def test_stdin_closed_while_the_server_asks_the_client_ends_the_call_at_once(
    root: Path, state_dir: Path, tmp_path: Path
) -> None:
    """A client that closes stdin while fsguard waits for its answer to a question (elicitation/create) can answer
    nothing more: the call was declined and the server exited only after the 30 s grace period for calls in flight."""
    with asked_to_delete(root, state_dir, tmp_path) as server:
        assert server.stdin is not None
        assert server.stdout is not None
        server.stdin.close()  # the client leaves without answering
        started = time.monotonic()
        rest = server.stdout.read()
        returncode = server.wait(timeout=WAIT_S)
        took = time.monotonic() - started
    answer = json.loads(rest.splitlines()[0])
    assert answer["id"] == 2
    assert answer["result"]["_meta"]["fsguard/error"]["code"] == "declined"
    assert "closed stdin" in answer["result"]["content"][0]["text"]
    assert (root / "keep.txt").read_bytes() == b"precious\n"
    assert returncode == 0
    assert took < 10, f"the server took {took:.1f} s to end"


def test_an_answer_to_a_question_that_is_no_elicitation_result_is_refused_in_words(
    root: Path, state_dir: Path, tmp_path: Path
) -> None:
    """An answer whose action is none of accept, decline or cancel was refused with pydantic's whole report: its
    class names, the input and a link to its documentation (2026-07-28 refuses such a retry as -32602)."""
    with asked_to_delete(root, state_dir, tmp_path) as server:
        assert server.stdin is not None
        assert server.stdout is not None
        server.stdin.write(b'{"jsonrpc":"2.0","id":1,"result":{"action":"bogus"}}\n')
        server.stdin.close()
        answer = json.loads(server.stdout.readline())
        server.wait(timeout=WAIT_S)
    assert answer["result"]["_meta"]["fsguard/error"]["code"] == "invalid_params"
    assert answer["result"]["content"][0]["text"] == (
        "delete_file: the client's answer was not the form asked (action: Input should be 'accept', 'cancel' or "
        "'decline'), so nothing was changed. Call it again to be asked again."
    )
    assert (root / "keep.txt").read_bytes() == b"precious\n"
