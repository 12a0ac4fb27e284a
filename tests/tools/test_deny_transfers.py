"""Deny rules against copies and moves, in both eras: a secret never reaches a readable name on disk.

A copy reads what a link points to, so the rules judge that target too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_batch_request import snapshot
from tests.tools.test_least_privilege import read, tree

pytestmark = pytest.mark.anyio


async def test_copy_through_a_link_to_a_denied_file_is_refused_and_writes_nothing(client: Client, root: Path) -> None:
    (root / ".env").write_text("DATABASE_PASSWORD=SEKRIT\n", encoding="utf-8")
    (root / "settings").symlink_to(".env")
    before = snapshot(root)
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("copy_file", {"source_path": "settings", "dest_path": "leak.txt"}),
        ("batch_operations", {"request_json": [{"type": "copy", "source": "settings", "destination": "leak.txt"}]}),
        (
            "batch_operations",
            {
                "pipeline_json": {
                    "name": "leak",
                    "steps": [{"action": "copy", "params": {"files": ["settings"], "destination": "out"}}],
                }
            },
        ),
    ]
    for tool, arguments in attempts:
        result = await client.call_tool(tool, arguments)
        assert result.is_error, (tool, text_of(result))
        assert "deny rule '.env'" in text_of(result), (tool, text_of(result))
        assert "SEKRIT" not in text_of(result)
    assert snapshot(root) == before


async def test_copy_through_a_link_to_a_denied_directory_is_refused_and_writes_nothing(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"secrets/db.yaml": "password: SEKRIT\n"})
    (root / "config").symlink_to("secrets")
    async with connect(deny=("secrets/",)) as client:
        refused = await client.call_tool("copy_file", {"source_path": "config", "dest_path": "public"})
    assert error_code(refused) == "access_denied"
    assert "'secrets/'" in text_of(refused)
    assert not (root / "public").exists()
    assert sorted(path.name for path in root.iterdir()) == ["config", "secrets"]


async def test_a_moved_link_to_a_denied_file_stays_unreadable(client: Client, root: Path) -> None:
    (root / ".env").write_text("TOKEN=SEKRIT\n", encoding="utf-8")
    (root / "settings").symlink_to(".env")
    structured(await client.call_tool("move_file", {"source_path": "settings", "dest_path": "renamed"}))
    assert (root / "renamed").is_symlink()
    assert (root / ".env").read_text(encoding="utf-8") == "TOKEN=SEKRIT\n"
    refused = await read(client, "renamed")
    assert error_code(refused) == "access_denied"
    assert "SEKRIT" not in text_of(refused)
