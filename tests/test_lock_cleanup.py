"""A server deletes the lock files it used when it shuts down, over stdio and over HTTP.

Each lock file is one inode in the state directory and one in ``/dev/shm`` (kernel memory); they used to be kept
for ever, one per path and directory a server ever touched. The children here run ``fsguard.cli.main`` with the
user's shared lock directory moved into the test's, so both directories can be read whole.
"""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import get_default_environment

import fsguard
from tests.conftest import structured
from tests.test_protocol_edges import MODERN_META, frame, handshake

pytestmark = pytest.mark.anyio

SOURCES = str(Path(fsguard.__file__).resolve().parents[1])
CHILD = """
import sys
from pathlib import Path
from fsguard.core import locks
shared = Path(sys.argv[1])
locks._user_lock_dir = lambda: shared
from fsguard.cli import main
main(sys.argv[2:])
"""


def server_command(user_lock_dir: Path, root: Path, state_dir: Path, *options: str) -> list[str]:
    return [sys.executable, "-c", CHILD, str(user_lock_dir), str(root), "--state-dir", str(state_dir), *options]


def lock_files(state_dir: Path, user_lock_dir: Path) -> list[list[str]]:
    return [sorted(entry.name for entry in directory.iterdir()) for directory in (state_dir / "locks", user_lock_dir)]


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_stdio_server_deletes_the_lock_files_it_used_when_its_input_ends(
    root: Path, state_dir: Path, user_lock_dir: Path, era: str
) -> None:
    meta = MODERN_META if era == "modern" else {}
    start = handshake(era)
    write = {"name": "write_file", "arguments": {"path": "d/f.txt", "content": "hello\n"}, **meta}
    command = server_command(user_lock_dir, root, state_dir)
    env = {**get_default_environment(), "PYTHONPATH": SOURCES}
    with anyio.fail_after(30):
        async with await anyio.open_process(command, env=env, stderr=subprocess.DEVNULL) as process:
            assert process.stdin is not None
            assert process.stdout is not None
            await process.stdin.send("".join([*start, frame(12, "tools/call", write)]).encode())
            buffered = b""
            while b'"id":12' not in buffered:
                buffered += await process.stdout.receive()
            answer = json.loads(buffered[buffered.index(b'{"jsonrpc":"2.0","id":12') :].split(b"\n")[0])
            used = lock_files(state_dir, user_lock_dir)
            await process.stdin.aclose()
            code = await process.wait()
    assert "error" not in answer
    assert not answer["result"].get("isError")
    assert (root / "d" / "f.txt").read_bytes() == b"hello\n"
    assert all(used), f"the server took no lock files: {used}"
    assert code == 0
    assert lock_files(state_dir, user_lock_dir) == [[], []]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["sigterm", "sigint"])
async def test_an_http_server_stopped_by_sigterm_or_ctrl_c_exits_0_deletes_its_lock_files_and_writes_its_metrics(
    root: Path, state_dir: Path, user_lock_dir: Path, mode: str, stop: signal.Signals
) -> None:
    # SIGINT (Ctrl+C) printed a KeyboardInterrupt traceback and ended the process by the signal (-2).
    port = free_port()
    logs = state_dir.parent / "logs"
    options = ["--transport", "http", "--port", str(port), "--log-level", "INFO", "--log-dir", str(logs)]
    command = server_command(user_lock_dir, root, state_dir, *options)
    env = {**get_default_environment(), "PYTHONPATH": SOURCES}
    with anyio.fail_after(30):
        async with await anyio.open_process(command, env=env, stdout=subprocess.DEVNULL) as process:
            assert process.stderr is not None
            logged = b""
            while b"Uvicorn running on" not in logged:
                logged += await process.stderr.receive()
            async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
                written = structured(await client.call_tool("write_file", {"path": "d/f.txt", "content": "hello\n"}))
            used = lock_files(state_dir, user_lock_dir)
            process.send_signal(stop)
            async for chunk in process.stderr:  # drained, so the server never blocks on a full pipe while it stops
                logged += chunk
            code = await process.wait()
    assert written["path"].endswith("f.txt")
    assert (root / "d" / "f.txt").read_bytes() == b"hello\n"
    assert all(used), f"the server took no lock files: {used}"
    assert (code, b"Traceback" in logged) == (0, False)
    assert lock_files(state_dir, user_lock_dir) == [[], []]
    assert json.loads((logs / "metrics.json").read_text(encoding="utf-8"))["by_tool"] == {"write_file": 1}
