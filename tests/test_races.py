"""move_file, copy_file, delete_file and the trash under contention, and soft delete losing nothing.

Two calls race for one new destination, round after round: exactly one wins, the other is refused with
already_exists, and no byte is lost on either side. Each race runs in three topologies: both clients on one
server; two servers sharing the root and the state dir (as two fsguard processes: their cross-process path
locks take part); and two servers with state dirs of their own (no lock is shared, so only the filesystem's
atomic no-replace primitives decide). Every wait is bounded; nothing sleeps.

Each race also runs down both ways ``rename_no_replace`` can put an entry in place: renameat2(RENAME_NOREPLACE),
and the fallback used where the C library or the filesystem lacks it (link + unlink for a file, mkdir + rename
for a directory). The ``rename_path`` fixture forces one and counts the calls, and each test asserts that the
forced way was the one taken, so no test can silently run one path twice.

Then delete_file → list_trash → restore_trash must give back the very tree that was deleted (bytes, modes,
link targets), purge_trash must be a dry run unless told otherwise, and restore_trash must never overwrite.

The last section holds the bugs these tests turned up, kept as regression tests; among them the window
between the file fallback's link() and its unlink(), where another mover or program may take the source name.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
import threading
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

import fsguard.core.beneath
from fsguard.config import Settings
from fsguard.server import build_server
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

ROUNDS = 30
WAIT_S = 60
TOPOLOGIES = ["one_server", "two_servers", "two_state_dirs"]
RENAME_PATHS = ["renameat2", "fallback"]

# A tree entry as seen by lstat: ("file", mode, bytes) | ("dir", mode, None) | ("link", mode, target).
Entry = tuple[str, int, bytes | str | None]
Racer = Callable[[Client], Awaitable[CallToolResult]]
Fallback = Literal["link", "mkdir+rename"]


@pytest.fixture(params=TOPOLOGIES)
def topology(request: pytest.FixtureRequest) -> str:
    """Where the two racing clients are connected.

    one_server: both to one server. two_servers: one each, sharing the state dir (so the cross-process path
    locks). two_state_dirs: one each, sharing nothing but the root.
    """
    return str(request.param)


class CountingOs:
    """What :mod:`fsguard.core.beneath` sees as ``os``: the fallback's link and mkdir-then-rename are counted.

    A rename counts as "mkdir+rename" when the same thread's last mkdir made the very name it renames onto
    (the directory fallback); mkdirs of the pinned walk alone count for nothing.
    """

    def __init__(self, count: Callable[[str], None]) -> None:
        self._count = count
        self._made = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)

    def link(self, *args: Any, **kwargs: Any) -> None:
        os.link(*args, **kwargs)
        self._count("link")

    def mkdir(self, path: str, mode: int = 0o777, *, dir_fd: int | None = None) -> None:
        os.mkdir(path, mode, dir_fd=dir_fd)
        self._made.name = (path, dir_fd)

    def rename(self, source: str, target: str, *, src_dir_fd: int | None = None, dst_dir_fd: int | None = None) -> None:
        os.rename(source, target, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        self._count("mkdir+rename" if getattr(self._made, "name", None) == (target, dst_dir_fd) else "rename")


@dataclass
class RenamePath:
    """The way ``rename_no_replace`` was forced to take, and the calls it made on the way."""

    name: str
    calls: Counter[str] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, call: str) -> None:
        with self._lock:
            self.calls[call] += 1

    def assert_taken(self, *fallbacks: Fallback) -> None:
        """renameat2 alone was called, or (fallback) never, and each of ``fallbacks`` was."""
        if self.name == "renameat2":
            assert self.calls["renameat2"] > 0, self.calls
            assert set(self.calls) == {"renameat2"}, f"the fallback was taken despite renameat2: {self.calls}"
        else:
            assert self.calls["renameat2"] == 0, self.calls
            assert all(self.calls[call] > 0 for call in fallbacks), f"expected {fallbacks}: {self.calls}"


@pytest.fixture(params=RENAME_PATHS)
def rename_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> RenamePath:
    """renameat2: the real glibc call, counted. fallback: ``_renameat2`` returns None, as without it.

    The patch is process-wide, so both servers of a two-server race take the same way.
    """
    forced = RenamePath(str(request.param))
    beneath = fsguard.core.beneath
    if forced.name == "renameat2":
        real = beneath._renameat2()
        if real is None:
            pytest.skip("this C library has no renameat2")

        def counted(*args: Any) -> int:
            forced.count("renameat2")
            return real(*args)  # its errno stays in ctypes' copy for this thread, where rename_no_replace reads it

        monkeypatch.setattr(beneath, "_renameat2", lambda: counted)
    else:
        monkeypatch.setattr(beneath, "_renameat2", lambda: None)
    monkeypatch.setattr(beneath, "os", CountingOs(forced.count))
    return forced


@asynccontextmanager
async def two_clients(settings: Settings, mode: str, topology: str) -> AsyncIterator[tuple[Client, Client]]:
    """Two connections in the current era, to one server or to two servers on the same root."""
    first = build_server(settings)
    if topology == "one_server":
        second = first
    elif topology == "two_servers":
        second = build_server(settings)
    else:
        second = build_server(replace(settings, state_dir=settings.state_dir.with_name("second-state")))
    async with AsyncExitStack() as stack:
        left = await stack.enter_async_context(Client(first, mode=mode))
        right = await stack.enter_async_context(Client(second, mode=mode))
        yield left, right


async def race(left: Client, right: Client, call_left: Racer, call_right: Racer) -> tuple[CallToolResult, ...]:
    """Both calls released at the same instant; returns (left's result, right's result)."""
    start = anyio.Event()
    results: dict[str, CallToolResult] = {}

    async def run(name: str, peer: Client, call: Racer) -> None:
        await start.wait()
        results[name] = await call(peer)

    async with anyio.create_task_group() as group:
        group.start_soon(run, "left", left, call_left)
        group.start_soon(run, "right", right, call_right)
        await anyio.wait_all_tasks_blocked()
        start.set()
    return results["left"], results["right"]


def move(source: str, destination: str) -> Racer:
    async def call(peer: Client) -> CallToolResult:
        return await peer.call_tool("move_file", {"source_path": source, "dest_path": destination})

    return call


def copy(source: str, destination: str) -> Racer:
    async def call(peer: Client) -> CallToolResult:
        return await peer.call_tool("copy_file", {"source_path": source, "dest_path": destination})

    return call


def snapshot(top: Path) -> dict[str, Entry]:
    """Every entry under ``top`` (and ``top`` itself as "."), by lstat: kind, full mode, bytes or link target."""
    tree: dict[str, Entry] = {}
    for path in [top, *sorted(top.rglob("*"))]:
        info = path.lstat()
        name = path.relative_to(top).as_posix()
        if stat.S_ISLNK(info.st_mode):
            tree[name] = ("link", info.st_mode, str(path.readlink()))
        elif stat.S_ISDIR(info.st_mode):
            tree[name] = ("dir", info.st_mode, None)
        else:
            tree[name] = ("file", info.st_mode, path.read_bytes())
    return tree


def one_winner(results: dict[str, CallToolResult]) -> tuple[str, str]:
    """(winner, loser): exactly one success, and the other refused with already_exists."""
    won = [name for name, result in results.items() if not result.is_error]
    assert len(won) == 1, {name: (result.is_error, text_of(result)) for name, result in results.items()}
    [winner] = won
    [loser] = [name for name in results if name != winner]
    assert error_code(results[loser]) == "already_exists", text_of(results[loser])
    return winner, loser


def plant_files(root: Path, round_: int, contents: dict[str, bytes], modes: dict[str, int]) -> None:
    """One source file per racer for this round, ``<name><round>.txt``, with its own bytes and mode."""
    for name, data in contents.items():
        path = root / f"{name}{round_}.txt"
        path.write_bytes(data)
        if name in modes:
            path.chmod(modes[name])


def plant_trees(root: Path, round_: int, names: tuple[str, str], *, links: bool) -> dict[str, dict[str, Entry]]:
    """One source tree per racer for this round, ``<name><round>/``; returns their snapshots.

    Each holds a file of its own, a subdirectory of files and its own top mode; with ``links`` also a link
    (copy_file skips links inside a tree, so a copied tree has none).
    """
    before = {}
    for name, top_mode in zip(names, (0o750, 0o705), strict=True):
        tree = root / f"{name}{round_}"
        (tree / "inner").mkdir(parents=True)
        (tree / f"only-in-{name}.txt").write_bytes(f"{name} {round_}\n".encode())
        (tree / "inner" / "deep.bin").write_bytes(bytes([round_, ord(name[0])]) * 64)
        for index in range(3):
            (tree / "inner" / f"{index}.txt").write_bytes(f"{name} {round_} {index}\n".encode())
        if links:
            (tree / "inner" / "link").symlink_to("deep.bin")
        tree.chmod(top_mode)
        before[name] = snapshot(tree)
    return before


# -- races for one new destination ---------------------------------------------------------------------


async def test_two_moves_to_the_same_new_destination_at_once_exactly_one_succeeds_and_nothing_is_lost(
    base_settings: Settings, root: Path, mode: str, topology: str, rename_path: RenamePath
) -> None:
    modes = {"a": 0o640, "b": 0o604}
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                contents = {"a": f"a{round_}\n".encode() * 3, "b": f"b{round_}\n".encode()}
                plant_files(root, round_, contents, modes)
                destination = f"out/{round_}/dest.txt"
                a, b = await race(left, right, move(f"a{round_}.txt", destination), move(f"b{round_}.txt", destination))
                winner, loser = one_winner({"a": a, "b": b})
                assert structured({"a": a, "b": b}[winner])["destination"] == str(root / destination)
                assert (root / destination).read_bytes() == contents[winner]
                assert stat.S_IMODE((root / destination).stat().st_mode) == modes[winner]
                assert not (root / f"{winner}{round_}.txt").exists()
                assert (root / f"{loser}{round_}.txt").read_bytes() == contents[loser]
                assert sorted(p.name for p in (root / "out" / str(round_)).iterdir()) == ["dest.txt"]
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []
    rename_path.assert_taken("link")


async def test_two_directory_moves_to_the_same_new_destination_at_once_exactly_one_succeeds_and_nothing_is_lost(
    base_settings: Settings, root: Path, mode: str, topology: str, rename_path: RenamePath
) -> None:
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                before = plant_trees(root, round_, ("a", "b"), links=True)
                destination = f"out/{round_}/dest"
                a, b = await race(left, right, move(f"a{round_}", destination), move(f"b{round_}", destination))
                winner, loser = one_winner({"a": a, "b": b})
                assert snapshot(root / destination) == before[winner]
                assert not (root / f"{winner}{round_}").exists()
                assert snapshot(root / f"{loser}{round_}") == before[loser]
                assert sorted(p.name for p in (root / "out" / str(round_)).iterdir()) == ["dest"]
    rename_path.assert_taken("mkdir+rename")


async def test_a_copy_racing_a_move_to_the_same_new_destination_exactly_one_succeeds_and_nothing_is_lost(
    base_settings: Settings, root: Path, mode: str, topology: str, rename_path: RenamePath
) -> None:
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                contents = {"copy": f"copied {round_}\n".encode() * 500, "move": f"moved {round_}\n".encode()}
                plant_files(root, round_, contents, {"copy": 0o751})
                destination = f"out/{round_}.txt"
                copied, moved = await race(
                    left, right, copy(f"copy{round_}.txt", destination), move(f"move{round_}.txt", destination)
                )
                winner, _loser = one_winner({"copy": copied, "move": moved})
                assert (root / destination).read_bytes() == contents[winner]
                # The copy's source always stays; the move's source goes only if the move won.
                assert (root / f"copy{round_}.txt").read_bytes() == contents["copy"]
                assert (root / f"move{round_}.txt").exists() == (winner == "copy")
                if winner == "copy":
                    assert (root / f"move{round_}.txt").read_bytes() == contents["move"]
                    assert structured(copied)["bytes_copied"] == len(contents["copy"])
                    assert stat.S_IMODE((root / destination).stat().st_mode) == 0o751
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []
    rename_path.assert_taken("link")


async def test_a_directory_copy_racing_a_directory_move_to_the_same_new_destination_leaves_one_whole_tree(
    base_settings: Settings, root: Path, mode: str, topology: str, rename_path: RenamePath
) -> None:
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                before = plant_trees(root, round_, ("copy", "move"), links=False)
                destination = f"out/{round_}"
                copied, moved = await race(
                    left, right, copy(f"copy{round_}", destination), move(f"move{round_}", destination)
                )
                winner, _loser = one_winner({"copy": copied, "move": moved})
                assert snapshot(root / destination) == before[winner]
                assert snapshot(root / f"copy{round_}") == before["copy"]
                if winner == "copy":
                    assert snapshot(root / f"move{round_}") == before["move"]
                else:
                    assert not (root / f"move{round_}").exists()
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []
    rename_path.assert_taken("mkdir+rename")


# -- the trash -----------------------------------------------------------------------------------------


def build_odd_tree(top: Path, outside: Path) -> None:
    """Files with unusual modes and bytes, an empty dir, and links: relative, dangling, and leaving the root."""
    (top / "nested" / "deeper").mkdir(parents=True)
    (top / "empty-dir").mkdir()
    (top / "all-bytes.bin").write_bytes(bytes(range(256)) * 4)
    (top / "empty.txt").write_bytes(b"")
    (top / "crlf name with spaces ü.txt").write_bytes(b"one\r\ntwo\r\n")
    (top / "nested" / "script.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (top / "nested" / "deeper" / "read-only.txt").write_bytes(b"read only\n")
    (top / "nested" / "link-to-script").symlink_to("script.sh")
    (top / "nested" / "deeper" / "link-up").symlink_to("../../all-bytes.bin")
    (top / "nested" / "dangling").symlink_to("no-such-file")
    (top / "nested" / "leaves-the-root").symlink_to(outside)
    (top / "all-bytes.bin").chmod(0o600)
    (top / "empty.txt").chmod(0o4644)  # setuid
    (top / "nested" / "script.sh").chmod(0o751)
    (top / "nested" / "deeper" / "read-only.txt").chmod(0o444)
    (top / "nested" / "deeper").chmod(0o2750)  # setgid directory
    (top / "empty-dir").chmod(0o1777)  # sticky
    top.chmod(0o705)


@pytest.fixture(params=["same_filesystem", "other_filesystem"])
def trash_state_dir(request: pytest.FixtureRequest, state_dir: Path, root: Path) -> Iterator[Path]:
    """The state dir (so the trash) on the root's filesystem, or on another one: a rename, or a verified copy."""
    if request.param == "same_filesystem":
        yield state_dir
        return
    shm = Path("/dev/shm")
    if not shm.is_dir() or shm.stat().st_dev == root.stat().st_dev:
        pytest.skip("no second filesystem (/dev/shm) to put the trash on")
    other = Path(tempfile.mkdtemp(prefix="fsguard-trash-", dir=shm))
    try:
        yield other / "state"
    finally:
        shutil.rmtree(other)


async def trash_and_restore(client: Client, root: Path, name: str, **options: bool) -> dict[str, Any]:
    """delete_file ``name``, find its entry with list_trash, restore it; returns the listed entry."""
    deleted = structured(await client.call_tool("delete_file", {"path": name, **options}))
    [result] = deleted["results"]
    assert (result["status"], deleted["succeeded"], deleted["failed"]) == ("trashed", 1, 0)
    assert not (root / name).exists()
    assert not (root / name).is_symlink()
    listed = structured(await client.call_tool("backup", {"action": "list_trash", "filter_path": name}))
    [entry] = listed["trash"]
    assert entry["sd_id"] == result["sd_id"]
    assert entry["original_path"] == str(root / name)
    restored = structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": entry["sd_id"]}))
    assert [e["sd_id"] for e in restored["trash"]] == [entry["sd_id"]]
    return dict(entry)


async def test_delete_then_restore_gives_identical_bytes_for_files_and_directories(
    connect: ClientFactory, root: Path, tmp_path: Path, trash_state_dir: Path, rename_path: RenamePath
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"outside the root\n")
    build_odd_tree(root / "tree", outside)
    (root / "lone.bin").write_bytes(b"\x00\xff lone file\r\n")
    (root / "lone.bin").chmod(0o4711)
    (root / "lone-link").symlink_to(outside)
    before = {name: snapshot(root / name) for name in ("tree", "lone.bin", "lone-link")}

    with anyio.fail_after(WAIT_S):
        async with connect(state_dir=trash_state_dir) as client:
            refused = await client.call_tool("delete_file", {"path": "tree"})
            assert error_code(refused) == "invalid_params"
            assert "recursive=true" in text_of(refused)
            assert snapshot(root / "tree") == before["tree"]

            entry = await trash_and_restore(client, root, "tree", recursive=True)
            assert (entry["kind"], entry["files"], entry["size"]) == ("directory", 5, 1024 + 10 + 18 + 10)
            assert snapshot(root / "tree") == before["tree"]

            for name in ("lone.bin", "lone-link"):
                entry = await trash_and_restore(client, root, name)
                assert (entry["kind"], entry["files"]) == ("file", 1)
                assert snapshot(root / name) == before[name]

            assert structured(await client.call_tool("backup", {"action": "list_trash"}))["total"] == 0
    # A link is trashed as a link: what it points to, outside the root, was never touched.
    assert outside.read_bytes() == b"outside the root\n"
    assert list((trash_state_dir / "trash").iterdir()) == []
    rename_path.assert_taken("link", "mkdir+rename")


async def test_purge_is_a_dry_run_by_default(client: Client, root: Path, state_dir: Path) -> None:
    (root / "doomed").mkdir()
    (root / "doomed" / "f.txt").write_bytes(b"still here\n")
    (root / "other.txt").write_bytes(b"other\n")
    with anyio.fail_after(WAIT_S):
        deleted = structured(
            await client.call_tool("delete_file", {"paths": ["doomed", "other.txt"], "recursive": True})
        )
        ids = [item["sd_id"] for item in deleted["results"]]
        assert deleted["succeeded"] == 2

        for arguments in ({"older_than_days": 0}, {"sd_id": ids[0]}, {"sd_id": ids[1], "dry_run": True}):
            result = await client.call_tool("backup", {"action": "purge_trash", **arguments})
            preview = structured(result)
            assert preview["dry_run"] is True, arguments
            assert preview["removed"] == (2 if "older_than_days" in arguments else 1)
            assert text_of(result).startswith("Would purge"), text_of(result)
        # The default age (7 days) spares what was deleted just now.
        default = structured(await client.call_tool("backup", {"action": "purge_trash"}))
        assert (default["dry_run"], default["removed"], default["freed_bytes"]) == (True, 0, 0)
        listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
        assert sorted(e["sd_id"] for e in listed["trash"]) == sorted(ids)
        assert all((state_dir / "trash" / sd_id / "item").exists() for sd_id in ids)

        purged = structured(
            await client.call_tool("backup", {"action": "purge_trash", "sd_id": ids[1], "dry_run": False})
        )
        assert (purged["dry_run"], purged["removed"], purged["freed_bytes"]) == (False, 1, len(b"other\n"))
        assert not (state_dir / "trash" / ids[1]).exists()
        gone = await client.call_tool("backup", {"action": "restore_trash", "sd_id": ids[1]})
        assert error_code(gone) == "not_found"
        assert not (root / "other.txt").exists()

        # What the dry runs spared restores intact.
        structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": ids[0]}))
    assert (root / "doomed" / "f.txt").read_bytes() == b"still here\n"


async def test_restore_refuses_to_overwrite(
    client: Client, root: Path, state_dir: Path, rename_path: RenamePath
) -> None:
    (root / "f.txt").write_bytes(b"the deleted version\n")
    (root / "d").mkdir()
    (root / "d" / "inside.txt").write_bytes(b"deleted dir content\n")
    with anyio.fail_after(WAIT_S):
        deleted = structured(await client.call_tool("delete_file", {"paths": ["f.txt", "d"], "recursive": True}))
        file_id, dir_id = (item["sd_id"] for item in deleted["results"])

        # Whatever now occupies the original path stays as it is: a new file, an empty dir, a dangling link.
        (root / "f.txt").write_bytes(b"a newer file\n")
        refused = await client.call_tool("backup", {"action": "restore_trash", "sd_id": file_id})
        assert error_code(refused) == "already_exists"
        assert "exists again" in text_of(refused)
        assert (root / "f.txt").read_bytes() == b"a newer file\n"
        (root / "d").mkdir()
        assert error_code(await client.call_tool("backup", {"action": "restore_trash", "sd_id": dir_id})) == (
            "already_exists"
        )
        assert list((root / "d").iterdir()) == []
        (root / "d").rmdir()
        (root / "d").symlink_to("nowhere")
        assert error_code(await client.call_tool("backup", {"action": "restore_trash", "sd_id": dir_id})) == (
            "already_exists"
        )
        assert str((root / "d").readlink()) == "nowhere"

        # The refusals kept both entries, whole.
        listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
        assert sorted(e["sd_id"] for e in listed["trash"]) == sorted([file_id, dir_id])
        assert (state_dir / "trash" / file_id / "item").read_bytes() == b"the deleted version\n"

        (root / "d").unlink()
        (root / "f.txt").rename(root / "newer.txt")
        for sd_id in (file_id, dir_id):
            structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id}))
    assert (root / "f.txt").read_bytes() == b"the deleted version\n"
    assert (root / "newer.txt").read_bytes() == b"a newer file\n"
    assert (root / "d" / "inside.txt").read_bytes() == b"deleted dir content\n"
    rename_path.assert_taken("link", "mkdir+rename")


# -- bugs found, kept as regression tests -------------------------------------------------------------------

FIFO_WAIT_S = 3.0
FIFO_CALLS = {
    "delete_file": ("delete_file", {"path": "pipe"}),
    "copy_file-of-the-pipe": ("copy_file", {"source_path": "pipe", "dest_path": "pipe-copy"}),
    "copy_file-of-a-dir-holding-one": ("copy_file", {"source_path": "dir", "dest_path": "dir-copy"}),
    "analyze_operation-file": ("analyze_operation", {"operation": "file", "path": "pipe"}),
    "analyze_operation-delete": ("analyze_operation", {"operation": "delete", "path": "pipe"}),
}


def release_blocked_readers(*pipes: Path) -> None:
    """Open each pipe for writing and close it at once: a reader blocked in open() wakes up and reads EOF."""
    for pipe in pipes:
        try:
            fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: nobody is reading it right now; ENOENT: it was moved away
            continue
        os.close(fd)


@pytest.mark.parametrize(("tool", "arguments"), FIFO_CALLS.values(), ids=FIFO_CALLS.keys())
async def test_a_named_pipe_never_blocks_a_call(
    base_settings: Settings, root: Path, tool: str, arguments: dict[str, str]
) -> None:
    os.mkfifo(root / "pipe")
    (root / "dir").mkdir()
    os.mkfifo(root / "dir" / "pipe")
    done = anyio.Event()
    outcome: list[CallToolResult] = []

    async def call(peer: Client) -> None:
        outcome.append(await peer.call_tool(tool, arguments))
        done.set()

    with anyio.fail_after(WAIT_S):
        async with Client(build_server(base_settings), mode="auto") as peer, anyio.create_task_group() as group:
            group.start_soon(call, peer)
            with anyio.move_on_after(FIFO_WAIT_S):
                await done.wait()
            blocked = not done.is_set()
            while not done.is_set():  # let every blocked open() return, so the worker thread can end
                release_blocked_readers(root / "pipe", root / "dir" / "pipe")
                with anyio.move_on_after(0.05):
                    await done.wait()
    assert not blocked, f"{tool} was still blocked reading the named pipe after {FIFO_WAIT_S} s"
    [result] = outcome
    assert not result.is_error or error_code(result) != "internal_error", text_of(result)


UNDER_A_FILE = {
    "move_file": ("move_file", {"source_path": "f.txt", "dest_path": "plain/new.txt"}),
    "move_file-deeper": ("move_file", {"source_path": "f.txt", "dest_path": "plain/sub/new.txt"}),
    "copy_file": ("copy_file", {"source_path": "f.txt", "dest_path": "plain/new.txt"}),
    "copy_file-of-a-dir": ("copy_file", {"source_path": "tree", "dest_path": "plain/sub/tree"}),
}


@pytest.mark.parametrize(("tool", "arguments"), UNDER_A_FILE.values(), ids=UNDER_A_FILE.keys())
async def test_a_destination_under_a_file_is_refused_with_not_a_directory(
    client: Client, root: Path, tool: str, arguments: dict[str, str]
) -> None:
    (root / "plain").write_bytes(b"a file, not a directory\n")
    (root / "f.txt").write_bytes(b"source\n")
    (root / "tree").mkdir()
    (root / "tree" / "x.txt").write_bytes(b"x\n")
    with anyio.fail_after(WAIT_S):
        result = await client.call_tool(tool, arguments)
    assert (root / "plain").read_bytes() == b"a file, not a directory\n"
    assert (root / "f.txt").read_bytes() == b"source\n"
    assert error_code(result) == "not_a_directory", text_of(result)


async def test_restoring_into_a_directory_that_became_a_file_is_refused_with_a_coded_error(
    client: Client, root: Path
) -> None:
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_bytes(b"deleted\n")
    with anyio.fail_after(WAIT_S):
        [deleted] = structured(await client.call_tool("delete_file", {"path": "d/f.txt"}))["results"]
        (root / "d").rmdir()
        (root / "d").write_bytes(b"now a file\n")
        result = await client.call_tool("backup", {"action": "restore_trash", "sd_id": deleted["sd_id"]})
        listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
    assert (root / "d").read_bytes() == b"now a file\n"
    assert [e["sd_id"] for e in listed["trash"]] == [deleted["sd_id"]]
    assert error_code(result) == "not_a_directory", text_of(result)  # the walk to d/ meets a file


@dataclass
class RenameWindow:
    """A move held inside its rename: after link() on the fallback, just after renameat2 otherwise."""

    entered: threading.Event = field(default_factory=threading.Event)
    go: threading.Event = field(default_factory=threading.Event)

    def hold(self) -> None:
        self.entered.set()
        self.go.wait(WAIT_S)


def hold_in_rename_window(monkeypatch: pytest.MonkeyPatch, rename_path: RenamePath, target: str) -> RenameWindow:
    """Hold the move that puts an entry at the name ``target`` inside its rename until ``go`` is set."""
    window = RenameWindow()
    if rename_path.name == "fallback":
        real_link = os.link

        def link_then_hold(source: str, name: str, **kwargs: Any) -> None:
            real_link(source, name, **kwargs)
            if name == target:
                window.hold()

        monkeypatch.setattr(os, "link", link_then_hold)
    else:
        renameat2 = fsguard.core.beneath._renameat2()
        assert renameat2 is not None

        def rename_then_hold(*args: Any) -> int:
            result = renameat2(*args)
            if args[3] == os.fsencode(target):
                window.hold()
            return result

        monkeypatch.setattr(fsguard.core.beneath, "_renameat2", lambda: rename_then_hold)
    return window


@pytest.mark.parametrize("state", ["shared_state_dir", "own_state_dirs"])
async def test_two_servers_moving_one_file_to_two_new_places_leave_it_in_exactly_one(
    base_settings: Settings,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    rename_path: RenamePath,
    state: str,
) -> None:
    """The first move is held inside its rename while the second server moves the same file.

    With a shared state dir the second move must wait on the first's cross-process lock, then find the file
    gone; without one, only the filesystem stands between them.
    """
    (root / "one.txt").write_bytes(b"only one of me\n")
    window = hold_in_rename_window(monkeypatch, rename_path, "first.txt")
    second_waits = threading.Event()
    real_flock = fcntl.flock

    def flock_noting_a_wait(fd: int, operation: int) -> None:
        """A lock taken while the first move is held that cannot be had at once: the second move waits (blocked in
        flock, or trying again as a call that may be cancelled does)."""
        if operation & fcntl.LOCK_EX and window.entered.is_set():
            try:
                real_flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                second_waits.set()
                if operation & fcntl.LOCK_NB:
                    raise
        real_flock(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock_noting_a_wait)
    outcome: dict[str, CallToolResult] = {}

    async def move_to(name: str, peer: Client) -> None:
        outcome[name] = await peer.call_tool("move_file", {"source_path": "one.txt", "dest_path": f"{name}.txt"})
        if name == "second":
            second_waits.set()  # it never had to wait: done already

    second_settings = base_settings
    if state == "own_state_dirs":
        second_settings = replace(base_settings, state_dir=base_settings.state_dir.with_name("second-state"))
    with anyio.fail_after(WAIT_S):
        async with AsyncExitStack() as stack:
            first = await stack.enter_async_context(Client(build_server(base_settings), mode="auto"))
            second = await stack.enter_async_context(Client(build_server(second_settings), mode="auto"))
            group = await stack.enter_async_context(anyio.create_task_group())
            group.start_soon(move_to, "first", first)
            try:
                assert await anyio.to_thread.run_sync(window.entered.wait, WAIT_S / 4), "the first move never renamed"
                group.start_soon(move_to, "second", second)
                assert await anyio.to_thread.run_sync(second_waits.wait, WAIT_S / 4), "the second move hung"
            finally:
                window.go.set()
    landed = [name for name in ("first.txt", "second.txt") if (root / name).exists()]
    succeeded = [name for name, result in outcome.items() if not result.is_error]
    assert len(landed) == 1, f"the file is now in {landed}; the moves answered {succeeded} as succeeded"
    assert succeeded == [landed[0].removesuffix(".txt")]
    assert (root / landed[0]).read_bytes() == b"only one of me\n"
    if (state, rename_path.name) != ("own_state_dirs", "fallback"):
        # Only the fallback without a shared lock lets the second move finish inside the first's window: the
        # first then finds its source gone, takes its link back and answers not_found.
        assert landed == ["first.txt"]
    loser = "second" if landed == ["first.txt"] else "first"
    assert error_code(outcome[loser]) == "not_found", text_of(outcome[loser])
    rename_path.assert_taken("link")


async def test_a_file_put_at_the_source_name_while_a_move_is_in_its_rename_is_left_alone(
    base_settings: Settings,
    root: Path,
    monkeypatch: pytest.MonkeyPatch,
    rename_path: RenamePath,
) -> None:
    """Another program (no fsguard lock binds it) puts a new file where the source was, mid-move."""
    (root / "one.txt").write_bytes(b"moved\n")
    window = hold_in_rename_window(monkeypatch, rename_path, "moved.txt")
    outcome: list[CallToolResult] = []

    async def move_it(peer: Client) -> None:
        outcome.append(await peer.call_tool("move_file", {"source_path": "one.txt", "dest_path": "moved.txt"}))

    with anyio.fail_after(WAIT_S):
        async with Client(build_server(base_settings), mode="auto") as peer, anyio.create_task_group() as group:
            group.start_soon(move_it, peer)
            try:
                assert await anyio.to_thread.run_sync(window.entered.wait, WAIT_S / 4), "the move never renamed"
                (root / "newcomer.tmp").write_bytes(b"a newcomer, not fsguard's to delete\n")
                (root / "newcomer.tmp").replace(root / "one.txt")
            finally:
                window.go.set()
    [result] = outcome
    assert (root / "moved.txt").read_bytes() == b"moved\n"
    assert (root / "one.txt").read_bytes() == b"a newcomer, not fsguard's to delete\n"
    assert structured(result)["destination"] == str(root / "moved.txt")
    rename_path.assert_taken("link")
