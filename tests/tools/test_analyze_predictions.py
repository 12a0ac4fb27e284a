"""analyze_operation predicts what the real call then does: the same refusals (code and reason), the same line
endings kept, the same risk, the same line count. Each plan is followed by the call it plans. Both eras."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests import media_samples
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


async def test_an_image_is_described_as_read_file_shows_it_not_as_a_binary_file(client: Client, root: Path) -> None:
    raw = media_samples.png(5, 4)
    (root / "logo.png").write_bytes(raw)
    described = await plan(client, "file", "logo.png")
    read = structured(await client.call_tool("read_file", {"path": "logo.png"}))
    assert (read["mime_type"], read["width"], read["height"]) == ("image/png", 5, 4)
    # It was "a binary file. Read it with read_file(encoding='base64')", where read_file shows the image.
    assert described["risk_factors"] == [f"{len(raw)} bytes, image, image/png 5x4"]
    assert described["suggestions"] == [f'read_file(path="{root / "logo.png"}") shows the image to you.']
    assert (root / "logo.png").read_bytes() == raw


async def test_a_write_over_a_binary_file_says_it_replaces_one_its_diff_cannot_show(client: Client, root: Path) -> None:
    raw = media_samples.png(5, 4)
    (root / "logo.png").write_bytes(raw)
    planned = await plan(client, "write", "logo.png", content="new text\n")
    # Its diff, "@@ -0,0 +1 @@", read as the creation of a file: nothing said a binary file was replaced.
    assert (
        f"replaces a binary file ({len(raw)} bytes) whole: the diff shows only the new text" in planned["risk_factors"]
    )
    assert (root / "logo.png").read_bytes() == raw


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


def suggested_calls(planned: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Each call the plan's suggestions name, in order, with its arguments as written: "..." stands for a value only
    the planned call's result gives."""
    calls = []
    for suggestion in planned["suggestions"]:
        for tool, arguments in re.findall(r"(\w+)\(([^()]*)\)", suggestion):
            found = re.findall(r'(\w+)=("[^"]*"|true|\.\.\.)', arguments)
            calls.append((tool, {key: True if value == "true" else value.strip('"') for key, value in found}))
    return calls


async def test_the_undo_an_edit_plan_suggests_reverts_that_edit_when_called_as_written(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    planned = await plan(client, "edit", "a.txt", old_text="a", new_text="b")
    ((tool, undo),) = suggested_calls(planned)
    assert (tool, undo) == ("backup", {"action": "undo_last", "file_path": str(root / "a.txt")})
    structured(await client.call_tool("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b"}))
    assert (root / "a.txt").read_bytes() == b"b\n"
    structured(await client.call_tool("backup", undo))
    assert (root / "a.txt").read_bytes() == b"a\n"


@pytest.mark.parametrize("directory", [False, True])
async def test_the_delete_and_restore_a_delete_plan_suggests_bring_the_path_back_with_the_sd_id_the_delete_returns(
    client: Client, root: Path, directory: bool
) -> None:
    target = root / "d" if directory else root / "a.txt"
    file = target / "inner.txt" if directory else target
    file.parent.mkdir(exist_ok=True)
    file.write_bytes(b"kept\n")
    delete, restore, listing = suggested_calls(await plan(client, "delete", str(target.relative_to(root))))
    recursive = {"recursive": True} if directory else {}
    assert delete == ("delete_file", {"path": str(target), **recursive})
    assert restore == ("backup", {"action": "restore_trash", "sd_id": "..."})
    assert listing == ("backup", {"action": "list_trash"})
    deleted = structured(await client.call_tool(*delete))
    assert not target.exists()
    (trashed,) = deleted["results"]
    listed = structured(await client.call_tool(*listing))
    assert [entry["sd_id"] for entry in listed["trash"]] == [trashed["sd_id"]]
    structured(await client.call_tool("backup", {**restore[1], "sd_id": trashed["sd_id"]}))
    assert file.read_bytes() == b"kept\n"


async def test_a_plan_of_a_directory_names_the_listing_call_with_its_path(client: Client, root: Path) -> None:
    (root / "d").mkdir()
    (root / "d" / "inner.txt").write_bytes(b"x\n")
    ((tool, listing),) = suggested_calls(await plan(client, "file", "d"))
    assert (tool, listing) == ("list_directory", {"path": str(root / "d")})
    assert "inner.txt" in text_of(await client.call_tool(tool, listing))


async def test_a_plan_of_an_edit_or_write_that_changes_nothing_promises_no_backup(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    edit = await plan(client, "edit", "a.txt", old_text="a", new_text="a")
    write = await plan(client, "write", "a.txt", content="a\n")
    for planned in (edit, write):
        assert planned["suggestions"] == [
            "Nothing would change: the file already holds this text, so nothing is written or backed up."
        ]
    edited = structured(await client.call_tool("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "a"}))
    written = structured(await client.call_tool("write_file", {"path": "a.txt", "content": "a\n"}))
    assert edited.get("backup_id") is None
    assert written.get("backup_id") is None
    assert (root / "a.txt").read_bytes() == b"a\n"


@pytest.mark.parametrize(
    ("data", "operation", "tool", "args"),
    [
        (b"\xef\xbb\xbfa\nb\n", "write", "write_file", {"content": "\ufeffa\nb\n"}),
        (b"a\r\nb\r\n", "edit", "edit_file", {"old_text": "a\r\n", "new_text": "a\n"}),
        (b"a\nb\n", "edit", "edit_file", {"old_text": "a\n", "new_text": "a\n"}),
    ],
)
async def test_a_change_whose_bytes_are_the_files_bytes_is_planned_as_low_risk_with_no_diff(
    client: Client, root: Path, data: bytes, operation: str, tool: str, args: dict[str, str]
) -> None:
    (root / "f.txt").write_bytes(data)
    planned = await plan(client, operation, "f.txt", **args)
    answered = structured(await client.call_tool(tool, {"path": "f.txt", **args}))
    assert answered.get("backup_id") is None
    assert (root / "f.txt").read_bytes() == data
    assert planned["risk_level"] == "LOW"
    assert planned["risk_factors"] == []
    assert (planned["lines_added"], planned["lines_removed"], planned.get("preview_diff")) == (0, 0, None)
    assert planned["suggestions"] == [
        "Nothing would change: the file already holds this text, so nothing is written or backed up."
    ]


async def test_a_long_planned_diff_names_calls_that_show_it_whole_not_a_diff_format_analyze_lacks(
    client: Client, root: Path
) -> None:
    text = "".join(f"line {i}\n" for i in range(1, 201))
    (root / "a.txt").write_text(text, encoding="utf-8")
    written = await plan(client, "write", "a.txt", content="x\n")
    assert 'backup(action="compare", backup_id=...) shows the complete diff' in written["preview_diff"]
    edit = {"old_text": text[: text.index("line 101")], "new_text": "y\n"}
    edited = await plan(client, "edit", "a.txt", **edit)
    assert "elided — edit_file with the same old_text/new_text and dry_run=true" in edited["preview_diff"]
    for planned in (written, edited):
        assert "pass diff_format" not in planned["preview_diff"]
    # The call it names runs as written, and shows the whole diff.
    whole = structured(
        await client.call_tool("edit_file", {"path": "a.txt", **edit, "dry_run": True, "diff_format": "full"})
    )
    assert "elided" not in whole["diff"]
    assert "-line 100" in whole["diff"]
    assert (root / "a.txt").read_text(encoding="utf-8") == text


async def test_a_write_over_a_binary_file_suggests_what_can_change_it_not_edit_file(client: Client, root: Path) -> None:
    # It said "prefer edit_file for the parts that really change", which refuses a binary file.
    blob = bytes(range(256)) * 40
    (root / "b.bin").write_bytes(blob)
    planned = await plan(client, "write", "b.bin", content="hello")
    first = planned["suggestions"][0]
    assert first.startswith("It is binary, which edit_file refuses: write_file replaces it whole")
    assert not any("prefer edit_file" in suggestion for suggestion in planned["suggestions"])
    assert "replaces a binary file (10,240 bytes) whole: the diff shows only the new text" in planned["risk_factors"]
    edited = await client.call_tool("edit_file", {"path": "b.bin", "old_text": "a", "new_text": "b"})
    assert error_code(edited) == "binary_file"  # what the old suggestion led to
    assert (root / "b.bin").read_bytes() == blob
    written = await client.call_tool("write_file", {"path": "b.bin", "content_base64": "aGVsbG8="})
    assert not written.is_error
    assert (root / "b.bin").read_bytes() == b"hello"
