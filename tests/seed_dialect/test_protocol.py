"""The seed's protocol dialect: a client written for it (stdio, the handshake era, the seed's tool shapes).

The seed spoke the handshake era over stdio (catalog §0: "MCP 2025-11-25" on mcp-go; its instructions name
the host filesystem and point at help()). A client pinned to that version or an older handshake version is
answered in its own version, sees the tools capability and those instructions, and calls tools with the
seed's shapes. fsguard deliberately advertises no prompts, resources or logging: it has none.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND

from tests.test_protocol_edges import exchange, frame

pytestmark = pytest.mark.anyio

HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]


@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
async def test_a_seed_era_client_is_answered_in_its_version_and_its_calls_work(
    root: Path, state_dir: Path, version: str
) -> None:
    (root / "notes.txt").write_bytes(b"hello world")
    answers = await exchange(
        root,
        state_dir,
        [
            frame(
                1,
                "initialize",
                {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "seed-era", "version": "1"}},
            ),
            frame(None, "notifications/initialized"),
            frame(2, "tools/call", {"name": "read_file", "arguments": {"path": str(root / "notes.txt")}}),
            frame(3, "tools/call", {"name": "read_text_file", "arguments": {"path": "notes.txt"}}),
            frame(4, "prompts/list", {}),
        ],
    )
    initialized = answers[1]["result"]
    assert initialized["protocolVersion"] == version
    assert sorted(initialized["capabilities"]) == ["tools"]
    assert "host filesystem" in initialized["instructions"]
    assert "help()" in initialized["instructions"]
    read = answers[2]["result"]
    assert read["structuredContent"]["content"] == "hello world"
    assert read["structuredContent"]["content_hash"] == "d58b3fa7"
    assert answers[3]["error"]["code"] == INVALID_PARAMS
    assert answers[3]["error"]["message"] == "Unknown tool: read_text_file"
    assert answers[4]["error"]["code"] == METHOD_NOT_FOUND
    assert (root / "notes.txt").read_bytes() == b"hello world"
