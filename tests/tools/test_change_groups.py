"""One id for a multi-file change: backup(action=info|compare|restore) expand a group id to every file it changed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.hashing import content_hash
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

ORIGINALS = {
    "a.txt": b"alpha TODO\n",
    "sub/b.txt": b"beta TODO\r\ngamma TODO\r\n",
    "sub/deep/c.md": "\ufeffdelta TODO — ünïcode\n".encode(),
}


@pytest.fixture
def project(root: Path) -> Path:
    for name, data in ORIGINALS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "untouched.txt").write_bytes(b"nothing to replace\n")
    return root


def on_disk(root: Path) -> dict[str, bytes]:
    return {name: (root / name).read_bytes() for name in ORIGINALS}


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


async def test_restoring_a_project_replace_group_id_restores_every_file_it_changed(
    client: Client, project: Path
) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    assert applied["files_changed"] == 3
    changed = on_disk(project)
    assert all(b"TODO" not in data for data in changed.values())
    assert changed["sub/b.txt"] == b"beta DONE\r\ngamma DONE\r\n"

    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]}))

    assert on_disk(project) == ORIGINALS
    assert (project / "untouched.txt").read_bytes() == b"nothing to replace\n"
    assert sorted(r["path"] for r in restored["reverted"]) == sorted(str(project / n) for n in ORIGINALS)
    assert {r["status"] for r in restored["reverted"]} == {"reverted"}


async def test_project_replaces_text_in_both_voices_gives_the_restore_call_that_undoes_every_file(
    connect: ClientFactory, project: Path
) -> None:
    for compact in (False, True):
        async with connect(compact_mode=compact) as client:
            applied = await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"})
            call = re.search(r'backup\(action="restore", backup_id="([^"]+)"\)', text_of(applied))
            assert call is not None, text_of(applied)
            assert call[1] == structured(applied)["backup_id"]
            await client.call_tool("backup", {"action": "restore", "backup_id": call[1]})
            assert on_disk(project) == ORIGINALS


async def test_a_group_restore_is_itself_undoable_file_by_file(client: Client, project: Path) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]}))
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "sub/b.txt"}))
    assert (project / "sub/b.txt").read_bytes() == b"beta DONE\r\ngamma DONE\r\n"
    assert (project / "a.txt").read_bytes() == ORIGINALS["a.txt"]


async def test_a_group_restore_names_each_files_safety_backup_and_one_id_that_undoes_it(
    client: Client, project: Path
) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    replaced = on_disk(project)
    result = await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]})
    restored = structured(result)
    assert on_disk(project) == ORIGINALS

    reverted = restored["reverted"]
    assert sorted(r["path"] for r in reverted) == sorted(str(project / n) for n in ORIGINALS)
    assert all(r["safety_backup_id"] for r in reverted)
    assert all(r["undo"] == f'backup(action="restore", backup_id="{r["safety_backup_id"]}")' for r in reverted)
    undo_id = restored["safety_backup_id"]
    assert undo_id not in {r["safety_backup_id"] for r in reverted}
    assert f'Undo this restore: backup(action="restore", backup_id="{undo_id}")' in text_of(result)
    for r in reverted:
        assert r["safety_backup_id"] in text_of(result)

    undone = structured(await client.call_tool("backup", {"action": "restore", "backup_id": undo_id}))
    assert on_disk(project) == replaced
    assert {r["status"] for r in undone["reverted"]} == {"reverted"}


async def test_restoring_one_files_safety_backup_takes_the_group_restore_back_for_that_file_alone(
    client: Client, project: Path
) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    replaced = on_disk(project)
    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]}))
    safety = {Path(r["path"]).relative_to(project).as_posix(): r["safety_backup_id"] for r in restored["reverted"]}

    structured(await client.call_tool("backup", {"action": "restore", "backup_id": safety["sub/b.txt"]}))

    assert on_disk(project) == {**ORIGINALS, "sub/b.txt": replaced["sub/b.txt"]}


async def test_undoing_a_group_restore_of_a_batch_brings_back_its_copy_move_trash_edit_and_new_file(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    (root / "old.log").write_bytes(b"log\n")
    before = tree(root)
    operations = [
        {"type": "copy", "path": "a.txt", "dest": "b.txt"},
        {"type": "move", "path": "b.txt", "dest": "c.txt"},
        {"type": "delete", "path": "old.log"},
        {"type": "edit", "path": "c.txt", "old_text": "a\n", "new_text": "c\n"},
        {"type": "write", "path": "new/n.txt", "content": "n\n"},
    ]
    batch = structured(await client.call_tool("batch_operations", {"request_json": json.dumps(operations)}))
    after_batch = tree(root)
    assert after_batch == {"a.txt": b"a\n", "c.txt": b"c\n", "new/n.txt": b"n\n"}

    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": batch["backup_id"]}))
    assert tree(root) == before

    undone = structured(
        await client.call_tool("backup", {"action": "restore", "backup_id": restored["safety_backup_id"]})
    )
    assert tree(root) == after_batch
    assert {r["status"] for r in undone["reverted"]} == {"reverted"}


async def test_a_dry_run_group_restore_takes_no_safety_backup(client: Client, project: Path) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    dry = structured(
        await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"], "dry_run": True})
    )
    assert "safety_backup_id" not in dry
    assert all("safety_backup_id" not in r for r in dry["reverted"])
    listed = structured(await client.call_tool("backup", {"action": "list"}))
    assert {b["operation"] for b in listed["backups"]} == {"project_replace"}


async def test_group_info_and_compare_list_every_file(client: Client, project: Path) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    info = structured(await client.call_tool("backup", {"action": "info", "backup_id": applied["backup_id"]}))
    group = info["group"]
    assert group["operation"] == "project_replace"
    assert sorted(group["files"]) == sorted(str(project / n) for n in ORIGINALS)
    assert {c["kind"] for c in group["changes"]} == {"modified"}
    assert all(c["backup_id"] for c in group["changes"])

    compared = await client.call_tool("backup", {"action": "compare", "backup_id": applied["backup_id"]})
    diff = structured(compared)["diff"]
    assert diff.count("-alpha TODO") == 1
    assert "+alpha DONE" in diff
    assert "gamma DONE" in diff
    assert applied["backup_id"] in text_of(compared)


async def test_a_group_restore_with_a_file_changed_since_reverts_nothing_unless_forced(
    client: Client, project: Path
) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    (project / "a.txt").write_bytes(b"edited by someone else\n")
    after_replace = on_disk(project)

    refused = await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]})
    assert error_code(refused) == "undo_conflict"
    assert "a.txt" in text_of(refused)
    assert on_disk(project) == after_replace

    dry = structured(
        await client.call_tool(
            "backup", {"action": "restore", "backup_id": applied["backup_id"], "force": True, "dry_run": True}
        )
    )
    assert dry["dry_run"] is True
    assert on_disk(project) == after_replace

    structured(
        await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"], "force": True})
    )
    assert on_disk(project) == ORIGINALS
    # the bytes the forced restore replaced are not lost: one undo brings them back
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert (project / "a.txt").read_bytes() == b"edited by someone else\n"


async def test_a_group_restore_refuses_file_path_and_names_the_whole_group(client: Client, project: Path) -> None:
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    refused = await client.call_tool(
        "backup", {"action": "restore", "backup_id": applied["backup_id"], "file_path": "a.txt"}
    )
    assert error_code(refused) == "invalid_params"
    assert b"DONE" in (project / "a.txt").read_bytes()


async def test_an_unknown_id_of_the_right_shape_is_not_found(client: Client, project: Path) -> None:
    result = await client.call_tool("backup", {"action": "restore", "backup_id": "20261201-000000-0123456789abcdef"})
    assert error_code(result) == "not_found"


async def test_a_group_restored_under_later_rules_never_reads_removes_or_hashes_a_hidden_or_read_only_file(
    connect: ClientFactory, root: Path
) -> None:
    ops = [
        {"op": "write", "path": "cfg/app.ini", "content": "made\n"},
        {"op": "write", "path": "docs/made.txt", "content": "made\n"},
    ]
    async with connect() as client:  # no rule covers either file yet
        group = structured(await client.call_tool("batch_operations", {"request_json": {"operations": ops}}))
    (root / "cfg" / "app.ini").write_text("password=user-secret\n", encoding="utf-8")  # the user's since
    async with connect(deny=("*.ini",), read_only_roots=(root / "docs",)) as client:
        refused = await client.call_tool("backup", {"action": "restore", "backup_id": group["backup_id"]})
        forced = await client.call_tool("backup", {"action": "restore", "backup_id": group["backup_id"], "force": True})
    assert error_code(refused) == "undo_conflict"
    # counted, never named, as list and info count it
    assert "1 a deny rule hides now (not named here)" in text_of(refused)
    assert "app.ini" not in text_of(refused)
    assert all("app.ini" not in path for path in (refused.meta or {})["fsguard/error"]["conflicts"])
    assert content_hash(b"password=user-secret\n") not in text_of(refused)
    # every change failed, so nothing was reverted: an error, never "Reverted 0 of 4" as a success
    assert error_code(forced) == "read_only"  # the first change reverted (the newest) is in the read-only root
    failed = {Path(path).relative_to(root).as_posix() for path in (forced.meta or {})["fsguard/error"]["failed"]}
    assert failed == {"docs", "docs/made.txt"}  # the hidden file fails too, counted, never named
    assert "1 a deny rule hides now (not named here)" in text_of(forced)
    assert "app.ini" not in json.dumps(forced.model_dump(mode="json"))
    assert (root / "cfg" / "app.ini").read_text(encoding="utf-8") == "password=user-secret\n"
    assert (root / "docs" / "made.txt").read_text(encoding="utf-8") == "made\n"
    assert "user-secret" not in json.dumps(forced.model_dump(mode="json"))


async def test_a_forced_group_restore_reverts_the_visible_changes_and_counts_the_hidden_one_untouched(
    connect: ClientFactory, root: Path
) -> None:
    ops = [
        {"op": "write", "path": "cfg/app.ini", "content": "made\n"},
        {"op": "write", "path": "docs/made.txt", "content": "made\n"},
    ]
    async with connect() as client:
        group = structured(await client.call_tool("batch_operations", {"request_json": {"operations": ops}}))
    (root / "cfg" / "app.ini").write_text("password=user-secret\n", encoding="utf-8")
    async with connect(deny=("*.ini",)) as client:
        call = {"action": "restore", "backup_id": group["backup_id"], "force": True}
        dry = await client.call_tool("backup", {**call, "dry_run": True})
        forced = await client.call_tool("backup", call)
    for result in (dry, forced):
        shown = {Path(r["path"]).relative_to(root).as_posix(): r["status"] for r in structured(result)["reverted"]}
        assert shown["docs/made.txt"] == "reverted"
        assert "cfg/app.ini" not in shown
        assert structured(result)["group"]["hidden"] == 1
        assert "1 more a deny rule hides now, left as they are, not named here" in text_of(result)
        assert "app.ini" not in json.dumps(result.model_dump(mode="json"))
    assert not (root / "docs" / "made.txt").exists()  # the visible change reverted
    assert (root / "cfg" / "app.ini").read_text(encoding="utf-8") == "password=user-secret\n"


async def _moved_group(client: Client, root: Path, *names: str) -> str:
    """The group id of one batch moving each of ``names`` to ``<name>.moved``; then another process writes a new
    file where each first name was, which no move back may clobber."""
    for name in names:
        (root / name).write_bytes(f"{name} by the batch\n".encode())
    ops = [{"op": "move", "source": name, "destination": f"{name}.moved"} for name in names]
    done = structured(await client.call_tool("batch_operations", {"request_json": {"operations": ops}}))
    (root / names[0]).write_bytes(b"another process's new file\n")
    return str(done["backup_id"])


async def test_a_group_restore_whose_every_change_fails_is_an_error_and_changes_nothing(
    client: Client, root: Path
) -> None:
    group = await _moved_group(client, root, "a.txt")
    before = tree(root)
    result = await client.call_tool("backup", {"action": "restore", "backup_id": group, "force": True})
    assert error_code(result) == "already_exists"
    assert f"Nothing of group {group} was reverted: 1 of 1 change failed" in text_of(result)
    assert (result.meta or {})["fsguard/error"]["failed"] == [str(root / "a.txt.moved")]
    assert tree(root) == before


async def test_a_group_restore_that_reverts_some_changes_answers_what_it_did_and_names_the_failures(
    client: Client, root: Path
) -> None:
    group = await _moved_group(client, root, "a.txt", "b.txt")
    done = structured(await client.call_tool("backup", {"action": "restore", "backup_id": group, "force": True}))
    statuses = {Path(change["path"]).name: change["status"] for change in done["reverted"]}
    assert statuses == {"a.txt.moved": "failed", "b.txt.moved": "reverted"}
    assert done["safety_backup_id"] is not None
    assert (root / "a.txt").read_bytes() == b"another process's new file\n"
    assert (root / "a.txt.moved").read_bytes() == b"a.txt by the batch\n"
    assert (root / "b.txt").read_bytes() == b"b.txt by the batch\n"
    assert not (root / "b.txt.moved").exists()


async def test_group_info_and_compare_count_a_change_a_later_rule_hides_without_naming_or_diffing_it(
    connect: ClientFactory, root: Path
) -> None:
    (root / "keys.env").write_text("TOKEN=first-secret\n", encoding="utf-8")
    (root / "notes.txt").write_text("first\n", encoding="utf-8")
    ops = [
        {"op": "write", "path": "keys.env", "content": "TOKEN=second-secret\n"},
        {"op": "write", "path": "notes.txt", "content": "second\n"},
    ]
    async with connect() as client:
        group = structured(await client.call_tool("batch_operations", {"request_json": {"operations": ops}}))
    async with connect(deny=("*.env",)) as client:
        info = await client.call_tool("backup", {"action": "info", "backup_id": group["backup_id"]})
        compared = await client.call_tool("backup", {"action": "compare", "backup_id": group["backup_id"]})
    for result in (info, compared):
        shown = structured(result)["group"]
        assert shown["hidden"] == 1
        assert [Path(change["path"]).name for change in shown["changes"]] == ["notes.txt"]
        assert [Path(path).name for path in shown["files"]] == ["notes.txt"]
        wire = json.dumps(structured(result)) + text_of(result)
        assert "keys.env" not in wire
        assert "secret" not in wire
        assert "1 not (outside the roots or hidden by a deny rule)" in text_of(result)
    assert "-first\n+second" in structured(compared)["diff"]
    assert (root / "keys.env").read_text(encoding="utf-8") == "TOKEN=second-secret\n"


async def test_backup_list_names_each_change_group_and_filters_them_as_it_filters_backups(
    client: Client, project: Path
) -> None:
    replaced = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"}))
    operations = [{"type": "write", "path": "notes/n.txt", "content": "n\n"}]
    batch = structured(await client.call_tool("batch_operations", {"request_json": json.dumps(operations)}))

    listed = await client.call_tool("backup", {"action": "list"})
    by_operation = structured(
        await client.call_tool("backup", {"action": "list", "filter_operation": "project_replace"})
    )
    by_file = structured(await client.call_tool("backup", {"action": "list", "file_path": "notes/n.txt"}))
    newest = structured(await client.call_tool("backup", {"action": "list", "limit": 1}))

    groups = structured(listed)["groups"]
    assert [g["group_id"] for g in groups] == [batch["backup_id"], replaced["backup_id"]]
    assert (groups[1]["operation"], groups[1]["file_count"]) == ("project_replace", 3)
    assert sorted(Path(path).relative_to(project).as_posix() for path in groups[1]["files"]) == sorted(ORIGINALS)
    assert replaced["backup_id"] in text_of(listed)
    assert "2 change groups" in text_of(listed)
    assert [g["group_id"] for g in by_operation["groups"]] == [replaced["backup_id"]]
    assert [g["group_id"] for g in by_file["groups"]] == [batch["backup_id"]]
    assert ([g["group_id"] for g in newest["groups"]], newest["groups_total"]) == ([batch["backup_id"]], 2)

    structured(await client.call_tool("backup", {"action": "restore", "backup_id": groups[1]["group_id"]}))
    assert on_disk(project) == ORIGINALS


async def test_restoring_a_group_whose_moved_file_is_gone_answers_not_found_and_does_not_ask_to_retry(
    client: Client, root: Path
) -> None:
    # The file a batch moved was removed by another program: the restore failed with code "error" and advice to
    # clear something and restore again, which could never succeed.
    (root / "a.txt").write_bytes(b"hello\n")
    moved = structured(
        await client.call_tool(
            "batch_operations",
            {"request_json": {"operations": [{"type": "move", "source": "a.txt", "destination": "b.txt"}]}},
        )
    )
    (root / "b.txt").unlink()
    result = await client.call_tool("backup", {"action": "restore", "backup_id": moved["backup_id"]})
    assert error_code(result) == "not_found", text_of(result)
    assert "nothing to move back" in text_of(result)
    assert "cannot bring it back" in text_of(result)
    assert "restore the group again" not in text_of(result)
    assert list(root.iterdir()) == []


async def test_a_dry_run_names_the_change_whose_backup_retention_dropped_as_one_that_would_fail(
    connect: ClientFactory, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"a0\n")
    (root / "b.txt").write_bytes(b"b0\n")
    async with connect(backup_max_count=2) as client:
        writes = [{"type": "write", "path": name, "content": f"{name[0]}1\n"} for name in ["a.txt", "b.txt"]]
        group = structured(await client.call_tool("batch_operations", {"request_json": {"operations": writes}}))
        for n in range(2, 5):  # a.txt's backup from the batch is pushed out of its chain of 2
            structured(await client.call_tool("write_file", {"path": "a.txt", "content": f"a{n}\n"}))
        call = {"action": "restore", "backup_id": group["backup_id"], "force": True}
        dry = structured(await client.call_tool("backup", {**call, "dry_run": True}))
        real = structured(await client.call_tool("backup", call))

    outcomes = {Path(r["path"]).name: (r["status"], r.get("error_code")) for r in dry["reverted"]}
    assert outcomes == {"a.txt": ("failed", "not_found"), "b.txt": ("reverted", None)}
    assert {Path(r["path"]).name: r["status"] for r in real["reverted"]} == {"a.txt": "failed", "b.txt": "reverted"}
    assert (root / "a.txt").read_bytes() == b"a4\n"
    assert (root / "b.txt").read_bytes() == b"b0\n"
