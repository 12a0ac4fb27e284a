"""A change group's record that cannot be written, through the tools in both protocol eras.

A batch, pipeline, rename set, project_replace or group restore saves its group after its changes are made. When the
state directory had no room for that record, the call answered disk_full with every change made and named none of
them: an agent that did as told (free space, retry) appended its lines twice. The changes now stand, reported as
made, each undoable file by file.
"""

from __future__ import annotations

import errno
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import DiskFullError, error_for_code
from tests.conftest import structured, text_of

pytestmark = pytest.mark.anyio

FILES = {"a.txt": b"start\n", "b.txt": b"alpha one\n", "c.txt": b"alpha two\r\n"}


@dataclass
class GroupRecords:
    """Whether writing a group's record fails, as on a full state directory, and the records refused."""

    failing: bool = True
    refused: list[Path] = field(default_factory=list)


@pytest.fixture
def group_records_fail(monkeypatch: pytest.MonkeyPatch) -> GroupRecords:
    records = GroupRecords()
    real_write = AtomicWriter.write

    def write(self: AtomicWriter, path: Path, data: bytes, *, exclusive: bool = False) -> None:
        if records.failing and path.parent.name == "groups":
            records.refused.append(path)
            raise DiskFullError(f"{path}: {os.strerror(errno.ENOSPC)}. Free some space there, then retry.")
        real_write(self, path, data, exclusive=exclusive)

    monkeypatch.setattr(AtomicWriter, "write", write)
    return records


@pytest.fixture
def files(root: Path) -> Path:
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    return root


async def test_an_atomic_batch_whose_group_cannot_be_saved_answers_its_changes_made_once(
    client: Client, files: Path, group_records_fail: GroupRecords
) -> None:
    operations: list[dict[str, Any]] = [
        {"type": "write", "path": "a.txt", "content": "deployed v2\n", "append": True},
        {"type": "edit", "path": "b.txt", "old_text": "alpha", "new_text": "omega"},
    ]
    result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    data = structured(result)
    assert group_records_fail.refused  # the record was refused, and the call still answered what it did
    assert (data.get("backup_id"), files.joinpath("a.txt").read_bytes()) == (None, b"start\ndeployed v2\n")
    assert files.joinpath("b.txt").read_bytes() == b"omega one\n"
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "a.txt"}))
    assert files.joinpath("a.txt").read_bytes() == FILES["a.txt"]


async def test_project_replace_whose_group_cannot_be_saved_answers_the_files_it_changed(
    client: Client, files: Path, group_records_fail: GroupRecords
) -> None:
    data = structured(await client.call_tool("project_replace", {"find": "alpha", "replace": "omega"}))
    assert group_records_fail.refused
    assert (data["files_changed"], data.get("backup_id")) == (2, None)
    assert (files.joinpath("b.txt").read_bytes(), files.joinpath("c.txt").read_bytes()) == (
        b"omega one\n",
        b"omega two\r\n",
    )
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "c.txt"}))
    assert files.joinpath("c.txt").read_bytes() == FILES["c.txt"]


async def test_a_group_restore_whose_own_group_cannot_be_saved_answers_what_it_reverted(
    client: Client, files: Path, group_records_fail: GroupRecords
) -> None:
    group_records_fail.failing = False
    data = structured(await client.call_tool("project_replace", {"find": "alpha", "replace": "omega"}))
    group_records_fail.failing = True
    restored = await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]})
    assert not restored.is_error, text_of(restored)
    assert group_records_fail.refused
    assert {name: files.joinpath(name).read_bytes() for name in FILES} == FILES


def test_a_disk_full_error_carries_the_fields_every_error_may_carry() -> None:
    # A group restore whose every change failed on a full disk answered internal_error: DiskFullError alone
    # refused the fields the restore's error names.
    error = error_for_code("disk_full")("nothing was reverted", path="/r/a.txt", failed=["/r/a.txt"], backup_id="b1")
    assert (error.code, error.fields["failed"], error.fields["backup_id"]) == ("disk_full", ["/r/a.txt"], "b1")
