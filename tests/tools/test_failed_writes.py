"""Writes that fail on a full or read-only filesystem, in both protocol eras: a new file's leaves the tree as it
was (the directories ``create_dirs`` made for it are removed again, those that were there before are kept), and
one that fails in fsguard's own state directory says so, instead of sending the agent to the roots."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core import disk, mutation
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import DiskFullError
from fsguard.core.oserrors import from_os_error
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def writes_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    def write_at(self: AtomicWriter, entry: Any, data: bytes, **options: Any) -> None:
        raise DiskFullError(f"{entry.path}: {os.strerror(errno.ENOSPC)}. Free some space there, then retry.")

    monkeypatch.setattr(AtomicWriter, "write_at", write_at)


@pytest.mark.usefixtures("writes_fail")
async def test_a_new_file_that_cannot_be_written_leaves_no_directory_made_for_it(client: Client, root: Path) -> None:
    (root / "kept").mkdir()
    (root / "kept" / "other.txt").write_bytes(b"x\n")
    for path in ("d1/d2/new.txt", "kept/d3/d4/new.txt"):
        result = await client.call_tool("write_file", {"path": path, "content": "new\n", "create_dirs": True})
        assert error_code(result) == "disk_full", text_of(result)
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == ["kept", "kept/other.txt"]


@pytest.mark.usefixtures("writes_fail")
async def test_a_failed_new_file_keeps_a_made_directory_something_else_was_put_in(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_rmdir = os.rmdir

    def rmdir(path: Any, *, dir_fd: int | None = None) -> None:
        if path == "d2":  # another process puts a file there between the failed write and the cleanup
            os.mkdir("d2/late", dir_fd=dir_fd)
        real_rmdir(path, dir_fd=dir_fd)

    monkeypatch.setattr(os, "rmdir", rmdir)
    result = await client.call_tool("write_file", {"path": "d1/d2/new.txt", "content": "new\n", "create_dirs": True})
    assert error_code(result) == "disk_full"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == ["d1", "d1/d2", "d1/d2/late"]


@pytest.mark.parametrize(
    ("number", "code", "advice"),
    [
        (errno.ENOSPC, "disk_full", "backup(action='purge_trash')"),
        (errno.EROFS, "read_only_filesystem", "restart fsguard with --state-dir on a writable filesystem"),
    ],
    ids=["full", "read-only"],
)
async def test_a_write_failing_in_the_state_directory_says_so_and_a_root_failure_does_not(
    client: Client, root: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch, number: int, code: str, advice: str
) -> None:
    (root / "a.txt").write_bytes(b"old\n")

    def record(path: Path, data: bytes) -> int:  # the journal entry each write makes first, under the state dir
        raise OSError(number, os.strerror(number))

    monkeypatch.setattr(disk, "open_record", record)
    result = await client.call_tool("write_file", {"path": "a.txt", "content": "new\n"})
    assert error_code(result) == code
    assert str(state_dir) in text_of(result)
    assert advice in text_of(result)
    assert "Write under a root" not in text_of(result)
    assert (root / "a.txt").read_bytes() == b"old\n"
    monkeypatch.undo()

    def write_at(self: AtomicWriter, entry: Any, data: bytes, **options: Any) -> None:
        raise from_os_error(OSError(number, os.strerror(number)), entry.path)

    monkeypatch.setattr(AtomicWriter, "write_at", write_at)
    result = await client.call_tool("write_file", {"path": "a.txt", "content": "new\n"})
    assert error_code(result) == code
    assert "state directory" not in text_of(result)


async def test_a_compact_write_append_or_restore_whose_read_back_differs_says_not_verified(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = root / "a.txt"
    async with connect(compact_mode=True) as client:
        await client.call_tool("write_file", {"path": "a.txt", "content": "one\n"})
        second = structured(await client.call_tool("write_file", {"path": "a.txt", "content": "two\n"}))

        def overwritten(entry: Any, data: bytes) -> bool:  # another program writes between the rename and the check
            target.write_bytes(b"EXTERNAL\n")
            return False

        monkeypatch.setattr(mutation, "on_disk_equals", overwritten)
        calls: list[tuple[str, dict[str, Any]]] = [
            ("write_file", {"path": "a.txt", "content": "three\n"}),
            ("write_file", {"path": "a.txt", "content": "four\n", "append": True}),
            ("backup", {"action": "restore", "backup_id": second["backup_id"]}),
        ]
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert "NOT VERIFIED: re-read before another write" in text_of(result), (name, text_of(result))
            answer = structured(result)
            assert (answer["verified"] if name == "write_file" else answer["restored"][0]["verified"]) is False
            assert target.read_bytes() == b"EXTERNAL\n"
