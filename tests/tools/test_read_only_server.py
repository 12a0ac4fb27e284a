"""A --read-only server changes nothing on disk, its start-up included, and says why a writing tool is missing (found
by a least-privilege probe): the temp file a crashed writer left, and backups past its own --backup-max-count (which
may be another server's undo), stay for the next writing server; a call or help of a writing tool names --read-only.
Both eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import MCPError

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_backup import edit
from tests.tools.test_least_privilege import answering

pytestmark = pytest.mark.anyio

TOKEN = "0123456789abcdef0123456789abcdef"


def plant_stray(root: Path, state_dir: Path) -> Path:
    """What a writer killed between journaling its temp file and renaming it leaves behind."""
    stray = root / f".notes.txt.fsguard-tmp-{TOKEN}"
    stray.write_bytes(b"half writ")
    (state_dir / "inflight").mkdir(parents=True, exist_ok=True)
    (state_dir / "inflight" / TOKEN).write_text(str(stray), encoding="utf-8")
    return stray


async def test_a_read_only_server_leaves_a_crashed_writers_temp_file_for_the_next_writing_server(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    stray = plant_stray(root, state_dir)
    async with connect(read_only=True) as client:
        structured(await client.call_tool("list_directory", {"path": "."}))
    assert stray.read_bytes() == b"half writ"
    assert (state_dir / "inflight" / TOKEN).exists()
    async with connect() as client:
        structured(await client.call_tool("list_directory", {"path": "."}))
    assert not stray.exists()


async def test_a_read_only_server_prunes_no_backup_past_its_own_max_count(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    (root / "f.txt").write_text("0\n", encoding="utf-8")
    async with connect() as client:
        for n in range(4):
            await edit(client, f"{n}\n", f"{n + 1}\n")
    kept = sorted(path.relative_to(state_dir) for path in (state_dir / "backups").rglob("*"))
    async with connect(read_only=True, backup_max_count=1) as client:
        structured(await client.call_tool("read_file", {"path": "f.txt"}))
    assert sorted(path.relative_to(state_dir) for path in (state_dir / "backups").rglob("*")) == kept
    async with connect() as client:
        chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "f.txt"}))
    assert len(chain["backups"]) == 4


async def test_every_tool_read_only_leaves_out_is_named_as_left_out_for_read_only_when_called(
    connect: ClientFactory, root: Path
) -> None:
    async with connect() as client:
        every = {tool.name for tool in (await client.list_tools()).tools}
    async with connect(read_only=True) as client:
        left_out = every - {tool.name for tool in (await client.list_tools()).tools}
        for name in sorted(left_out):
            with pytest.raises(MCPError, match=rf"Unknown tool: {name}: this server runs with --read-only"):
                await client.call_tool(name, {"path": "a.txt"})
    assert "write_file" in left_out
    assert "server_info" not in left_out  # it writes only with a flag --read-only refuses
    assert list(root.iterdir()) == []


async def test_a_read_only_server_says_a_writing_tool_is_missing_because_of_read_only(
    connect: ClientFactory, root: Path
) -> None:
    async with connect(read_only=True) as client:
        with pytest.raises(MCPError, match=r"Unknown tool: write_file: this server runs with --read-only") as raised:
            await client.call_tool("write_file", {"path": "a.txt", "content": "x"})
        assert "restart fsguard without --read-only if it is needed" in str(raised.value)
        helped = await client.call_tool("help", {"tool": "edit_file"})
        catalog = await client.call_tool("help", {})
    assert not (root / "a.txt").exists()
    assert error_code(helped) == "invalid_params"
    assert "edit_file is one of fsguard's tools, but this server runs with --read-only" in text_of(helped)
    assert text_of(catalog).startswith("Read-only server (--read-only)")
    assert structured(catalog)["read_only"] is True


async def test_a_read_only_servers_stats_mark_every_root_read_only_a_client_root_too(
    connect: ClientFactory, root: Path
) -> None:
    (root / "proj").mkdir()
    async with connect(read_only=True) as client:
        served = structured(await client.call_tool("server_info", {"action": "stats"}))["stats"]
        said = text_of(await client.call_tool("server_info", {"action": "stats"}))
    async with connect(read_only=True, list_roots_callback=answering([root / "proj"])) as client:
        narrowed = structured(await client.call_tool("server_info", {"action": "stats"}))["stats"]
    assert served["roots"] == [{"path": str(root), "origin": "command_line", "read_only": True}]
    assert f"Roots: {root} (command_line, read-only)" in said
    assert narrowed["roots"] == [{"path": str(root / "proj"), "origin": "client", "read_only": True}]
