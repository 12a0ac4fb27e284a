"""A write that a full disk refused leaves the undo chain as it was: undo_last reverts the last real operation.

The backup of the old bytes is made while the temp file of the new ones is written; when the temp cannot be
written (ENOSPC), the backup was of an operation that never happened. Left in the chain, it became the step
undo_last reverted next, and that "undo" changed nothing ("already holds ... nothing was written"), so an agent
asking to undo its last edit got a success that undid nothing. A permanent delete that the mount refused did
the same with its backup of the bytes it did not delete. A project_replace that a full state directory stopped
midway said only "disk full, retry", though the files before that one stayed changed: it now names them and
the group that undoes them (and a full project disk leaves no undo step for the file it could not write); an
atomic batch it stopped is rolled back whole. These mount a small tmpfs (root only; they skip otherwise) and run
in both protocol eras.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.config import Settings
from fsguard.core.hashing import content_hash
from fsguard.services import Services
from tests.conftest import ClientFactory, Mount, error_code, structured, text_of
from tests.tools import test_environment_failures as environment
from tests.tools.test_environment_failures import fill

pytestmark = pytest.mark.anyio

ORIGINAL = b"one\n"
EDITED = b"two\n"
BIG = "x" * 50_000  # more than a full tmpfs has left


@pytest.fixture
def full(root: Path, mount_tmpfs: Mount) -> Path:
    return mount_tmpfs(root / "full")


async def edited_once(client: Client, full: Path) -> str:
    """full/a.txt edited from ORIGINAL to EDITED through fsguard; returns that edit's backup id."""
    (full / "a.txt").write_bytes(ORIGINAL)
    edit = {"path": "full/a.txt", "old_text": "one", "new_text": "two"}
    return str(structured(await client.call_tool("edit_file", edit))["backup_id"])


def refused_calls(first_backup: str) -> dict[str, tuple[str, dict[str, Any]]]:
    return {
        "edit_file": ("edit_file", {"path": "full/a.txt", "old_text": "two", "new_text": BIG}),
        "write_file": ("write_file", {"path": "full/a.txt", "content": BIG}),
        "multi_edit": ("multi_edit", {"path": "full/a.txt", "edits": [{"old_text": "two", "new_text": BIG}]}),
        # restore puts back bytes the disk can hold only once the filler is gone: write the big version first
        "restore": ("backup", {"action": "restore", "backup_id": first_backup}),
    }


@pytest.mark.parametrize("refused", ["edit_file", "write_file", "multi_edit", "restore"])
async def test_a_change_refused_by_a_full_disk_leaves_the_undo_chain_so_undo_last_reverts_the_last_real_edit(
    client: Client, full: Path, refused: str
) -> None:
    first = await edited_once(client, full)
    expected_chain = [first]
    before = EDITED
    if refused == "restore":  # the file grows, so putting ORIGINAL back needs a page the disk will not have
        grown = structured(await client.call_tool("write_file", {"path": "full/a.txt", "content": BIG}))
        expected_chain.insert(0, grown["backup_id"])
        before = BIG.encode()
    fill(full)
    tool, arguments = refused_calls(first)[refused]
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "disk_full", text_of(result)
    assert (full / "a.txt").read_bytes() == before
    (full / "filler").unlink()

    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "full/a.txt"}))
    assert [record["backup_id"] for record in chain["backups"]] == expected_chain  # no record of the refused call
    listed = structured(await client.call_tool("backup", {"action": "list", "filter_path": "a.txt"}))
    assert {record["backup_id"] for record in listed["backups"]} == set(expected_chain)

    for backup_id in expected_chain:  # each undo_last writes: it reverts a real step, never the refused one
        result = await client.call_tool("backup", {"action": "undo_last", "file_path": "full/a.txt"})
        assert structured(result)["backup"]["backup_id"] == backup_id
        assert "nothing was written" not in text_of(result)
    assert (full / "a.txt").read_bytes() == ORIGINAL
    nothing = await client.call_tool("backup", {"action": "undo_last", "file_path": "full/a.txt"})
    assert error_code(nothing) == "nothing_to_undo"


async def test_a_permanent_delete_refused_by_a_read_only_mount_leaves_no_step_for_undo_last(
    client: Client, full: Path
) -> None:
    await edited_once(client, full)
    environment.remount_read_only(full)
    result = await client.call_tool("delete_file", {"path": "full/a.txt", "permanent": True})
    assert error_code(result) == "read_only_filesystem", text_of(result)
    assert (full / "a.txt").read_bytes() == EDITED
    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "full/a.txt"}))
    assert [record["operation"] for record in chain["backups"]] == ["edit_file:replace"]


async def test_project_replace_stopped_by_a_full_state_directory_names_the_files_it_changed_and_their_undo(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    mount_tmpfs(state_dir, "1m")
    big = (b"alpha " + b"x" * 100 + b"\n") * 200  # ~21 KB each: the state directory has room for one backup
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(big)
    async with connect() as client:  # the server lays out its state directory first; then the disk fills
        fill(state_dir)
        filler = state_dir / "filler"
        with filler.open("r+b") as handle:
            handle.truncate(filler.stat().st_size - 40 * 1024)
        result = await client.call_tool("project_replace", {"find": "alpha", "replace": "omega", "force": True})
        assert error_code(result) == "disk_full", text_of(result)
        changed = [name for name in ("a.txt", "b.txt", "c.txt") if (root / name).read_bytes() != big]
        assert changed == ["a.txt"]  # files change one at a time, in path order: each whole, old or new
        fields = (result.meta or {})["fsguard/error"]
        assert fields["changed_files"] == [str(root / "a.txt")]
        assert "1 of 3 files was changed" in text_of(result)
        assert f"backup_id='{fields['backup_id']}'" in text_of(result)
        filler.unlink()
        structured(await client.call_tool("backup", {"action": "restore", "backup_id": fields["backup_id"]}))
    assert [(root / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [big] * 3


async def test_an_atomic_batch_stopped_by_a_full_state_directory_is_rolled_back_whole(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    # The rollback's own backup (of the bytes the failed batch wrote, never acknowledged) does not fit either:
    # it is skipped, so the rollback still happens; before, a.txt stayed changed ("could not be rolled back").
    mount_tmpfs(state_dir, "1m")
    big = (b"alpha " + b"x" * 100 + b"\n") * 200
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(big)
    async with connect() as client:
        fill(state_dir)
        filler = state_dir / "filler"
        with filler.open("r+b") as handle:
            handle.truncate(filler.stat().st_size - 40 * 1024)  # room for one file's backup, not two
        operations = [
            {"type": "edit", "path": name, "old_text": "alpha", "new_text": "omega", "replace_all": True}
            for name in ("a.txt", "b.txt")
        ]
        result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
        assert error_code(result) == "batch_failed", text_of(result)
        fields = (result.meta or {})["fsguard/error"]
        assert fields["error_code"] == "disk_full"
        assert fields["not_rolled_back"] == []
        assert "then send the same batch again" in text_of(result)  # nothing in the batch needs fixing
        assert "Fix operation" not in text_of(result)
        assert [(root / name).read_bytes() for name in ("a.txt", "b.txt")] == [big, big]
        filler.unlink()
        nothing = await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"})
        assert error_code(nothing) == "nothing_to_undo"  # the chain reads as if the batch never ran


async def test_project_replace_stopped_by_a_full_project_disk_leaves_no_undo_step_for_the_file_it_could_not_write(
    client: Client, full: Path
) -> None:
    # The backups fit (the state directory is elsewhere); b.txt's new bytes do not. b.txt keeps its bytes and its
    # undo chain (no record of the write that failed), a.txt stays replaced and its group takes it back.
    small, big = b"alpha\n", (b"alpha " + b"x" * 100 + b"\n") * 200
    (full / "a.txt").write_bytes(small)
    (full / "b.txt").write_bytes(big)
    (full / "c.txt").write_bytes(small)
    fill(full)
    filler = full / "filler"
    with filler.open("r+b") as handle:
        handle.truncate(filler.stat().st_size - 8 * 1024)  # room for a.txt's temp, not for b.txt's
    result = await client.call_tool("project_replace", {"path": "full", "find": "alpha", "replace": "omega"})
    assert error_code(result) == "disk_full", text_of(result)
    assert [(full / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [b"omega\n", big, small]
    fields = (result.meta or {})["fsguard/error"]
    assert fields["changed_files"] == [str(full / "a.txt")]
    assert not [p.name for p in full.iterdir() if p.name not in ("a.txt", "b.txt", "c.txt", "filler")]  # no temp
    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "full/b.txt"}))
    assert chain["backups"] == []
    filler.unlink()
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": fields["backup_id"]}))
    assert [(full / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [small, big, small]


async def test_an_undo_meeting_the_backup_of_a_change_that_never_reached_the_disk_says_to_undo_again(
    connect: ClientFactory, root: Path, base_settings: Settings
) -> None:
    # A server killed after an edit's backup and before its rename leaves a step whose change never happened: the
    # first undo_last drops it and said only "already holds …; nothing was written", which read as done while the
    # acknowledged change was still there.
    target = root / "a.txt"
    target.write_bytes(b"v0\n")
    async with connect() as client:
        structured(await client.call_tool("write_file", {"path": "a.txt", "content": "v1\n"}))
    crashed = Services.create(base_settings)  # the killed server: its backup is in the journal, its write is not
    crashed.backups.snapshot(target, b"v1\n", 0o644, operation="write_file", after_hash=content_hash(b"v2\n"))
    async with connect() as client:
        first = await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"})
        assert target.read_bytes() == b"v1\n"
        assert "Call undo_last again to undo the change before it." in text_of(first)
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert target.read_bytes() == b"v0\n"
