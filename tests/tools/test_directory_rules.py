"""A deny rule for directories (``vault*/``) hides a directory that a call is about to make: created, moved or copied
there, or brought back from the trash. Judged by what was on disk, a name no directory had yet passed as a file's:
a tree moved in was then out of every tool's reach, and could not be moved back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

RULE = ("vault*/",)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("create_directory", {"path": "vault"}),
        ("move_file", {"source_path": "src", "dest_path": "vault2"}),
        ("copy_file", {"source_path": "src", "dest_path": "vault3"}),
        ("batch_operations", {"request_json": {"operations": [{"type": "create_dir", "path": "vault4"}]}}),
        (
            "batch_operations",
            {"request_json": {"operations": [{"type": "move", "source": "src", "destination": "vault5"}]}},
        ),
    ],
)
async def test_a_directory_made_under_a_name_a_rule_for_directories_hides_is_refused(
    connect: ClientFactory, root: Path, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_bytes(b"a\n")
    async with connect(deny=RULE) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error, text_of(result)
    refusal = (result.meta or {})["fsguard/error"]
    # a batch fails on the operation, whose own refusal is the tool's
    assert (refusal["code"], refusal.get("error_code")) in (("access_denied", None), ("batch_failed", "access_denied"))
    assert "vault" in text_of(result)
    assert sorted(path.name for path in root.iterdir()) == ["src"]
    assert (root / "src" / "a.txt").read_bytes() == b"a\n"


async def test_a_trashed_directory_a_rule_for_directories_hides_since_is_neither_listed_nor_restored(
    connect: ClientFactory, root: Path
) -> None:
    (root / "vault_2027").mkdir()
    (root / "vault_2027" / "salaries.csv").write_bytes(b"alice,1\n")
    async with connect() as client:
        [deleted] = structured(await client.call_tool("delete_file", {"path": "vault_2027", "recursive": True}))[
            "results"
        ]
    async with connect(deny=RULE) as client:
        listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
        restored = await client.call_tool("backup", {"action": "restore_trash", "sd_id": deleted["sd_id"]})
    assert listed["trash"] == []
    assert "vault_2027" not in str(listed)
    assert error_code(restored) == "access_denied", text_of(restored)
    assert not (root / "vault_2027").exists()


@pytest.mark.parametrize(
    ("operations", "code"),
    [
        ([{"type": "write", "path": "secret/x.txt", "content": "x\n"}], "access_denied"),
        ([{"type": "write", "path": "/etc/x.txt", "content": "x\n"}], "access_denied"),
        # another kind of problem beside it: the batch is invalid, as before
        (
            [{"type": "write", "path": "secret/x.txt", "content": "x\n"}, {"type": "wrte", "path": "a"}],
            "invalid_params",
        ),
    ],
)
async def test_a_batch_refused_only_for_paths_it_may_not_reach_is_access_denied_as_each_tool_alone(
    connect: ClientFactory, root: Path, operations: list[dict[str, Any]], code: str
) -> None:
    async with connect(deny=("secret/",)) as client:
        result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == code, text_of(result)
    assert list(root.iterdir()) == []
