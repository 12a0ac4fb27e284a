"""create_directory through the in-memory Client, in both protocol eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client, MCPError

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_creates_nested_directories_on_disk(client: Client, root: Path) -> None:
    result = await client.call_tool("create_directory", {"path": "a/b/c"})
    data = structured(result)
    assert (root / "a" / "b" / "c").is_dir()
    assert data == {"path": str(root / "a" / "b" / "c"), "created": True, "message": text_of(result)}


async def test_an_existing_directory_is_success_and_keeps_its_contents(client: Client, root: Path) -> None:
    (root / "d").mkdir()
    (root / "d" / "keep.txt").write_bytes(b"keep")
    first = structured(await client.call_tool("create_directory", {"path": "d"}))
    second = structured(await client.call_tool("create_directory", {"path": "d"}))
    assert first["created"] is second["created"] is False
    assert (root / "d" / "keep.txt").read_bytes() == b"keep"


async def test_a_file_in_the_way_is_already_exists_and_stays_a_file(client: Client, root: Path) -> None:
    (root / "f").write_bytes(b"data")
    assert error_code(await client.call_tool("create_directory", {"path": "f"})) == "already_exists"
    assert (root / "f").read_bytes() == b"data"


async def test_a_file_as_parent_is_not_a_directory(client: Client, root: Path) -> None:
    (root / "f").write_bytes(b"data")
    assert error_code(await client.call_tool("create_directory", {"path": "f/sub"})) == "not_a_directory"
    assert (root / "f").read_bytes() == b"data"


async def test_outside_the_root_nothing_is_created(client: Client, tmp_path: Path) -> None:
    result = await client.call_tool("create_directory", {"path": str(tmp_path / "escape")})
    assert error_code(result) == "access_denied"
    assert not (tmp_path / "escape").exists()


async def test_through_a_symlink_leaving_the_root_nothing_is_created(
    client: Client, root: Path, tmp_path: Path
) -> None:
    (tmp_path / "elsewhere").mkdir()
    (root / "out").symlink_to(tmp_path / "elsewhere")
    assert error_code(await client.call_tool("create_directory", {"path": "out/new"})) == "access_denied"
    assert list((tmp_path / "elsewhere").iterdir()) == []


async def test_read_only_server_does_not_offer_it(connect: ClientFactory, root: Path) -> None:
    async with connect(read_only=True) as client:
        names = {tool.name for tool in (await client.list_tools()).tools}
        with pytest.raises(MCPError, match="Unknown tool: create_directory"):
            await client.call_tool("create_directory", {"path": "x"})
    assert "create_directory" not in names
    assert not (root / "x").exists()


async def test_compact_mode_says_the_same_in_fewer_words(connect: ClientFactory, root: Path) -> None:
    async with connect(compact_mode=True) as client:
        result = await client.call_tool("create_directory", {"path": "n"})
    assert text_of(result) == "OK: n created"
