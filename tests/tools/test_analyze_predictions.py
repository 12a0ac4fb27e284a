"""analyze_operation predicts what the real call then does: the same refusals (code and reason), the same line
endings kept, the same risk, the same line count. Each plan is followed by the call it plans. Both eras."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def plan(client: Client, operation: str, path: str, **args: Any) -> dict[str, Any]:
    return structured(await client.call_tool("analyze_operation", {"operation": operation, "path": path, **args}))


@pytest.mark.parametrize(
    ("operation", "path", "tool", "args"),
    [
        ("write", "repo/.git/config", "write_file", {"content": "[core]\n\thooksPath = x\n"}),
        ("edit", "repo/.git/config", "edit_file", {"old_text": "[core]", "new_text": "[user]"}),
        ("delete", "repo/.git", "delete_file", {"recursive": True}),
        ("delete", ".", "delete_file", {"recursive": True}),
    ],
)
async def test_a_change_the_tool_always_refuses_is_planned_as_that_refusal(
    client: Client, root: Path, operation: str, path: str, tool: str, args: dict[str, Any]
) -> None:
    (root / "repo" / ".git").mkdir(parents=True)
    (root / "repo" / ".git" / "config").write_bytes(b"[core]\n")
    planning = {key: value for key, value in args.items() if key != "recursive"}
    planned = await client.call_tool("analyze_operation", {"operation": operation, "path": path, **planning})
    refused = await client.call_tool(tool, {"path": path, **args})
    assert structured(planned)["refused"] == error_code(refused) == "access_denied"
    assert "would be refused (access_denied)" in text_of(planned)
    assert (structured(planned)["lines_added"], structured(planned).get("preview_diff")) == (0, None)
    assert (root / "repo" / ".git" / "config").read_bytes() == b"[core]\n"


async def test_an_edit_the_rewrite_guard_blocks_is_planned_as_rewrite_blocked(client: Client, root: Path) -> None:
    body = "".join(f"line {n} of a long file\n" for n in range(150))
    (root / "big.txt").write_text(body, encoding="utf-8")
    edit = {"old_text": "line 0 of a long file\n", "new_text": body}
    planned = await plan(client, "edit", "big.txt", **edit)
    refused = await client.call_tool("edit_file", {"path": "big.txt", **edit})
    assert planned["refused"] == error_code(refused) == "rewrite_blocked"
    assert "allow_rewrite=true" in planned["risk_factors"][0]
    assert (root / "big.txt").read_text(encoding="utf-8") == body


async def test_a_write_of_lf_text_over_a_crlf_file_is_planned_as_the_lines_that_change(
    client: Client, root: Path
) -> None:
    (root / "crlf.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    planned = await plan(client, "write", "crlf.txt", content="alpha\nBETA\ngamma\n")
    written = structured(await client.call_tool("write_file", {"path": "crlf.txt", "content": "alpha\nBETA\ngamma\n"}))
    assert (root / "crlf.txt").read_bytes() == b"alpha\r\nBETA\r\ngamma\r\n"
    assert (planned["lines_added"], planned["lines_removed"]) == (1, 1)
    assert "-beta" in planned["preview_diff"]
    assert " alpha" in planned["preview_diff"]
    assert planned["risk_level"] not in ("HIGH", "CRITICAL"), (planned, written)


async def test_an_edit_is_planned_at_the_risk_edit_file_then_reports(client: Client, root: Path) -> None:
    old = "TARGET" + "y" * 193
    (root / "r.txt").write_text("x" * 800 + "\n" + old + "\n", encoding="utf-8")
    planned = await plan(client, "edit", "r.txt", old_text=old, new_text="T" * 500)
    edited = structured(await client.call_tool("edit_file", {"path": "r.txt", "old_text": old, "new_text": "T" * 500}))
    assert planned["risk_level"] == edited["risk_level"] == "MEDIUM"


async def test_text_a_legacy_encoding_cannot_hold_is_planned_as_encoding_error(client: Client, root: Path) -> None:
    original = "café au lait\n".encode("cp1252")
    (root / "menu.txt").write_bytes(original)
    edit = {"old_text": "café", "new_text": "咖啡"}
    planned = await plan(client, "edit", "menu.txt", **edit)
    refused = await client.call_tool("edit_file", {"path": "menu.txt", **edit})
    assert planned["refused"] == error_code(refused) == "encoding_error"
    written = await plan(client, "write", "menu.txt", content="咖啡\n")
    assert written["refused"] == error_code(
        await client.call_tool("write_file", {"path": "menu.txt", "content": "咖啡\n"})
    )
    assert written["refused"] == "encoding_error"
    assert (root / "menu.txt").read_bytes() == original


async def test_a_cr_only_file_is_described_with_the_lines_read_file_counts(client: Client, root: Path) -> None:
    (root / "cr.txt").write_bytes(b"a\rb\rc\r")
    described = await plan(client, "file", "cr.txt")
    read = structured(await client.call_tool("read_file", {"path": "cr.txt"}))
    assert read["total_lines"] == 3
    assert "6 bytes, 3 lines, text" in described["risk_factors"]


async def test_an_edit_of_a_missing_file_is_planned_as_edit_files_not_found(client: Client, root: Path) -> None:
    edit = {"old_text": "a", "new_text": "b"}
    planned = await plan(client, "edit", "gone.txt", **edit)
    refused = await client.call_tool("edit_file", {"path": "gone.txt", **edit})
    assert planned["refused"] == error_code(refused) == "not_found"
    assert not (root / "gone.txt").exists()


async def test_a_write_above_the_size_limit_is_planned_as_write_files_too_large(
    connect: ClientFactory, root: Path
) -> None:
    content = "x" * 5_000
    async with connect(max_file_size=4_096) as client:
        planned = await plan(client, "write", "big.txt", content=content)
        refused = await client.call_tool("write_file", {"path": "big.txt", "content": content})
    assert planned["refused"] == error_code(refused) == "too_large"
    assert not (root / "big.txt").exists()
