"""Calls that arrive together on one connection share one roots/list (found by a probe: five concurrent calls sent
five): the first asks, the others wait for its answer, or its failure; roots/list_changed makes the next call ask
anew, and one connection's answer never serves another's calls. A 2026 call is its own request and asks in its own
round, so there each call is asked."""

from __future__ import annotations

import dataclasses
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client import ClientRequestContext
from mcp.client.session import ListRootsFnT
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import INTERNAL_ERROR, CallToolResult, ErrorData, ListRootsResult, Root
from pydantic import FileUrl

from fsguard.config import Settings
from fsguard.server import build_server
from tests.conftest import ClientFactory, error_code, structured
from tests.test_http_startup import child_environment
from tests.test_transports import http_server
from tests.tools.test_least_privilege import read, tree

pytestmark = pytest.mark.anyio

CALLS = 5


def slowly_answering(roots: list[Path], asked: list[int]) -> ListRootsFnT:
    """A roots/list callback naming what ``roots`` holds, counting each request in ``asked``, slow enough that the
    calls sent together all arrive while the first is asked."""

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        asked.append(1)
        await anyio.sleep(0.2)
        return ListRootsResult(roots=[Root(uri=FileUrl(path.as_uri())) for path in roots])

    return callback


async def together(client: Client, paths: list[Path]) -> list[CallToolResult]:
    """read_file of each path, all sent at once."""
    results: dict[int, CallToolResult] = {}

    async def one(index: int, path: Path) -> None:
        results[index] = await read(client, path)

    async with anyio.create_task_group() as group:
        for index, path in enumerate(paths):
            group.start_soon(one, index, path)
    return [results[index] for index in range(len(paths))]


def asked_per_call(mode: str) -> int:
    """How many roots/list the calls sent together cost: one in all on a 2025 connection, one each in 2026."""
    return 1 if mode == "legacy" else CALLS


async def test_calls_sent_together_share_one_roots_list_and_each_sees_the_roots(
    connect: ClientFactory, root: Path, mode: str
) -> None:
    tree(root, {"proj/a.txt": "inside\n", "other/b.txt": "outside\n"})
    asked: list[int] = []
    async with connect(list_roots_callback=slowly_answering([root / "proj"], asked)) as client:
        inside = await together(client, [root / "proj" / "a.txt"] * CALLS)
        outside = await together(client, [root / "other" / "b.txt"] * CALLS)
    assert [structured(result)["content"] for result in inside] == ["inside\n"] * CALLS
    assert [error_code(result) for result in outside] == ["access_denied"] * CALLS
    assert len(asked) == (1 if mode == "legacy" else 2 * CALLS)  # 2025: the answer is kept for the second batch


async def test_roots_list_changed_makes_the_next_calls_ask_anew_once(
    connect: ClientFactory, root: Path, mode: str
) -> None:
    tree(root, {"one/a.txt": "one\n", "two/b.txt": "two\n"})
    named = [root / "one"]
    asked: list[int] = []
    async with connect(list_roots_callback=slowly_answering(named, asked)) as client:
        first = await together(client, [root / "one" / "a.txt"] * CALLS)
        named[:] = [root / "two"]
        with pytest.warns(MCPDeprecationWarning):
            await client.session.send_roots_list_changed()
        second = await together(client, [root / "two" / "b.txt"] * CALLS)
        gone = await read(client, root / "one" / "a.txt")
    assert [structured(result)["content"] for result in first] == ["one\n"] * CALLS
    assert [structured(result)["content"] for result in second] == ["two\n"] * CALLS
    assert error_code(gone) == "access_denied"
    assert len(asked) == (2 if mode == "legacy" else 2 * CALLS + 1)


@pytest.mark.parametrize("mode", ["legacy"])  # a 2026 client failing its round fails its own call
async def test_a_failed_roots_list_is_shared_and_the_next_call_asks_again(connect: ClientFactory, root: Path) -> None:
    tree(root, {"proj/a.txt": "inside\n", "other/b.txt": "outside\n"})
    asked: list[int] = []

    async def failing_once(context: ClientRequestContext) -> ListRootsResult | ErrorData:
        asked.append(1)
        await anyio.sleep(0.2)
        if len(asked) == 1:
            return ErrorData(code=INTERNAL_ERROR, message="roots not ready")
        return ListRootsResult(roots=[Root(uri=FileUrl((root / "proj").as_uri()))])

    async with connect(list_roots_callback=failing_once) as client:
        # The failed ask serves the server's roots (the client named none yet) to every call waiting on it.
        served = await together(client, [root / "other" / "b.txt"] * CALLS)
        assert [structured(result)["content"] for result in served] == ["outside\n"] * CALLS
        assert len(asked) == 1
        assert error_code(await read(client, root / "other" / "b.txt")) == "access_denied"
    assert len(asked) == 2


@pytest.mark.parametrize("transport", ["memory", "http"])
async def test_two_connections_each_ask_for_their_own_roots(
    base_settings: Settings, mode: str, root: Path, transport: str
) -> None:
    tree(root, {"one/a.txt": "one\n", "two/b.txt": "two\n"})
    asked_one: list[int] = []
    asked_two: list[int] = []
    results: dict[str, list[CallToolResult]] = {}
    async with AsyncExitStack() as stack:
        if transport == "http":
            target: Any = await stack.enter_async_context(
                http_server(dataclasses.replace(base_settings, transport="http"))
            )
        else:
            target = build_server(base_settings)
        one = await stack.enter_async_context(
            Client(target, mode=mode, list_roots_callback=slowly_answering([root / "one"], asked_one))
        )
        two = await stack.enter_async_context(
            Client(target, mode=mode, list_roots_callback=slowly_answering([root / "two"], asked_two))
        )

        async def batch(name: str, client: Client, path: Path) -> None:
            results[name] = await together(client, [path, path])

        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(batch, "one", one, root / "one" / "a.txt")
                group.start_soon(batch, "two", two, root / "two" / "b.txt")
                group.start_soon(batch, "one_denied", one, root / "two" / "b.txt")
                group.start_soon(batch, "two_denied", two, root / "one" / "a.txt")
    assert [structured(result)["content"] for result in results["one"]] == ["one\n"] * 2
    assert [structured(result)["content"] for result in results["two"]] == ["two\n"] * 2
    assert [error_code(result) for result in results["one_denied"] + results["two_denied"]] == ["access_denied"] * 4
    assert (len(asked_one), len(asked_two)) == ((1, 1) if mode == "legacy" else (4, 4))


async def test_calls_sent_together_over_stdio_share_one_roots_list(root: Path, state_dir: Path) -> None:
    tree(root, {"proj/a.txt": "inside\n", "other/b.txt": "outside\n"})
    asked: list[int] = []
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "fsguard", str(root), "--state-dir", str(state_dir)],
        env=child_environment(),  # this checkout's fsguard
    )
    with anyio.fail_after(30):
        callback = slowly_answering([root / "proj"], asked)
        async with Client(params, mode="legacy", read_timeout_seconds=20, list_roots_callback=callback) as client:
            inside = await together(client, [root / "proj" / "a.txt"] * CALLS)
            outside = await together(client, [root / "other" / "b.txt"] * CALLS)
    assert [structured(result)["content"] for result in inside] == ["inside\n"] * CALLS
    assert [error_code(result) for result in outside] == ["access_denied"] * CALLS
    assert len(asked) == 1


@pytest.mark.parametrize("mode", ["legacy"])  # 2026 has no roots/list_changed
async def test_a_call_after_roots_list_changed_does_not_wait_for_the_roots_list_sent_before_it(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"one/a.txt": "one\n", "two/b.txt": "two\n"})
    asked: list[int] = []
    release = anyio.Event()

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        asked.append(1)
        if len(asked) == 1:  # the answer sent before the change, held until the call after it is served
            await release.wait()
            return ListRootsResult(roots=[Root(uri=FileUrl((root / "one").as_uri()))])
        return ListRootsResult(roots=[Root(uri=FileUrl((root / "two").as_uri()))])

    async with connect(list_roots_callback=callback) as client:
        results: dict[str, CallToolResult] = {}

        async def before() -> None:
            results["before"] = await read(client, root / "one" / "a.txt")

        with anyio.fail_after(10):
            async with anyio.create_task_group() as group:
                group.start_soon(before)
                while not asked:
                    await anyio.sleep(0.01)
                with pytest.warns(MCPDeprecationWarning):
                    await client.session.send_roots_list_changed()
                results["after"] = await read(client, root / "two" / "b.txt")
                release.set()
        latest = await read(client, root / "one" / "a.txt")
    assert structured(results["before"])["content"] == "one\n"
    assert structured(results["after"])["content"] == "two\n"
    assert error_code(latest) == "access_denied"  # the answer sent before the change is not kept
    assert len(asked) == 2
