"""A revert (an atomic batch's rollback, a group restore) never replaces a change another process made after its
conflict check.

The revert looks for conflicts first, then restores file after file; another fsguard (or a thread of this one)
may change a file in between. The restore of each file now checks, under that file's lock, that the file still
holds what the reverted change left; if not, that file is left as it is and reported, as a conflict found
earlier would have been. Before, the rollback replaced the other process's acknowledged edit (its bytes went to
a safety backup nobody was told about). The race is made exact: the conflict check runs as usual, then a
"foreign" edit lands, then the restores run. And a rollback steps each file's undo chain back, as undo_last
does, instead of adding a restore on top: else the next undo_last "undid the rollback", re-applying the edit of
a batch reported as rolled back. Both protocol eras.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core.locks import LockBusy, PathLocks
from fsguard.core.moving import Mover
from fsguard.core.reverting import Reverter
from fsguard.core.writing import FileWriter
from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

ORIGINAL = b"value = 1\n"
FOREIGN = b"value = 1\nchanged by another process\n"
# An atomic batch that edits a.txt, then fails at b.txt: its rollback reverts the edit of a.txt.
_EDIT_THEN_FAIL = [
    {"type": "edit", "path": "a.txt", "old_text": "value = 1", "new_text": "value = 2"},
    {"type": "edit", "path": "b.txt", "old_text": "no such text", "new_text": "x"},
]


async def test_an_atomic_batch_rollback_leaves_a_file_another_process_changed_after_the_conflict_check(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_bytes(ORIGINAL)
    (root / "b.txt").write_bytes(ORIGINAL)
    check = Reverter.conflicts

    def conflicts_then_a_foreign_edit(self: Reverter, changes: Any) -> Any:
        found = check(self, changes)
        (root / "a.txt").write_bytes(FOREIGN)  # another process's edit, acknowledged to its agent
        return found

    monkeypatch.setattr(Reverter, "conflicts", conflicts_then_a_foreign_edit)
    result = await client.call_tool("batch_operations", {"request_json": {"operations": _EDIT_THEN_FAIL}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (root / "a.txt").read_bytes() == FOREIGN
    assert (root / "b.txt").read_bytes() == ORIGINAL
    fields = (result.meta or {})["fsguard/error"]
    assert [entry.split(":")[0] for entry in fields["not_rolled_back"]] == [str(root / "a.txt")]
    assert "another process changed it meanwhile" in text_of(result)


async def test_after_a_failed_atomic_batch_undo_last_reverts_the_edit_before_it_not_the_batch_edit(
    client: Client, root: Path
) -> None:
    # The rollback used to be a restore: a new step on top of the batch's, so undo_last "undid the rollback" and
    # wrote the edit the batch had reported rolled back. It now steps the chain back as if the batch never ran.
    (root / "a.txt").write_bytes(b"v0\n")
    earlier = structured(await client.call_tool("edit_file", {"path": "a.txt", "old_text": "v0", "new_text": "v1"}))
    operations = [
        {"type": "edit", "path": "a.txt", "old_text": "v1", "new_text": "from the failed batch"},
        {"type": "edit", "path": "a.txt", "old_text": "no such text", "new_text": "x"},
    ]
    result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (root / "a.txt").read_bytes() == b"v1\n"
    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "a.txt"}))
    assert [record["backup_id"] for record in chain["backups"]] == [earlier["backup_id"]]

    undone = structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert undone["backup"]["backup_id"] == earlier["backup_id"]
    assert (root / "a.txt").read_bytes() == b"v0\n"


async def test_an_atomic_batch_rollback_keeps_a_directory_another_process_made_while_the_batch_ran(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The batch logged as its own every directory missing before a write and there after it: one another process
    # made meanwhile (its create_directory acknowledged, while the write waited for that directory's lock) was
    # removed by the rollback.
    write = FileWriter.write

    def made_meanwhile(self: FileWriter, *args: Any, **kwargs: Any) -> Any:
        (root / "shared").mkdir()  # another process's create_directory
        return write(self, *args, **kwargs)

    monkeypatch.setattr(FileWriter, "write", made_meanwhile)
    operations = [
        {"type": "write", "path": "shared/mine.txt", "content": "mine\n"},
        {"type": "edit", "path": "shared/mine.txt", "old_text": "no such text", "new_text": "x"},
    ]
    result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (root / "shared").is_dir()
    assert list((root / "shared").iterdir()) == []  # the batch's own file was rolled back
    assert (result.meta or {})["fsguard/error"]["rolled_back"] == [str(root / "shared" / "mine.txt")]


async def test_a_pipeline_rollback_keeps_a_directory_another_process_made_before_its_copy(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_bytes(ORIGINAL)
    copy = Mover.copy

    def made_meanwhile(self: Mover, *args: Any, **kwargs: Any) -> Any:
        (root / "out").mkdir(exist_ok=True)  # another process's create_directory, after the step looked
        return copy(self, *args, **kwargs)

    monkeypatch.setattr(Mover, "copy", made_meanwhile)
    steps = [
        {"id": "cp", "action": "copy", "params": {"files": ["a.txt"], "destination": "out"}},
        {"id": "boom", "action": "edit", "params": {"files": ["a.txt"], "old_text": "absent", "new_text": "x"}},
    ]
    result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "copy-then-fail", "steps": steps}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (root / "out").is_dir()
    assert list((root / "out").iterdir()) == []  # the pipeline's own copy was rolled back (to the trash)
    assert (root / "a.txt").read_bytes() == ORIGINAL


async def test_an_atomic_batch_rollback_holds_its_files_so_another_process_edits_after_it_not_half_way(
    client: Client, root: Path, state_dir: Path, user_lock_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The rollback took each file's lock only as it reverted it: another process's edit of a.txt landing after the
    # conflict check, while b.txt was reverted, left a.txt kept and b.txt reverted, the batch half rolled back (three
    # servers with cancellations hit it in 15 of ~330 cancelled batches). It now holds every file's lock throughout.
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(ORIGINAL)
    refused = foreign_edit_after_each_conflict_check(monkeypatch, state_dir, root / "a.txt")
    operations = [
        {"type": "edit", "path": name, "old_text": "value = 1", "new_text": "value = 2"} for name in ("a.txt", "b.txt")
    ]
    operations.append({"type": "edit", "path": "b.txt", "old_text": "no such text", "new_text": "x"})
    result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert refused == ["a.txt"]
    assert (root / "a.txt").read_bytes() == ORIGINAL
    assert (root / "b.txt").read_bytes() == ORIGINAL
    assert (result.meta or {})["fsguard/error"]["not_rolled_back"] == []


async def test_an_atomic_batch_rollback_keeps_a_copy_another_process_edited_since_the_batch_made_it(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A copy was reverted by trashing whatever was at its destination, unchecked: another fsguard's acknowledged edit
    # of the new copy, made while the batch went on, went to the trash with it (two servers, ~1 round in 300).
    (root / "a.txt").write_bytes(ORIGINAL)
    check = Reverter.conflicts

    def a_foreign_edit_then_conflicts(self: Reverter, changes: Any) -> Any:
        (root / "copy.txt").write_bytes(FOREIGN)  # another process's edit of the copy, acknowledged to its agent
        return check(self, changes)

    monkeypatch.setattr(Reverter, "conflicts", a_foreign_edit_then_conflicts)
    operations = [
        {"type": "copy", "source": "a.txt", "destination": "copy.txt"},
        {"type": "edit", "path": "a.txt", "old_text": "no such text", "new_text": "x"},
    ]
    result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (root / "copy.txt").read_bytes() == FOREIGN
    assert (root / "a.txt").read_bytes() == ORIGINAL
    assert "copy.txt: it changed since it was copied" in text_of(result)
    assert (result.meta or {})["fsguard/error"]["not_rolled_back"] == [f"{root / 'copy.txt'}: copied"]


@pytest.mark.parametrize("copied", ["file", "tree"])
async def test_a_group_restore_refuses_to_trash_a_copy_edited_since_and_with_force_trashes_it(
    client: Client, root: Path, copied: str
) -> None:
    (root / "d").mkdir()
    (root / "d" / "a.txt").write_bytes(ORIGINAL)
    source, copy, edited = ("d/a.txt", "copy.txt", "copy.txt") if copied == "file" else ("d", "e", "e/a.txt")
    operations = [{"type": "copy", "source": source, "destination": copy}]
    group = structured(await client.call_tool("batch_operations", {"request_json": {"operations": operations}}))
    edit = {"path": edited, "old_text": "value = 1", "new_text": "value = 1\nchanged by another process"}
    structured(await client.call_tool("edit_file", edit))

    refused = await client.call_tool("backup", {"action": "restore", "backup_id": group["backup_id"]})
    assert error_code(refused) == "undo_conflict", text_of(refused)
    assert (root / edited).read_bytes() == FOREIGN
    forced = {"action": "restore", "backup_id": group["backup_id"], "force": True}
    structured(await client.call_tool("backup", forced))
    assert not (root / copy).exists()  # in the trash, as force asked
    assert (root / "d" / "a.txt").read_bytes() == ORIGINAL


async def test_a_group_restore_of_a_pipeline_refuses_to_trash_a_copy_edited_since(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(ORIGINAL)
    steps = [{"id": "cp", "action": "copy", "params": {"files": ["a.txt"], "destination": "out"}}]
    group = structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "cp", "steps": steps}}))
    edit = {"path": "out/a.txt", "old_text": "value = 1", "new_text": "value = 1\nchanged by another process"}
    structured(await client.call_tool("edit_file", edit))
    refused = await client.call_tool("backup", {"action": "restore", "backup_id": group["backup_id"]})
    assert error_code(refused) == "undo_conflict", text_of(refused)
    assert (root / "out" / "a.txt").read_bytes() == FOREIGN


_MOVES: dict[str, dict[str, Any]] = {  # each moves d/a.txt (or d) to e/a.txt (or e)
    "file": {"request_json": {"operations": [{"type": "move", "source": "d/a.txt", "destination": "e/a.txt"}]}},
    "tree": {"request_json": {"operations": [{"type": "move", "source": "d", "destination": "e"}]}},
    "rename set": {"rename_json": {"path": "d", "mode": "add_prefix", "prefix": "e", "preview": False}},
    "pipeline": {
        "pipeline_json": {
            "name": "mv",
            "steps": [{"action": "rename", "params": {"files": ["d/a.txt"], "destination": "e"}}],
        }
    },
}


@pytest.mark.parametrize("how", list(_MOVES))
async def test_a_group_restore_refuses_to_move_back_an_entry_rewritten_since_and_with_force_moves_it_back(
    client: Client, root: Path, how: str
) -> None:
    # A move was put back unchecked ("Reverted 1 of 1"), another session's rewrite of the moved file landing under
    # the old name: it now keeps a fingerprint of what it moved, as a copy does, and a change since is a conflict.
    (root / "d").mkdir()
    (root / "d" / "a.txt").write_bytes(ORIGINAL)
    group = structured(await client.call_tool("batch_operations", _MOVES[how]))
    moved = root / "d" / "ea.txt" if how == "rename set" else root / "e" / "a.txt"
    edit = {"path": str(moved), "old_text": "value = 1", "new_text": "value = 1\nchanged by another process"}
    structured(await client.call_tool("edit_file", edit))

    for dry_run in (True, False):
        restore = {"action": "restore", "backup_id": group["backup_id"], "dry_run": dry_run}
        refused = await client.call_tool("backup", restore)
        assert error_code(refused) == "undo_conflict", text_of(refused)
        assert "it changed since it was moved" in text_of(refused)
    assert moved.read_bytes() == FOREIGN
    assert not (root / "d" / "a.txt").exists()
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": group["backup_id"], "force": True}))
    assert (root / "d" / "a.txt").read_bytes() == FOREIGN
    assert not moved.exists()


async def test_a_group_restore_keeps_a_moved_file_another_process_rewrote_after_the_conflict_check(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "a.txt").write_bytes(ORIGINAL)
    operations = [{"type": "move", "source": "a.txt", "destination": "b.txt"}]
    group = structured(await client.call_tool("batch_operations", {"request_json": {"operations": operations}}))
    check = Reverter.conflicts

    def conflicts_then_a_foreign_edit(self: Reverter, changes: Any) -> Any:
        found = check(self, changes)
        (root / "b.txt").write_bytes(FOREIGN)  # another process's edit, after the check and before the move back
        return found

    monkeypatch.setattr(Reverter, "conflicts", conflicts_then_a_foreign_edit)
    result = await client.call_tool("backup", {"action": "restore", "backup_id": group["backup_id"]})
    assert "changed it meanwhile" in text_of(result)
    assert (root / "b.txt").read_bytes() == FOREIGN
    assert not (root / "a.txt").exists()


async def test_a_group_restore_of_a_tree_copied_or_moved_then_edited_inside_by_the_same_batch_needs_no_force(
    client: Client, root: Path
) -> None:
    # Its own edit made the tree's fingerprint differ from the one the copy kept: the restore was refused as a change
    # by someone else. The tree is compared once that edit is reverted.
    (root / "d").mkdir()
    (root / "d" / "a.txt").write_bytes(ORIGINAL)
    operations = [
        {"type": "copy", "source": "d", "destination": "c"},
        {"type": "move", "source": "d", "destination": "e"},
        {"type": "edit", "path": "c/a.txt", "old_text": "1", "new_text": "2"},
        {"type": "edit", "path": "e/a.txt", "old_text": "1", "new_text": "3"},
    ]
    group = structured(await client.call_tool("batch_operations", {"request_json": {"operations": operations}}))
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": group["backup_id"]}))
    assert (root / "d" / "a.txt").read_bytes() == ORIGINAL
    assert not (root / "c").exists()
    assert not (root / "e").exists()


async def test_a_pipeline_rollback_holds_its_files_so_another_process_edits_after_it_not_half_way(
    client: Client, root: Path, state_dir: Path, user_lock_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The batch's rollback held every file's lock from its conflict check to its last revert; the pipeline's took
    # each file's lock only as it reverted it, so another process's edit of a.txt landing after the check was kept
    # while b.txt was reverted: the pipeline reported as rolled back stayed half applied.
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(ORIGINAL)
    refused = foreign_edit_after_each_conflict_check(monkeypatch, state_dir, root / "a.txt")
    steps: list[dict[str, Any]] = [
        {"id": "both", "action": "edit", "params": {"files": ["a.txt", "b.txt"], "old_text": "1", "new_text": "2"}},
        {"id": "boom", "action": "edit", "params": {"files": ["b.txt"], "old_text": "absent", "new_text": "x"}},
    ]
    result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "edit-then-fail", "steps": steps}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert refused == ["a.txt"]
    assert (root / "a.txt").read_bytes() == ORIGINAL
    assert (root / "b.txt").read_bytes() == ORIGINAL
    assert (result.meta or {})["fsguard/error"]["not_rolled_back"] == []


def foreign_edit_after_each_conflict_check(monkeypatch: pytest.MonkeyPatch, state_dir: Path, path: Path) -> list[str]:
    """Right after each rollback's conflict check, another fsguard sharing the state directory tries to edit
    ``path``; the list returned gets its name each time the rollback's lock refused that edit."""
    other = PathLocks(state_dir)
    refused: list[str] = []
    check = Reverter.conflicts

    def conflicts_then_a_foreign_edit(self: Reverter, changes: Any) -> Any:
        found = check(self, changes)
        assert other.claim()  # its first lock does not wait: LockBusy while someone holds it
        try:
            with other.hold(path):
                path.write_bytes(FOREIGN)
        except LockBusy:
            refused.append(path.name)
        finally:
            other.release()
        return found

    monkeypatch.setattr(Reverter, "conflicts", conflicts_then_a_foreign_edit)
    return refused


async def test_a_batch_rollback_refused_by_an_outside_change_names_the_group_restore_with_force_that_reverts_it(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The message said "retry with force=true" without the call: the batch's own force forces nothing, a restore of
    # its group with force does.
    (root / "a.txt").write_bytes(ORIGINAL)
    (root / "b.txt").write_bytes(ORIGINAL)
    check = _a_foreign_edit_before_the_conflict_check(monkeypatch, root / "a.txt")
    result = await client.call_tool("batch_operations", {"request_json": {"operations": _EDIT_THEN_FAIL}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (root / "a.txt").read_bytes() == FOREIGN
    group = (result.meta or {})["fsguard/error"]["backup_id"]
    assert f"backup(action='restore', backup_id='{group}', force=true) reverts" in text_of(result)
    assert "retry with force=true" not in text_of(result)
    monkeypatch.setattr(Reverter, "conflicts", check)
    restored = await client.call_tool("backup", {"action": "restore", "backup_id": group, "force": True})
    assert not restored.is_error, text_of(restored)
    assert (root / "a.txt").read_bytes() == ORIGINAL


async def test_a_pipeline_rollback_refused_by_an_outside_change_names_the_group_restore_with_force_that_reverts_it(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It named the group's restore without force=true, which the outside change then refused too.
    (root / "a.txt").write_bytes(ORIGINAL)
    check = _a_foreign_edit_before_the_conflict_check(monkeypatch, root / "a.txt")
    steps = [
        {"id": "e", "action": "edit", "params": {"files": ["a.txt"], "old_text": "value = 1", "new_text": "value = 2"}},
        {"id": "f", "action": "edit", "params": {"files": ["a.txt"], "old_text": "no such text", "new_text": "x"}},
    ]
    result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "edit-then-fail", "steps": steps}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (root / "a.txt").read_bytes() == FOREIGN
    group = (result.meta or {})["fsguard/error"]["backup_id"]
    assert f'backup(action="restore", backup_id="{group}", force=true) reverts them' in text_of(result)
    monkeypatch.setattr(Reverter, "conflicts", check)
    restored = await client.call_tool("backup", {"action": "restore", "backup_id": group, "force": True})
    assert not restored.is_error, text_of(restored)
    assert (root / "a.txt").read_bytes() == ORIGINAL


def _a_foreign_edit_before_the_conflict_check(monkeypatch: pytest.MonkeyPatch, path: Path) -> Any:
    """Another process's edit of ``path`` just before a rollback checks for conflicts; the check it wraps."""
    check = Reverter.conflicts

    def a_foreign_edit_then_conflicts(self: Reverter, changes: Any) -> Any:
        path.write_bytes(FOREIGN)
        return check(self, changes)

    monkeypatch.setattr(Reverter, "conflicts", a_foreign_edit_then_conflicts)
    return check
