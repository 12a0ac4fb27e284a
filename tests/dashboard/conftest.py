"""Dashboard fixtures: a root, state and log directory shared by a dashboard and MCP servers, and a way to act as
an agent (an in-memory MCP client on a server built from the same settings)."""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.server import build_server

Calls = list[tuple[str, dict[str, Any]]]


@pytest.fixture
def shared(tmp_path: Path) -> Settings:
    """Settings a dashboard and the servers share: one root, a state dir and an audit log directory."""
    return site_settings(tmp_path)


def site_settings(base: Path) -> Settings:
    root = base / "root"
    root.mkdir()
    return Settings(roots=(root.resolve(),), state_dir=base / "state", log_dir=base / "logs")


def as_agent(settings: Settings, calls: Calls) -> list[CallToolResult]:
    """Make ``calls`` through an MCP server on ``settings`` (in-memory client), as an agent would.

    Runs on its own thread and event loop, so a test may call it while a browser or a TestClient holds another.
    """
    results: list[CallToolResult] = []
    failure: list[BaseException] = []

    async def session() -> None:
        async with Client(build_server(settings)) as client:
            for name, arguments in calls:
                results.append(await client.call_tool(name, arguments))

    def run(job: Callable[[], Awaitable[None]]) -> None:
        try:
            anyio.run(job)
        except BaseException as exc:  # handed to the test's thread below
            failure.append(exc)

    thread = threading.Thread(target=run, args=(session,))
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the MCP session did not finish within 60 s"
    if failure:
        raise failure[0]
    return results
