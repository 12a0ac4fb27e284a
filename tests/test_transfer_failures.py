"""copy_file and move_file across filesystems under a full disk and a kill -9: never a partial destination.

A copy (and a move to another filesystem) is built under a journaled ``.fsguard-tmp-*`` name beside its
destination and renamed into place only when whole. So:

* into a tiny tmpfs that fills up mid-copy, the call is ``disk_full``, the source is untouched, neither a
  destination nor a temp is left, and the same call succeeds once space is freed. These run in-process in
  both protocol eras, with the tmpfs mounted inside the root and as a second root; they need root to mount
  and skip otherwise.
* a SIGKILL in the middle of a tree copy, or of a tree move from the disk to /dev/shm, leaves at most the
  temp (never the destination), the next start-up on the same state directory sweeps it, and a retry
  succeeds byte for byte. These drive a real ``python -m fsguard`` child over raw newline-delimited
  JSON-RPC with the 2025-11-25 handshake only: a crash test needs the bare server process to kill, and the
  protocol era has no bearing on what the kill leaves on disk.
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import stat
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, Mount, error_code, structured, text_of
from tests.stdio_peer import WAIT_S, RawStdioServer

TEMP_MARK = ".fsguard-tmp-"
KIB = 1024

# The tiny filesystem: 512 KiB, of which a filler takes 320 KiB, so 192 KiB are free. Each source below
# (one 300 KB file, or three 100 KB files) is too big for that, and fits once the filler is deleted.
SMALL_SIZE = "512k"
FILLER_BYTES = 320 * KIB

Snapshot = dict[str, tuple[int, bytes | None]]


def snapshot(top: Path) -> Snapshot:
    """``top`` and everything under it: relative path → (permission bits, bytes; None for a directory)."""
    entries = [top, *sorted(top.rglob("*"))] if top.is_dir() else [top]
    return {
        str(path.relative_to(top)): (stat.S_IMODE(path.lstat().st_mode), None if path.is_dir() else path.read_bytes())
        for path in entries
    }


def temps(directory: Path) -> list[Path]:
    return sorted(directory.rglob(f"{TEMP_MARK}*"))


def noise(seed: str, size: int) -> bytes:
    """``size`` reproducible bytes, different for every seed (so files cannot be swapped unseen)."""
    return random.Random(seed).randbytes(size)


def write(path: Path, data: bytes, mode: int) -> None:
    path.write_bytes(data)
    path.chmod(mode)


def make_file(source: Path) -> None:
    write(source, noise("file", 300_000), 0o640)


def make_tree(source: Path) -> None:
    """Three 100 KB files, one level nested, with modes that are not the defaults."""
    (source / "sub").mkdir(parents=True)
    write(source / "a.bin", noise("a", 100_000), 0o640)
    write(source / "sub" / "b.bin", noise("b", 100_000), 0o600)
    write(source / "sub" / "c.bin", noise("c", 100_000), 0o755)
    (source / "sub").chmod(0o750)
    source.chmod(0o751)


SOURCES: dict[str, Callable[[Path], None]] = {"file": make_file, "tree": make_tree}


# --- 1. a full destination filesystem (root only) --------------------------------------------------------------


@dataclass
class SmallDisk:
    """A tiny tmpfs the server can write to, holding one filler file."""

    path: Path
    overrides: dict[str, Any]  # Settings fields that make the server serve it

    def free_space(self) -> None:
        (self.path / "filler").unlink()


@pytest.fixture(params=["inside the root", "a second root"])
def small_disk(request: pytest.FixtureRequest, root: Path, tmp_path: Path, mount_tmpfs: Mount) -> SmallDisk:
    """A 512 KiB tmpfs with 192 KiB free, mounted at root/small or as a second root beside the first."""
    if request.param == "inside the root":
        disk = SmallDisk(mount_tmpfs(root / "small", SMALL_SIZE), {})
    else:
        path = mount_tmpfs(tmp_path / "small", SMALL_SIZE)
        disk = SmallDisk(path, {"roots": (root, path)})
    assert disk.path.stat().st_dev != root.stat().st_dev
    (disk.path / "filler").write_bytes(b"\0" * FILLER_BYTES)
    usage = os.statvfs(disk.path)
    free = usage.f_bavail * usage.f_frsize
    assert 100 * KIB < free < 300_000, f"{free} bytes free: the sources below would not fill it as planned"
    return disk


def assert_space_reported_after_cleanup(result: CallToolResult, disk: Path, *, needed: int) -> None:
    """The error names the bytes the entry needs and the space free once the partial copy was removed."""
    fields = (result.meta or {})["fsguard/error"]
    usage = os.statvfs(disk)
    assert fields["needed_bytes"] == needed
    assert fields["free_bytes"] == usage.f_bavail * usage.f_frsize


@pytest.mark.anyio
@pytest.mark.parametrize("kind", SOURCES)
async def test_copy_file_into_a_full_filesystem_is_disk_full_leaves_no_destination_and_a_retry_succeeds(
    connect: ClientFactory, root: Path, state_dir: Path, small_disk: SmallDisk, kind: str
) -> None:
    source, destination = root / "source", small_disk.path / "copy"
    SOURCES[kind](source)
    before, disk_before = snapshot(source), snapshot(small_disk.path)
    arguments = {"source_path": str(source), "dest_path": str(destination)}
    async with connect(**small_disk.overrides) as client:
        result = await client.call_tool("copy_file", arguments)
        assert error_code(result) == "disk_full", text_of(result)
        assert "then retry" in text_of(result)
        assert_space_reported_after_cleanup(result, small_disk.path, needed=300_000)
        assert snapshot(source) == before
        assert not destination.exists()
        assert temps(small_disk.path) == []
        assert snapshot(small_disk.path) == disk_before  # nothing at all was left on the full disk
        assert list((state_dir / "inflight").iterdir()) == []

        small_disk.free_space()
        copied = structured(await client.call_tool("copy_file", arguments))
    assert copied["files_copied"] == len([entry for entry in before.values() if entry[1] is not None])
    assert copied["bytes_copied"] == 300_000
    assert snapshot(destination) == before
    assert snapshot(source) == before
    assert temps(small_disk.path) == []


@pytest.mark.anyio
@pytest.mark.parametrize("kind", SOURCES)
async def test_move_file_into_a_full_filesystem_is_disk_full_keeps_the_source_whole_and_a_retry_succeeds(
    connect: ClientFactory, root: Path, state_dir: Path, small_disk: SmallDisk, kind: str
) -> None:
    source, destination = root / "source", small_disk.path / "moved"
    SOURCES[kind](source)
    before, disk_before = snapshot(source), snapshot(small_disk.path)
    arguments = {"source_path": str(source), "dest_path": str(destination)}
    async with connect(**small_disk.overrides) as client:
        result = await client.call_tool("move_file", arguments)
        assert error_code(result) == "disk_full", text_of(result)
        assert "then retry" in text_of(result)
        assert_space_reported_after_cleanup(result, small_disk.path, needed=300_000)
        assert snapshot(source) == before  # every byte and mode of the original is still there
        assert not destination.exists()
        assert temps(small_disk.path) == []
        assert temps(root) == []
        assert snapshot(small_disk.path) == disk_before
        assert list((state_dir / "inflight").iterdir()) == []

        small_disk.free_space()
        moved = structured(await client.call_tool("move_file", arguments))
    assert moved["destination"] == str(destination)
    assert not source.exists()
    assert snapshot(destination) == before
    assert temps(small_disk.path) == []


# --- 2. kill -9 mid-transfer, then restart ------------------------------------------------------------------------

CRASH_FILES = 300
CRASH_FILE_BYTES = 256 * KIB  # 75 MiB in all: every file is fsynced, so a copy lasts far longer than the kill


def call_frame(request_id: int, tool: str, arguments: dict[str, Any], *, progress_token: int | None = None) -> Any:
    params: dict[str, Any] = {"name": tool, "arguments": arguments}
    if progress_token is not None:
        params["_meta"] = {"progressToken": progress_token}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def make_big_tree(source: Path) -> Snapshot:
    """CRASH_FILES files of distinct bytes in two levels of directories; returns its snapshot."""
    for index in range(CRASH_FILES):
        folder = source / f"d{index % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        write(folder / f"f{index:04d}.bin", noise(f"big {index}", CRASH_FILE_BYTES), 0o640 if index % 2 else 0o600)
    return snapshot(source)


@contextlib.contextmanager
def serving(roots: Sequence[Path], state_dir: Path, stderr_path: Path) -> Iterator[RawStdioServer]:
    """A started, initialized server (its start-up has swept the strays); stopped cleanly on exit."""
    server = RawStdioServer(roots, state_dir, stderr_path)
    try:
        server.initialize()
        yield server
    finally:
        server.close()
    assert server.process.returncode == 0, server.stderr_tail()
    assert not server.garbage, server.garbage


def assert_swept(directory: Path, state_dir: Path) -> None:
    assert temps(directory) == [], "the start-up left the crashed transfer's temp in place"
    assert list((state_dir / "inflight").iterdir()) == []


def test_sigkill_during_a_tree_copy_leaves_no_destination_and_the_next_start_sweeps_the_temp(
    tmp_path: Path, root: Path, state_dir: Path
) -> None:
    source, destination = root / "tree", root / "copy"
    before = make_big_tree(source)
    total = CRASH_FILES * CRASH_FILE_BYTES
    stderr_path = tmp_path / "server-stderr.log"
    arguments = {"source_path": "tree", "dest_path": "copy"}

    server = RawStdioServer([root], state_dir, stderr_path)
    try:
        server.initialize()
        server.send(call_frame(1, "copy_file", arguments, progress_token=7))
        progress = server.first_notification("notifications/progress")
        assert progress is not None, f"no progress from the copy; server stderr:\n{server.stderr_tail()}"
        server.kill()
    finally:
        server.close(graceful=False)
    assert not server.garbage, server.garbage
    assert server.answers_to({1}) == {}, "the copy was answered before the kill: the crash hit nothing"
    assert progress["params"]["progressToken"] == 7
    assert 0 < progress["params"]["progress"] < progress["params"]["total"] == total

    # What the kill left: the temp, partly filled, and no destination; the source as it was.
    [temp] = temps(root)
    assert temp.parent == root
    assert temp.is_dir()
    assert 0 < sum(1 for path in temp.rglob("*") if path.is_file()) < CRASH_FILES
    assert not destination.exists()
    assert snapshot(source) == before

    with serving([root], state_dir, stderr_path) as restarted:
        assert_swept(root, state_dir)
        assert not destination.exists()
        result = restarted.call(2, "copy_file", arguments)
    assert not result.get("isError"), result
    assert result["structuredContent"]["files_copied"] == CRASH_FILES
    assert result["structuredContent"]["bytes_copied"] == total
    assert snapshot(destination) == before
    assert snapshot(source) == before
    assert temps(root) == []


@pytest.fixture
def shm_root(root: Path) -> Iterator[Path]:
    """A fresh directory on /dev/shm, another filesystem than the root's; removed at teardown."""
    if not Path("/dev/shm").is_dir():
        pytest.skip("no /dev/shm on this system")
    path = Path(tempfile.mkdtemp(dir="/dev/shm", prefix="fsguard-transfer-")).resolve()
    try:
        if path.stat().st_dev == root.stat().st_dev:
            pytest.skip("/dev/shm is on the same filesystem as the temp dir: a move would be a plain rename")
        usage = os.statvfs(path)
        if usage.f_bavail * usage.f_frsize < 4 * CRASH_FILES * CRASH_FILE_BYTES:
            pytest.skip("not enough room on /dev/shm for the moved tree")
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def wait_for_a_filling_temp(directory: Path, server: RawStdioServer, request_id: int) -> Path | None:
    """Poll ``directory`` until a temp there holds at least one entry; None if the call ended or time ran out."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for entry in directory.iterdir():
            if entry.name.startswith(TEMP_MARK):
                with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                    if any(entry.iterdir()):
                        return entry
        if server.answers_to({request_id}) or server.process.poll() is not None:
            return None
    return None


def test_sigkill_during_a_move_across_filesystems_keeps_the_source_whole_and_the_next_start_sweeps_the_temp(
    tmp_path: Path, root: Path, state_dir: Path, shm_root: Path
) -> None:
    source, destination = root / "tree", shm_root / "moved"
    before = make_big_tree(source)
    stderr_path = tmp_path / "server-stderr.log"
    arguments = {"source_path": str(source), "dest_path": str(destination)}

    server = RawStdioServer([root, shm_root], state_dir, stderr_path)
    try:
        server.initialize()
        server.send(call_frame(1, "move_file", arguments))
        filling = wait_for_a_filling_temp(shm_root, server, 1)
        server.kill()
    finally:
        server.close(graceful=False)
    assert filling is not None, f"never saw the move's temp fill; server stderr:\n{server.stderr_tail()}"
    assert not server.garbage, server.garbage
    assert server.answers_to({1}) == {}, "the move was answered before the kill: the crash hit nothing"

    # What the kill left: the temp on /dev/shm and no destination; the source whole, every byte and mode.
    assert temps(shm_root) == [filling]
    assert not destination.exists()
    assert snapshot(source) == before

    with serving([root, shm_root], state_dir, stderr_path) as restarted:
        assert_swept(shm_root, state_dir)
        assert not destination.exists()
        assert snapshot(source) == before
        result = restarted.call(2, "move_file", arguments)
    assert not result.get("isError"), result
    assert not source.exists()
    assert snapshot(destination) == before
    assert temps(shm_root) == []
    assert temps(root) == []
