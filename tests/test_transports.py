"""Real transports: stdio (a child process) and streamable HTTP (uvicorn on loopback), in both eras."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from fsguard.cli import main
from fsguard.config import Settings
from fsguard.http import RequestDeadline, uvicorn_config
from fsguard.server import build_server
from fsguard.tools._roots import ROOTS_ANSWER_SECONDS
from tests.conftest import error_code, structured
from tests.stdio_peer import RawStdioServer

pytestmark = pytest.mark.anyio

ERA = {"auto": "2026-07-28", "legacy": "2025-11-25"}


async def test_stdio_serves_both_eras_with_real_json_frames(root: Path, state_dir: Path, mode: str) -> None:
    (root / "a.txt").write_bytes(b"alpha\nbeta\n")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    )
    with anyio.fail_after(30):
        async with Client(params, mode=mode, read_timeout_seconds=20) as client:
            assert client.protocol_version == ERA[mode]
            read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
            missing = await client.call_tool("read_file", {"path": "nope.txt"})
    assert read["content_hash"] == "d4d8adf9"
    assert error_code(missing) == "not_found"


INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n'
)


@pytest.mark.parametrize("stdin_kind", ["pipe", "regular file"])
def test_stdio_writes_nothing_but_protocol_frames_to_stdout(
    root: Path, state_dir: Path, tmp_path: Path, stdin_kind: str
) -> None:
    """A pipe is read by fsguard's thread-free transport, a regular file through a pipe a thread fills; both frame
    the same."""
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir), "--log-level", "DEBUG"]
    if stdin_kind == "pipe":
        done = subprocess.run(command, input=INITIALIZE.encode(), capture_output=True, timeout=30, check=False)
    else:
        requests = tmp_path / "requests.jsonl"
        requests.write_text(INITIALIZE, encoding="utf-8")
        with requests.open("rb") as stdin:
            done = subprocess.run(command, stdin=stdin, capture_output=True, timeout=30, check=False)
    lines = [line for line in done.stdout.decode().splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr.decode()[-2000:]
    assert lines[0].startswith('{"jsonrpc":"2.0","id":1,"result":')
    assert b"DEBUG" in done.stderr


def test_stdio_answers_the_requests_a_client_wrote_just_before_closing_stdin(root: Path, state_dir: Path) -> None:
    """``printf … | fsguard``, or a client that closes stdin to shut down: the SDK's loop ended at end of input and
    cancelled the calls still in flight, so only the initialize was answered; the reference server answers all."""
    (root / "a.txt").write_bytes(b"hello world")
    requests = [
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        '{"jsonrpc":"2.0","id":2,"method":"ping"}',
        '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}',
        '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"b.txt",'
        '"content":"bee"}}}',
    ]
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    stdin = (INITIALIZE + "\n".join(requests) + "\n").encode()

    done = subprocess.run(command, input=stdin, capture_output=True, timeout=30, check=False)

    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.decode().splitlines())}
    assert sorted(answers) == [1, 2, 3, 4], done.stderr.decode()[-2000:]
    assert answers[3]["result"]["structuredContent"]["content"] == "hello world"
    assert (root / "b.txt").read_bytes() == b"bee"
    assert done.returncode == 0


# Frames of 45 KB (the text twice: block and structure), written by their handlers; of 440 KB, by the writer task.
@pytest.mark.parametrize("lines", [300, 3_000])
def test_stdio_answers_in_full_the_large_answers_asked_just_before_stdin_closed(
    root: Path, state_dir: Path, lines: int
) -> None:
    """Answers of up to several times a pipe's buffer, to requests written just before stdin closed: each arrives
    whole before the server exits. An answer counted as sent once handed to the pipe's buffer, not once the pipe
    took it, let the server end with most of the last one unwritten."""
    text = "".join(f"line {number:06d} " + "y" * 60 + "\n" for number in range(20_000))
    (root / "big.txt").write_text(text, encoding="utf-8")
    reads = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": "read_file", "arguments": {"path": "big.txt", "start_line": 1, "end_line": lines}},
            }
        )
        for request_id in (2, 3, 4)
    ]
    stdin = (INITIALIZE + '{"jsonrpc":"2.0","method":"notifications/initialized"}\n' + "\n".join(reads) + "\n").encode()
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]

    done = subprocess.run(command, input=stdin, capture_output=True, timeout=60, check=False)

    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.decode().splitlines())}
    assert sorted(answers) == [1, 2, 3, 4], done.stderr.decode()[-2000:]
    expected = "".join(text.splitlines(keepends=True)[:lines])
    for request_id in (2, 3, 4):
        assert answers[request_id]["result"]["structuredContent"]["content"] == expected
    assert done.returncode == 0


def test_a_stdio_client_that_exits_mid_call_does_not_keep_the_server_waiting_for_that_call(
    root: Path, state_dir: Path
) -> None:
    """A client that exits closes both pipes: no answer can reach it, so the server ends at once instead of waiting,
    as it does when stdin alone closes, for its calls to finish. This call waits 5 s (ROOTS_ANSWER_SECONDS) on the
    client's answer to roots/list, which never comes; the server that waited for it exited only then."""
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert process.stdin is not None
    assert process.stdout is not None
    initialize = INITIALIZE.replace('"capabilities":{}', '"capabilities":{"roots":{}}')
    read = {"name": "read_file", "arguments": {"path": "."}}
    call = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": read})
    process.stdin.write(f'{initialize}{{"jsonrpc":"2.0","method":"notifications/initialized"}}\n{call}\n'.encode())
    process.stdin.flush()
    heard = [process.stdout.readline() for _ in range(2)]  # the initialize answer, then the server's roots/list
    process.stdout.close()
    process.stdin.close()
    try:
        returncode = process.wait(timeout=ROOTS_ANSWER_SECONDS - 1)
    finally:
        process.kill()
        process.wait()

    assert b'"roots/list"' in heard[1]
    assert returncode == 0


def test_stdio_from_dev_null_ends_at_once_with_nothing_on_stdout(root: Path, state_dir: Path) -> None:
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]

    done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=60, check=False)

    assert (done.returncode, done.stdout) == (0, b""), done.stderr.decode()[-2000:]


def test_stdio_answers_pipelined_requests_whole_and_each_under_its_id(
    root: Path, state_dir: Path, tmp_path: Path
) -> None:
    """Answers many times a pipe's buffer, written while other requests are in flight, arrive as whole frames."""
    text = "".join(f"line {number:06d} " + "y" * 80 + "\n" for number in range(3_000))  # 276,000 bytes
    (root / "big.txt").write_text(text, encoding="utf-8")
    server = RawStdioServer(root, state_dir, tmp_path / "stderr.txt")
    try:
        server.initialize()
        reads, pings = range(1, 13, 2), range(2, 13, 2)
        for request_id in reads:
            arguments = {"path": "big.txt", "max_lines": 10_000}
            server.send(
                {
                    "jsonrpc": "2.0",
                    "id": request_id,
                    "method": "tools/call",
                    "params": {"name": "read_file", "arguments": arguments},
                }
            )
            server.send({"jsonrpc": "2.0", "id": request_id + 1, "method": "ping"})
        assert server.wait_until(lambda answers: all(i in answers for i in range(1, 13))), server.stderr_tail()
        answers = server.answers_to(range(1, 13))
    finally:
        server.close()
    assert server.garbage == []
    assert all(answers[i]["result"] == {} for i in pings)
    for request_id in reads:
        content = answers[request_id]["result"]["structuredContent"]["content"]
        assert len(content) > 128 << 10
        assert text.startswith(content)


def test_a_stdio_server_whose_client_stopped_reading_still_ends_cleanly_on_eof(root: Path, state_dir: Path) -> None:
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdin is not None
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()  # every answer now meets a broken pipe
    ping = '{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
    process.stdin.write((INITIALIZE + ping).encode())
    process.stdin.close()

    returncode = process.wait(timeout=60)
    stderr = process.stderr.read().decode()
    process.stderr.close()

    assert returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr, stderr[-3000:]


@asynccontextmanager
async def http_server(settings: Settings) -> AsyncIterator[str]:
    """Serve on a pre-bound loopback socket, so the URL works before uvicorn finishes starting."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn_config(build_server(settings), settings, log_level="warning"))
    async with anyio.create_task_group() as group:
        group.start_soon(server.serve, [sock])
        try:
            yield f"http://127.0.0.1:{port}/mcp"
        finally:
            server.should_exit = True


async def test_http_serves_both_eras_on_one_endpoint(base_settings: Settings, root: Path, mode: str) -> None:
    (root / "a.txt").write_bytes(b"hello world")
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    with anyio.fail_after(30):
        async with http_server(settings) as url, Client(url, mode=mode) as client:
            assert client.protocol_version == ERA[mode]
            read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
            denied = await client.call_tool("read_file", {"path": "/etc/passwd"})
    assert read["content_hash"] == "d58b3fa7"
    assert error_code(denied) == "access_denied"


async def test_http_with_a_token_refuses_requests_without_it(base_settings: Settings, root: Path, mode: str) -> None:
    (root / "a.txt").write_bytes(b"hello world")
    settings = Settings(**{**base_settings.__dict__, "transport": "http", "auth_token": "s3cret"})
    with anyio.fail_after(30):
        async with http_server(settings) as url:
            async with httpx.AsyncClient() as raw:
                anonymous = await raw.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
                wrong = await raw.post(url, json={}, headers={"Authorization": "Bearer nope"})
            authorised = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"})
            async with authorised, Client(streamable_http_client(url, http_client=authorised), mode=mode) as client:
                read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
    assert (anonymous.status_code, wrong.status_code) == (401, 401)
    assert read["content_hash"] == "d58b3fa7"


async def test_a_client_of_the_2024_11_05_sse_transport_connects_at_sse_and_calls_tools(
    base_settings: Settings, root: Path, mode: str
) -> None:
    """The TypeScript SDK before 1.10 and the Inspector's --transport sse open GET /sse; it answered 404."""
    (root / "a.txt").write_bytes(b"hello world")
    settings = Settings(**{**base_settings.__dict__, "transport": "http", "auth_token": "s3cret"})
    with anyio.fail_after(30):
        async with http_server(settings) as url:
            sse_url = url.removesuffix("/mcp") + "/sse"
            async with httpx.AsyncClient() as raw:
                anonymous = await raw.get(sse_url)
                rebinding = await raw.get(sse_url, headers={"Authorization": "Bearer s3cret", "Host": "evil.example"})
            transport = sse_client(sse_url, headers={"Authorization": "Bearer s3cret"})
            async with Client(transport, mode=mode) as client:
                read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
                missing = await client.call_tool("read_file", {"path": "nope.txt"})
    assert (anonymous.status_code, rebinding.status_code) == (401, 421)
    assert read["content_hash"] == "d58b3fa7"
    assert error_code(missing) == "not_found"


async def sse_answers(settings: Settings, bodies: list[str]) -> list[httpx.Response]:
    """The answers of the 2024-11-05 SSE transport's message endpoint to ``bodies``, posted in one session."""
    with anyio.fail_after(30):
        async with (
            http_server(settings) as url,
            httpx.AsyncClient() as raw,
            raw.stream("GET", url.removesuffix("/mcp") + "/sse") as stream,
        ):
            lines = stream.aiter_lines()  # stepped with anext: leaving an `async for` would close the stream
            endpoint = ""
            while not endpoint.startswith("data: "):
                endpoint = await anext(lines)
            headers = {"Content-Type": "application/json"}
            target = url.removesuffix("/mcp") + endpoint.removeprefix("data: ")
            return [await raw.post(target, content=body, headers=headers) for body in bodies]


async def test_the_sse_transport_answers_a_bad_id_a_batch_and_no_json_with_json_rpc_errors(
    base_settings: Settings,
) -> None:
    """The SDK's message endpoint accepted (202) a request with id null, never to answer it, and refused the rest
    with the text "Could not parse message"; /mcp and stdio answer all three as JSON-RPC errors."""
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    bodies = ['{"jsonrpc":"2.0","id":null,"method":"ping"}', '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "not json"]
    bodies.append("[" * 3000 + "]" * 3000)  # json reads by recursion: once a 500 with a RecursionError
    bodies.append('{"jsonrpc":"2.0","id":7,"method":"ping"}')
    answers = await sse_answers(settings, bodies)
    assert [answer.status_code for answer in answers] == [400, 400, 400, 400, 202]
    errors = [answer.json()["error"] for answer in answers[:4]]
    assert [error["code"] for error in errors] == [-32600, -32600, -32700, -32700]
    assert "string or an integer" in errors[0]["message"]
    assert "batch" in errors[1]["message"]
    assert "deeper than the 200 levels" in errors[3]["message"]


async def test_the_sse_transport_answers_a_body_over_8_kib_that_is_no_json_with_a_parse_error_and_a_batch_as_one(
    base_settings: Settings,
) -> None:
    # A truncated write over 8 KiB was "Invalid Request: no JSON-RPC message" (-32600), as no batch was named.
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    write = {"name": "write_file", "arguments": {"path": "a.txt", "content": "z" * 20_000}}
    request = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": write})
    answers = await sse_answers(settings, [request[:9000], f"[{request}]"])
    assert [answer.status_code for answer in answers] == [400, 400]
    errors = [answer.json()["error"] for answer in answers]
    assert [error["code"] for error in errors] == [-32700, -32600]
    assert errors[0]["message"].startswith("Parse error: the body is not JSON")
    assert "batch" in errors[1]["message"]


def test_binding_beyond_loopback_without_a_token_refuses_to_start(
    root: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("FSGUARD_AUTH_TOKEN", raising=False)
    with pytest.raises(SystemExit) as stopped:
        main([str(root), "--transport", "http", "--host", "0.0.0.0", "--state-dir", str(state_dir)])
    assert stopped.value.code == 2
    assert "--auth-token" in capsys.readouterr().err


async def test_a_connection_that_never_sends_a_whole_request_is_closed_and_others_are_still_served(
    base_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(RequestDeadline, "seconds", 0.3)
    settings = Settings(**{**base_settings.__dict__, "transport": "http", "auth_token": "s3cret"})
    with anyio.fail_after(30):
        async with http_server(settings) as url:
            port = httpx.URL(url).port
            assert port is not None
            silent = await anyio.connect_tcp("127.0.0.1", port)
            headers_cut = await anyio.connect_tcp("127.0.0.1", port)
            await headers_cut.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a")
            body_cut = await anyio.connect_tcp("127.0.0.1", port)  # no token: answered 401 before its body came
            await body_cut.send(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{")
            heard = [await _until_closed(stream) for stream in (silent, headers_cut, body_cut)]
            async with httpx.AsyncClient() as raw:
                served = await raw.post(
                    url,
                    json={
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "initialize",
                        "params": {
                            "protocolVersion": "2025-11-25",
                            "capabilities": {},
                            "clientInfo": {"name": "t", "version": "1"},
                        },
                    },
                    headers={"Authorization": "Bearer s3cret", "Accept": "application/json, text/event-stream"},
                )
    assert heard[:2] == [b"", b""]
    assert heard[2].startswith(b"HTTP/1.1 401")
    assert served.status_code == 200


async def test_a_body_that_stops_arriving_is_answered_408_and_closed_and_one_that_keeps_coming_is_served(
    base_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A loopback server without a token waited for ever for a body announced and never sent whole.
    monkeypatch.setattr(RequestDeadline, "seconds", 1.0)
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    body = json.dumps(initialize).encode()
    with anyio.fail_after(15):
        async with http_server(settings) as url:
            port = httpx.URL(url).port
            assert port is not None
            head = (
                f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Accept: application/json, text/event-stream\r\nContent-Length: {len(body)}\r\n\r\n"
            ).encode()
            stalled = await anyio.connect_tcp("127.0.0.1", port)
            await stalled.send(head + body[:10])
            heard = await _until_closed(stalled)
            slow = await anyio.connect_tcp("127.0.0.1", port)
            await slow.send(head)
            step = len(body) // 6 + 1
            for start in range(0, len(body), step):  # 1.8 s in all, each piece well within the deadline
                with anyio.move_on_after(0.3):
                    early = await slow.receive()  # the server must neither answer nor close before the body is in
                    pytest.fail(f"answered before the whole body came: {early!r}")
                await slow.send(body[start : start + step])
            served = await slow.receive()
            await slow.aclose()
    assert heard.startswith(b"HTTP/1.1 408 Request Timeout\r\n")
    error = json.loads(heard.split(b"\r\n\r\n", 1)[1])["error"]
    assert error["code"] == -32600
    assert "the request body stopped arriving (nothing more came for 1 s)" in error["message"]
    assert served.startswith(b"HTTP/1.1 200 OK\r\n")


async def _until_closed(stream: anyio.abc.SocketStream) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    async with stream:
        while True:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return received
