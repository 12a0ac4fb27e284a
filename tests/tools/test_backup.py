"""The backup tool: undo chains that survive restarts, restores that never lose bytes, in both eras."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def edit(client: Client, old: str, new: str, path: str = "f.txt") -> dict[str, object]:
    return structured(await client.call_tool("edit_file", {"path": path, "old_text": old, "new_text": new}))


async def test_two_edits_then_two_undos_restore_each_state_exactly_across_a_restart(
    connect: ClientFactory, root: Path
) -> None:
    target = root / "f.txt"
    states = [b"v0 alpha\r\nbeta\n"]
    target.write_bytes(states[0])
    async with connect() as client:
        first = await edit(client, "alpha", "ALPHA")
        states.append(target.read_bytes())
        second = await edit(client, "beta", "BETA")
        states.append(target.read_bytes())
    assert second["parent_backup_id"] == first["backup_id"]
    async with connect() as client:  # a new server process state: only the disk remembers
        undo1 = structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}))
        assert target.read_bytes() == states[1]
        assert undo1["head_backup_id"] == first["backup_id"]
    async with connect() as client:
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": str(target)}))
        assert target.read_bytes() == states[0]
        nothing = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
    assert error_code(nothing) == "nothing_to_undo"
    assert target.read_bytes() == states[0]


async def test_undo_is_refused_after_an_external_change_and_force_keeps_the_change_in_a_backup(
    client: Client, root: Path
) -> None:
    target = root / "f.txt"
    target.write_text("one\n", encoding="utf-8")
    await edit(client, "one", "two")
    target.write_text("changed by someone else\n", encoding="utf-8")
    refused = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
    assert error_code(refused) == "undo_conflict"
    assert "force=true" in text_of(refused)
    assert target.read_text(encoding="utf-8") == "changed by someone else\n"
    forced = structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt", "force": True}))
    assert target.read_text(encoding="utf-8") == "one\n"
    safety = forced["restored"][0]["safety_backup_id"]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": safety, "force": True}))
    assert target.read_text(encoding="utf-8") == "changed by someone else\n"


async def test_an_undo_is_itself_undoable_with_restore(client: Client, root: Path) -> None:
    target = root / "f.txt"
    target.write_text("start\n", encoding="utf-8")
    await edit(client, "start", "edited")
    undone = structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}))
    assert target.read_text(encoding="utf-8") == "start\n"
    redo = undone["restored"][0]["safety_backup_id"]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": redo}))
    assert target.read_text(encoding="utf-8") == "edited\n"
    # and the restore went on the chain: undo_last reverts it
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}))
    assert target.read_text(encoding="utf-8") == "start\n"


async def test_undo_never_touches_another_file(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    (root / "b.txt").write_text("b\n", encoding="utf-8")
    await edit(client, "a", "A", "a.txt")
    await edit(client, "b", "B", "b.txt")
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert (root / "a.txt").read_text(encoding="utf-8") == "a\n"
    assert (root / "b.txt").read_text(encoding="utf-8") == "B\n"
    nothing = await client.call_tool("backup", {"action": "undo_last", "file_path": "c.txt"})
    assert error_code(nothing) == "nothing_to_undo"


async def test_restore_with_a_file_path_of_another_file_is_refused(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    (root / "b.txt").write_text("b\n", encoding="utf-8")
    backup_id = (await edit(client, "a", "A", "a.txt"))["backup_id"]
    result = await client.call_tool("backup", {"action": "restore", "backup_id": backup_id, "file_path": "b.txt"})
    assert error_code(result) == "invalid_params"
    assert (root / "b.txt").read_text(encoding="utf-8") == "b\n"


async def test_compare_shows_a_real_diff_and_preview_changes_nothing(client: Client, root: Path) -> None:
    target = root / "f.txt"
    target.write_text("one\ntwo\nthree\n", encoding="utf-8")
    backup_id = (await edit(client, "two", "TWO"))["backup_id"]
    compared = structured(await client.call_tool("backup", {"action": "compare", "backup_id": backup_id}))
    assert "-two\n+TWO" in compared["diff"]
    preview = structured(
        await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt", "preview": True})
    )
    assert preview["dry_run"] is True
    assert "-TWO\n+two" in preview["diff"]
    assert target.read_text(encoding="utf-8") == "one\nTWO\nthree\n"


async def test_list_info_and_undo_chain_describe_the_backups(client: Client, root: Path) -> None:
    (root / "f.txt").write_text("1\n", encoding="utf-8")
    first = (await edit(client, "1", "2"))["backup_id"]
    second = (await edit(client, "2", "3"))["backup_id"]
    listing = structured(await client.call_tool("backup", {"action": "list", "filter_path": "f.txt"}))
    assert [b["backup_id"] for b in listing["backups"]] == [second, first]
    info = structured(await client.call_tool("backup", {"action": "info", "backup_id": first}))["backup"]
    assert (info["operation"], info["files"]) == ("edit_file:replace", [str(root / "f.txt")])
    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "f.txt"}))
    assert [b["backup_id"] for b in chain["backups"]] == [second, first]


async def test_an_undo_chain_the_limit_cut_counts_its_steps_and_names_the_limit_that_lists_them_all(
    client: Client, root: Path
) -> None:
    (root / "f.txt").write_text("v0\n", encoding="utf-8")
    ids = [(await edit(client, f"v{i}", f"v{i + 1}"))["backup_id"] for i in range(5)]
    result = await client.call_tool("backup", {"action": "undo_chain", "file_path": "f.txt", "limit": 3})
    data = structured(result)
    assert ([b["backup_id"] for b in data["backups"]], data["total"]) == (ids[:1:-1], 5)
    assert text_of(result).startswith(
        "Undo chain of 5 steps, newest first (undo_last reverts the first), the newest 3 shown (limit=5 lists them "
        "all):\n"
    )
    whole = await client.call_tool("backup", {"action": "undo_chain", "file_path": "f.txt"})
    assert (structured(whole)["total"], text_of(whole).splitlines()[0]) == (
        5,
        "Undo chain, newest first (undo_last reverts the first):",
    )


async def test_backup_and_trash_lists_the_limit_cut_name_the_limit_that_lists_them_all(
    client: Client, root: Path
) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text("old\n", encoding="utf-8")
        structured(await client.call_tool("write_file", {"path": name, "content": "new\n"}))
        structured(await client.call_tool("delete_file", {"path": name}))
    backups = await client.call_tool("backup", {"action": "list", "limit": 2})
    trash = await client.call_tool("backup", {"action": "list_trash", "limit": 2})
    assert (len(structured(backups)["backups"]), structured(backups)["total"]) == (2, 3)
    assert text_of(backups).splitlines()[0] == "3 backups, the newest 2 shown (limit=3 lists them all)"
    assert (len(structured(trash)["trash"]), structured(trash)["total"]) == (2, 3)
    assert text_of(trash).splitlines()[0] == "3 trash entries, the newest 2 shown (limit=3 lists them all)"
    assert text_of(await client.call_tool("backup", {"action": "list_trash"})).splitlines()[0] == "3 trash entries"


async def test_a_malformed_or_unknown_backup_id_is_refused(client: Client) -> None:
    assert (
        error_code(await client.call_tool("backup", {"action": "info", "backup_id": "../../etc"})) == "invalid_params"
    )
    unknown = await client.call_tool("backup", {"action": "info", "backup_id": "20260101-000000-0123456789abcdef"})
    assert error_code(unknown) == "not_found"


async def test_cleanup_is_a_dry_run_by_default(client: Client, root: Path) -> None:
    (root / "f.txt").write_text("1\n", encoding="utf-8")
    await edit(client, "1", "2")
    dry = structured(await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0}))
    assert (dry["dry_run"], dry["removed"]) == (True, 1)
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 1
    done = structured(await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0, "dry_run": False}))
    assert done["removed"] == 1
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_a_cleanup_or_purge_that_finds_nothing_old_enough_says_how_many_are_newer_than_the_age(
    client: Client, root: Path
) -> None:
    (root / "f.txt").write_text("1\n", encoding="utf-8")
    await edit(client, "1", "2")
    structured(await client.call_tool("delete_file", {"path": "f.txt"}))
    purge = await client.call_tool("backup", {"action": "purge_trash"})
    assert (structured(purge)["removed"], structured(purge)["newer"]) == (0, 1)
    assert text_of(purge) == (
        "Would purge 0 trash entries, 0 B: the trash holds 1 entry, newer than older_than_days=7; "
        "older_than_days=0 includes it."
    )
    cleanup = await client.call_tool("backup", {"action": "cleanup", "older_than_days": 2.5})
    assert "Would remove 0 backups: the store holds 1 backup, newer than older_than_days=2.5;" in text_of(cleanup)
    assert "newer" not in structured(await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0}))
    assert not (root / "f.txt").exists()
    assert structured(await client.call_tool("backup", {"action": "list_trash"}))["total"] == 1


async def test_retention_keeps_at_most_backup_max_count_per_file(connect: ClientFactory, root: Path) -> None:
    (root / "f.txt").write_text("0\n", encoding="utf-8")
    async with connect(backup_max_count=3) as client:
        for n in range(5):
            await edit(client, f"{n}\n", f"{n + 1}\n")
        chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "f.txt"}))
    assert len(chain["backups"]) == 3


async def test_undo_last_steps_back_backup_max_count_edits_as_its_own_snapshots_are_counted_apart(
    connect: ClientFactory, root: Path
) -> None:
    (root / "f.txt").write_text("0\n", encoding="utf-8")
    async with connect(backup_max_count=3) as client:
        for n in range(5):
            await edit(client, f"{n}\n", f"{n + 1}\n")
        undone = [await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}) for _ in range(4)]
        listed = structured(await client.call_tool("backup", {"action": "list", "file_path": "f.txt"}))
    # Each undo snapshots the bytes it replaces (pre_undo); counted with the edits' backups, they pushed the oldest
    # edits out as the undo went, and the chain stopped after half of them.
    assert [result.is_error for result in undone] == [False, False, False, True]
    assert (root / "f.txt").read_bytes() == b"2\n"
    kinds = sorted(entry["operation"].partition(":")[0] for entry in listed["backups"])
    assert kinds == ["edit_file"] * 3 + ["pre_undo"] * 3


async def test_backups_live_outside_the_roots(client: Client, root: Path, state_dir: Path) -> None:
    (root / "f.txt").write_text("x\n", encoding="utf-8")
    await edit(client, "x", "y")
    assert sorted(p.name for p in root.iterdir()) == ["f.txt"]
    journals = list((state_dir / "backups" / "journal").glob("*.jsonl"))
    assert len(journals) == 1
    assert journals[0].read_bytes().endswith(b"\nx\n\n")  # the saved bytes, packed after their record


async def test_server_stats_count_the_backups_in_the_store(client: Client, root: Path) -> None:
    (root / "f.txt").write_text("1\n", encoding="utf-8")
    await edit(client, "1", "2")
    await edit(client, "2", "3")
    stats = structured(await client.call_tool("server_info", {"action": "stats"}))["stats"]
    assert stats["backups"]["count"] == 2
    assert stats["backups"]["bytes"] > 0


async def test_backups_past_the_age_limit_are_dropped_when_a_server_starts(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    (root / "f.txt").write_text("1\n", encoding="utf-8")
    async with connect() as client:
        await edit(client, "1", "2")
    async with connect(backup_max_age_days=0) as client:  # everything is past a zero-day limit
        listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert listing["total"] == 0


async def test_restore_of_an_older_backup_after_later_edits_puts_it_back_and_saves_the_current_bytes(
    client: Client, root: Path
) -> None:
    target = root / "f.txt"
    target.write_bytes(b"one\r\ntwo\r\nthree\r\n")
    first = await edit(client, "one", "ONE")
    await edit(client, "two", "TWO")
    latest = target.read_bytes()
    answer = await client.call_tool("backup", {"action": "restore", "backup_id": first["backup_id"]})
    restored = structured(answer)
    assert target.read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    done = restored["restored"][0]
    assert done["verified"] is True
    assert done["changed_since"] is True  # the second edit came after the operation this backup reverts
    safety = done["safety_backup_id"]
    assert done["undo"] == f'backup(action="restore", backup_id="{safety}")'
    assert safety in text_of(answer)
    assert "undo_last" in text_of(answer)
    saved = structured(await client.call_tool("backup", {"action": "info", "backup_id": safety}))["backup"]
    assert saved["content_hash"] == done["previous_hash"]
    # the restore is undoable: undo_last takes it back to the bytes after the second edit
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}))
    assert target.read_bytes() == latest


async def test_restore_after_an_external_change_keeps_that_change_in_a_backup(client: Client, root: Path) -> None:
    target = root / "f.txt"
    target.write_bytes(b"mine\n")
    first = await edit(client, "mine", "edited")
    target.write_bytes(b"someone else's\n")
    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": first["backup_id"]}))
    assert target.read_bytes() == b"mine\n"
    safety = restored["restored"][0]["safety_backup_id"]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": safety}))
    assert target.read_bytes() == b"someone else's\n"


async def test_restore_dry_run_reports_a_changed_file_and_writes_nothing(client: Client, root: Path) -> None:
    target = root / "f.txt"
    target.write_bytes(b"a\n")
    first = await edit(client, "a", "b")
    await edit(client, "b", "c")
    before = structured(await client.call_tool("backup", {"action": "list"}))["total"]
    arguments = {"action": "restore", "backup_id": first["backup_id"], "dry_run": True}
    answer = await client.call_tool("backup", arguments)
    plan = structured(answer)
    assert plan["dry_run"] is True
    assert plan["restored"][0]["changed_since"] is True
    assert "DRY RUN" in text_of(answer)
    assert "changed after the edit_file:replace" in text_of(answer)
    assert target.read_bytes() == b"c\n"
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == before


async def test_undo_last_dry_run_on_a_changed_file_says_it_needs_force_and_the_real_run_refuses(
    client: Client, root: Path
) -> None:
    target = root / "f.txt"
    target.write_bytes(b"one\n")
    await edit(client, "one", "two")
    target.write_bytes(b"external\n")
    answer = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt", "dry_run": True})
    plan = structured(answer)["restored"][0]
    assert (plan["needs_force"], plan["changed_since"]) == (True, True)
    assert "undo_conflict" in text_of(answer)
    assert "force=true" in text_of(answer)
    assert target.read_bytes() == b"external\n"
    refused = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
    assert error_code(refused) == "undo_conflict"
    assert target.read_bytes() == b"external\n"
    forced_plan = await client.call_tool(
        "backup", {"action": "undo_last", "file_path": "f.txt", "dry_run": True, "force": True}
    )
    assert structured(forced_plan)["restored"][0]["needs_force"] is False
    assert target.read_bytes() == b"external\n"


async def test_restore_with_a_stale_expected_hash_is_still_refused(client: Client, root: Path) -> None:
    target = root / "f.txt"
    target.write_bytes(b"a\n")
    first = await edit(client, "a", "b")
    arguments = {"action": "restore", "backup_id": first["backup_id"], "expected_hash": "deadbeef"}
    assert error_code(await client.call_tool("backup", arguments)) == "stale_edit"
    assert target.read_bytes() == b"b\n"


async def test_restore_with_an_expected_hash_of_a_file_deleted_since_is_refused_and_makes_nothing(
    client: Client, root: Path
) -> None:
    target = root / "f.txt"
    target.write_bytes(b"a\n")
    first = await edit(client, "a", "b")
    target.unlink()
    arguments = {"action": "restore", "backup_id": first["backup_id"], "expected_hash": "deadbeef"}
    refused = await client.call_tool("backup", arguments)
    assert error_code(refused) == "not_found"
    assert "expected_hash" in text_of(refused)
    assert not target.exists()


async def test_restore_of_a_file_deleted_since_recreates_it(client: Client, root: Path) -> None:
    target = root / "f.txt"
    target.write_bytes(b"keep me\n")
    first = await edit(client, "keep", "kept")
    target.unlink()
    answer = await client.call_tool("backup", {"action": "restore", "backup_id": first["backup_id"]})
    done = structured(answer)["restored"][0]
    assert target.read_bytes() == b"keep me\n"
    assert (done["changed_since"], done.get("safety_backup_id")) == (True, None)
    assert "was missing" in text_of(answer)


async def test_filter_operation_without_a_mode_matches_every_mode_of_that_tool(client: Client, root: Path) -> None:
    target = root / "f.txt"
    target.write_bytes(b"alpha\nbeta\n")
    await edit(client, "alpha", "ALPHA")
    await client.call_tool("edit_file", {"path": "f.txt", "mode": "regex", "pattern": "b(eta)", "replacement": "B$1"})
    await client.call_tool("edit_file", {"path": "f.txt", "mode": "insert", "anchor": "Beta", "new_text": "gamma"})
    await client.call_tool("multi_edit", {"path": "f.txt", "edits": [{"old_text": "gamma", "new_text": "GAMMA"}]})
    assert target.read_bytes() == b"ALPHA\nBeta\nGAMMA\n"

    async def operations(filter_operation: str) -> list[str]:
        arguments = {"action": "list", "filter_operation": filter_operation}
        return [b["operation"] for b in structured(await client.call_tool("backup", arguments))["backups"]]

    assert await operations("edit_file") == ["edit_file:insert", "edit_file:regex", "edit_file:replace"]
    assert await operations("Edit_File") == ["edit_file:insert", "edit_file:regex", "edit_file:replace"]
    assert await operations("edit_file:regex") == ["edit_file:regex"]
    assert await operations("edit") == []  # a tool name, not any prefix
    assert await operations("multi_edit") == ["multi_edit"]
    assert await operations("insert") == ["edit_file:insert"]  # the seed's label of that mode
    assert len(await operations("all")) == 4


async def test_listings_never_name_a_file_a_deny_rule_hides_now_nor_one_outside_the_roots(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    (root / "app.ini").write_text("v1\n", encoding="utf-8")
    (root / "old.ini").write_text("gone\n", encoding="utf-8")
    (root / "a.txt").write_text("a1\n", encoding="utf-8")
    async with connect() as client:  # no rule hides *.ini yet
        for name in ("app.ini", "a.txt"):
            structured(await client.call_tool("write_file", {"path": name, "content": "v2\n"}))
        structured(await client.call_tool("delete_file", {"path": "old.ini"}))
        listed = structured(await client.call_tool("backup", {"action": "list"}))
    hidden_id = next(b["backup_id"] for b in listed["backups"] if b["files"][0].endswith("app.ini"))
    other = tmp_path / "other"
    other.mkdir()
    async with connect(deny=("*.ini",)) as client, connect(roots=(other,)) as elsewhere:
        backups = structured(await client.call_tool("backup", {"action": "list"}))
        trash = structured(await client.call_tool("backup", {"action": "list_trash"}))
        info = await client.call_tool("backup", {"action": "info", "backup_id": hidden_id})
        foreign = structured(await elsewhere.call_tool("backup", {"action": "list"}))
    assert [Path(b["files"][0]).name for b in backups["backups"]] == ["a.txt"]
    assert backups["total"] == 1
    assert trash["trash"] == []
    assert error_code(info) == "access_denied"
    assert foreign["backups"] == []


async def test_a_trash_entry_whose_meta_json_is_damaged_is_refused_as_backup_corrupt_and_left_in_place(
    client: Client, root: Path, state_dir: Path
) -> None:
    (root / "notes.txt").write_bytes(b"keep me\n")
    sd_id = structured(await client.call_tool("delete_file", {"path": "notes.txt"}))["results"][0]["sd_id"]
    home = state_dir / "trash" / sd_id
    (home / "meta.json").write_bytes(b"{not json")

    restore = await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id})
    purge = await client.call_tool("backup", {"action": "purge_trash", "sd_id": sd_id, "dry_run": False, "force": True})
    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))

    assert (error_code(restore), error_code(purge)) == ("backup_corrupt", "backup_corrupt")
    assert "ask the user to move it back by hand" in text_of(restore)
    assert f"trash/{sd_id}/item" in text_of(restore)
    assert str(state_dir) not in text_of(restore)  # no host path outside the roots
    assert "Expecting" not in text_of(restore)  # no JSON parser internals
    assert listed["total"] == 0
    assert (home / "item").read_bytes() == b"keep me\n"
    assert not (root / "notes.txt").exists()


async def test_a_damaged_backup_is_refused_without_the_state_directory_and_its_advice_works(
    client: Client, root: Path, state_dir: Path
) -> None:
    (root / "f.txt").write_bytes(b"good bytes\n")
    backup_id = (await edit(client, "good", "new"))["backup_id"]
    for journal in (state_dir / "backups" / "journal").glob("*.jsonl"):
        journal.write_bytes(journal.read_bytes().replace(b"good bytes", b"evil bytes"))

    restore = await client.call_tool("backup", {"action": "restore", "backup_id": backup_id})
    chain = await client.call_tool("backup", {"action": "undo_chain", "file_path": "f.txt"})

    assert error_code(restore) == "backup_corrupt"
    assert str(state_dir) not in text_of(restore)
    assert "backup(action='undo_chain', file_path='f.txt')" in text_of(restore)
    assert not chain.is_error  # the advice, followed, answers
    assert (root / "f.txt").read_bytes() == b"new bytes\n"


async def test_a_damaged_group_is_refused_in_words_that_lead_to_each_files_own_backup(
    client: Client, root: Path, state_dir: Path
) -> None:
    (root / "b.txt").write_bytes(b"old b\n")
    request = {"operations": [{"type": "write", "path": "b.txt", "content": "new b\n"}]}
    group_id = structured(await client.call_tool("batch_operations", {"request_json": request}))["backup_id"]
    (state_dir / "backups" / "groups" / f"{group_id}.json").write_bytes(b"{not json")

    restore = await client.call_tool("backup", {"action": "restore", "backup_id": group_id})
    assert error_code(restore) == "backup_corrupt"
    assert "Expecting" not in text_of(restore)  # no JSON parser internals
    assert "backup(action='list')" in text_of(restore)
    assert (root / "b.txt").read_bytes() == b"new b\n"
    listed = structured(await client.call_tool("backup", {"action": "list", "filter_path": "b.txt"}))
    own = listed["backups"][0]["backup_id"]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": own}))
    assert (root / "b.txt").read_bytes() == b"old b\n"  # the advice, followed, brings the file back


async def test_a_group_or_trash_record_with_a_field_of_a_newer_fsguard_is_refused_naming_the_version_not_damage(
    client: Client, root: Path, state_dir: Path
) -> None:
    # Both were refused as "damaged", which sends the user to repair what a newer fsguard wrote on purpose.
    (root / "b.txt").write_bytes(b"old b\n")
    (root / "gone.txt").write_bytes(b"keep me\n")
    request = {"operations": [{"type": "write", "path": "b.txt", "content": "new b\n"}]}
    group_id = structured(await client.call_tool("batch_operations", {"request_json": request}))["backup_id"]
    sd_id = structured(await client.call_tool("delete_file", {"path": "gone.txt"}))["results"][0]["sd_id"]
    record = state_dir / "backups" / "groups" / f"{group_id}.json"
    group = json.loads(record.read_bytes())
    group["changes"][0]["future"] = 1
    record.write_text(json.dumps(group), encoding="utf-8")
    meta = state_dir / "trash" / sd_id / "meta.json"
    meta.write_text(json.dumps({**json.loads(meta.read_bytes()), "future": 1}), encoding="utf-8")

    info = await client.call_tool("backup", {"action": "info", "backup_id": group_id})
    restore = await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id})
    assert (error_code(info), error_code(restore)) == ("backup_corrupt", "backup_corrupt")
    assert text_of(info).startswith(
        f"backup group {group_id} was recorded by a newer fsguard (field 'future' unknown to this version)"
    )
    assert "upgrade fsguard (or use the version that recorded it)" in text_of(info)
    assert "damaged" not in text_of(info)
    assert text_of(restore).startswith(
        f"trash entry {sd_id} was recorded by a newer fsguard (field 'future' unknown to this version)"
    )
    assert "upgrade fsguard (or use the version that recorded it)" in text_of(restore)
    assert "damaged" not in text_of(restore)
    assert (root / "b.txt").read_bytes() == b"new b\n"
    assert (state_dir / "trash" / sd_id / "item").read_bytes() == b"keep me\n"


async def test_purging_another_servers_trash_entry_is_refused_and_leaves_it_in_the_trash(
    connect: ClientFactory, root: Path, state_dir: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "theirs.txt").write_bytes(b"their only copy\n")
    (root / "mine.txt").write_bytes(b"mine\n")
    async with connect(roots=(other,)) as elsewhere:
        theirs = structured(await elsewhere.call_tool("delete_file", {"path": "theirs.txt"}))["results"][0]["sd_id"]
    async with connect() as client:
        mine = structured(await client.call_tool("delete_file", {"path": "mine.txt"}))["results"][0]["sd_id"]
        by_id = await client.call_tool(
            "backup", {"action": "purge_trash", "sd_id": theirs, "dry_run": False, "force": True}
        )
        by_age = structured(
            await client.call_tool(
                "backup", {"action": "purge_trash", "older_than_days": 0, "dry_run": False, "force": True}
            )
        )
    assert error_code(by_id) == "access_denied"
    assert "theirs.txt" not in text_of(by_id)
    assert (by_age["removed"], [entry["sd_id"] for entry in by_age["trash"]]) == (1, [mine])
    assert (state_dir / "trash" / theirs / "item").read_bytes() == b"their only copy\n"
    assert not (state_dir / "trash" / mine).exists()


async def test_edits_of_a_large_text_file_are_undone_byte_for_byte_from_compressed_backups(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    target = root / "big.log"
    states = [b"".join(b"%07d GET /api/items 200 %d ms\r\n" % (i, i % 89) for i in range(80_000))]  # 2.6 MB
    target.write_bytes(states[0])
    async with connect() as client:
        for number in (1, 2, 3):
            await edit(client, f"{number * 1000:07d} GET", f"{number * 1000:07d} PUT", "big.log")
            states.append(target.read_bytes())
        stored = sum(journal.stat().st_size for journal in state_dir.rglob("*.jsonl"))
        assert stored < len(states[0])  # three whole versions, compressed
        for state in reversed(states[:-1]):
            structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "big.log"}))
            assert target.read_bytes() == state
    assert target.read_bytes() == states[0]


async def test_an_undo_of_a_file_deleted_since_names_its_trash_entry_and_the_two_calls_restore_it_and_undo(
    client: Client, root: Path
) -> None:
    target = root / "f.txt"
    target.write_bytes(b"one\ntwo\n")
    await edit(client, "one", "ONE")
    assert structured(await client.call_tool("delete_file", {"path": "f.txt"}))
    refused = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
    assert error_code(refused) == "undo_conflict"
    assert not target.exists()
    sd_id = (refused.meta or {})["fsguard/error"]["sd_id"]
    assert f"backup(action='restore_trash', sd_id='{sd_id}') brings it back as it was" in text_of(refused)
    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id}))
    assert target.read_bytes() == b"ONE\ntwo\n"
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}))
    assert target.read_bytes() == b"one\ntwo\n"


async def test_an_undo_of_a_file_whose_directory_was_deleted_since_names_the_directorys_trash_entry(
    client: Client, root: Path
) -> None:
    # It named no entry ("list_trash shows whether the trash holds it", which lists the directory, not the file), and
    # its force advice made pkg/ anew holding mod.py alone, after which restore_trash of pkg was refused.
    (root / "pkg").mkdir()
    (root / "pkg" / "mod.py").write_bytes(b"x = 0\n")
    (root / "pkg" / "other.py").write_bytes(b"keep\n")
    await edit(client, "x = 0", "x = 1", "pkg/mod.py")
    structured(await client.call_tool("delete_file", {"path": "pkg", "recursive": True}))
    refused = await client.call_tool("backup", {"action": "undo_last", "file_path": "pkg/mod.py"})
    assert error_code(refused) == "undo_conflict"
    assert not (root / "pkg").exists()
    sd_id = (refused.meta or {})["fsguard/error"]["sd_id"]
    assert f"sd_id='{sd_id}') brings the directory back as it was, then undo_last" in text_of(refused)
    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id}))
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "pkg/mod.py"}))
    assert (root / "pkg" / "mod.py").read_bytes() == b"x = 0\n"
    assert (root / "pkg" / "other.py").read_bytes() == b"keep\n"


async def test_an_undo_of_a_file_moved_away_names_no_trash_entry(client: Client, root: Path) -> None:
    (root / "f.txt").write_bytes(b"one\n")
    await edit(client, "one", "ONE")
    structured(await client.call_tool("move_file", {"source_path": "f.txt", "dest_path": "g.txt"}))
    refused = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
    assert error_code(refused) == "undo_conflict"
    assert "sd_id" not in (refused.meta or {})["fsguard/error"]
    assert "backup(action='list_trash') shows whether the trash holds it" in text_of(refused)
    assert (root / "g.txt").read_bytes() == b"ONE\n"


async def test_undo_last_past_the_steps_retention_kept_does_not_say_every_operation_is_undone(
    connect: ClientFactory, root: Path
) -> None:
    (root / "f.txt").write_text("v0\n", encoding="utf-8")
    async with connect(backup_max_count=3) as client:
        for version in range(1, 6):
            await edit(client, f"v{version - 1}", f"v{version}")
        for _ in range(3):
            structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}))
        again = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
    assert error_code(again) == "nothing_to_undo"
    assert "every step still kept" in text_of(again)
    assert "--backup-max-count" in text_of(again)
    assert (root / "f.txt").read_bytes() == b"v2\n"  # v0 and v1's steps were dropped: no undo reaches them


async def test_undo_last_past_the_first_step_says_it_is_all_undone_not_that_there_are_no_backups(
    client: Client, root: Path
) -> None:
    (root / "f.txt").write_text("1\n", encoding="utf-8")
    await edit(client, "1", "2")
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"}))
    again = await client.call_tool("backup", {"action": "undo_last", "file_path": "f.txt"})
    assert error_code(again) == "nothing_to_undo"
    assert "every step still kept in the undo chain of f.txt is undone already" in text_of(again)
    assert "No backups found" not in text_of(again)
    listed = structured(await client.call_tool("backup", {"action": "list", "filter_path": "f.txt"}))
    assert listed["total"] >= 1  # its versions are there, as the text says
    assert (root / "f.txt").read_bytes() == b"1\n"
