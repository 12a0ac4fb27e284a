"""A filesystem out of inodes, not bytes (a tmpfs with few), in both protocol eras: a copy that runs out says so, and
an atomic batch leaves every byte. Mounting needs root; the test skips otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import Mount, error_code, text_of, tree

pytestmark = pytest.mark.anyio


@pytest.fixture
def few_inodes(root: Path, mount_tmpfs: Mount) -> Path:
    """root/small: a 1 MiB tmpfs with 3 inodes left after its root directory."""
    return mount_tmpfs(root / "small", "1m", "nr_inodes=4")


async def test_a_copy_that_runs_out_of_inodes_says_so_not_to_free_bytes_that_are_free_and_leaves_every_byte(
    client: Client, root: Path, few_inodes: Path
) -> None:
    # Measured after the partial copy was removed, the free bytes exceeded the need, and the message still said
    # "120,000 bytes needed, 1,044,480 free. Free at least 120,000 bytes there": freeing bytes could never help.
    (root / "src").mkdir()
    for number in range(3):
        (root / "src" / f"f{number}.bin").write_bytes(bytes([65 + number]) * 40_000)
    (root / "a.txt").write_bytes(b"a\n")
    before = tree(root)
    operations = [
        {"type": "edit", "path": "a.txt", "old_text": "a", "new_text": "b"},
        {"type": "copy", "source": "src", "destination": "small/dst"},
    ]
    result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (result.meta or {})["fsguard/error"]["error_code"] == "disk_full"
    assert "though 1,0" in text_of(result)
    assert "it ran out of inodes" in text_of(result)
    assert "Free at least" not in text_of(result)
    assert tree(root) == before
