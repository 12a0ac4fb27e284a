"""Protocol edges, in both eras: tools-only capabilities, unknown tools as -32602, HTTP body size, bearer case.

In memory through the ``client`` fixture, over real stdio frames, and over real HTTP (uvicorn on loopback).
"""

from __future__ import annotations

import base64
import json
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR

from fsguard.config import Settings
from fsguard.http import BODY_ENVELOPE, request_body_limit
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.test_transports import http_server

pytestmark = pytest.mark.anyio

UNOFFERED: dict[str, Callable[[Client], Awaitable[object]]] = {
    "prompts/list": lambda c: c.list_prompts(),
    "prompts/get": lambda c: c.get_prompt("nope"),
    "resources/list": lambda c: c.list_resources(),
    "resources/templates/list": lambda c: c.list_resource_templates(),
    "resources/read": lambda c: c.read_resource("file:///etc/passwd"),
}


async def _refusals(client: Client) -> dict[str, tuple[int, str]]:
    """Each prompts/resources request's JSON-RPC error (code, message)."""
    refused: dict[str, tuple[int, str]] = {}
    for method, request in UNOFFERED.items():
        with pytest.raises(MCPError) as raised:
            await request(client)
        refused[method] = (raised.value.code, raised.value.message)
    return refused


async def _unknown_tool(client: Client, name: str) -> MCPError:
    with pytest.raises(MCPError) as raised:
        await client.call_tool(name, {"path": "x"})
    return raised.value


# -- in memory, both eras --------------------------------------------------------------------------------------


async def test_only_the_tools_capability_is_advertised(client: Client) -> None:
    capabilities = client.server_capabilities
    assert capabilities is not None
    assert capabilities.tools is not None
    assert (capabilities.prompts, capabilities.resources) == (None, None)


async def test_prompt_and_resource_requests_are_method_not_found(client: Client) -> None:
    assert await _refusals(client) == dict.fromkeys(UNOFFERED, (METHOD_NOT_FOUND, "Method not found"))


async def test_tools_still_work_after_refused_prompt_requests(client: Client, root: Path) -> None:
    await _refusals(client)
    data = structured(await client.call_tool("write_file", {"path": "a.txt", "content": "kept\n"}))
    assert data["bytes_written"] == 5
    assert (root / "a.txt").read_bytes() == b"kept\n"


async def test_an_unknown_tool_is_a_protocol_error_naming_the_closest_tool(client: Client) -> None:
    error = await _unknown_tool(client, "list_directroy")
    assert (error.code, error.message) == (INVALID_PARAMS, "Unknown tool: list_directroy")
    assert error.data == {"name": "list_directroy", "did_you_mean": "list_directory"}


@pytest.mark.parametrize(("called", "meant"), [("edit", "edit_file"), ("list_dir", "list_directory")])
async def test_an_unknown_tool_that_starts_a_tool_name_suggests_that_tool_not_the_nearest_spelling(
    client: Client, called: str, meant: str
) -> None:
    error = await _unknown_tool(client, called)  # "edit" is two letters from "git"
    assert error.data == {"name": called, "did_you_mean": meant}


async def test_an_unknown_tool_far_from_every_name_has_no_suggestion(client: Client) -> None:
    error = await _unknown_tool(client, "frobnicate_everything")
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "Unknown tool: frobnicate_everything",
        {"name": "frobnicate_everything"},
    )


async def test_a_write_tool_on_a_read_only_server_is_an_unknown_tool_and_writes_nothing(
    connect: ClientFactory, root: Path
) -> None:
    async with connect(read_only=True) as client:
        error = await _unknown_tool(client, "write_file")
    assert error.code == INVALID_PARAMS
    assert list(root.iterdir()) == []


async def test_unknown_tools_are_counted_and_audited(connect: ClientFactory, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    async with connect(log_dir=logs) as client:
        await _unknown_tool(client, "read_fille")
        stats = structured(await client.call_tool("server_info", {"action": "stats"}))["stats"]
    assert stats["errors_by_code"] == {"unknown_tool": 1}
    lines = [
        json.loads(line) for path in logs.rglob("*.jsonl") for line in path.read_text(encoding="utf-8").splitlines()
    ]
    audited = [line for line in lines if line.get("tool") == "read_fille"]
    assert [(line["status"], line["error_code"]) for line in audited] == [("error", "unknown_tool")]


async def test_invalid_arguments_stay_tool_errors(client: Client, root: Path) -> None:
    unknown = await client.call_tool("read_file", {"pth": "a.txt"})
    mistyped = await client.call_tool("read_file", {"path": "a.txt", "start_line": "first"})
    assert (error_code(unknown), error_code(mistyped)) == ("unknown_param", "invalid_params")
    assert 'did you mean "path"?' in text_of(unknown)


# -- stdio: the wire itself --------------------------------------------------------------------------------------


def frame(request_id: int | None, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if request_id is not None:
        message["id"] = request_id
    if params is not None:
        message["params"] = params
    return json.dumps(message) + "\n"


MODERN_META = {
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
}


def handshake(era: str, request_id: int = 11) -> list[str]:
    """The frames that open a stdio session: server/discover in the 2026-07-28 era ("modern"), else initialize and
    the initialized notification (2025-11-25)."""
    if era == "modern":
        return [frame(request_id, "server/discover", MODERN_META)]
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    return [frame(request_id, "initialize", hello), frame(None, "notifications/initialized")]


async def exchange(root: Path, state_dir: Path, frames: list[str]) -> dict[int, dict[str, Any]]:
    """Send ``frames`` to a real ``python -m fsguard`` over stdio; its answers by request id.

    Stdin stays open until every request is answered: closing it ends the server, calls in flight included.
    """
    expected = {json.loads(frame)["id"] for frame in frames if '"id"' in frame}
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    answers: dict[int, dict[str, Any]] = {}
    with anyio.fail_after(30):
        async with await anyio.open_process(command, stderr=subprocess.DEVNULL) as process:
            assert process.stdin is not None
            assert process.stdout is not None
            await process.stdin.send("".join(frames).encode())
            buffered = b""
            async for chunk in process.stdout:
                buffered += chunk
                *lines, buffered = buffered.split(b"\n")
                answers.update((answer["id"], answer) for answer in map(json.loads, lines) if "id" in answer)
                if set(answers) >= expected:
                    break
            await process.stdin.aclose()
    return answers


def _wire_checks(era_frames: list[str], first_id: int) -> list[str]:
    """prompts/get, resources/list and an unknown tools/call, numbered from ``first_id``."""
    meta = MODERN_META if first_id > 10 else {}
    return [
        *era_frames,
        frame(first_id, "prompts/get", {"name": "nope", **meta}),
        frame(first_id + 1, "resources/list", {**meta}),
        frame(first_id + 2, "tools/call", {"name": "read_fille", "arguments": {"path": "a"}, **meta}),
    ]


async def test_stdio_answers_standard_codes_on_the_wire_in_both_eras(root: Path, tmp_path: Path) -> None:
    legacy = await exchange(root, tmp_path / "s1", _wire_checks(handshake("legacy", 1), 2))
    modern = await exchange(root, tmp_path / "s2", _wire_checks([frame(11, "server/discover", MODERN_META)], 12))
    assert sorted(legacy[1]["result"]["capabilities"]) == ["tools"]
    assert sorted(modern[11]["result"]["capabilities"]) == ["tools"]
    for answers, first in ((legacy, 2), (modern, 12)):
        assert answers[first]["error"]["code"] == METHOD_NOT_FOUND
        assert answers[first + 1]["error"]["code"] == METHOD_NOT_FOUND
        assert answers[first + 2]["error"] == {
            "code": INVALID_PARAMS,
            "message": "Unknown tool: read_fille",
            "data": {"name": "read_fille", "did_you_mean": "read_file"},
        }


# -- HTTP ---------------------------------------------------------------------------------------------------------


def _http(base_settings: Settings, **overrides: Any) -> Settings:
    return Settings(**{**base_settings.__dict__, "transport": "http", **overrides})


async def test_http_advertises_tools_only_and_refuses_unknown_tools_with_32602(
    base_settings: Settings, mode: str
) -> None:
    with anyio.fail_after(30):
        async with http_server(_http(base_settings)) as url, Client(url, mode=mode) as client:
            capabilities = client.server_capabilities
            refused = await _refusals(client)
            error = await _unknown_tool(client, "read_fille")
    assert capabilities is not None
    assert (capabilities.prompts, capabilities.resources) == (None, None)
    assert set(refused.values()) == {(METHOD_NOT_FOUND, "Method not found")}
    assert (error.code, error.message, error.data) == (
        INVALID_PARAMS,
        "Unknown tool: read_fille",
        {"name": "read_fille", "did_you_mean": "read_file"},
    )


def _six_mib_of_text() -> str:
    """Text that JSON has to escape (quotes, backslashes, newlines, tabs) with non-ASCII in it."""
    line = 'déjà vu: "quoted" \\ back\tslash — 日本語\n'
    return line * (6 * 1024 * 1024 // len(line.encode()) + 1)


async def test_http_writes_six_mib_and_the_bytes_on_disk_match(base_settings: Settings, root: Path, mode: str) -> None:
    content = _six_mib_of_text()
    with anyio.fail_after(60):
        async with http_server(_http(base_settings)) as url, Client(url, mode=mode) as client:
            data = structured(await client.call_tool("write_file", {"path": "big.txt", "content": content}))
    assert data["bytes_written"] == len(content.encode()) > 6 * 1024 * 1024
    assert (root / "big.txt").read_bytes() == content.encode()


async def test_http_accepts_a_file_of_max_size_whose_json_is_twice_as_long(
    base_settings: Settings, root: Path, mode: str
) -> None:
    size = 64 * 1024
    doubled = '"\n' * (size // 2)  # every character escapes to two
    raw = bytes(range(256)) * (size // 256)
    with anyio.fail_after(30):
        async with http_server(_http(base_settings, max_file_size=size)) as url, Client(url, mode=mode) as client:
            text = structured(await client.call_tool("write_file", {"path": "q.txt", "content": doubled}))
            binary = structured(
                await client.call_tool(
                    "write_file", {"path": "b.bin", "content_base64": base64.b64encode(raw).decode()}
                )
            )
    assert (text["bytes_written"], binary["bytes_written"]) == (size, size)
    assert (root / "q.txt").read_bytes() == doubled.encode()
    assert (root / "b.bin").read_bytes() == raw


async def test_http_body_over_the_limit_gets_413_naming_the_flag(base_settings: Settings, root: Path) -> None:
    settings = _http(base_settings, max_file_size=64 * 1024)
    limit = request_body_limit(settings)
    assert limit == 2 * 64 * 1024 + BODY_ENVELOPE
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}

    async def streamed() -> AsyncIterator[bytes]:  # no Content-Length: the limit counts as the body arrives
        for _ in range(4):
            yield b" " * (limit // 3)

    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient() as raw:
            at_limit = await raw.post(url, content=b" " * limit, headers=headers)
            declared = await raw.post(url, content=b" " * (limit + 1), headers=headers)
            chunked = await raw.post(url, content=streamed(), headers=headers)
    assert at_limit.status_code != 413
    for refused in (declared, chunked):
        assert refused.status_code == 413
        assert refused.headers["content-type"] == "application/json"
        error = refused.json()["error"]
        assert error["code"] == INVALID_REQUEST
        assert "--max-file-size" in error["message"]
        assert f"{limit:,} bytes" in error["message"]
    assert list(root.iterdir()) == []


async def test_http_answers_a_body_that_is_no_message_with_32600_and_keeps_serving(
    base_settings: Settings, root: Path, mode: str
) -> None:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    bodies = {
        "batch": b'[{"jsonrpc":"2.0","id":5,"method":"tools/list"},{"jsonrpc":"2.0","id":6,"method":"ping"}]',
        "empty batch": b" []",
        "no method": b'{"jsonrpc":"2.0","id":7}',
        "not JSON-RPC": b'{"foo":1}',
    }
    with anyio.fail_after(30):
        async with http_server(_http(base_settings)) as url:
            async with httpx.AsyncClient() as raw:
                answers = {name: await raw.post(url, content=body, headers=headers) for name, body in bodies.items()}
            async with Client(url, mode=mode) as client:
                written = await client.call_tool("write_file", {"path": "after.txt", "content": "still served\n"})
    for name, answer in answers.items():
        assert answer.status_code == 400, name
        error = answer.json()["error"]
        assert error["code"] == INVALID_REQUEST, name
        assert "Validation error" not in error["message"]
        assert ("batch" in error["message"]) == name.endswith("batch"), name
    assert not written.is_error
    assert (root / "after.txt").read_bytes() == b"still served\n"


@pytest.mark.parametrize("era", ["2025-11-25", "2026-07-28"])
async def test_http_answers_a_body_that_is_not_json_saying_nothing_was_done_and_what_to_send(
    base_settings: Settings, root: Path, era: str
) -> None:
    """The SDK said "Parse error" (2026-07-28) or where pydantic stopped (2025-11-25), never what to do; stdio and
    /sse said both."""
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    headers |= {"mcp-protocol-version": era, "mcp-method": "tools/call", "mcp-name": "write_file"}
    bodies = {"broken": b'{"jsonrpc":"2.0","id":1,', "trailing": b'{"jsonrpc":"2.0","id":1,"method":"ping"} x'}
    with anyio.fail_after(30):
        async with http_server(_http(base_settings)) as url, httpx.AsyncClient() as raw:
            answers = {name: await raw.post(url, content=body, headers=headers) for name, body in bodies.items()}
            deep = await raw.post(url, content=b"[" * 5000 + b"]" * 5000, headers=headers)
    for name, answer in answers.items():
        assert answer.status_code == 400, name
        error = answer.json()["error"]
        assert error["code"] == PARSE_ERROR, name
        assert error["message"].startswith("Parse error: the body is not JSON"), name
        assert error["message"].endswith("nothing was done. Send one JSON-RPC message per request."), name
    if era == "2025-11-25":  # the 2026-07-28 path says no more than "Parse error" of a body too deep
        assert "deeper than the 200 levels" in deep.json()["error"]["message"]
    assert "nothing was done" in deep.json()["error"]["message"]
    assert list(root.iterdir()) == []


async def test_http_refuses_an_unknown_protocol_version_header_naming_the_ones_it_speaks(
    base_settings: Settings, root: Path
) -> None:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    hello = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "probe", "version": "1"}}
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello})
    with anyio.fail_after(30):
        async with http_server(_http(base_settings)) as url, httpx.AsyncClient() as raw:
            unknown = await raw.post(url, content=body, headers={**headers, "mcp-protocol-version": "1999-01-01"})
            known = await raw.post(url, content=body, headers={**headers, "mcp-protocol-version": "2025-11-25"})
    assert unknown.status_code == 400
    error = unknown.json()["error"]
    assert error["code"] == INVALID_REQUEST
    assert "'1999-01-01'" in error["message"]
    assert "2025-11-25" in error["message"]
    assert "2026-07-28" in error["message"]
    assert "_meta" not in error["message"]
    assert known.status_code == 200
    assert list(root.iterdir()) == []


async def test_an_sdk_client_sees_the_413_text_and_keeps_working(
    base_settings: Settings, root: Path, mode: str
) -> None:
    settings = _http(base_settings, max_file_size=64 * 1024)
    with anyio.fail_after(30):
        async with http_server(settings) as url, Client(url, mode=mode) as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("write_file", {"path": "big.txt", "content": "a" * (256 * 1024)})
            after = structured(await client.call_tool("write_file", {"path": "small.txt", "content": "ok"}))
    assert raised.value.code == INVALID_REQUEST
    assert "Restart fsguard with a larger --max-file-size" in raised.value.message
    assert not (root / "big.txt").exists()
    assert after["bytes_written"] == 2
    assert (root / "small.txt").read_bytes() == b"ok"


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


async def test_http_answers_a_request_whose_id_is_no_string_or_integer_with_32600_and_runs_nothing(
    base_settings: Settings, root: Path, mode: str
) -> None:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    write = {"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}
    odd = [None, 1.5, True, [3]]
    with anyio.fail_after(30):
        async with http_server(_http(base_settings)) as url, httpx.AsyncClient() as raw:
            if mode == "legacy":
                opened = await raw.post(url, json=INITIALIZE, headers=headers)
                headers["mcp-session-id"] = opened.headers["mcp-session-id"]
                meta: dict[str, Any] = {}
            else:
                modern = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "write_file"}
                headers.update(modern)
                meta = MODERN_META
            call = {"jsonrpc": "2.0", "method": "tools/call", "params": {**write, **meta}}
            refused = [await raw.post(url, json={**call, "id": bad}, headers=headers) for bad in odd]
            kept = list(root.iterdir())
            called = await raw.post(url, json={**call, "id": 5}, headers=headers)
    assert [answer.status_code for answer in refused] == [400] * len(odd)
    assert {answer.json()["error"]["code"] for answer in refused} == {INVALID_REQUEST}
    if mode == "legacy":  # 2026 requests are refused by the SDK's own envelope check, in its words
        assert all("string or an integer" in answer.json()["error"]["message"] for answer in refused)
    assert kept == []
    assert called.status_code == 200, called.text
    assert (root / "a.txt").read_bytes() == b"x"


async def test_bearer_scheme_is_case_insensitive_and_only_the_token_counts(base_settings: Settings) -> None:
    accepted = ["Bearer s3cret", "bearer s3cret", "BEARER s3cret", "bEaReR s3cret", "Bearer   s3cret"]
    refused = ["", "Bearer", "Bearers3cret", "Basic s3cret", "Bearer S3CRET", "bearer s3cre", "s3cret"]
    headers = {"accept": "application/json, text/event-stream"}
    with anyio.fail_after(30):
        async with http_server(_http(base_settings, auth_token="s3cret")) as url, httpx.AsyncClient() as raw:
            statuses = {
                value: (await raw.post(url, json=INITIALIZE, headers={**headers, "Authorization": value})).status_code
                for value in accepted + refused
            }
            lowercase_header = await raw.post(
                url, json=INITIALIZE, headers={**headers, "AUTHORIZATION": "bearer s3cret"}
            )
    assert statuses == {**dict.fromkeys(accepted, 200), **dict.fromkeys(refused, 401)}
    assert lowercase_header.status_code == 200


async def test_an_sdk_client_sending_lowercase_bearer_works(base_settings: Settings, root: Path, mode: str) -> None:
    (root / "a.txt").write_bytes(b"hello world")
    with anyio.fail_after(30):
        async with http_server(_http(base_settings, auth_token="s3cret")) as url:
            authorised = httpx2.AsyncClient(headers={"Authorization": "bearer s3cret"})
            async with authorised, Client(streamable_http_client(url, http_client=authorised), mode=mode) as client:
                read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
    assert read["content"] == "hello world"


async def test_stdio_reads_a_first_frame_behind_a_byte_order_mark_in_both_eras(root: Path, tmp_path: Path) -> None:
    legacy_start = frame(
        1,
        "initialize",
        {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    )
    legacy = await exchange(root, tmp_path / "s1", ["\ufeff", legacy_start])
    modern = await exchange(root, tmp_path / "s2", ["\ufeff", frame(11, "server/discover", MODERN_META)])
    assert legacy[1]["result"]["protocolVersion"] == "2025-11-25"
    assert sorted(modern[11]["result"]["capabilities"]) == ["tools"]


async def _answer_lines(root: Path, state_dir: Path, frames: list[bytes], last_id: int) -> list[dict[str, Any]]:
    """Every answer a real stdio server writes for ``frames`` (raw bytes, any of them broken), up to ``last_id``'s."""
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    answers: list[dict[str, Any]] = []
    with anyio.fail_after(30):
        async with await anyio.open_process(command, stderr=subprocess.DEVNULL) as process:
            assert process.stdin is not None
            assert process.stdout is not None
            await process.stdin.send(b"".join(frames))
            buffered = b""
            async for chunk in process.stdout:
                *lines, buffered = (buffered + chunk).split(b"\n")
                answers += map(json.loads, lines)
                if any(answer.get("id") == last_id for answer in answers):
                    break
            await process.stdin.aclose()
    return answers


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_stdio_answers_frames_that_are_no_json_rpc_with_standard_codes_and_writes_nothing_for_them(
    root: Path, tmp_path: Path, era: str
) -> None:
    meta = MODERN_META if era == "modern" else {}
    write = frame(2, "tools/call", {"name": "write_file", "arguments": {"path": "cafe.txt", "content": "caf@"}, **meta})
    frames = [
        *(line.encode() for line in handshake(era, 1)),
        write.encode().replace(b"caf@", b"caf\xe9"),  # Latin-1, not UTF-8: once written as U+FFFD
        b"not json\n",
        b"\n",  # a blank line between frames asks nothing
        b"[" + frame(3, "ping").encode().rstrip() + b"]\n",  # a batch array
        b'{"id": "k", "foo": 1}\n',  # no method: no request, so its id is no client's
        b'{"jsonrpc": "2.0", "id": "m", "method": 7}\n',
        frame(4, "tools/list", {**meta}).encode(),
    ]
    answers = await _answer_lines(root, tmp_path / "state", frames, 4)

    # Refusals are written as their lines are read, so they may come before the answer to the handshake.
    refused = [(answer["id"], answer["error"]["code"]) for answer in answers if "error" in answer]
    assert refused == [
        (2, PARSE_ERROR),
        (None, PARSE_ERROR),
        (None, INVALID_REQUEST),
        (None, INVALID_REQUEST),
        ("m", INVALID_REQUEST),
    ]
    by_id = {answer["id"]: answer for answer in answers if answer["id"] in (2, 4)}
    assert "not UTF-8 (byte 0xE9" in by_id[2]["error"]["message"]
    assert len(by_id[4]["result"]["tools"]) == 20
    assert not (root / "cafe.txt").exists()


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_stdio_refuses_frames_nested_too_deep_to_read_and_goes_on_serving(
    root: Path, tmp_path: Path, era: str
) -> None:
    """json reads by recursion: a frame of 100,000 open brackets raised RecursionError while its refusal looked for
    its id, and the server ended."""
    meta = MODERN_META if era == "modern" else {}
    deep = "[" * 100_000 + "]" * 100_000
    write = frame(2, "tools/call", {"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}, **meta})
    frames = [
        *(line.encode() for line in handshake(era, 1)),
        deep.encode() + b"\n",
        write.replace('"x"', "[" * 300 + '"x"' + "]" * 300).encode(),  # deeper than the SDK reads, not than json
        write.replace('"x"', deep).encode(),
        frame(4, "tools/list", {**meta}).encode(),
    ]
    answers = await _answer_lines(root, tmp_path / "state", frames, 4)
    refused = [(answer["id"], answer["error"]["code"]) for answer in answers if "error" in answer]
    assert refused == [(None, PARSE_ERROR), (2, PARSE_ERROR), (None, PARSE_ERROR)]
    assert all("deeper than the 200 levels" in answer["error"]["message"] for answer in answers if "error" in answer)
    assert len(next(answer for answer in answers if answer.get("id") == 4)["result"]["tools"]) == 20
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_stdio_refuses_a_lone_surrogate_escape_under_the_id_it_was_sent_with_and_goes_on(
    root: Path, tmp_path: Path, era: str
) -> None:
    """JSON may escape half a surrogate pair ("\\ud800"), which stands for no character and has no UTF-8: the SDK
    refuses such a frame, and its refusal, echoing an id spelled so, could not be written; the server ended."""
    (root / "a.txt").write_bytes(b"hello\n")
    meta = MODERN_META if era == "modern" else {}
    read = frame(2, "tools/call", {"name": "read_file", "arguments": {"path": "a.txt"}, **meta})
    write = frame(3, "tools/call", {"name": "write_file", "arguments": {"path": "b-@.txt", "content": "x"}, **meta})
    frames = [
        *(line.encode() for line in handshake(era, 1)),
        read.replace('"id": 2', '"id": "\\ud800"').encode(),
        write.replace("@", "\\udfff").encode(),
        frame(4, "tools/list", {**meta}).encode(),
    ]
    answers = {answer["id"]: answer for answer in await _answer_lines(root, tmp_path / "state", frames, 4)}
    refused = [answers["\ud800"]["error"], answers[3]["error"]]
    assert [error["code"] for error in refused] == [PARSE_ERROR, PARSE_ERROR]
    assert all("half a UTF-16 surrogate pair" in error["message"] for error in refused)
    assert len(answers[4]["result"]["tools"]) == 20
    assert sorted(path.name for path in root.iterdir()) == ["a.txt"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_stdio_goes_on_after_a_cancellation_naming_no_request_id(root: Path, tmp_path: Path, era: str) -> None:
    """A notifications/cancelled whose requestId was an object ended the server: it was looked up among the
    requests in flight, which hold only strings and integers (found by a frame fuzz)."""
    (root / "a.txt").write_bytes(b"hello\n")
    meta = MODERN_META if era == "modern" else {}
    odd_ids: list[object] = [{}, [1], None, 1.5]
    frames = [
        *(line.encode() for line in handshake(era, 1)),
        *(frame(None, "notifications/cancelled", {"requestId": odd, **meta}).encode() for odd in odd_ids),
        frame(2, "tools/call", {"name": "read_file", "arguments": {"path": "a.txt"}, **meta}).encode(),
    ]
    answers = {answer["id"]: answer for answer in await _answer_lines(root, tmp_path / "state", frames, 2)}
    assert answers[2]["result"]["structuredContent"]["content"] == "hello\n"


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_stdio_answers_a_request_whose_id_is_no_string_or_integer_with_32600_and_runs_nothing(
    root: Path, tmp_path: Path, era: str
) -> None:
    meta = MODERN_META if era == "modern" else {}
    call = json.loads(frame(0, "tools/call", {"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}))
    odd = [None, 1.5, 2.0, True, [3], {"id": 4}]
    frames = [
        *(line.encode() for line in handshake(era, 1)),
        *(json.dumps({**call, "id": bad, "params": {**call["params"], **meta}}).encode() + b"\n" for bad in odd),
        b'{"jsonrpc": "2.0", "id": null, "method": "notifications/initialized"}\n',  # a notice, id or not
        frame(5, "tools/list", {**meta}).encode(),
    ]
    answers = await _answer_lines(root, tmp_path / "state", frames, 5)
    refused = [(answer["id"], answer["error"]["code"]) for answer in answers if "error" in answer]
    assert refused == [(None, INVALID_REQUEST)] * len(odd)
    assert all("string or an integer" in answer["error"]["message"] for answer in answers if "error" in answer)
    assert len(next(answer for answer in answers if answer.get("id") == 5)["result"]["tools"]) == 20
    assert list(root.iterdir()) == []


async def test_stdio_names_what_is_missing_from_an_initialize_and_a_request_sent_before_it(
    root: Path, tmp_path: Path
) -> None:
    """The 2025-11-25 handshake only: a 2026-07-28 request carries its own envelope and has no initialize."""
    write = {"name": "write_file", "arguments": {"path": "a.txt", "content": "x"}}
    frames = [
        frame(1, "tools/call", write),
        frame(2, "initialize", {"protocolVersion": "2025-06-18", "clientInfo": {"name": "t"}}),
        frame(3, "ping"),
    ]
    answers = await exchange(root, tmp_path / "state", frames)
    early, hello = answers[1]["error"], answers[2]["error"]
    assert (early["code"], hello["code"]) == (INVALID_PARAMS, INVALID_PARAMS)
    assert early["message"].startswith("Server not initialized: tools/call came before initialize.")
    assert "params.capabilities: Field required" in hello["message"]
    assert "params.clientInfo.version: Field required" in hello["message"]
    assert answers[3]["result"] == {}
    assert list(root.iterdir()) == []


@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_a_stdio_server_ended_by_a_signal_shuts_down_cleanly_and_writes_its_metrics(
    root: Path, tmp_path: Path, ending: signal.Signals, era: str
) -> None:
    start = handshake(era)
    call = frame(
        12, "tools/call", {"name": "list_directory", "arguments": {}, **(MODERN_META if era == "modern" else {})}
    )
    logs = tmp_path / "logs"
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(tmp_path / "s"), "--log-dir", str(logs)]
    with anyio.fail_after(30):
        async with await anyio.open_process(command) as process:
            assert process.stdin is not None
            assert process.stdout is not None
            assert process.stderr is not None
            await process.stdin.send("".join([*start, call]).encode())
            buffered = b""
            while b'"id":12' not in buffered:
                buffered += await process.stdout.receive()
            process.send_signal(ending)
            code = await process.wait()
            stderr = b"".join([chunk async for chunk in process.stderr])
    assert code == 0
    assert b"Traceback" not in stderr
    assert json.loads((logs / "metrics.json").read_text(encoding="utf-8"))["by_tool"] == {"list_directory": 1}


@pytest.mark.parametrize("era", ["legacy", "modern"])
async def test_stdio_refuses_a_number_too_long_to_read_under_the_id_it_was_sent_with(
    root: Path, tmp_path: Path, era: str
) -> None:
    """A number of more than 4,300 digits is JSON, which neither the SDK nor json reads: the refusal said the frame
    was no JSON and, unable to read its id, answered under a null id, so the client waited for its answer."""
    meta = MODERN_META if era == "modern" else {}
    write = frame(2, "tools/call", {"name": "write_file", "arguments": {"path": "a.txt", "content": "@"}, **meta})
    frames = [
        *(line.encode() for line in handshake(era, 1)),
        write.replace('"@"', "1" * 5000).encode(),
        frame(4, "tools/list", {**meta}).encode(),
    ]
    answers = {answer["id"]: answer for answer in await _answer_lines(root, tmp_path / "state", frames, 4)}
    assert answers[2]["error"]["code"] == PARSE_ERROR
    assert "number of more than 4,300 digits" in answers[2]["error"]["message"]
    assert len(answers[4]["result"]["tools"]) == 20
    assert list(root.iterdir()) == []
