"""A deny rule written for a root still hides its paths when a root nested below it holds them too.

Rules match a path relative to the root holding it. With a second root inside the first (``--root`` twice, or a
``--read-only-root`` for a folder of the project), a path has one such view per root; judging it in the deepest
one alone let ``sub/secret.txt`` be read, listed and found as ``secret.txt`` of the nested root.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, error_code, structured

pytestmark = pytest.mark.anyio

SECRET = b"TOKEN=hunter2\n"


def _tree(root: Path) -> None:
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "sub" / "secret.txt").write_bytes(SECRET)
    (root / "sub" / "deeper" / "key.txt").write_bytes(SECRET)
    (root / "sub" / "open.txt").write_bytes(b"open\n")


@pytest.mark.parametrize("nested", ["root", "read_only_root"])
async def test_a_rule_for_the_outer_root_hides_the_file_from_every_tool_under_a_nested_root(
    connect: ClientFactory, root: Path, nested: str
) -> None:
    _tree(root)
    sub = root / "sub"
    roots: dict[str, Any] = (
        {"roots": (root, sub)} if nested == "root" else {"roots": (root,), "read_only_roots": (sub,)}
    )
    async with connect(deny=("sub/secret.txt", "/sub/deeper/"), **roots) as client:
        refused = [
            await client.call_tool("read_file", {"path": str(sub / "secret.txt")}),
            await client.call_tool("get_file_info", {"path": str(sub / "secret.txt")}),
            await client.call_tool("read_file", {"path": str(sub / "deeper" / "key.txt")}),
            await client.call_tool("list_directory", {"path": str(sub / "deeper")}),
        ]
        listed = structured(await client.call_tool("list_directory", {"path": str(sub)}))
        names = structured(await client.call_tool("search_files", {"pattern": "*.txt", "path": str(sub)}))
        content = structured(
            await client.call_tool("search_files", {"pattern": "TOKEN", "path": str(sub), "include_content": True})
        )
        from_outer = structured(await client.call_tool("search_files", {"pattern": "*.txt", "path": str(root)}))

    assert [error_code(result) for result in refused] == ["access_denied"] * len(refused)
    assert [entry["name"] for entry in listed["entries"]] == ["open.txt"]
    assert listed["denied"] == 2
    assert [Path(path).name for path in names["files"]] == ["open.txt"]
    assert content["total_matches"] == 0
    assert [Path(path).name for path in from_outer["files"]] == ["open.txt"]
    assert (sub / "secret.txt").read_bytes() == SECRET


async def test_a_rule_for_the_outer_root_refuses_writes_and_moves_under_a_nested_root(
    connect: ClientFactory, root: Path
) -> None:
    _tree(root)
    sub = root / "sub"
    async with connect(deny=("sub/secret.txt", "/sub/deeper/"), roots=(root, sub)) as client:
        refused = [
            await client.call_tool("write_file", {"path": str(sub / "secret.txt"), "content": "gone\n"}),
            await client.call_tool("delete_file", {"path": str(sub / "secret.txt"), "permanent": True}),
            await client.call_tool("write_file", {"path": str(sub / "deeper" / "new.txt"), "content": "x\n"}),
            # A copy would make the secret readable under a name no rule hides.
            await client.call_tool("copy_file", {"source_path": str(sub / "secret.txt"), "dest_path": "copy.txt"}),
        ]

    assert [error_code(result) for result in refused] == ["access_denied"] * len(refused)
    assert (sub / "secret.txt").read_bytes() == SECRET
    assert not (sub / "deeper" / "new.txt").exists()
    assert not (root / "copy.txt").exists()
