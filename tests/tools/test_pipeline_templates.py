"""Pipeline templates filled into step params, in both protocol eras. The bytes on disk are the oracle."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio


async def test_a_files_list_holding_a_steps_files_template_edits_each_of_those_files(
    client: Client, root: Path
) -> None:
    # "{{find.files}}" as a list item became one item, the paths joined at commas: a path that does not exist,
    # and the pipeline failed with "a.py, does not exist" as soon as the search found two files.
    (root / "a.py").write_bytes(b"old_api\n")
    (root / "b.py").write_bytes(b"x = old_api\n")
    (root / "c.txt").write_bytes(b"nothing\n")
    steps = [
        {"id": "find", "action": "search", "params": {"pattern": "old_api", "path": "."}},
        {
            "id": "fix",
            "action": "edit",
            "params": {"files": ["{{find.files}}"], "old_text": "old_api", "new_text": "new"},
        },
    ]
    result = structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": steps}}))
    assert (result["status"], result["steps"][1]["count"]) == ("applied", 2)
    assert (root / "a.py").read_bytes() == b"new\n"
    assert (root / "b.py").read_bytes() == b"x = new\n"
    assert (root / "c.txt").read_bytes() == b"nothing\n"
