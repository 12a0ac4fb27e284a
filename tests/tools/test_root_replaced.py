"""A root removed and made again while the server runs (``rm -rf proj && git clone …``) is the new directory at
once; a root that is gone says so. The server kept walking the deleted directory: empty listings, every file "did
not exist", a new file could not be written, and only a restart helped."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_a_root_made_anew_while_the_server_runs_is_read_listed_and_written_as_the_new_directory(
    connect: ClientFactory, root: Path
) -> None:
    (root / "old.txt").write_bytes(b"before\n")
    async with connect() as client:
        structured(await client.call_tool("read_file", {"path": "old.txt"}))
        shutil.rmtree(root)
        root.mkdir()
        (root / "cloned.txt").write_bytes(b"fresh clone\n")
        read = structured(await client.call_tool("read_file", {"path": "cloned.txt"}))
        listed = structured(await client.call_tool("list_directory", {"path": "."}))
        structured(await client.call_tool("write_file", {"path": "new.txt", "content": "written\n"}))
        structured(await client.call_tool("edit_file", {"path": "cloned.txt", "old_text": "fresh", "new_text": "old"}))
    assert read["content"] == "fresh clone\n"
    assert [entry["name"] for entry in listed["entries"]] == ["cloned.txt"]
    assert (root / "new.txt").read_bytes() == b"written\n"
    assert (root / "cloned.txt").read_bytes() == b"old clone\n"


async def test_a_root_swapped_for_a_link_leads_nowhere_else(connect: ClientFactory, root: Path, tmp_path: Path) -> None:
    # Pinned again, the root is opened without following a link in its place: it is not a way out.
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_bytes(b"outside\n")
    async with connect() as client:
        structured(await client.call_tool("list_directory", {"path": "."}))
        root.rmdir()
        root.symlink_to(outside)
        result = await client.call_tool("read_file", {"path": "secret.txt"})
        written = await client.call_tool("write_file", {"path": "dropped.txt", "content": "x\n"})
    assert error_code(result) == "not_found", text_of(result)
    assert "is no longer a directory" in text_of(result)
    assert error_code(written) == "not_found"
    assert sorted(path.name for path in outside.iterdir()) == ["secret.txt"]


async def test_a_removed_root_says_it_was_removed(connect: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    async with connect() as client:
        structured(await client.call_tool("read_file", {"path": "a.txt"}))
        shutil.rmtree(root)
        listed = await client.call_tool("list_directory", {"path": "."})
    assert error_code(listed) == "not_found", text_of(listed)
    assert f"the root {root} was removed since the server started" in text_of(listed)
