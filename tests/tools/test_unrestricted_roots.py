"""--unrestricted beside roots: the roots are where relative paths start, not a fence. A path outside them is served
(walked from "/", still pinned), and the deny rules and fsguard's own places stay hidden there."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured

pytestmark = pytest.mark.anyio


async def test_with_unrestricted_a_path_outside_the_roots_is_read_written_and_listed(
    connect: ClientFactory, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "old.txt").write_text("old\n", encoding="utf-8")
    async with connect(unrestricted=True) as client:
        read = structured(await client.call_tool("read_file", {"path": str(outside / "old.txt")}))
        structured(await client.call_tool("write_file", {"path": str(outside / "new.txt"), "content": "new\n"}))
        structured(
            await client.call_tool(
                "edit_file", {"path": str(outside / "old.txt"), "old_text": "old", "new_text": "edited"}
            )
        )
        listed = structured(await client.call_tool("list_directory", {"path": str(outside)}))
    assert "old" in str(read)
    assert (outside / "new.txt").read_bytes() == b"new\n"
    assert (outside / "old.txt").read_bytes() == b"edited\n"
    assert sorted(entry["name"] for entry in listed["entries"]) == ["new.txt", "old.txt"]


async def test_with_unrestricted_and_roots_the_deny_rules_and_the_state_dir_stay_hidden_outside_the_roots(
    connect: ClientFactory, tmp_path: Path, state_dir: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "prod.yaml").write_text("db_password: hunter2\n", encoding="utf-8")
    async with connect(unrestricted=True, deny=(str(outside / "prod.yaml"),)) as client:
        structured(await client.call_tool("write_file", {"path": "notes.txt", "content": "in the root\n"}))
        refusals = [
            await client.call_tool("read_file", {"path": str(outside / "prod.yaml")}),
            await client.call_tool("write_file", {"path": str(outside / "prod.yaml"), "content": "x\n"}),
            await client.call_tool("write_file", {"path": str(state_dir / "inflight" / "forged"), "content": "x\n"}),
        ]
    assert [error_code(result) for result in refusals] == ["access_denied"] * len(refusals)
    assert (outside / "prod.yaml").read_bytes() == b"db_password: hunter2\n"
    assert not (state_dir / "inflight" / "forged").exists()
