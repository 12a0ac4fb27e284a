"""A read-only bind mount (a directory of the root's own filesystem mounted on itself, then remounted read-only), in
both protocol eras: a change there is read_only_filesystem naming that mount, and an atomic batch leaves every byte.

A bind mount shares its parent's device, so telling it apart needs the mount table; the tests need root to mount
and skip otherwise.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import bind_mounted, error_code, text_of, tree

pytestmark = pytest.mark.anyio

ORIGINAL = b"original line\n"


@pytest.fixture
def read_only_bind(root: Path) -> Iterator[Path]:
    """root/ro holding keep.txt, bind-mounted on itself read-only; unmounted at teardown, lazily if still busy."""
    directory = root / "ro"
    directory.mkdir()
    (directory / "keep.txt").write_bytes(ORIGINAL)
    with bind_mounted(directory, directory):
        subprocess.run(["mount", "-o", "remount,ro,bind", str(directory)], capture_output=True, check=True)
        yield directory


async def test_an_atomic_batch_failing_on_a_read_only_bind_mount_names_that_mount_and_leaves_every_byte(
    client: Client, root: Path, read_only_bind: Path
) -> None:
    # The error named the mount of the root's filesystem ("mounted at /"), which is writable: remounting it
    # read-write, as the message advised, changed nothing. It names the bind mount now.
    (root / "a.txt").write_bytes(ORIGINAL)
    before = tree(root)
    operations = [
        {"type": "write", "path": "made/new.txt", "content": "new\n"},
        {"type": "edit", "path": "a.txt", "old_text": "original", "new_text": "edited"},
        # A new file: validation refuses a file already there (tests/tools/test_unwritable_plans.py), the run this.
        {"type": "write", "path": "ro/new.txt", "content": "made\n"},
    ]
    result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (result.meta or {})["fsguard/error"]["error_code"] == "read_only_filesystem"
    assert "is on the read-only filesystem mounted at ro:" in text_of(result)
    assert tree(root) == before


async def test_an_edit_of_a_file_mounted_over_another_asks_for_an_unmount_not_to_work_inside_it(
    client: Client, root: Path, tmp_path: Path
) -> None:
    # A single file bind-mounted in a root cannot be replaced by a rename (EBUSY): the advice was "Work with what
    # is inside it", and a file has nothing inside.
    outside = tmp_path / "source.txt"
    outside.write_bytes(ORIGINAL)
    mounted = root / "mounted.txt"
    mounted.write_bytes(b"under the mount\n")
    with bind_mounted(outside, mounted):
        result = await client.call_tool("edit_file", {"path": "mounted.txt", "old_text": "original", "new_text": "x"})
        assert mounted.read_bytes() == ORIGINAL
    assert error_code(result) == "access_denied", text_of(result)
    assert "Ask the user to unmount it, or use another path." in text_of(result)
    assert "inside it" not in text_of(result)
