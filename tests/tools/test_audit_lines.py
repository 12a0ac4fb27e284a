"""What each writing tool's audit line records, in both eras: the canonical paths and the backups its answer holds,
and the bytes of content its request carried."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, error_code, structured

pytestmark = pytest.mark.anyio


def audit_lines(logs: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (logs / "operations.jsonl").read_text(encoding="utf-8").splitlines()]


async def test_a_delete_and_an_undo_log_the_canonical_path_and_the_backup_their_answer_names(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    for name in ("a.txt", "b.txt", "c.txt", "d.txt"):
        (root / name).write_bytes(f"{name}\n".encode())
    async with connect(log_dir=logs) as client:
        await client.call_tool("edit_file", {"path": "./a.txt", "old_text": "a.txt", "new_text": "A"})
        undone = structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "./a.txt"}))
        deleted = structured(await client.call_tool("delete_file", {"path": "./b.txt", "permanent": True}))
        both = structured(await client.call_tool("delete_file", {"paths": ["c.txt", "d.txt"], "permanent": True}))
    assert (root / "a.txt").read_bytes() == b"a.txt\n"
    assert sorted(path.name for path in root.iterdir()) == ["a.txt"]
    _, undo, delete, deletes = audit_lines(logs)
    # undo_last's backup is the pre_undo one of the bytes it replaced: restoring it redoes the edit.
    assert (undo["path"], undo["backup_id"]) == (str(root / "a.txt"), undone["restored"][0]["safety_backup_id"])
    assert (delete["path"], delete["backup_id"]) == (str(root / "b.txt"), deleted["results"][0]["backup_id"])
    assert "paths" not in delete
    assert "backup_ids" not in delete
    assert deletes["path"] == str(root / "c.txt")
    assert (deletes["paths"], deletes["path_count"]) == ([str(root / "c.txt"), str(root / "d.txt")], 2)
    ids = [result["backup_id"] for result in both["results"]]
    assert (deletes["backup_id"], deletes["backup_ids"], deletes["backup_count"]) == (ids[0], ids, 2)


async def test_a_batch_logs_its_files_and_the_bytes_its_writes_and_multi_edit_its_edits_carry(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    (root / "e.txt").write_bytes(b"one two\n")
    (root / "f.txt").write_bytes(b"f\n")
    operations = [
        {"type": "write", "path": "n.txt", "content": "h\u00e9llo\n"},
        {"type": "edit", "path": "f.txt", "old_text": "f", "new_text": "\u20ac"},
    ]
    edits = [{"old_text": "one", "new_text": "1"}, {"old_text": "two", "new_text": "22"}]
    async with connect(log_dir=logs) as client:
        batch = structured(
            await client.call_tool("batch_operations", {"request_json": json.dumps({"operations": operations})})
        )
        await client.call_tool("multi_edit", {"path": "e.txt", "edits_json": edits})
    assert (root / "n.txt").read_bytes() == "h\u00e9llo\n".encode()
    assert (root / "f.txt").read_bytes() == "\u20ac\n".encode()
    assert (root / "e.txt").read_bytes() == b"1 22\n"
    batched, edited = audit_lines(logs)
    assert batched["content_bytes"] == 7 + 3
    assert (batched["path"], batched["paths"], batched["path_count"]) == (
        str(root / "n.txt"),
        [str(root / "n.txt"), str(root / "f.txt")],
        2,
    )
    assert batched["backup_id"] == batch["backup_id"]  # the group id: one restore reverts it all
    assert edited["content_bytes"] == 3


async def test_a_misspelled_key_s_long_list_and_a_read_of_thousands_of_paths_make_short_lines(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    (root / "a.txt").write_bytes(b"x\n")
    lines = [f"some secret text line {k}" for k in range(50_000)]
    async with connect(log_dir=logs) as client:
        await client.call_tool("read_file", {"paths": ["a.txt"] * 3000})
        await client.call_tool("write_file", {"path": "b.txt", "contents": lines})
    assert not (root / "b.txt").exists()
    raw = (logs / "operations.jsonl").read_text(encoding="utf-8")
    assert all(len(line) < 2000 for line in raw.splitlines())
    read, write = audit_lines(logs)
    assert read["args"]["paths"] == [*["a.txt"] * 10, "… +2990 more"]
    assert write["args"]["contents"] == [*lines[:10], "… +49990 more"]
    assert "line 10" not in raw


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("edit_file", {"old_text": "zzz", "new_text": "y"}, "no_match"),
        ("edit_file", {"old_text": "a", "new_text": "y"}, "ambiguous_match"),
        ("edit_file", {"mode": "delete_range", "start_line": 9, "end_line": 9}, "invalid_params"),
        ("multi_edit", {"edits_json": [{"old_text": "zzz", "new_text": "y"}]}, "no_match"),
    ],
)
async def test_an_edit_its_planner_refuses_names_the_canonical_path_in_its_meta_and_audit_line(
    connect: ClientFactory, root: Path, tmp_path: Path, tool: str, args: dict[str, Any], code: str
) -> None:
    logs = tmp_path / "logs"
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_bytes(b"a\na\n")
    async with connect(log_dir=logs) as client:
        refused = await client.call_tool(tool, {"path": "d/../d/f.txt", **args})
    assert (root / "d" / "f.txt").read_bytes() == b"a\na\n"
    assert error_code(refused) == code
    assert (refused.meta or {})["fsguard/error"]["path"] == str(root / "d" / "f.txt")
    (line,) = audit_lines(logs)
    assert (line["error_code"], line["path"]) == (code, str(root / "d" / "f.txt"))


async def test_regex_rules_a_project_replace_and_new_text_under_its_other_spellings_log_the_bytes_they_carry(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    (root / "a.txt").write_bytes(b"one\n")
    rules = [{"pattern": "one", "replacement": "\u00e9"}, {"pattern": "x", "replacement": "yz"}]
    async with connect(log_dir=logs) as client:
        await client.call_tool("edit_file", {"path": "a.txt", "mode": "regex", "patterns_json": rules})
        await client.call_tool("edit_file", {"path": "a.txt", "mode": "regex", "patterns_json": json.dumps(rules)})
        await client.call_tool("edit_file", {"path": "a.txt", "old_string": "\u00e9", "new_string": "two"})
        await client.call_tool("project_replace", {"path": ".", "find": "two", "replace": "\u20ac", "preview": False})
    assert (root / "a.txt").read_bytes() == "\u20ac\n".encode()
    assert [line["content_bytes"] for line in audit_lines(logs)] == [4, 4, 3, 3]


async def test_a_read_and_a_delete_of_a_dozen_files_with_paths_near_path_max_make_lines_under_ten_kb(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    deep = root
    while len(str(deep)) < 3_800:
        deep = deep / ("d" * 200)
    deep.mkdir(parents=True)
    files = [deep / f"f{k:02}.txt" for k in range(12)]
    for file in files:
        file.write_bytes(b"x\n")
    async with connect(log_dir=logs) as client:
        await client.call_tool("read_file", {"paths": [str(file) for file in files]})
        await client.call_tool("delete_file", {"paths": [str(file) for file in files]})
    assert not any(file.exists() for file in files)
    raw = (logs / "operations.jsonl").read_bytes()
    assert max(len(line) + 1 for line in raw.splitlines()) <= 10_240
    for line in audit_lines(logs):
        assert line["path_count"] == 12
        assert str(files[0]).startswith(line["path"].removesuffix("…"))
        listed = zip(files[:10], line["paths"], strict=True)
        assert all(str(file).startswith(path.removesuffix("…")) for file, path in listed)
