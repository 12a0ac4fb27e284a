"""`fsguard --transport http` as a process: what it prints when it starts, and when it cannot."""

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
from fsguard.config import Settings
from fsguard.listeners import listen_refusal, listening_sockets
from tests.conftest import structured

pytestmark = pytest.mark.anyio

SOURCES = str(Path(fsguard.__file__).resolve().parents[1])


def fsguard_command(root: Path, state_dir: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir), "--transport", "http", *options]


def child_environment() -> dict[str, str]:
    return {**get_default_environment(), "PYTHONPATH": SOURCES}


def test_a_port_another_process_listens_on_exits_2_naming_the_port_and_the_next_step_and_prints_no_url(
    root: Path, state_dir: Path
) -> None:
    # It printed "serving ROOT", the URL and a client config for the port (which the other process answers), then
    # uvicorn logged Errno 98 and it exited 3.
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        command = fsguard_command(root, state_dir, "--port", str(port))
        ran = subprocess.run(
            command, env=child_environment(), capture_output=True, text=True, encoding="utf-8", timeout=60, check=False
        )
    assert ran.returncode == 2
    assert ran.stdout == ""
    assert (
        f"fsguard: cannot listen on 127.0.0.1 port {port}: another process is listening there. Pass another port "
        "with --port, or stop that process." in ran.stderr
    )
    assert "URL:" not in ran.stderr
    assert "serving" not in ran.stderr


def test_an_address_of_no_interface_here_is_refused_naming_it_and_host(state_dir: Path) -> None:
    settings = Settings(transport="http", host="192.0.2.1", port=8765, state_dir=state_dir)
    with pytest.raises(OSError) as refused:
        listening_sockets(settings)
    assert listen_refusal(settings, refused.value) == (
        "fsguard: cannot listen on 192.0.2.1 port 8765: Cannot assign requested address. Pass --host an address of "
        "this machine (127.0.0.1 is the default)."
    )


def free_ipv6_port() -> int:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
            port: int = sock.getsockname()[1]
            return port
    except OSError:
        pytest.skip("no IPv6 loopback on this machine")


async def test_an_ipv6_host_is_printed_in_brackets_and_clients_reach_the_server_at_the_printed_url(
    root: Path, state_dir: Path, mode: str
) -> None:
    # `--host ::1` printed http://::1:PORT/mcp, in the URL line and the client config: no client can parse it.
    (root / "a.txt").write_bytes(b"hello\n")
    port = free_ipv6_port()
    command = fsguard_command(root, state_dir, "--host", "::1", "--port", str(port), "--log-level", "INFO")
    with anyio.fail_after(30):
        async with await anyio.open_process(command, env=child_environment(), stdout=subprocess.DEVNULL) as process:
            assert process.stderr is not None
            try:
                logged = b""
                while b"Uvicorn running on" not in logged:
                    logged += await process.stderr.receive()
                text = logged.decode()
                url = text.split("URL: ", 1)[1].split("\n", 1)[0]
                config = json.loads(text[text.index("{") : text.index("\n}\n") + 2])
                assert (url, config["mcpServers"]["fsguard"]["url"]) == (f"http://[::1]:{port}/mcp",) * 2
                async with Client(url, mode=mode) as client:
                    read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
            finally:
                process.send_signal(signal.SIGTERM)
                async for _ in process.stderr:  # drained, so the server never blocks on a full pipe while it stops
                    pass
                code = await process.wait()
    assert read["content"].startswith("hello")
    assert code == 0
