"""move_file, copy_file, delete_file and the trash under contention, and soft delete losing nothing.

Two calls race for one new destination, round after round: exactly one wins, the other is refused with
already_exists, and no byte is lost on either side. Each race runs with both clients on one server (its path
locks take part) and on two servers sharing the root and state dir (only the filesystem's atomic no-replace
primitives decide, as with two fsguard processes). Every wait is bounded; nothing sleeps.

Then delete_file → list_trash → restore_trash must give back the very tree that was deleted (bytes, modes,
link targets), purge_trash must be a dry run unless told otherwise, and restore_trash must never overwrite.

The last section holds the bugs these tests turned up, each marked xfail(strict=True) with its cause.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.server import build_server
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

ROUNDS = 30
WAIT_S = 60
TOPOLOGIES = ["one_server", "two_servers"]

# A tree entry as seen by lstat: ("file", mode, bytes) | ("dir", mode, None) | ("link", mode, target).
Entry = tuple[str, int, bytes | str | None]
Racer = Callable[[Client], Awaitable[CallToolResult]]


@pytest.fixture(params=TOPOLOGIES)
def topology(request: pytest.FixtureRequest) -> str:
    """one_server: two clients of one server (shared path locks); two_servers: one client each."""
    return str(request.param)


@asynccontextmanager
async def two_clients(settings: Settings, mode: str, topology: str) -> AsyncIterator[tuple[Client, Client]]:
    """Two connections in the current era, to one server or to two servers on the same root and state dir."""
    first = build_server(settings)
    second = first if topology == "one_server" else build_server(settings)
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


# -- races for one new destination ---------------------------------------------------------------------


async def test_two_moves_to_the_same_new_destination_at_once_exactly_one_succeeds_and_nothing_is_lost(
    base_settings: Settings, root: Path, mode: str, topology: str
) -> None:
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                contents = {"a": f"a{round_}\n".encode() * 3, "b": f"b{round_}\n".encode()}
                for name, data in contents.items():
                    (root / f"{name}{round_}.txt").write_bytes(data)
                    (root / f"{name}{round_}.txt").chmod(0o640 if name == "a" else 0o604)
                destination = f"out/{round_}/dest.txt"
                a, b = await race(left, right, move(f"a{round_}.txt", destination), move(f"b{round_}.txt", destination))
                winner, loser = one_winner({"a": a, "b": b})
                assert structured({"a": a, "b": b}[winner])["destination"] == str(root / destination)
                assert (root / destination).read_bytes() == contents[winner]
                assert stat.S_IMODE((root / destination).stat().st_mode) == (0o640 if winner == "a" else 0o604)
                assert not (root / f"{winner}{round_}.txt").exists()
                assert (root / f"{loser}{round_}.txt").read_bytes() == contents[loser]
                assert sorted(p.name for p in (root / "out" / str(round_)).iterdir()) == ["dest.txt"]
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []


async def test_two_directory_moves_to_the_same_new_destination_at_once_exactly_one_succeeds_and_nothing_is_lost(
    base_settings: Settings, root: Path, mode: str, topology: str
) -> None:
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                before = {}
                for name in ("a", "b"):
                    tree = root / f"{name}{round_}"
                    (tree / "inner").mkdir(parents=True)
                    (tree / f"only-in-{name}.txt").write_bytes(f"{name} {round_}\n".encode())
                    (tree / "inner" / "deep.bin").write_bytes(bytes([round_, ord(name)]) * 64)
                    (tree / "inner" / "link").symlink_to("deep.bin")
                    tree.chmod(0o750 if name == "a" else 0o705)
                    before[name] = snapshot(tree)
                destination = f"out/{round_}/dest"
                a, b = await race(left, right, move(f"a{round_}", destination), move(f"b{round_}", destination))
                winner, loser = one_winner({"a": a, "b": b})
                assert snapshot(root / destination) == before[winner]
                assert not (root / f"{winner}{round_}").exists()
                assert snapshot(root / f"{loser}{round_}") == before[loser]
                assert sorted(p.name for p in (root / "out" / str(round_)).iterdir()) == ["dest"]


async def test_a_copy_racing_a_move_to_the_same_new_destination_exactly_one_succeeds_and_nothing_is_lost(
    base_settings: Settings, root: Path, mode: str, topology: str
) -> None:
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                contents = {"copy": f"copied {round_}\n".encode() * 500, "move": f"moved {round_}\n".encode()}
                for name, data in contents.items():
                    (root / f"{name}{round_}.txt").write_bytes(data)
                (root / f"copy{round_}.txt").chmod(0o751)
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


async def test_a_directory_copy_racing_a_directory_move_to_the_same_new_destination_leaves_one_whole_tree(
    base_settings: Settings, root: Path, mode: str, topology: str
) -> None:
    with anyio.fail_after(WAIT_S):
        async with two_clients(base_settings, mode, topology) as (left, right):
            for round_ in range(ROUNDS):
                before = {}
                for name in ("copy", "move"):
                    tree = root / f"{name}{round_}"
                    (tree / "sub").mkdir(parents=True)
                    for index in range(5):
                        (tree / "sub" / f"{index}.txt").write_bytes(f"{name} {round_} {index}\n".encode())
                    before[name] = snapshot(tree)
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
    connect: ClientFactory, root: Path, tmp_path: Path, trash_state_dir: Path
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


async def test_restore_refuses_to_overwrite(client: Client, root: Path, state_dir: Path) -> None:
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


# -- bugs found: each test below fails today and is marked xfail(strict) until src/ is fixed ------------

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
    assert error_code(result) in ("not_a_directory", "already_exists"), text_of(result)


async def test_two_servers_moving_one_file_to_two_new_places_leave_it_in_exactly_one(
    base_settings: Settings, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first move is held between its link() and its unlink() while the second move runs whole."""
    (root / "one.txt").write_bytes(b"only one of me\n")
    linked, go = threading.Event(), threading.Event()
    real_link = os.link

    def link_then_pause(source: str | os.PathLike[str], target: str | os.PathLike[str], **kwargs: Any) -> None:
        real_link(source, target, **kwargs)
        if Path(target).name == "first.txt":
            linked.set()
            go.wait(WAIT_S)

    monkeypatch.setattr(os, "link", link_then_pause)
    outcome: dict[str, CallToolResult] = {}

    async def first_move(peer: Client) -> None:
        outcome["first"] = await peer.call_tool("move_file", {"source_path": "one.txt", "dest_path": "first.txt"})

    with anyio.fail_after(WAIT_S):
        async with AsyncExitStack() as stack:
            first = await stack.enter_async_context(Client(build_server(base_settings), mode="auto"))
            second = await stack.enter_async_context(Client(build_server(base_settings), mode="auto"))
            group = await stack.enter_async_context(anyio.create_task_group())
            group.start_soon(first_move, first)
            try:
                # If the move no longer links (an atomic rename), there is no window to hold open: both run.
                await anyio.to_thread.run_sync(linked.wait, 5)
                arguments = {"source_path": "one.txt", "dest_path": "second.txt"}
                outcome["second"] = await second.call_tool("move_file", arguments)
            finally:
                go.set()
    landed = [name for name in ("first.txt", "second.txt") if (root / name).exists()]
    succeeded = [name for name, result in outcome.items() if not result.is_error]
    assert len(landed) == 1, f"the file is now in {landed}; the moves answered {succeeded} as succeeded"
    assert succeeded == [landed[0].removesuffix(".txt")]
    assert (root / landed[0]).read_bytes() == b"only one of me\n"
