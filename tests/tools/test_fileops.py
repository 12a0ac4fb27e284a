"""delete_file, move_file, copy_file and analyze_operation through the in-memory Client, in both eras."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_batch_request import snapshot
from tests.tools.test_least_privilege import tree

pytestmark = pytest.mark.anyio


async def test_soft_delete_moves_a_file_to_the_trash_and_restore_brings_the_bytes_back(
    client: Client, root: Path, state_dir: Path
) -> None:
    (root / "a.txt").write_bytes(b"precious\r\n")
    result = structured(await client.call_tool("delete_file", {"path": "a.txt"}))
    entry = result["results"][0]
    assert (entry["status"], result["succeeded"], result["failed"]) == ("trashed", 1, 0)
    assert not (root / "a.txt").exists()
    assert any(state_dir.joinpath("trash").rglob("item"))
    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
    assert [t["sd_id"] for t in listed["trash"]] == [entry["sd_id"]]
    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": entry["sd_id"]}))
    assert (root / "a.txt").read_bytes() == b"precious\r\n"
    assert structured(await client.call_tool("backup", {"action": "list_trash"}))["total"] == 0


async def test_a_non_empty_directory_needs_recursive_and_goes_to_the_trash_whole(client: Client, root: Path) -> None:
    (root / "d" / "sub").mkdir(parents=True)
    (root / "d" / "sub" / "f.txt").write_text("f", encoding="utf-8")
    refused = await client.call_tool("delete_file", {"path": "d"})
    assert error_code(refused) == "invalid_params"
    assert (root / "d" / "sub" / "f.txt").exists()
    entry = structured(await client.call_tool("delete_file", {"path": "d", "recursive": True}))["results"][0]
    assert not (root / "d").exists()
    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": entry["sd_id"]}))
    assert (root / "d" / "sub" / "f.txt").read_text(encoding="utf-8") == "f"


async def test_permanent_delete_of_a_file_keeps_a_backup_to_restore(client: Client, root: Path) -> None:
    (root / "gone.txt").write_text("last words\n", encoding="utf-8")
    entry = structured(await client.call_tool("delete_file", {"path": "gone.txt", "permanent": True}))["results"][0]
    assert entry["status"] == "deleted"
    assert not (root / "gone.txt").exists()
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": entry["backup_id"]}))
    assert (root / "gone.txt").read_text(encoding="utf-8") == "last words\n"


async def test_permanent_delete_of_a_directory_backs_up_every_file_and_its_group_brings_the_tree_back(
    client: Client, root: Path
) -> None:
    tree(root, {"d/a.txt": "a\n", "d/sub/b.bin": "b\x00\n", "d/sub/deeper/c.txt": "secret\n"})
    (root / "d" / "sub" / "deeper" / "c.txt").chmod(0o600)
    (root / "d" / "sub").chmod(0o750)
    before = snapshot(root)
    result = structured(await client.call_tool("delete_file", {"path": "d", "permanent": True, "recursive": True}))
    entry = result["results"][0]
    assert (entry["status"], entry["files_backed_up"]) == ("deleted", 3)
    assert not (root / "d").exists()
    assert f'backup_id="{entry["backup_id"]}") brings the tree back' in result["message"]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": entry["backup_id"]}))
    assert snapshot(root) == before  # bytes and modes, files and directories


async def test_permanent_delete_of_a_directory_holding_a_file_too_large_to_back_up_deletes_nothing(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"d/small.txt": "s\n", "d/sub/big.log": "x" * 64})
    before = snapshot(root)
    async with connect(max_file_size=32) as client:
        result = await client.call_tool("delete_file", {"path": "d", "permanent": True, "recursive": True})
    assert error_code(result) == "too_large"
    assert "big.log" in text_of(result)
    assert "without permanent" in text_of(result)
    assert snapshot(root) == before


@pytest.mark.parametrize("spelling", [".", "./", "{root}", "{root}/"])
async def test_a_root_can_never_be_deleted_or_moved(client: Client, root: Path, spelling: str) -> None:
    target = spelling.format(root=root)
    for permanent in (False, True):
        result = await client.call_tool("delete_file", {"path": target, "permanent": permanent, "recursive": True})
        assert error_code(result) == "access_denied"
    moved = await client.call_tool("move_file", {"source_path": target, "dest_path": "elsewhere"})
    assert error_code(moved) == "access_denied"
    assert root.is_dir()


async def test_delete_with_a_stale_hash_deletes_nothing(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    result = await client.call_tool("delete_file", {"path": "a.txt", "expected_hash": "deadbeef"})
    assert error_code(result) == "stale_edit"
    assert (root / "a.txt").read_text(encoding="utf-8") == "a\n"


async def test_a_hash_of_a_file_that_became_a_directory_is_refused_before_any_advice_to_delete_it_all(
    client: Client, root: Path
) -> None:
    # The hash pins a file: advice to pass recursive=true would lead to deleting the directory that replaced it
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    hashed = structured(await client.call_tool("get_file_info", {"path": "a.txt"}))["content_hash"]
    (root / "a.txt").unlink()
    (root / "a.txt").mkdir()
    (root / "a.txt" / "kept").write_text("k\n", encoding="utf-8")
    result = await client.call_tool("delete_file", {"path": "a.txt", "expected_hash": hashed})
    assert error_code(result) == "invalid_params"
    assert "expected_hash" in text_of(result)
    assert "recursive" not in text_of(result)
    assert (root / "a.txt" / "kept").read_text(encoding="utf-8") == "k\n"


async def test_several_paths_are_deleted_and_reported_one_by_one(client: Client, root: Path) -> None:
    (root / "a.tmp").write_text("a", encoding="utf-8")
    (root / "b.tmp").write_text("b", encoding="utf-8")
    result = structured(await client.call_tool("delete_file", {"paths": ["a.tmp", "missing.tmp", "b.tmp"]}))
    assert [(r["status"], r.get("error_code")) for r in result["results"]] == [
        ("trashed", None),
        ("failed", "not_found"),
        ("trashed", None),
    ]
    assert (result["succeeded"], result["failed"]) == (2, 1)


@pytest.mark.parametrize(
    ("tool", "entries"), [("delete_file", "results"), ("get_file_info", "files"), ("read_file", "files")]
)
async def test_a_path_a_multi_path_call_failed_on_is_named_absolute_as_every_other_path_is(
    client: Client, root: Path, tool: str, entries: str
) -> None:
    # SPEC §2: every path in structured output is absolute; the failed ones came back as typed ("./sub/../x.txt").
    (root / "sub").mkdir()
    (root / "here.txt").write_text("here\n", encoding="utf-8")
    result = structured(await client.call_tool(tool, {"paths": ["./here.txt", "./sub/../missing.txt", "nope.txt"]}))
    assert [entry["path"] for entry in result[entries]] == [
        str(root / "here.txt"),
        str(root / "missing.txt"),
        str(root / "nope.txt"),
    ]


async def test_a_delete_of_several_paths_none_of_which_is_deleted_is_an_error_naming_each(
    client: Client, root: Path
) -> None:
    # "0/2 succeeded" as a success read as done to an agent that looks at isError alone.
    (root / "dir").mkdir()
    (root / "dir" / "kept.txt").write_bytes(b"kept\n")
    result = await client.call_tool("delete_file", {"paths": ["missing.tmp", "dir"]})
    assert error_code(result) == "not_found"
    fields = (result.meta or {})["fsguard/error"]
    assert (fields["failed"], fields["failed_codes"]) == (["missing.tmp", "dir"], ["not_found", "invalid_params"])
    assert text_of(result).startswith("None of the 2 paths was deleted: missing.tmp: ")
    assert (root / "dir" / "kept.txt").read_bytes() == b"kept\n"
    alone = await client.call_tool("delete_file", {"paths": ["missing.tmp"]})
    assert error_code(alone) == "not_found"


async def test_deleting_a_symlink_removes_the_link_not_its_target(client: Client, root: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("keep me", encoding="utf-8")
    (root / "link").symlink_to(tmp_path / "outside.txt")
    structured(await client.call_tool("delete_file", {"path": "link", "permanent": True}))
    assert not (root / "link").is_symlink()
    assert (tmp_path / "outside.txt").read_text(encoding="utf-8") == "keep me"


async def test_move_renames_and_refuses_to_clobber_leaving_both_files_intact(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("A", encoding="utf-8")
    (root / "b.txt").write_text("B", encoding="utf-8")
    refused = await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": "b.txt"})
    assert error_code(refused) == "already_exists"
    assert ((root / "a.txt").read_text(encoding="utf-8"), (root / "b.txt").read_text(encoding="utf-8")) == ("A", "B")
    moved = structured(await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": "sub/c.txt"}))
    assert moved["destination"] == str(root / "sub" / "c.txt")
    assert (root / "sub" / "c.txt").read_text(encoding="utf-8") == "A"
    assert not (root / "a.txt").exists()


async def test_moving_a_symlink_moves_the_link_itself_and_says_where_it_points(
    client: Client, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not ours")
    (root / "out-link").symlink_to(outside)
    moved = await client.call_tool("move_file", {"source_path": "out-link", "dest_path": "links/out-link"})
    data = structured(moved)
    assert data["symlink_target"] == str(outside)
    assert data.get("link_now_points_to") is None  # an absolute target means what it meant
    assert (root / "links" / "out-link").readlink() == outside
    assert not (root / "out-link").is_symlink()
    assert outside.read_bytes() == b"not ours"
    assert f"a symlink to {outside}, moved itself" in text_of(moved)


async def test_moving_a_relative_symlink_to_another_directory_says_it_now_points_elsewhere(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"A")
    (root / "sub").mkdir()
    (root / "alias").symlink_to("a.txt")
    moved = await client.call_tool("move_file", {"source_path": "alias", "dest_path": "sub/alias"})
    data = structured(moved)
    assert (data["symlink_target"], data["link_now_points_to"]) == ("a.txt", str(root / "sub" / "a.txt"))
    assert data["link_dangles"] is True
    assert (root / "sub" / "alias").readlink() == Path("a.txt")  # moved as it was, as mv does: never rewritten
    assert (root / "a.txt").read_bytes() == b"A"
    text = text_of(moved)
    assert "Its relative target a.txt now points at sub/a.txt, which does not exist" in text
    assert "(it pointed at a.txt)" in text


async def test_renaming_a_relative_symlink_in_its_directory_keeps_what_it_points_at(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"A")
    (root / "alias").symlink_to("a.txt")
    data = structured(await client.call_tool("move_file", {"source_path": "alias", "dest_path": "renamed"}))
    assert (data["symlink_target"], data.get("link_now_points_to"), data["link_dangles"]) == ("a.txt", None, False)
    assert (root / "renamed").read_bytes() == b"A"


async def test_moving_a_file_says_nothing_of_links(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"A")
    moved = await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": "b.txt"})
    data = structured(moved)
    assert (data.get("symlink_target"), data.get("link_now_points_to"), data.get("link_dangles")) == (None, None, False)
    assert "symlink" not in text_of(moved)


async def test_move_keeps_the_mode_and_refuses_a_directory_into_itself(client: Client, root: Path) -> None:
    (root / "d").mkdir()
    (root / "d" / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (root / "d" / "run.sh").chmod(0o750)
    inside = await client.call_tool("move_file", {"source_path": "d", "dest_path": "d/inner"})
    assert error_code(inside) == "invalid_params"
    structured(await client.call_tool("move_file", {"source_path": "d", "dest_path": "e"}))
    assert (root / "e" / "run.sh").stat().st_mode & 0o777 == 0o750


async def test_copy_is_recursive_keeps_modes_and_skips_symlinks(client: Client, root: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "deep" / "tool").write_bytes(b"\x7fELF...")
    (root / "src" / "deep" / "tool").chmod(0o755)
    (root / "src" / "notes.txt").write_text("n", encoding="utf-8")
    (root / "src" / "link").symlink_to(root / "src" / "notes.txt")
    data = structured(await client.call_tool("copy_file", {"source_path": "src", "dest_path": "copy"}))
    assert (data["files_copied"], data["bytes_copied"]) == (2, 8)
    assert data["skipped_symlinks"] == [str(root / "src" / "link")]
    assert (root / "copy" / "deep" / "tool").read_bytes() == b"\x7fELF..."
    assert (root / "copy" / "deep" / "tool").stat().st_mode & 0o777 == 0o755
    assert not (root / "copy" / "link").exists()
    again = await client.call_tool("copy_file", {"source_path": "src", "dest_path": "copy"})
    assert error_code(again) == "already_exists"


async def test_copy_lists_pipes_and_sockets_inside_a_tree_as_special_files_not_as_symlinks(
    client: Client, root: Path
) -> None:
    (root / "src").mkdir()
    (root / "src" / "notes.txt").write_text("n", encoding="utf-8")
    os.mkfifo(root / "src" / "queue")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(root / "src" / "s.sock"))
        result = await client.call_tool("copy_file", {"source_path": "src", "dest_path": "copy"})
    data = structured(result)
    assert data["skipped_special"] == [str(root / "src" / "queue"), str(root / "src" / "s.sock")]
    assert data["skipped_symlinks"] == []
    assert "2 pipes, sockets or devices skipped" in text_of(result)
    assert "symlink" not in text_of(result)
    assert sorted(path.name for path in (root / "copy").iterdir()) == ["notes.txt"]
    assert (root / "copy" / "notes.txt").read_bytes() == b"n"


async def test_copy_and_move_refuse_paths_outside_the_roots(client: Client, root: Path, tmp_path: Path) -> None:
    (root / "a.txt").write_text("a", encoding="utf-8")
    out = tmp_path / "stolen.txt"
    assert (
        error_code(await client.call_tool("copy_file", {"source_path": "a.txt", "dest_path": str(out)}))
        == "access_denied"
    )
    assert (
        error_code(await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": str(out)}))
        == "access_denied"
    )
    assert not out.exists()
    assert (root / "a.txt").read_text(encoding="utf-8") == "a"


async def test_analyze_operation_plans_without_changing_anything(client: Client, root: Path) -> None:
    (root / "a.py").write_text("x = 1\ny = 2\n", encoding="utf-8")
    (root / "credentials.txt").write_text("TOKEN=1\n", encoding="utf-8")
    (root / "config.yaml").write_text("port: 80\n", encoding="utf-8")
    before = {p: p.read_bytes() for p in root.iterdir()}
    edit = structured(
        await client.call_tool(
            "analyze_operation", {"operation": "edit", "path": "a.py", "old_text": "x = 1", "new_text": "x = 2"}
        )
    )
    assert (edit["lines_added"], edit["lines_removed"]) == (1, 1)
    assert "+x = 2" in edit["preview_diff"]
    secret = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "credentials.txt"}))
    assert secret["risk_level"] == "CRITICAL"
    config = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "config.yaml"}))
    assert config["risk_level"] == "CRITICAL"  # as the seed judges it: what reads it breaks
    missing = await client.call_tool("analyze_operation", {"operation": "write", "path": "a.py"})
    assert error_code(missing) == "invalid_params"
    outside = await client.call_tool("analyze_operation", {"operation": "file", "path": "/etc/passwd"})
    assert error_code(outside) == "access_denied"
    assert {p: p.read_bytes() for p in root.iterdir()} == before


async def test_a_plan_to_delete_a_link_describes_the_link_that_delete_file_removes(
    client: Client, root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    (root / "tree").mkdir()
    (root / "tree" / "big.bin").write_bytes(b"x" * 2_000_000)
    (root / "tree-link").symlink_to("tree")
    outside = tmp_path_factory.mktemp("outside")
    (outside / "kept.txt").write_bytes(b"kept\n")
    (root / "out-link").symlink_to(outside)
    inside = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "tree-link"}))
    assert (inside["exists"], inside["risk_level"]) == (True, "MEDIUM"), inside
    assert "a whole directory" not in inside["risk_factors"]
    away = structured(await client.call_tool("analyze_operation", {"operation": "delete", "path": "out-link"}))
    assert (away["exists"], away["path"]) == (True, str(root / "out-link"))
    for link in ("tree-link", "out-link"):
        assert not (await client.call_tool("delete_file", {"path": link})).is_error
    assert [link.is_symlink() for link in (root / "tree-link", root / "out-link")] == [False, False]
    assert ((root / "tree" / "big.bin").stat().st_size, (outside / "kept.txt").read_bytes()) == (2_000_000, b"kept\n")


async def test_purge_is_a_dry_run_by_default_and_then_removes_for_good(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a", encoding="utf-8")
    sd_id = structured(await client.call_tool("delete_file", {"path": "a.txt"}))["results"][0]["sd_id"]
    dry = structured(await client.call_tool("backup", {"action": "purge_trash", "sd_id": sd_id}))
    assert (dry["dry_run"], dry["removed"]) == (True, 1)
    assert structured(await client.call_tool("backup", {"action": "list_trash"}))["total"] == 1
    structured(await client.call_tool("backup", {"action": "purge_trash", "sd_id": sd_id, "dry_run": False}))
    assert structured(await client.call_tool("backup", {"action": "list_trash"}))["total"] == 0
    gone = await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id})
    assert error_code(gone) == "not_found"


async def test_restore_trash_refuses_to_overwrite_and_rejects_bad_ids(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("old", encoding="utf-8")
    sd_id = structured(await client.call_tool("delete_file", {"path": "a.txt"}))["results"][0]["sd_id"]
    (root / "a.txt").write_text("new", encoding="utf-8")
    refused = await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id})
    assert error_code(refused) == "already_exists"
    assert (root / "a.txt").read_text(encoding="utf-8") == "new"
    for bad in ("../../etc/passwd", "sd-..", "foo/bar", ";rm"):
        assert (
            error_code(await client.call_tool("backup", {"action": "restore_trash", "sd_id": bad})) == "invalid_params"
        )
    assert "Move it away first" in text_of(refused)


async def test_the_audit_log_has_a_line_per_call_with_its_status(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    async with connect(log_dir=logs) as client:
        await client.call_tool("read_file", {"path": "a.txt"})
        await client.call_tool("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b"})
        await client.call_tool("read_file", {"path": "missing.txt"})
    lines = [json.loads(line) for line in (logs / "operations.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [(line["tool"], line["status"]) for line in lines] == [
        ("read_file", "ok"),
        ("edit_file", "ok"),
        ("read_file", "error"),
    ]
    assert lines[1]["backup_id"]
    assert lines[1]["path"] == str(root / "a.txt")
    assert lines[2]["error_code"] == "not_found"
    assert lines[2]["error"].startswith("missing.txt does not exist.")  # what went wrong, not only its code
    assert "error" not in lines[0]


async def test_audit_lines_name_the_canonical_path_acted_on_and_never_a_batchs_contents(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    logs = tmp_path / "logs"
    bad = os.fsdecode(b"bad\xffname.txt")
    (root / bad).write_bytes(b"x\n")
    (root / "a.txt").write_bytes(b"a\n")
    secret = "AWS_SECRET=" + "k" * 120
    batch = {"operations": [{"op": "write", "path": "s.env.txt", "content": secret}]}
    async with connect(log_dir=logs) as client:
        await client.call_tool("read_file", {"path": str(root / bad)})
        await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": "b.txt"})
        await client.call_tool("read_file", {"path": "missing.txt"})
        await client.call_tool("batch_operations", {"request_json": batch})
    raw = (logs / "operations.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in raw.splitlines()]
    assert [line["path"] for line in lines[:3]] == [str(root / bad), str(root / "a.txt"), str(root / "missing.txt")]
    assert "AWS_SECRET" not in raw
    assert lines[3]["args"]["request_json"].endswith("items)") or lines[3]["args"]["request_json"].endswith("chars)")


async def test_a_log_dir_inside_a_root_is_denied_to_the_tools(connect: ClientFactory, root: Path) -> None:
    logs = root / "logs"
    async with connect(log_dir=logs) as client:
        await client.call_tool("list_directory", {})
        read = await client.call_tool("read_file", {"path": "logs/operations.jsonl"})
        forged = await client.call_tool("write_file", {"path": "logs/operations.jsonl", "content": "{}\n"})
    assert error_code(read) == error_code(forged) == "access_denied"
    assert (logs / "operations.jsonl").read_text(encoding="utf-8").startswith('{"ts"')


async def test_a_large_copy_reports_progress(client: Client, root: Path) -> None:
    (root / "big").mkdir()
    for i in range(8):
        (root / "big" / f"part{i}.bin").write_bytes(bytes([i]) * (1 << 20))
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    data = structured(
        await client.call_tool("copy_file", {"source_path": "big", "dest_path": "big2"}, progress_callback=on_progress)
    )
    assert data["bytes_copied"] == 8 << 20
    assert seen
    assert seen[-1] == (8 << 20, 8 << 20)
    assert [p for p, _ in seen] == sorted(p for p, _ in seen)
    assert all((root / "big2" / f"part{i}.bin").read_bytes() == bytes([i]) * (1 << 20) for i in range(8))


def steps(action: str, **params: Any) -> dict[str, Any]:
    """batch_operations arguments: a one-step pipeline."""
    return {"pipeline_json": {"name": action, "steps": [{"action": action, "params": params}]}}


@pytest.mark.parametrize("nested_as", ["read_only_roots", "roots"])
async def test_a_directory_holding_a_root_is_never_deleted_or_moved_by_any_tool(
    connect: ClientFactory, root: Path, nested_as: str
) -> None:
    tree(root, {"project/vendor/sdk/important.txt": "keep\n", "project/vendor/notes.txt": "n\n", "a.txt": "a\n"})
    sdk, vendor = root / "project" / "vendor" / "sdk", root / "project" / "vendor"
    before = snapshot(root)
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("delete_file", {"path": str(vendor), "recursive": True}),
        ("delete_file", {"path": str(vendor), "recursive": True, "permanent": True}),
        ("delete_file", {"path": "project", "recursive": True}),
        ("move_file", {"source_path": str(vendor), "dest_path": "vendor2"}),
        ("move_file", {"source_path": "project", "dest_path": "elsewhere/project"}),
        ("batch_operations", {"request_json": [{"type": "delete", "path": str(vendor), "recursive": True}]}),
        ("batch_operations", {"request_json": [{"type": "move", "source": "project", "destination": "p2"}]}),
        ("batch_operations", steps("delete", files=[str(vendor)], recursive=True)),
        ("batch_operations", steps("rename", files=["project"], destination="moved")),
    ]
    async with connect(**{nested_as: (root, sdk) if nested_as == "roots" else (sdk,)}) as client:
        for tool, arguments in attempts:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments, text_of(result))
            assert "vendor/sdk, a root of this server, which can never be" in text_of(result), (tool, arguments)
        several = structured(
            await client.call_tool("delete_file", {"paths": ["a.txt", str(vendor)], "recursive": True})
        )
        assert [entry["status"] for entry in several["results"]] == ["trashed", "failed"]
    assert snapshot(root) == {name: entry for name, entry in before.items() if name != "a.txt"}


async def test_nothing_is_moved_or_copied_onto_a_root_or_into_a_read_only_one(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"vendor/sdk/important.txt": "keep\n", "a.txt": "a\n"})
    sdk = root / "vendor" / "sdk"
    before = snapshot(root)
    async with connect(read_only_roots=(sdk,)) as client:
        for target, code in ((sdk, "read_only"), (root / "vendor", "already_exists")):
            onto = await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": str(target)})
            assert error_code(onto) == code
        copies: list[dict[str, Any]] = [
            {"source_path": "a.txt", "dest_path": str(sdk / "a.txt")},
            {"source_path": "a.txt", "dest_path": str(sdk / "new" / "a.txt")},
        ]
        for arguments in copies:
            assert error_code(await client.call_tool("copy_file", arguments)) == "read_only"
        batched = {"request_json": [{"type": "copy", "source": "a.txt", "destination": str(sdk / "b.txt")}]}
        assert error_code(await client.call_tool("batch_operations", batched)) == "read_only"
        piped = await client.call_tool("batch_operations", steps("copy", files=["a.txt"], destination=str(sdk)))
        assert error_code(piped) == "read_only"
    assert snapshot(root) == before
