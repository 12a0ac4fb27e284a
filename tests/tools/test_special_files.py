"""Pipes, sockets and devices inside a root are never opened for their bytes: each is refused with binary_file."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def listening(root: Path) -> Iterator[Path]:
    """A Unix socket bound inside the root (a path under 108 bytes: AF_UNIX's limit)."""
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root / "s.sock"))
        yield root / "s.sock"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_file", {"path": "s.sock"}),
        ("edit_file", {"path": "s.sock", "old_text": "a", "new_text": "b"}),
        ("minify_js", {"path": "s.sock", "dry_run": True}),
        ("write_file", {"path": "s.sock", "content": "x"}),
    ],
)
async def test_a_socket_in_a_root_is_refused_as_a_special_file(
    connect: ClientFactory, listening: Path, tool: str, args: dict[str, object]
) -> None:
    async with connect() as client:
        result = await client.call_tool(tool, args)
    assert error_code(result) == "binary_file"
    assert "pipe, socket or device" in text_of(result)
    assert "never reads or writes" in text_of(result)  # true of a write as of a read
    assert stat.S_ISSOCK(os.lstat(listening).st_mode)  # still the socket: nothing was written in its place
    assert sorted(path.name for path in listening.parent.iterdir()) == ["s.sock"]
