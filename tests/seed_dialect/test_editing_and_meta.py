"""edit_file, multi_edit, read_file, backup, server_info and help called as prompts written for the seed call them.

Each case is a seed-shaped call (catalog §1.1, §1.3, §1.4, §1.15, §1.17, §1.20 and the behaviours its tests pin,
§4) and the effect the seed documents; where a file changes, the bytes on disk are checked. fsguard deviates
where SPEC says so: it always backs up (create_backup=false is reported, not obeyed), and force never lifts the
rewrite guard (as in the seed). Both protocol eras, through ``client``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def notes(root: Path) -> Path:
    path = root / "notes.txt"
    path.write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    return path


async def test_edit_file_with_force_and_create_backup_as_the_seeds_strings_edits_and_backs_up(
    client: Client, notes: Path
) -> None:
    arguments = {"path": "notes.txt", "old_str": "beta", "new_str": "BETA", "force": "true", "create_backup": "false"}
    answer = await client.call_tool("edit_file", arguments)
    result = structured(answer)
    assert notes.read_bytes() == b"alpha\r\nBETA\r\ngamma\r\n"
    assert result["backup_id"]
    assert "create_backup=false is ignored" in text_of(answer)
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "notes.txt"}))
    assert notes.read_bytes() == b"alpha\r\nbeta\r\ngamma\r\n"


async def test_edit_file_regex_mode_with_create_backup_true_and_patterns_json_text_limit_minus_one(
    client: Client, notes: Path
) -> None:
    rules = json.dumps([{"pattern": "(a)", "replacement": "[$1]", "limit": -1}])
    arguments = {"path": "notes.txt", "mode": "regex", "patterns_json": rules, "create_backup": True}
    result = structured(await client.call_tool("edit_file", arguments))
    assert notes.read_bytes() == b"[a]lph[a]\r\nbet[a]\r\ng[a]mm[a]\r\n"
    assert result["replacements"] == 5
    assert result["backup_id"]


async def test_edit_file_regex_rule_limit_two_replaces_the_first_two(client: Client, notes: Path) -> None:
    rules = '[{"pattern": "a", "replacement": "A", "limit": 2}]'
    structured(await client.call_tool("edit_file", {"path": "notes.txt", "mode": "regex", "patterns_json": rules}))
    assert notes.read_bytes() == b"AlphA\r\nbeta\r\ngamma\r\n"


async def test_a_forced_rewrite_is_still_blocked_as_the_seed_blocks_it(client: Client, root: Path) -> None:
    body = "".join(f"row {i} of the table\n" for i in range(120))
    (root / "t.txt").write_text(body, encoding="utf-8")
    arguments = {"path": "t.txt", "old_text": "row 0 of the table\n", "new_text": body, "force": True}
    blocked = await client.call_tool("edit_file", arguments)
    assert error_code(blocked) == "rewrite_blocked"
    assert "allow_rewrite=true" in text_of(blocked)
    assert (root / "t.txt").read_text(encoding="utf-8") == body


async def test_multi_edit_with_edits_json_text_and_force(client: Client, notes: Path) -> None:
    edits = '[{"old_text": "alpha", "new_text": "ALPHA"}, {"old_text": "gamma", "new_text": "GAMMA"},]'
    result = structured(await client.call_tool("multi_edit", {"path": "notes.txt", "edits_json": edits, "force": True}))
    assert (result["successful_edits"], result["total_edits"]) == (2, 2)
    assert notes.read_bytes() == b"ALPHA\r\nbeta\r\nGAMMA\r\n"


@pytest.mark.parametrize("encoding", ["utf-8", "text", ""])
async def test_read_file_with_a_text_encoding_reads_normally(client: Client, notes: Path, encoding: str) -> None:
    result = structured(await client.call_tool("read_file", {"path": "notes.txt", "encoding": encoding}))
    assert result["content"] == "alpha\r\nbeta\r\ngamma\r\n"
    assert len(result["content_hash"]) == 8


async def test_read_file_encoding_base64_still_returns_the_bytes(client: Client, notes: Path) -> None:
    result = structured(await client.call_tool("read_file", {"path": "notes.txt", "encoding": "base64"}))
    assert result["content"] == "YWxwaGENCmJldGENCmdhbW1hDQo="


async def test_backup_restore_of_an_older_backup_after_later_edits_takes_a_safety_snapshot(
    client: Client, notes: Path
) -> None:
    first = structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "alpha", "new_text": "1"}))
    structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "beta", "new_text": "2"}))
    answer = await client.call_tool("backup", {"action": "restore", "backup_id": first["backup_id"]})
    restored = structured(answer)["restored"][0]
    assert notes.read_bytes() == b"alpha\r\nbeta\r\ngamma\r\n"
    assert restored["safety_backup_id"] in text_of(answer)
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": restored["safety_backup_id"]}))
    assert notes.read_bytes() == b"1\r\n2\r\ngamma\r\n"


async def test_backup_restore_dry_run_after_later_edits_reports_instead_of_failing(client: Client, notes: Path) -> None:
    first = structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "alpha", "new_text": "1"}))
    structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "beta", "new_text": "2"}))
    arguments = {"action": "restore", "backup_id": first["backup_id"], "dry_run": "true"}
    result = structured(await client.call_tool("backup", arguments))
    assert result["dry_run"] is True
    assert result["restored"][0]["changed_since"] is True
    assert notes.read_bytes() == b"1\r\n2\r\ngamma\r\n"


async def test_backup_list_filter_operation_edit_file_matches_every_mode(client: Client, notes: Path) -> None:
    await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "alpha", "new_text": "A"})
    await client.call_tool("edit_file", {"path": "notes.txt", "mode": "delete_range", "start_line": 3, "end_line": 3})
    await client.call_tool(
        "edit_file", {"path": "notes.txt", "mode": "search_replace", "pattern": "b", "new_text": "B"}
    )
    assert notes.read_bytes() == b"A\r\nBeta\r\n"
    listing = structured(await client.call_tool("backup", {"action": "list", "filter_operation": "edit_file"}))
    assert listing["total"] == 3
    assert {b["operation"] for b in listing["backups"]} == {
        "edit_file:replace",
        "edit_file:delete_range",
        "edit_file:search_replace",
    }


@pytest.mark.parametrize(
    "topic",
    [
        "overview",
        "workflow",
        "tools",
        "read",
        "write",
        "edit",
        "search",
        "batch",
        "errors",
        "examples",
        "tips",
        "recovery",
    ],
)
async def test_server_info_answers_every_help_topic_of_the_seed(client: Client, topic: str) -> None:
    result = structured(await client.call_tool("server_info", {"action": "help", "topic": topic}))
    assert result["text"]


async def test_server_info_tools_topic_names_the_registered_tools(client: Client) -> None:
    text = structured(await client.call_tool("server_info", {"action": "help", "topic": "tools"}))["text"]
    for tool in (await client.list_tools()).tools:
        assert f"- {tool.name}" in text


async def test_server_info_artifact_write_creates_missing_parent_directories(client: Client, root: Path) -> None:
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "# Plan\n"})
    arguments = {"action": "artifact", "sub_action": "write", "path": "docs/plans/plan.md"}
    structured(await client.call_tool("server_info", arguments))
    assert (root / "docs" / "plans" / "plan.md").read_bytes() == b"# Plan\n"


async def test_help_lists_each_tool_with_its_first_sentence(client: Client) -> None:
    text = text_of(await client.call_tool("help", {}))
    line = next(row for row in text.splitlines() if row.startswith("- edit_file:"))
    assert line == (
        "- edit_file: Change one place in a file; several in one file: multi_edit; the same text in many: "
        "project_replace."
    )
    assert "mode replace (default)" not in text


async def test_edit_file_and_multi_edit_take_an_empty_diff_format_as_auto(client: Client, notes: Path) -> None:
    edited = structured(
        await client.call_tool(
            "edit_file", {"path": "notes.txt", "old_text": "alpha", "new_text": "ALPHA", "diff_format": ""}
        )
    )
    assert "+ALPHA" in edited["diff"]
    edits = [{"old_text": "gamma", "new_text": "GAMMA"}]
    multi = structured(
        await client.call_tool("multi_edit", {"path": "notes.txt", "edits_json": edits, "diff_format": ""})
    )
    assert "+GAMMA" in multi["diff"]
    assert notes.read_bytes() == b"ALPHA\r\nbeta\r\nGAMMA\r\n"


async def test_an_empty_mode_is_the_default_mode_of_edit_file_and_read_file(client: Client, notes: Path) -> None:
    args = {"path": "notes.txt", "mode": "", "old_text": "beta", "new_text": "BETA", "position": ""}
    assert structured(await client.call_tool("edit_file", args))["replacements"] == 1
    assert notes.read_bytes() == b"alpha\r\nBETA\r\ngamma\r\n"
    read = structured(await client.call_tool("read_file", {"path": "notes.txt", "mode": ""}))
    assert read["content"] == "alpha\r\nBETA\r\ngamma\r\n"


async def test_an_unknown_edit_mode_is_refused_not_taken_as_replace(client: Client, notes: Path) -> None:
    args = {"path": "notes.txt", "mode": "regx", "old_text": "beta", "new_text": "BETA"}
    result = await client.call_tool("edit_file", args)
    assert error_code(result) == "invalid_params"
    assert '"regex"' in text_of(result)
    assert notes.read_bytes() == b"alpha\r\nbeta\r\ngamma\r\n"
