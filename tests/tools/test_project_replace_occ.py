"""project_replace under --auto-occ: a file this session saw, changed on disk since, is refused, reported or ignored."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def seen_then_changed(root: Path) -> Path:
    """a.txt and b.txt hold the find text; the tests read a.txt, then change it behind the server's back."""
    (root / "a.txt").write_bytes(b"one two\n")
    (root / "b.txt").write_bytes(b"one\n")
    return root


async def replace_after_a_change_behind_its_back(client: Client, root: Path) -> CallToolResult:
    """Read a.txt through the server, change it on disk behind its back, then replace "one" with "1" everywhere."""
    structured(await client.call_tool("read_file", {"path": "a.txt"}))
    (root / "a.txt").write_bytes(b"one two three\n")
    return await client.call_tool("project_replace", {"find": "one", "replace": "1"})


async def test_block_mode_refuses_the_whole_replace_naming_the_changed_file_and_writes_nothing(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect(auto_occ="block") as client:
        refused = await replace_after_a_change_behind_its_back(client, root)
        assert error_code(refused) == "external_change"
        assert "a.txt (known hash" in text_of(refused)
        assert "b.txt" not in text_of(refused)
        assert "Nothing was written" in text_of(refused)
        assert "read_file" in text_of(refused)
        assert (root / "a.txt").read_bytes() == b"one two three\n"
        assert (root / "b.txt").read_bytes() == b"one\n"
        listed = structured(await client.call_tool("backup", {"action": "list"}))
        assert listed["total"] == 0

        preview = await client.call_tool("project_replace", {"find": "one", "replace": "1", "preview": True})
        assert error_code(preview) == "external_change"

        structured(await client.call_tool("read_file", {"path": "a.txt"}))
        applied = structured(await client.call_tool("project_replace", {"find": "one", "replace": "1"}))
    assert applied["files_changed"] == 2
    assert (root / "a.txt").read_bytes() == b"1 two three\n"
    assert (root / "b.txt").read_bytes() == b"1\n"


async def test_block_mode_names_every_changed_file_at_once(connect: ClientFactory, seen_then_changed: Path) -> None:
    root = seen_then_changed
    async with connect(auto_occ="block") as client:
        for name in ("a.txt", "b.txt"):
            structured(await client.call_tool("read_file", {"path": name}))
        (root / "a.txt").write_bytes(b"one two three\n")
        (root / "b.txt").write_bytes(b"one one\n")
        refused = await client.call_tool("project_replace", {"find": "one", "replace": "1"})
    assert error_code(refused) == "external_change"
    assert "a.txt (known hash" in text_of(refused)
    assert "b.txt (known hash" in text_of(refused)
    assert refused.meta is not None
    assert refused.meta["fsguard/error"]["paths"] == [str(root / "a.txt"), str(root / "b.txt")]
    assert (root / "a.txt").read_bytes() == b"one two three\n"
    assert (root / "b.txt").read_bytes() == b"one one\n"


async def test_warn_mode_replaces_and_reports_the_external_change_of_each_file(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect() as client:
        result = await replace_after_a_change_behind_its_back(client, root)
    applied = structured(result)
    assert (root / "a.txt").read_bytes() == b"1 two three\n"
    assert (root / "b.txt").read_bytes() == b"1\n"
    notes = {Path(f["path"]).name: f.get("external_change") for f in applied["files"]}
    assert notes["b.txt"] is None
    assert notes["a.txt"] is not None
    assert "changed on disk since this session last saw it" in notes["a.txt"]
    assert "Changed on disk since this session last saw them (another process): a.txt." in text_of(result)


async def test_off_mode_replaces_without_a_word_about_the_external_change(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect(auto_occ="off") as client:
        result = await replace_after_a_change_behind_its_back(client, root)
    applied = structured(result)
    assert (root / "a.txt").read_bytes() == b"1 two three\n"
    assert all("external_change" not in f for f in applied["files"])
    assert "changed on disk" not in text_of(result)


async def test_a_refused_replace_leaves_the_stale_read_hint_of_the_files_it_did_not_write(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect(auto_occ="block") as client:
        assert error_code(await replace_after_a_change_behind_its_back(client, root)) == ("external_change")
        edited = structured(await client.call_tool("edit_file", {"path": "b.txt", "old_text": "one", "new_text": "2"}))
    assert "STALE_READ" in edited["feedback"]
    assert (root / "b.txt").read_bytes() == b"2\n"
