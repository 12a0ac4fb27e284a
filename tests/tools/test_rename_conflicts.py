"""A refused rename set names each conflict by the name the rule made, in both protocol eras; nothing moves."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import error_code, text_of

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("rule", "shown"),
    [
        ({"mode": "regex_rename", "pattern": ".*", "replacement": ""}, "'' ← a.txt"),
        ({"mode": "regex_rename", "pattern": "^a", "replacement": "../../etc/x"}, "../../etc/x.txt ← a.txt"),
    ],
    ids=["empty", "slashes"],
)
async def test_a_refused_rename_names_the_name_the_rule_made_not_the_directory_and_moves_nothing(
    client: Client, root: Path, rule: dict[str, Any], shown: str
) -> None:
    # The text named the last part of the destination: "root ← a.txt" (the directory) for an empty name, and
    # "x.txt ← a.txt" for "../../etc/x.txt", as if the rule had made a harmless name.
    (root / "a.txt").write_bytes(b"A")
    result = await client.call_tool("batch_operations", {"rename_json": {"path": ".", **rule}})
    assert error_code(result) == "conflict", text_of(result)
    assert f"nothing was renamed: {shown} (" in text_of(result)
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]
    assert (root / "a.txt").read_bytes() == b"A"
