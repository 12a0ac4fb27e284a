"""batch_operations validates against the tree its earlier operations leave, in both protocol eras: a directory
they empty is empty. The bytes on disk are the oracle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "emptying",
    [
        {"type": "move", "source": "d/x.txt", "destination": "x.txt"},
        {"type": "delete", "path": "d/x.txt"},
    ],
    ids=["moved-out", "deleted"],
)
async def test_a_directory_an_earlier_operation_emptied_is_deleted_without_recursive_and_a_file_takes_its_name(
    client: Client, root: Path, emptying: dict[str, Any]
) -> None:
    # Validation counted the files still on disk, not those the batch had moved or deleted by then: "d is a
    # non-empty directory; pass recursive: true" refused a batch that would run, and nothing was done.
    (root / "d").mkdir()
    (root / "d" / "x.txt").write_bytes(b"x\n")
    operations = [
        emptying,
        {"type": "delete", "path": "d"},
        {"type": "write", "path": "d", "content": "now a file\n"},
    ]
    result = structured(await client.call_tool("batch_operations", {"request_json": {"operations": operations}}))
    assert (result["status"], result["completed"]) == ("applied", 3)
    assert (root / "d").read_bytes() == b"now a file\n"
    if emptying["type"] == "move":
        assert (root / "x.txt").read_bytes() == b"x\n"
    else:
        assert not (root / "x.txt").exists()
