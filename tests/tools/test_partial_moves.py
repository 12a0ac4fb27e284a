"""A move to another filesystem whose original cannot be removed whole (an immutable file in it): the copy is whole
and stays, and the answer says so. It said only "the operating system refused access", a retry met
already_exists, and an atomic batch so failed claimed every byte was as before while the source was half gone."""

from __future__ import annotations

import array
import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import ClientFactory, Mount, error_code, text_of

pytestmark = pytest.mark.anyio

_GET_FLAGS, _SET_FLAGS, _IMMUTABLE = 0x80086601, 0x40086602, 0x10


def _flag(path: Path, on: bool) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        flags = array.array("l", [0])
        fcntl.ioctl(fd, _GET_FLAGS, flags, True)
        flags[0] = flags[0] | _IMMUTABLE if on else flags[0] & ~_IMMUTABLE
        fcntl.ioctl(fd, _SET_FLAGS, flags, True)
    finally:
        os.close(fd)


@contextlib.contextmanager
def immutable(path: Path) -> Iterator[None]:
    """``path`` immutable for the block (skips where the filesystem or the user cannot make it so)."""
    try:
        _flag(path, True)
    except OSError as exc:
        pytest.skip(f"cannot make a file immutable here: {exc}")
    try:
        yield
    finally:
        _flag(path, False)


def a_box(root: Path, mount_tmpfs: Mount) -> Path:
    """A directory of a.txt, b.txt and c.txt on a tmpfs of its own, which lists the newest first: a removal of it
    removes c.txt and b.txt before it meets a.txt."""
    box = mount_tmpfs(root / "here", "1m") / "box"
    box.mkdir()
    for letter in "abc":
        (box / f"{letter}.txt").write_bytes(letter.encode() + b"\n")
    return box


async def test_a_move_whose_original_is_removed_only_partway_says_the_copy_is_whole(
    connect: ClientFactory, root: Path, mount_tmpfs: Mount
) -> None:
    other = mount_tmpfs(root / "other", "1m")
    box = a_box(root, mount_tmpfs)
    with immutable(box / "a.txt"):
        async with connect() as client:
            result = await client.call_tool("move_file", {"source_path": "here/box", "dest_path": "other/box"})
        left = sorted(path.name for path in box.iterdir())
    assert result.is_error
    assert "here/box was copied whole to other/box (verified), but removing the original failed partway" in (
        text_of(result)
    )
    assert "a.txt is still at here/box. Nothing is lost" in text_of(result)
    assert "an immutable flag" in text_of(result)
    assert {path.name: path.read_bytes() for path in (other / "box").iterdir()} == {
        "a.txt": b"a\n",
        "b.txt": b"b\n",
        "c.txt": b"c\n",
    }
    assert left == ["a.txt"]


async def test_an_atomic_batch_failing_on_such_a_move_does_not_claim_everything_is_as_before(
    connect: ClientFactory, root: Path, mount_tmpfs: Mount
) -> None:
    mount_tmpfs(root / "other", "1m")
    box = a_box(root, mount_tmpfs)
    operations = [
        {"type": "write", "path": "w.txt", "content": "w\n"},
        {"type": "move", "source": "here/box", "destination": "other/box"},
    ]
    with immutable(box / "a.txt"):
        async with connect() as client:
            result = await client.call_tool(
                "batch_operations", {"request_json": {"atomic": True, "operations": operations}}
            )
    assert error_code(result) == "batch_failed", text_of(result)
    assert "Every byte on disk is as it was" not in text_of(result)
    assert "except operation 1's own source" in text_of(result)
    assert not (root / "w.txt").exists()  # the batch's own earlier change is rolled back
    assert [path.name for path in box.iterdir()] == ["a.txt"]
    assert sorted(path.name for path in (root / "other" / "box").iterdir()) == ["a.txt", "b.txt", "c.txt"]
