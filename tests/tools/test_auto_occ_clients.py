"""Auto-OCC's memory of what each client read is kept per connection: two agents on one server (an HTTP server with
two legacy sessions, here two in-process connections) are two readers, and a write from a read the other agent made
stale is refused in block mode, its bytes never replacing the other's acknowledged edit. A 2026-era call comes on
no connection, so its memory is the server's own (README: "Least privilege"/auto-OCC)."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from fsguard.config import Settings
from fsguard.server import build_server
from tests.conftest import error_code, structured

pytestmark = pytest.mark.anyio


async def test_a_write_from_a_read_another_client_made_stale_is_refused_and_keeps_its_edit(
    base_settings: Settings, root: Path, mode: str
) -> None:
    (root / "f.txt").write_bytes(b"v1\n")
    server = build_server(Settings(**{**base_settings.__dict__, "auto_occ": "block"}))
    async with Client(server, mode=mode) as first, Client(server, mode=mode) as second:
        structured(await first.call_tool("read_file", {"path": "f.txt"}))
        structured(await second.call_tool("edit_file", {"path": "f.txt", "old_text": "v1", "new_text": "v2"}))

        stale = await first.call_tool("write_file", {"path": "f.txt", "content": "v1 and more\n"})
        if mode == "legacy":
            assert error_code(stale) == "external_change"
            assert (root / "f.txt").read_bytes() == b"v2\n"
            structured(await first.call_tool("read_file", {"path": "f.txt"}))  # a fresh read: its write goes through
            structured(await first.call_tool("write_file", {"path": "f.txt", "content": "v2 and more\n"}))
            assert (root / "f.txt").read_bytes() == b"v2 and more\n"
        else:  # one memory for the server: the other client's edit counts as this one's read
            structured(stale)
            assert (root / "f.txt").read_bytes() == b"v1 and more\n"


async def test_a_client_is_never_warned_about_its_own_edit(base_settings: Settings, root: Path, mode: str) -> None:
    (root / "f.txt").write_bytes(b"v1\n")
    server = build_server(Settings(**{**base_settings.__dict__, "auto_occ": "block"}))
    async with Client(server, mode=mode) as first, Client(server, mode=mode) as second:
        structured(await second.call_tool("read_file", {"path": "f.txt"}))
        structured(await first.call_tool("read_file", {"path": "f.txt"}))
        structured(await first.call_tool("edit_file", {"path": "f.txt", "old_text": "v1", "new_text": "v2"}))
        structured(await first.call_tool("write_file", {"path": "f.txt", "content": "v3\n"}))
    assert (root / "f.txt").read_bytes() == b"v3\n"
