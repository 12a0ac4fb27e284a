"""Durability: a SIGKILL mid-write, readers racing rewrites, and clients racing each other on one file.

The crash test drives a real ``python -m fsguard`` child over raw JSON-RPC (``tests/stdio_peer.py``), so
nothing but the server itself stands between the kill and the bytes on disk. The other tests run
in-process; the reader and two-client tests run in both eras.
"""

from __future__ import annotations

import dataclasses
import os
import string
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.core import beneath
from fsguard.core.backups import BackupStore
from fsguard.core.beneath import Pinned
from fsguard.core.disk import AtomicWriter
from fsguard.core.hashing import content_hash
from fsguard.server import FsguardServer, build_server
from tests.conftest import error_code, structured
from tests.stdio_peer import WAIT_S, RawStdioServer

MIB = 1 << 20
TEMP_GLOB = ".fsguard-tmp-*"


def write_call(request_id: int, path: str, content: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": "write_file", "arguments": {"path": path, "content": content}},
    }


def single_letter(data: bytes, size: int) -> str | None:
    """The letter ``data`` consists of, if it is exactly ``size`` bytes of one repeated letter."""
    if len(data) != size or not data:
        return None
    letter = data[:1]
    return letter.decode() if data.count(letter) == size else None


# -- 1. SIGKILL during a stream of large writes ------------------------------------------------------

FILES = 4
WRITES = 40  # 10 rewrites per file, each a 2 MiB frame


@pytest.mark.parametrize("answers_before_kill", [1, 5, 15])
def test_sigkill_during_a_stream_of_large_writes_leaves_every_file_whole_and_the_backup_store_readable(
    tmp_path: Path, root: Path, state_dir: Path, answers_before_kill: int
) -> None:
    size = 2 * MIB
    names = [f"big{index}.txt" for index in range(FILES)]
    for name in names:
        (root / name).write_bytes(b"a" * size)
    # Request k rewrites file k % FILES with a letter no earlier request gave that file, so every
    # letter found on disk or in a backup names the one write it came from.
    plan = {100 + k: (names[k % FILES], string.ascii_lowercase[1 + k // FILES % 25]) for k in range(WRITES)}
    allowed = {name: {"a"} | {letter for target, letter in plan.values() if target == name} for name in names}
    stderr_path = tmp_path / "server-stderr.log"

    server = RawStdioServer(root, state_dir, stderr_path)
    send_errors: list[BaseException] = []

    def stream() -> None:
        try:
            for request_id, (name, letter) in plan.items():
                server.send(write_call(request_id, name, letter * size))
        except OSError:
            pass  # the kill landed while a frame was still going down the pipe: expected
        except BaseException as exc:  # surfaced in the main thread
            send_errors.append(exc)

    streamer = threading.Thread(target=stream, name="write-stream", daemon=True)
    try:
        server.initialize()
        streamer.start()
        reached = server.wait_until(lambda answers: sum(1 for i in answers if i in plan) >= answers_before_kill)
        acknowledged = server.answers_to(plan)
        assert reached, f"only {len(acknowledged)} writes answered; server stderr:\n{server.stderr_tail()}"
        server.kill()
        assert len(acknowledged) < WRITES, "every write finished before the kill: the crash hit nothing"
    finally:
        server.close(graceful=False)  # killed already, unless something above failed first
        streamer.join(timeout=WAIT_S)
    assert not streamer.is_alive()
    assert not send_errors, send_errors
    assert not server.garbage, server.garbage

    # Every answer that did arrive was a verified, whole write.
    for request_id, answer in acknowledged.items():
        result = answer["result"]
        assert not result.get("isError"), result
        assert result["structuredContent"]["verified"] is True
        assert result["structuredContent"]["bytes_written"] == size
        assert result["structuredContent"]["backup_id"], (request_id, result)

    # Every file is whole: 2 MiB of one letter, one that was really written to it; an acknowledged
    # rewrite is never undone (no request ever writes "a" back).
    on_disk = {name: single_letter((root / name).read_bytes(), size) for name in names}
    for name, letter in on_disk.items():
        assert letter is not None, f"{name} is torn or truncated"
        assert letter in allowed[name], (name, letter)
    for request_id in acknowledged:
        name = plan[request_id][0]
        assert on_disk[name] != "a", f"{name} lost its acknowledged rewrite {request_id}"

    # The real server starts cleanly on what the crash left, and its start-up removes the strays.
    restarted = RawStdioServer(root, state_dir, stderr_path)
    try:
        restarted.initialize()
        answer = restarted.request(1, "tools/call", {"name": "read_file", "arguments": {"path": names[0]}})
    finally:
        restarted.close()
    assert restarted.process.returncode == 0, restarted.stderr_tail()
    assert not restarted.garbage, restarted.garbage
    read = answer["result"]
    assert not read.get("isError"), read
    assert read["structuredContent"]["content_hash"] == content_hash((root / names[0]).read_bytes())
    assert not list(root.rglob(TEMP_GLOB))
    assert not list(state_dir.rglob(TEMP_GLOB))

    # What that start-up did, done again by hand, finds nothing left to clean; the store reads back whole.
    store = BackupStore(state_dir / "backups", max_age_days=7, max_count=100)
    assert AtomicWriter(state_dir).clean_strays() == []
    assert not list((state_dir / "inflight").iterdir())
    assert not list((state_dir / "backups" / "inflight").iterdir())
    records = store.records()
    by_id = {record.backup_id: record for record in records}
    for answer in acknowledged.values():
        assert answer["result"]["structuredContent"]["backup_id"] in by_id, "an acknowledged backup is gone"
    for record in records:
        blob = store.read_blob(record)
        letter = single_letter(blob, size)
        assert letter is not None, f"backup {record.backup_id} holds torn bytes"
        assert record.size == size
        assert record.content_hash == content_hash(blob)
        assert letter in allowed[Path(record.path).name]


# -- 2. a reader polling during rewrites -------------------------------------------------------------

REWRITES = 100


@pytest.mark.anyio
async def test_a_reader_polling_a_file_during_rewrites_never_sees_a_partial_or_missing_file(
    client: Client, root: Path
) -> None:
    size = 512 * 1024
    first, second = "x" * size, ("0123456789abcdef" * (size // 16))
    assert len(second) == size
    contents = {first.encode(), second.encode()}
    target = root / "polled.txt"
    target.write_text(first, encoding="utf-8")
    stop = threading.Event()
    bad: list[str] = []
    reads = [0]
    seen: set[bytes] = set()

    def poll() -> None:
        while not stop.is_set():
            try:
                data = target.read_bytes()
            except FileNotFoundError:
                bad.append("missing")
                continue
            reads[0] += 1
            if data in contents:
                seen.add(data)
            else:
                bad.append(f"{len(data)} bytes, starting {data[:16]!r}")

    reader = threading.Thread(target=poll, name="poller", daemon=True)
    reader.start()
    try:
        with anyio.fail_after(45):
            for index in range(REWRITES):
                text = second if index % 2 == 0 else first
                result = structured(await client.call_tool("write_file", {"path": "polled.txt", "content": text}))
                assert result["verified"] is True
                assert result["unchanged"] is False
    finally:
        stop.set()
        reader.join(timeout=WAIT_S)
    assert not reader.is_alive()
    assert not bad, bad[:5]
    assert reads[0] >= REWRITES // 10, f"the reader only got {reads[0]} reads in"
    assert seen == contents, "the reader never overlapped the rewrites"
    assert target.read_bytes() == first.encode()


# -- 3. two clients, one file, expected_hash ----------------------------------------------------------

ROUNDS = 25


async def append_line(peer: Client, name: str, round_: int, expected: str, into: dict[str, CallToolResult]) -> None:
    """edit_file: put ``<name> <round>`` before the TAIL marker, checked against ``expected``."""
    arguments = {
        "path": "shared.txt",
        "old_text": "TAIL\n",
        "new_text": f"{name} {round_}\nTAIL\n",
        "expected_hash": expected,
    }
    into[name] = await peer.call_tool("edit_file", arguments)


def stale_current_hash(result: CallToolResult) -> str:
    assert error_code(result) == "stale_edit", result
    meta = result.meta or {}
    current = meta["fsguard/error"]["current_hash"]
    assert isinstance(current, str)
    return current


@pytest.mark.anyio
async def test_two_clients_editing_one_file_with_expected_hash_exactly_one_wins_each_round(
    base_settings: Settings, root: Path, mode: str
) -> None:
    header = "HEAD\nbody stays put\n"
    (root / "shared.txt").write_text(header + "TAIL\n", encoding="utf-8")
    server = build_server(base_settings)
    applied: list[str] = []
    with anyio.fail_after(60):
        async with Client(server, mode=mode) as alice, Client(server, mode=mode) as bob:
            clients = {"alice": alice, "bob": bob}
            for round_ in range(ROUNDS):
                hashes = {
                    name: structured(await peer.call_tool("read_file", {"path": "shared.txt"}))["content_hash"]
                    for name, peer in clients.items()
                }
                assert hashes["alice"] == hashes["bob"]
                seen = hashes["alice"]
                results: dict[str, CallToolResult] = {}
                async with anyio.create_task_group() as group:
                    for name, peer in clients.items():
                        group.start_soon(append_line, peer, name, round_, seen, results)

                succeeded = [name for name, result in results.items() if not result.is_error]
                assert len(succeeded) == 1, {name: result.meta for name, result in results.items()}
                winner = succeeded[0]
                loser = "bob" if winner == "alice" else "alice"
                won = structured(results[winner])
                assert won["previous_hash"] == seen
                current = stale_current_hash(results[loser])
                assert current == won["content_hash"], "the refusal must name the hash the winner left"

                retry_results: dict[str, CallToolResult] = {}
                await append_line(clients[loser], loser, round_, current, retry_results)
                retried = structured(retry_results[loser])
                assert retried["previous_hash"] == current
                applied += [f"{winner} {round_}\n", f"{loser} {round_}\n"]
            final_hash = structured(await alice.call_tool("read_file", {"path": "shared.txt"}))["content_hash"]
    expected = header + "".join(applied) + "TAIL\n"
    on_disk = (root / "shared.txt").read_text(encoding="utf-8")
    assert on_disk == expected
    assert final_hash == content_hash(expected.encode())
    assert len(applied) == 2 * ROUNDS == len(set(applied))


# -- 4. edits of different files in parallel -----------------------------------------------------------

PARALLEL = 8


@pytest.mark.anyio
async def test_parallel_edits_of_different_files_do_not_wait_for_each_other_and_all_land(
    base_settings: Settings, root: Path, mode: str
) -> None:
    """File 0's lock is held from outside: the seven other edits must land while its edit waits."""
    for index in range(PARALLEL):
        (root / f"f{index}.txt").write_text(f"file {index}\nvalue = old\n", encoding="utf-8")
    server: FsguardServer = build_server(base_settings)
    held, release = threading.Event(), threading.Event()

    def hold_file_zero() -> None:
        with server.services.locks.hold(root / "f0.txt"):
            held.set()
            release.wait(timeout=WAIT_S)

    holder = threading.Thread(target=hold_file_zero, name="lock-holder", daemon=True)
    results: dict[int, CallToolResult] = {}
    others_done = anyio.Event()

    async def edit(peer: Client, index: int) -> None:
        arguments = {"path": f"f{index}.txt", "old_text": "value = old\n", "new_text": f"value = new {index}\n"}
        results[index] = await peer.call_tool("edit_file", arguments)
        if all(i in results for i in range(1, PARALLEL)):
            others_done.set()

    holder.start()
    try:
        assert held.wait(timeout=WAIT_S)
        with anyio.fail_after(WAIT_S):
            async with Client(server, mode=mode) as peer, anyio.create_task_group() as group:
                for index in range(PARALLEL):
                    group.start_soon(edit, peer, index)
                await others_done.wait()
                finished_early = 0 in results
                release.set()  # before asserting: the waiting edit must not keep the task group open
                assert not finished_early, "the edit of the locked file finished while its lock was held"
    finally:
        release.set()
        holder.join(timeout=WAIT_S)
    assert not holder.is_alive()
    for index in range(PARALLEL):
        assert structured(results[index])["replacements"] == 1
        assert (root / f"f{index}.txt").read_text(encoding="utf-8") == f"file {index}\nvalue = new {index}\n"


# -- 5. a second server on the same state dir ----------------------------------------------------------


@pytest.mark.anyio
async def test_a_second_server_starting_on_the_same_state_dir_does_not_break_a_write_in_flight(
    base_settings: Settings, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first server's write is held between its temp file and the rename while a second server starts."""
    (root / "busy.txt").write_text("old\n", encoding="utf-8")
    paused, go = threading.Event(), threading.Event()
    rename = os.rename

    def pause_at(source: str) -> None:
        if source.startswith(".fsguard-tmp-") and not paused.is_set():
            paused.set()
            go.wait(timeout=WAIT_S)

    def rename_after_a_pause(source: Any, target: Any, **dir_fds: Any) -> None:
        pause_at(str(source))
        rename(source, target, **dir_fds)

    monkeypatch.setattr(os, "rename", rename_after_a_pause)
    exchange = beneath.exchange  # how the temp replaces an existing file

    def exchange_after_a_pause(first: Pinned, second: Pinned) -> bool:
        pause_at(first.name)
        return exchange(first, second)

    monkeypatch.setattr("fsguard.core.setaside.exchange", exchange_after_a_pause)
    # An HTTP server writes on a worker thread (a stdio one on its event loop, which the pause would block):
    # the paused write then leaves this test free to start the second server meanwhile.
    first = build_server(dataclasses.replace(base_settings, transport="http"))
    outcome: list[CallToolResult] = []

    async def write(peer: Client) -> None:
        outcome.append(await peer.call_tool("write_file", {"path": "busy.txt", "content": "new\n"}))

    with anyio.fail_after(WAIT_S):
        async with Client(first, mode="legacy") as peer, anyio.create_task_group() as group:
            group.start_soon(write, peer)
            try:
                if not await anyio.to_thread.run_sync(paused.wait, WAIT_S):
                    raise RuntimeError("the write never reached its rename; the test's hook is out of date")
                build_server(base_settings)  # what `python -m fsguard` does at start-up, minus serving
            finally:
                go.set()
    [result] = outcome
    assert not result.is_error, f"{error_code(result)}: the first server's write failed"
    assert (root / "busy.txt").read_text(encoding="utf-8") == "new\n"
