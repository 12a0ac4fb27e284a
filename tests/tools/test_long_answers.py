"""Answers about many operations or paths (issue 13): the text block shows ten of them, the failed ones
first, and counts the rest; the structured result, or the error's fields, keep every one."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from fsguard.models import BackupResult, GroupInfo, RevertedChange
from fsguard.voice.backups import group_text
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio

MANY = 200
TEXT_BYTES = 3000  # ten rows and the count; one row per item would pass 20 KB


async def test_a_batch_of_many_invalid_operations_lists_ten_problems_and_counts_the_rest(
    client: Client, root: Path
) -> None:
    operations = [{"type": "edit", "path": f"missing{n}.txt", "old_text": "a", "new_text": "b"} for n in range(MANY)]
    operations.append({"type": "write", "path": "made.txt", "content": "x"})
    result = await client.call_tool("batch_operations", {"request_json": json.dumps({"operations": operations})})
    assert error_code(result) == "invalid_params"
    text = text_of(result)
    assert text.count("\n- operation ") == 10
    assert f"… and {MANY - 10} more, {MANY - 10} of them failed (every one in the error's errors field)" in text
    assert len(text.encode()) < TEXT_BYTES
    assert len((result.meta or {})["fsguard/error"]["errors"]) == MANY
    assert not (root / "made.txt").exists()


async def test_a_batch_of_many_writes_lists_ten_operations_and_the_result_keeps_every_one(
    client: Client, root: Path
) -> None:
    operations = [{"type": "write", "path": f"out/w{n}.txt", "content": f"{n}\n"} for n in range(MANY)]
    result = await client.call_tool("batch_operations", {"request_json": json.dumps({"operations": operations})})
    text = text_of(result)
    assert text.startswith(f"Batch applied: {MANY}/{MANY} operations ok.")
    assert text.count("  [OK] [") == 10
    assert text.endswith(f"… and {MANY - 10} more (every one in the result's operations list)")
    assert len(text.encode()) < TEXT_BYTES
    assert len(structured(result)["operations"]) == MANY
    assert (root / "out" / f"w{MANY - 1}.txt").read_text(encoding="utf-8") == f"{MANY - 1}\n"


async def test_deleting_many_paths_lists_ten_with_the_failure_and_the_result_keeps_every_one(
    client: Client, root: Path
) -> None:
    for n in range(MANY):
        (root / f"d{n:03}.txt").write_text("x", encoding="utf-8")
    paths = [f"d{n:03}.txt" for n in range(MANY)]
    paths[150] = "absent.txt"
    result = await client.call_tool("delete_file", {"paths": paths})
    text = text_of(result)
    assert "FAILED absent.txt" in text
    assert text.count("to the trash") + text.count("D d") == 9
    assert f"… and {MANY - 10} more (every one in the result's results list)\n{MANY - 1}/{MANY} succeeded" in text
    assert len(text.encode()) < TEXT_BYTES
    assert len(structured(result)["results"]) == MANY
    assert not (root / "d199.txt").exists()


async def test_info_on_many_paths_shows_ten_and_the_result_keeps_every_one(client: Client, root: Path) -> None:
    for n in range(MANY):
        (root / f"i{n:03}.txt").write_text("x", encoding="utf-8")
    paths = [f"i{n:03}.txt" for n in range(MANY)]
    result = await client.call_tool("get_file_info", {"paths": paths})
    text = text_of(result)
    assert text.count("=== i") == 10
    assert text.endswith(f"… and {MANY - 10} more (every one in the result's files list)")
    assert len(text.encode()) < TEXT_BYTES
    assert [entry["path"] for entry in structured(result)["files"]][-1] == str(root / "i199.txt")


async def test_a_diff_whose_file_list_is_cut_sums_up_every_file_not_the_ones_listed(client: Client, root: Path) -> None:
    repo = make_repo(root)
    for n in range(30):
        (repo / f"f{n:02}.txt").write_text("one\ntwo\n", encoding="utf-8")
    git(repo, "add", ".")
    result = await client.call_tool("git", {"action": "diff", "staged": True, "output": "name-only", "max_lines": 5})
    text = text_of(result)
    assert text.startswith("30 files changed, +60 -0:\nf00.txt\n")
    assert "File list cut at 5 of 30" in text
    assert len(structured(result)["files"]) == 5
    assert git(repo, "diff", "--cached", "--name-only").count("\n") == 30


async def test_a_repository_of_many_branches_lists_ten_with_the_current_one(client: Client, root: Path) -> None:
    repo = make_repo(root)
    refs = "".join(f"create refs/heads/b{n:03} HEAD\n" for n in range(MANY))
    subprocess.run(["git", "update-ref", "--stdin"], cwd=repo, input=refs.encode(), check=True)
    result = await client.call_tool("git", {"action": "branch", "name": "zz", "checkout": True})
    text = text_of(result)
    assert text.startswith("Created branch zz and switched to it.\n  b000\n")
    assert "\n* zz\n" in text
    assert text.endswith(f"… and {MANY + 2 - 10} more (every one in the result's branches list)")
    assert len(text.encode()) < TEXT_BYTES
    assert len(structured(result)["branches"]) == MANY + 2
    assert git(repo, "branch", "--show-current") == "zz\n"


async def test_many_files_given_one_name_are_named_ten_with_the_count(client: Client, root: Path) -> None:
    for n in range(MANY):
        (root / f"r{n:03}.txt").write_text("x", encoding="utf-8")
    rule = {"path": ".", "mode": "regex_rename", "pattern": ".*", "replacement": "same.txt"}
    refused = await client.call_tool("batch_operations", {"rename_json": json.dumps(rule)})
    preview = await client.call_tool("batch_operations", {"rename_json": json.dumps({**rule, "preview": True})})
    assert error_code(refused) == "conflict"
    assert f"r009.txt and {MANY - 10} more (all in the error's conflicts field)" in text_of(refused)
    assert len((refused.meta or {})["fsguard/error"]["conflicts"][0]["sources"]) == MANY
    assert f"r009.txt and {MANY - 10} more (all in the result's conflicts list)" in text_of(preview)
    assert len(structured(preview)["conflicts"][0]["sources"]) == MANY
    for text in (text_of(refused), text_of(preview)):
        assert len(text.encode()) < TEXT_BYTES
    assert (root / "r199.txt").exists()
    assert not (root / "same.txt").exists()


async def test_the_info_and_restore_of_a_group_of_many_changes_show_ten_of_them(client: Client, root: Path) -> None:
    for n in range(MANY):
        (root / f"g{n:03}.txt").write_text("x", encoding="utf-8")
    rule = {"path": ".", "mode": "add_prefix", "prefix": "p_"}
    renamed = structured(await client.call_tool("batch_operations", {"rename_json": json.dumps(rule)}))
    info = await client.call_tool("backup", {"action": "info", "backup_id": renamed["backup_id"]})
    restored = await client.call_tool("backup", {"action": "restore", "backup_id": renamed["backup_id"]})
    assert text_of(info).count("\nmoved ") == 10
    assert text_of(info).endswith(f"… and {MANY - 10} more (every one in the result's group changes)")
    assert len(structured(info)["group"]["changes"]) == MANY
    assert text_of(restored).count("  reverted: moved") == 10
    assert f"… and {MANY - 10} more (every one in the result's reverted list)" in text_of(restored)
    assert len(structured(restored)["reverted"]) == MANY
    for text in (text_of(info), text_of(restored)):
        assert len(text.encode()) < TEXT_BYTES
    assert (root / "g199.txt").exists()
    assert not (root / "p_g199.txt").exists()


async def test_the_compact_info_of_a_group_of_many_changes_names_ten_on_one_line_and_counts_the_rest(
    connect: ClientFactory, root: Path
) -> None:
    for n in range(MANY):
        (root / f"g{n:03}.txt").write_text("x", encoding="utf-8")
    rule = {"path": ".", "mode": "add_prefix", "prefix": "p_"}
    async with connect(compact_mode=True) as client:
        renamed = structured(await client.call_tool("batch_operations", {"rename_json": json.dumps(rule)}))
        info = await client.call_tool("backup", {"action": "info", "backup_id": renamed["backup_id"]})
    head, changes = text_of(info).split("\n")
    assert head.endswith(f"{MANY} changes")
    assert changes.startswith("moved g000.txt -> p_g000.txt; moved g001.txt -> p_g001.txt; ")
    assert changes.count("moved ") == 10
    assert changes.endswith(f"; +{MANY - 10} more in group.changes")
    assert len(structured(info)["group"]["changes"]) == MANY
    assert (root / "p_g199.txt").read_bytes() == b"x"


async def test_reading_many_missing_paths_keeps_the_answer_inside_the_response_budget(
    connect: ClientFactory, root: Path
) -> None:
    (root / "last.txt").write_text("kept\n", encoding="utf-8")
    many = 3000  # their headings and errors pass the 64 KiB that such lines may take besides the files' text
    paths = [f"gone/missing{n:04}.txt" for n in range(many)] + ["last.txt"]
    async with connect(max_response_bytes=4000) as client:
        result = await client.call_tool("read_file", {"paths": paths})
    data, text = structured(result), text_of(result)
    assert len(text.encode()) < 2**16 + 4000 + TEXT_BYTES
    assert len(data["content"].encode()) < 2**16 + 4000 + TEXT_BYTES
    assert text.endswith("every one is named in the result's files list]\n")
    assert len(data["files"]) == many + 1
    assert data["files"][-1] == data["files"][-1] | {"path": str(root / "last.txt"), "truncated": True}
    assert "content" not in data["files"][-1]
    assert (root / "last.txt").read_text(encoding="utf-8") == "kept\n"


async def test_staging_and_restoring_more_paths_than_max_lines_counts_every_one(client: Client, root: Path) -> None:
    repo = make_repo(root)
    paths = [f"s{n:02}.txt" for n in range(30)]
    for name in paths:
        (repo / name).write_text("one\n", encoding="utf-8")
    staged = await client.call_tool("git", {"action": "add", "paths": paths, "max_lines": 5})
    git(repo, "commit", "-q", "-m", "thirty")
    for name in paths:
        (repo / name).write_text("two\n", encoding="utf-8")
    restored = await client.call_tool("git", {"action": "restore", "paths": paths, "force": True, "max_lines": 5})
    assert text_of(staged).startswith("Staged 30 files:\n  s00.txt\n")
    assert text_of(restored).startswith("Restored 30 files; 30 backed up first.")
    for result in (staged, restored):
        assert "Path list cut at 5 of 30: raise max_lines to see more." in text_of(result)
        assert len(structured(result)["paths"]) == 5
    assert (repo / "s29.txt").read_text(encoding="utf-8") == "one\n"


async def test_unstaging_more_paths_than_max_lines_counts_every_one_as_staging_them_does(
    client: Client, root: Path
) -> None:
    repo = make_repo(root)
    paths = [f"u{n:02}.txt" for n in range(30)]
    for name in paths:
        (repo / name).write_text("one\n", encoding="utf-8")
    await client.call_tool("git", {"action": "add", "paths": paths})
    result = await client.call_tool("git", {"action": "restore", "paths": paths, "staged": True, "max_lines": 5})
    assert text_of(result).startswith("Unstaged 30 paths; the working tree is untouched.\n")
    assert "Path list cut at 5 of 30: raise max_lines to see more." in text_of(result)
    assert len(structured(result)["paths"]) == 5
    assert git(repo, "diff", "--cached", "--name-only").strip() == ""
    assert (repo / "u29.txt").read_text(encoding="utf-8") == "one\n"


async def test_a_multi_edit_of_many_edits_lists_ten_with_those_already_present(client: Client, root: Path) -> None:
    (root / "m.txt").write_text("".join(f"w{n:03}\n" for n in range(MANY)), encoding="utf-8")
    edits = [{"old_text": f"w{n:03}\n", "new_text": f"v{n:03}\n"} for n in range(MANY)]
    edits.append({"old_text": "w150\n", "new_text": "v150\n"})
    result = await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits})
    text = text_of(result)
    assert "  edit 201: already present" in text
    assert text.count("  edit ") == 10
    assert f"… and {MANY - 9} more (every one in the result's edits list)" in text
    assert len(text.encode()) < TEXT_BYTES
    assert len(structured(result)["edits"]) == MANY + 1
    assert (root / "m.txt").read_text(encoding="utf-8") == "".join(f"v{n:03}\n" for n in range(MANY))


async def test_a_wsl_sync_of_a_large_tree_lists_ten_files_and_counts_the_rest(
    connect: ClientFactory, root: Path
) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    win.mkdir(parents=True)
    source = home / "projects" / "big"
    source.mkdir(parents=True)
    for n in range(MANY):
        (source / f"p{n:03}.md").write_text(f"{n}", encoding="utf-8")
    settings = {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}
    async with connect(**settings) as client:
        result = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(source)})
    text = text_of(result)
    assert text.count("  created ") == 10
    assert text.endswith(f"… and {MANY - 10} more (every one in the result's files list)")
    assert len(text.encode()) < TEXT_BYTES
    assert len(structured(result)["files"]) == MANY
    assert (win / "projects" / "big" / "p199.md").read_text(encoding="utf-8") == "199"


@pytest.mark.parametrize(
    "arguments",
    [{"old_text": "absent", "new_text": "x"}, {"mode": "insert", "anchor": "absent", "new_text": "x"}],
    ids=["old_text", "anchor"],
)
async def test_a_miss_in_a_short_file_of_huge_lines_shows_the_start_of_each_line(
    client: Client, root: Path, arguments: dict[str, object]
) -> None:
    original = ("q" * 300_000 + "\n") * 3
    (root / "wide.txt").write_text(original, encoding="utf-8")
    result = await client.call_tool("edit_file", {"path": "wide.txt", **arguments})
    text = text_of(result)
    assert error_code(result) == "no_match"
    assert "The whole file (3 lines):" in text
    assert "    3: " + "q" * 300 + "… [300,000 characters: read_file(start_line=3) shows it]" in text
    assert len(text.encode()) < TEXT_BYTES
    assert (root / "wide.txt").read_text(encoding="utf-8") == original


async def test_a_word_changed_in_a_minified_line_of_megabytes_is_shown_around_the_change(
    client: Client, root: Path
) -> None:
    original = "a" * 1_000_000 + "MARK" + "a" * 1_000_000 + "\n"
    (root / "min.txt").write_text(original, encoding="utf-8")
    result = await client.call_tool("edit_file", {"path": "min.txt", "old_text": "MARK", "new_text": "MORK"})
    data, text = structured(result), text_of(result)
    assert "-…" + "a" * 99 + "MARK" in data["diff"]
    assert "+…" + "a" * 99 + "MORK" in data["diff"]
    assert "… [line of 2,000,004 characters, from column 999,902]" in data["diff"]
    assert len(text.encode()) < TEXT_BYTES
    assert len(data["diff"].encode()) < TEXT_BYTES
    assert (root / "min.txt").read_text(encoding="utf-8") == original.replace("MARK", "MORK")


async def test_a_path_refused_after_the_budget_is_spent_is_shown_as_failed_not_counted_as_left_out(
    connect: ClientFactory, root: Path
) -> None:
    (root / "big.txt").write_text("x" * 3999 + "\n", encoding="utf-8")
    for n in range(30):
        (root / f"after{n:02}.txt").write_text(f"{n}\n", encoding="utf-8")
    paths = ["big.txt", *(f"after{n:02}.txt" for n in range(30)), "/etc/passwd"]
    async with connect(max_response_bytes=4000) as client:
        result = await client.call_tool("read_file", {"paths": paths})
    data, text = structured(result), text_of(result)
    assert data["files"][-1]["error_code"] == "access_denied"
    for shown in (text, data["content"]):
        assert "=== /etc/passwd ===\nERROR:" in shown
        assert "… and 21 more files left out" in shown
    assert (root / "after29.txt").read_text(encoding="utf-8") == "29\n"


def test_the_text_of_a_group_restore_that_kept_thousands_of_changes_tells_them_apart_by_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    kept = [RevertedChange(kind="modified", path=f"/r/f{n}.txt", status="kept", detail="changed") for n in range(2000)]
    group = GroupInfo(group_id="g1", operation="batch", time="2026-12-02T00:00:00Z", files=[], changes=[])
    result = BackupResult(action="restore", group=group, reverted=kept, message="")
    compared = 0

    def counted(self: object, other: object) -> bool:
        nonlocal compared
        compared += 1
        return self is other

    # Whole rows compared with each other made the text of 4,000 kept changes take 12 s.
    monkeypatch.setattr(RevertedChange, "__eq__", counted)
    text = group_text(result, compact=False)
    assert compared < len(kept)
    assert text.count("\n  kept: modified ") == 10
    assert "… and 1,990 more, 1,990 of them kept or failed" in text
