"""A file exchanged with another between a write's last look and its rename.

A write checked that the file was still the one it read, then renamed its new file over the name. Another process
exchanging the file with another one (renameat2 RENAME_EXCHANGE) in between had the other file destroyed, its bytes in
no backup, and the answer speak of a write. The new file is now exchanged with what holds the name and what came out
is checked (``core/setaside.py`` ``swap_in``): anything but the file read goes back, and the call answers
``external_change``. Each race is made exact by a patched step both the old and the new code pass through.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fsguard.core import beneath, disk, mutation
from tests.conftest import ClientFactory, error_code, text_of
from tests.swaps import exchange

pytestmark = pytest.mark.anyio

A = b"A-ORIGINAL\nalpha\n"
B = b"B-ORIGINAL\nbeta\n"

WRITES: dict[str, tuple[str, dict[str, Any]]] = {
    "append": ("write_file", {"path": "a.txt", "content": "more\n", "append": True}),
    "edit": ("edit_file", {"path": "a.txt", "old_text": "alpha", "new_text": "ALPHA"}),
}


@pytest.fixture
def pair(root: Path) -> Path:
    (root / "a.txt").write_bytes(A)
    (root / "b.txt").write_bytes(B)
    return root


def swapped_whole(root: Path) -> None:
    """The state one exchange leaves, untouched since: each file's bytes whole, at the other's name."""
    assert (root / "a.txt").read_bytes() == B
    assert (root / "b.txt").read_bytes() == A
    assert sorted(path.name for path in root.iterdir()) == ["a.txt", "b.txt"]


@pytest.mark.parametrize("call", WRITES, ids=list(WRITES))
async def test_a_write_over_a_file_exchanged_with_another_just_before_its_rename_keeps_both_and_refuses(
    connect: ClientFactory, pair: Path, monkeypatch: pytest.MonkeyPatch, call: str
) -> None:
    if beneath._renameat2() is None:
        pytest.skip("this C library has no renameat2")
    real = mutation.Mutation._check_unchanged
    swaps: list[str] = []

    def racing(self: mutation.Mutation, *args: Any) -> None:
        real(self, *args)
        if not swaps:  # passed: the write's last look is done, its rename comes next
            exchange(pair / "a.txt", pair / "b.txt")
            swaps.append(self.path.name)

    monkeypatch.setattr(mutation.Mutation, "_check_unchanged", racing)
    tool, arguments = WRITES[call]
    async with connect() as client:
        result = await client.call_tool(tool, arguments)

    assert swaps == ["a.txt"]
    assert result.is_error, text_of(result)
    assert error_code(result) == "external_change"
    assert "nothing was written" in text_of(result)
    swapped_whole(pair)


async def test_without_renameat2_a_file_exchanged_before_the_writes_last_look_is_still_refused(
    connect: ClientFactory, pair: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(beneath, "_renameat2", lambda: None)
    # Where renameat2 is missing the new file is renamed over the name after the last look (README, Known
    # limitations): an exchange before that look is still seen.
    real = beneath.lstat_at
    swaps: list[str] = []

    def racing(entry: beneath.Pinned) -> Any:
        if entry.name == "a.txt" and not swaps:
            exchange(pair / "a.txt", pair / "b.txt")
            swaps.append(entry.name)
        return real(entry)

    monkeypatch.setattr("fsguard.core.setaside.lstat_at", racing)
    async with connect() as client:
        result = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "alpha", "new_text": "ALPHA"})

    assert swaps == ["a.txt"]
    assert error_code(result) == "external_change", text_of(result)
    swapped_whole(pair)


async def test_an_edit_of_a_file_exchanged_twice_while_it_was_read_never_writes_the_other_files_bytes_over_it(
    connect: ClientFactory, pair: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Stated as a.txt's file, opened as b.txt's (the first exchange), which the second exchange moves back while it is
    # read: the bytes read are b's, the stat taken first is a's, and the edit of b's bytes was written over a's file.
    real_open, real_read = disk.open_pinned, disk.read_all
    swaps: list[str] = []

    def opening(entry: beneath.Pinned) -> int:
        if entry.name == "a.txt" and not swaps:
            exchange(pair / "a.txt", pair / "b.txt")
            swaps.append("open")
        return real_open(entry)

    def reading(fd: int, size_hint: int, limit: int | None = None) -> bytes:
        if swaps == ["open"]:
            exchange(pair / "a.txt", pair / "b.txt")
            swaps.append("read")
        return real_read(fd, size_hint, limit)

    monkeypatch.setattr(disk, "open_pinned", opening)
    monkeypatch.setattr(mutation, "open_pinned", opening, raising=False)
    monkeypatch.setattr(disk, "read_all", reading)
    async with connect() as client:
        result = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "beta", "new_text": "BETA"})

    assert swaps == ["open", "read"]
    assert error_code(result) == "external_change", text_of(result)
    assert (pair / "a.txt").read_bytes() == A
    assert (pair / "b.txt").read_bytes() == B
