"""A 2025-11-25 HTTP request reusing the id of one still in flight in its session is refused, as stdio refuses it:
the SDK's transport gave the second POST the first one's answer stream, so the first POST ended unanswered, the
second was told of the first one's write, and both writes were made (a probe of the HTTP transport)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from fsguard.config import Settings
from tests.test_cancelled_hooks import held_hook, let_go
from tests.test_transports import http_server

pytestmark = pytest.mark.anyio

HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def write(ident: object, path: str) -> dict[str, Any]:
    arguments = {"path": path, "content": f"{path}\n"}
    return {
        "jsonrpc": "2.0",
        "id": ident,
        "method": "tools/call",
        "params": {"name": "write_file", "arguments": arguments},
    }


def answer_of(response: httpx.Response) -> dict[str, Any]:
    """The JSON-RPC message of a plain JSON answer, or of an event stream's last data line."""
    if response.headers["content-type"].startswith("application/json"):
        return dict(response.json())
    data = [line[5:] for line in response.text.splitlines() if line.startswith("data:")]
    return dict(json.loads(data[-1]))


async def opened_session(http: httpx.AsyncClient, url: str) -> dict[str, str]:
    """A 2025-11-25 session opened (initialize, then initialized): the header naming it."""
    opened = await http.post(url, json=INITIALIZE)
    session = {"Mcp-Session-Id": opened.headers["mcp-session-id"]}
    await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=session)
    return session


@pytest.mark.parametrize("second_id", [5, "5"], ids=["same", "same-as-text"])
async def test_a_request_reusing_the_id_of_one_in_flight_is_refused_and_the_first_is_answered_its_own_result(
    base_settings: Settings, root: Path, tmp_path: Path, second_id: object
) -> None:
    config, started, release = held_hook(tmp_path)
    settings = dataclasses.replace(base_settings, transport="http", hooks_config=config)
    first: list[httpx.Response] = []
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient(headers=HEADERS, timeout=20) as http:
            session = await opened_session(http, url)

            async def first_write() -> None:
                first.append(await http.post(url, json=write(5, "x.txt"), headers=session))

            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(first_write)
                    await anyio.to_thread.run_sync(started.read_bytes)  # its pre-hook runs: the call is in flight
                    second = await http.post(url, json=write(second_id, "y.txt"), headers=session)
                    while not await anyio.to_thread.run_sync(let_go, release):  # the hook is on its way to waiting
                        await anyio.sleep(0.01)
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(let_go, release)
            read = {"name": "read_file", "arguments": {"path": "x.txt"}}  # no hook: answered at once, the id free again
            after = await http.post(
                url, json={"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": read}, headers=session
            )
    assert second.status_code == 400
    refusal = second.json()
    assert refusal["id"] is None
    assert refusal["error"]["code"] == -32600
    assert "still in flight" in refusal["error"]["message"]
    assert answer_of(first[0])["result"]["structuredContent"]["path"] == str(root / "x.txt")
    assert answer_of(after)["result"]["structuredContent"]["content"] == "x.txt\n"
    assert (root / "x.txt").read_bytes() == b"x.txt\n"
    assert not (root / "y.txt").exists()


async def test_a_retry_under_the_id_of_a_call_whose_client_went_away_is_refused_while_that_call_runs(
    base_settings: Settings, root: Path, tmp_path: Path
) -> None:
    """A client that gives up on a call (its timeout) and sends it again under the same id: the first call runs on
    with no answer stream, and the retry was made beside it and answered with the first one's result."""
    config, started, release = held_hook(tmp_path)
    settings = dataclasses.replace(base_settings, transport="http", hooks_config=config)
    with anyio.fail_after(30):
        async with http_server(settings) as url, httpx.AsyncClient(headers=HEADERS, timeout=20) as http:
            session = await opened_session(http, url)
            try:
                async with (
                    httpx.AsyncClient(headers=HEADERS, timeout=20) as leaving,
                    anyio.create_task_group() as group,
                ):
                    group.start_soon(lambda: leaving.post(url, json=write(5, "x.txt"), headers=session))
                    await anyio.to_thread.run_sync(started.read_bytes)  # its pre-hook runs: the call is in flight
                    group.cancel_scope.cancel()  # the client gives up and closes its connection
                retried = await http.post(url, json=write(5, "y.txt"), headers=session)
                while not await anyio.to_thread.run_sync(let_go, release):
                    await anyio.sleep(0.01)
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(let_go, release)
            params = {"name": "read_file", "arguments": {"path": "x.txt"}}
            read = {"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params}
            while (after := await http.post(url, json=read, headers=session)).status_code == 400:
                await anyio.sleep(0.05)  # refused until the first call ends: its id is free again then
    assert retried.status_code == 400
    assert "still in flight" in retried.json()["error"]["message"]
    assert answer_of(after)["result"]["structuredContent"]["content"] == "x.txt\n"
    assert not (root / "y.txt").exists()


async def test_the_sse_transport_refuses_a_request_reusing_the_id_of_one_in_flight_and_makes_only_the_first(
    base_settings: Settings, root: Path, tmp_path: Path
) -> None:
    """The 2024-11-05 transport ran both and answered both under the one id: the client took one as its answer."""
    config, started, release = held_hook(tmp_path)
    settings = dataclasses.replace(base_settings, transport="http", hooks_config=config)
    headers = {"Content-Type": "application/json"}
    initialize = json.loads(json.dumps(INITIALIZE).replace("2025-11-25", "2024-11-05"))
    with anyio.fail_after(30):
        async with (
            http_server(settings) as url,
            httpx.AsyncClient(timeout=20) as raw,
            raw.stream("GET", url.removesuffix("/mcp") + "/sse") as stream,
        ):
            lines = stream.aiter_lines()  # stepped with anext: leaving an `async for` would close the stream
            endpoint = ""
            while not endpoint.startswith("data: "):
                endpoint = await anext(lines)
            target = url.removesuffix("/mcp") + endpoint.removeprefix("data: ")
            await raw.post(target, json=initialize, headers=headers)
            await raw.post(target, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers)
            try:
                first = await raw.post(target, json=write(5, "x.txt"), headers=headers)
                await anyio.to_thread.run_sync(started.read_bytes)  # its pre-hook runs: the call is in flight
                second = await raw.post(target, json=write(5, "y.txt"), headers=headers)
                while not await anyio.to_thread.run_sync(let_go, release):
                    await anyio.sleep(0.01)
            finally:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(let_go, release)
            answers: list[dict[str, Any]] = []
            while len(answers) < 2:  # the initialize's, then the write's
                line = await anext(lines)
                if line.startswith("data: "):
                    answers.append(json.loads(line.removeprefix("data: ")))
    assert first.status_code == 202
    assert second.status_code == 400
    assert "still in flight" in second.json()["error"]["message"]
    assert answers[1]["result"]["structuredContent"]["path"] == str(root / "x.txt")
    assert (root / "x.txt").read_bytes() == b"x.txt\n"
    assert not (root / "y.txt").exists()
