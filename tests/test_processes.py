"""Three fsguard processes, one file, one state dir: no acknowledged edit is lost and undo walks back one by one.

Set-up (issue 9): three real ``python -m fsguard ROOT --state-dir STATE --backup-max-count 1000`` children
share a root and a state dir (so a backup journal per file), each spoken to over stdio by the SDK's client in
the current era (``mode`` from conftest: the 2026-07-28 era and the 2025-11-25 handshake). All three connect,
then are released together; each runs its 30 edits of one file in sequence while the other two do the same,
so nothing but the servers themselves orders the 90 edits. Retention is raised so no record is dropped.

Two layouts of the edits:

* slots: the file is 90 lines ``slot-P-I: free``; process P changes only its own lines, to
  ``slot-P-I: done-by-P``. No two edits touch the same bytes, so every edit must land, with or without
  ``expected_hash``; a lost one is a read-modify-write of one process overwriting another's.
* one spot: every edit replaces the same ``TAIL`` line with ``line-P-I`` + ``TAIL``, each checked with the
  ``expected_hash`` just read, so racing edits conflict on every round.

With ``expected_hash`` each attempt is read_file (its ``content_hash``) then edit_file; a refusal must be
``stale_edit`` and is retried, a bounded number of times. Then, read from disk by Python (never through a
server): every acknowledged edit is in the final file. The file's undo chain (``backup(action="undo_chain")``)
must be linear, one record per acknowledged edit, each record's before-hash the previous record's after-hash,
starting at the original file, and all three processes must read the same chain; replaying the edits in chain
order must rebuild the final bytes exactly, and in that order the processes must have taken turns (they raced).
Finally ``undo_last``, asked of each process in turn, steps back one edit at a time: after each, the bytes on
disk are exactly those before the edit undone, and after the last one the file is the original again and a
further undo_last answers ``nothing_to_undo``.

Every wait is bounded (``fail_after`` and the client's read timeout); the SDK's stdio client ends each child
(stdin closed, then terminate, then kill) however the test exits. Each child's stderr goes to a file, quoted
when something fails.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import CallToolResult

from fsguard.core.hashing import content_hash
from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio

PROCESSES = 3
EDITS = 30  # per process
TOTAL = PROCESSES * EDITS
NAME = "shared.txt"
ERA = {"auto": "2026-07-28", "legacy": "2025-11-25"}
MAX_ATTEMPTS = 200  # per edit with expected_hash: read, edit, and again on stale_edit
CALL_TIMEOUT_S = 30.0
PHASE_S = 60.0  # bound on each phase: start-up, the edits, the undos


@dataclass(frozen=True)
class Edit:
    """One planned edit: process ``process``'s ``index``-th, replacing ``old_text`` (once) with ``new_text``."""

    process: int
    index: int
    old_text: str
    new_text: str
    marker: str  # a line the edit puts in the file, found there exactly once when it landed


@dataclass(frozen=True)
class Layout:
    """An original file and each process's edits of it."""

    original: str
    plans: tuple[tuple[Edit, ...], ...]


def slots() -> Layout:
    """90 lines ``slot-P-I: free``; process P turns its own 30 into ``slot-P-I: done-by-P``."""
    original = "".join(f"slot-{p}-{i}: free\n" for p in range(PROCESSES) for i in range(EDITS))
    plans = tuple(
        tuple(
            Edit(p, i, f"slot-{p}-{i}: free", f"slot-{p}-{i}: done-by-{p}", f"slot-{p}-{i}: done-by-{p}")
            for i in range(EDITS)
        )
        for p in range(PROCESSES)
    )
    return Layout(original, plans)


def one_spot() -> Layout:
    """``HEAD`` and ``TAIL``; every edit puts its own line right before ``TAIL``, so all of them collide."""
    plans = tuple(
        tuple(Edit(p, i, "TAIL\n", f"line-{p}-{i}\nTAIL\n", f"line-{p}-{i}") for i in range(EDITS))
        for p in range(PROCESSES)
    )
    return Layout("HEAD\nTAIL\n", plans)


@dataclass(frozen=True)
class Acknowledged:
    """An edit the server reported as done, with what it reported."""

    edit: Edit
    result: dict[str, Any]
    expected_hash: str | None


@dataclass
class Tally:
    """What the three processes answered, in arrival order."""

    acknowledged: list[Acknowledged] = field(default_factory=list)
    refusals: list[tuple[Edit, str, dict[str, Any]]] = field(default_factory=list)  # stale_edit: edit, expected, meta
    unexpected: list[str] = field(default_factory=list)  # any other failure, described


# -- three children over stdio -----------------------------------------------------------------------


@asynccontextmanager
async def three_servers(root: Path, state_dir: Path, logs: Path, mode: str) -> AsyncIterator[list[Client]]:
    """Three ``python -m fsguard`` children on one root and state dir, each with a connected client.

    The children start at the same time (each client lives in a task of its own, which enters and leaves it),
    and all three are stopped when the block ends, however it ends.
    """
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "fsguard", str(root), "--state-dir", str(state_dir), "--backup-max-count", "1000"],
    )
    connected: list[Client] = []
    all_connected, finished = anyio.Event(), anyio.Event()

    async def hold(client: Client) -> None:
        async with client:
            connected.append(client)
            if len(connected) == PROCESSES:
                all_connected.set()
            await finished.wait()

    with ExitStack() as logs_open:
        clients = [
            Client(
                stdio_client(
                    params,
                    errlog=logs_open.enter_context((logs / f"server-{p}.stderr.log").open("w", encoding="utf-8")),
                ),
                mode=mode,
                read_timeout_seconds=CALL_TIMEOUT_S,
            )
            for p in range(PROCESSES)
        ]
        async with anyio.create_task_group() as group:
            for client in clients:
                group.start_soon(hold, client)
            try:
                with anyio.fail_after(PHASE_S):
                    await all_connected.wait()
                yield clients
            finally:
                finished.set()


def stderr_tails(logs: Path) -> str:
    def tail(p: int) -> str:
        return (logs / f"server-{p}.stderr.log").read_text(encoding="utf-8", errors="replace")[-1500:]

    return "\n".join(f"--- server {p} stderr ---\n{tail(p)}" for p in range(PROCESSES))


async def run_plan(client: Client, plan: Sequence[Edit], *, checked: bool, tally: Tally, go: anyio.Event) -> None:
    """One process's edits in order; with ``checked``, each is read → edit_file(expected_hash), retried if stale."""
    await go.wait()
    for edit in plan:
        for _attempt in range(MAX_ATTEMPTS):
            arguments: dict[str, Any] = {"path": NAME, "old_text": edit.old_text, "new_text": edit.new_text}
            expected = None
            if checked:
                read = await client.call_tool("read_file", {"path": NAME})
                if read.is_error:
                    tally.unexpected.append(f"{edit}: read_file failed: {text_of(read)}")
                    return
                expected = structured(read)["content_hash"]
                arguments["expected_hash"] = expected
            result = await client.call_tool("edit_file", arguments)
            if not result.is_error:
                tally.acknowledged.append(Acknowledged(edit, structured(result), expected))
                break
            refusal = dict((result.meta or {}).get("fsguard/error") or {})
            if not checked or refusal.get("code") != "stale_edit" or result.structured_content is not None:
                tally.unexpected.append(f"{edit}: {describe(result)}")
                return  # this process stops; the others finish and the test reports it
            tally.refusals.append((edit, str(expected), refusal))
        else:
            tally.unexpected.append(f"{edit}: still stale after {MAX_ATTEMPTS} attempts")
            return


def describe(result: CallToolResult) -> str:
    meta = (result.meta or {}).get("fsguard/error", {})
    return f"{meta.get('code')}: {text_of(result)}"


def apply(text: str, edit: Edit) -> str:
    """``edit`` applied to ``text`` the way a lone edit_file would: its old_text must occur exactly once."""
    assert text.count(edit.old_text) == 1, f"{edit} does not apply to its predecessor in the chain"
    return text.replace(edit.old_text, edit.new_text, 1)


# -- the scenario ----------------------------------------------------------------------------------------


async def edit_concurrently_then_undo_everything(
    tmp_path: Path, root: Path, state_dir: Path, mode: str, layout: Layout, *, checked: bool
) -> Tally:
    """Run the three plans at once, check what landed and the undo chain, then undo every edit one by one."""
    target = root / NAME
    original = layout.original.encode()
    target.write_bytes(original)
    logs = tmp_path / "logs"
    logs.mkdir()
    tally = Tally()
    failure: Exception | None = None
    with anyio.fail_after(3 * PHASE_S + 30):
        async with three_servers(root, state_dir, logs, mode) as clients:
            try:
                await exercise(clients, layout, tally, target, mode, checked=checked, logs=logs)
            except Exception as exc:  # raised below, once the children are gone: not wrapped by their transports
                failure = exc
    if failure is not None:
        raise failure
    assert target.read_bytes() == original
    return tally


async def exercise(
    clients: list[Client], layout: Layout, tally: Tally, target: Path, mode: str, *, checked: bool, logs: Path
) -> None:
    """The edits, the checks of what landed, the undo chain, and every undo, on three connected children."""
    for client in clients:
        assert client.protocol_version == ERA[mode]
    original = layout.original.encode()

    # 1. the edits: three processes at once, released together.
    go = anyio.Event()
    with anyio.fail_after(PHASE_S):
        async with anyio.create_task_group() as group:
            for client, plan in zip(clients, layout.plans, strict=True):
                group.start_soon(partial(run_plan, client, plan, checked=checked, tally=tally, go=go))
            go.set()
    final = target.read_bytes()  # by Python, not through a server
    check_edits(tally, layout, final, checked=checked, logs=logs)

    # 2. the undo chain: linear, one record per acknowledged edit, from the original to the final bytes.
    # Every process reads the same chain from the shared state dir.
    chains = [
        structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": NAME, "limit": 1000}))
        for client in clients
    ]
    chain = chains[0]["backups"]  # newest first
    assert all(answer["backups"] == chain for answer in chains), "the processes disagree about the undo chain"
    states = check_chain(chain, tally, original, final)

    # 3. undo_last, asked of each process in turn, steps back exactly one edit at a time.
    with anyio.fail_after(PHASE_S):
        await undo_everything(clients, chain, states, target)
    nothing_left = await clients[0].call_tool("backup", {"action": "undo_last", "file_path": NAME})
    assert error_code(nothing_left) == "nothing_to_undo"


def check_edits(tally: Tally, layout: Layout, final: bytes, *, checked: bool, logs: Path) -> None:
    """Every attempt either succeeded or was refused as stale_edit; every success is in the final bytes."""
    assert not tally.unexpected, f"{tally.unexpected[:5]}\n{stderr_tails(logs)}"
    assert len(tally.acknowledged) == TOTAL
    assert Counter(ack.edit for ack in tally.acknowledged) == Counter(e for plan in layout.plans for e in plan)
    if checked:
        for ack in tally.acknowledged:
            assert ack.result["previous_hash"] == ack.expected_hash, f"{ack.edit} applied to bytes it did not check"
        for edit, expected, meta in tally.refusals:
            assert meta["code"] == "stale_edit"
            assert meta["current_hash"] != expected, f"{edit} refused as stale against the hash it expected"
    else:
        assert not tally.refusals

    lines = Counter(final.decode().splitlines())
    missing = [ack.edit for ack in tally.acknowledged if lines[ack.edit.marker] != 1]
    assert not missing, (
        f"{len(missing)} of {len(tally.acknowledged)} acknowledged edits are not in the final file, "
        f"e.g. {[e.marker for e in missing[:5]]}"
    )


def check_chain(chain: list[dict[str, Any]], tally: Tally, original: bytes, final: bytes) -> list[bytes]:
    """Check the undo chain (newest first) is linear over exactly the acknowledged edits; the states it walks."""
    by_backup = {ack.result["backup_id"]: ack for ack in tally.acknowledged}
    assert len(by_backup) == TOTAL, "two acknowledged edits share a backup id"
    assert len(chain) == TOTAL, f"the undo chain has {len(chain)} records for {TOTAL} acknowledged edits"
    assert {record["backup_id"] for record in chain} == set(by_backup)
    for newer, older in pairwise(chain):
        assert newer.get("parent_backup_id") == older["backup_id"], "the chain skips or forks"
        assert newer["content_hash"] == older.get("after_hash"), "an edit did not start from what the previous one left"
    assert chain[-1].get("parent_backup_id") is None  # structuredContent leaves out fields that are None
    assert chain[-1]["content_hash"] == content_hash(original)
    assert chain[0].get("after_hash") == content_hash(final)

    # Replayed in chain order, the acknowledged edits rebuild every state, ending with the bytes on disk.
    states = [original.decode()]
    for record in reversed(chain):
        assert record["in_chain"] is True
        assert record["operation"] == "edit_file:replace"
        ack = by_backup[record["backup_id"]]
        assert ack.result.get("parent_backup_id") == record.get("parent_backup_id")
        assert ack.result["previous_hash"] == record["content_hash"] == content_hash(states[-1].encode())
        states.append(apply(states[-1], ack.edit))
        assert ack.result["content_hash"] == record.get("after_hash") == content_hash(states[-1].encode())
    assert states[-1].encode() == final

    # The processes took turns: in chain order, the editing process changes more often than a serial run's twice.
    order = [by_backup[record["backup_id"]].edit.process for record in reversed(chain)]
    turns = sum(1 for one, other in pairwise(order) if one != other)
    assert turns > PROCESSES - 1, f"the processes' edits never interleaved ({turns} turns): they did not race"
    print(f"the editing process changed {turns} times along the chain")
    return [state.encode() for state in states]


async def undo_everything(
    clients: list[Client], chain: list[dict[str, Any]], states: list[bytes], target: Path
) -> None:
    """undo_last once per chain record, from process 0, 1, 2, 0 …; the bytes after each are the edit's before-bytes."""
    for step, record in enumerate(chain):
        client = clients[step % PROCESSES]
        result = await client.call_tool("backup", {"action": "undo_last", "file_path": NAME})
        undone = structured(result)
        assert undone["backup"]["backup_id"] == record["backup_id"], f"undo {step} reverted another edit"
        before = states[TOTAL - 1 - step]
        on_disk = target.read_bytes()
        assert on_disk == before, f"undo {step} left bytes other than those before {record['backup_id']}"
        assert content_hash(on_disk) == record["content_hash"]
        [restored] = undone["restored"]
        assert restored["verified"] is True
        assert restored["content_hash"] == record["content_hash"]
        next_head = chain[step + 1]["backup_id"] if step + 1 < len(chain) else None
        assert undone.get("head_backup_id") == next_head


# -- the tests -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("checked", [False, True], ids=["without_expected_hash", "with_expected_hash"])
async def test_three_processes_editing_one_file_lose_no_acknowledged_edit_and_undo_steps_back_one_at_a_time(
    tmp_path: Path, root: Path, state_dir: Path, mode: str, checked: bool
) -> None:
    tally = await edit_concurrently_then_undo_everything(tmp_path, root, state_dir, mode, slots(), checked=checked)
    if checked:
        # Each read-then-edit races the other two processes' edits, so some checks must have gone stale.
        assert tally.refusals, "no edit was refused as stale: the three processes never raced"
    print(f"{len(tally.refusals)} stale_edit refusals across {TOTAL} edits")


async def test_three_processes_editing_the_same_spot_with_expected_hash_refuse_only_as_stale_and_lose_nothing(
    tmp_path: Path, root: Path, state_dir: Path, mode: str
) -> None:
    tally = await edit_concurrently_then_undo_everything(tmp_path, root, state_dir, mode, one_spot(), checked=True)
    assert tally.refusals, "no edit was refused as stale: the three processes never raced"
    print(f"{len(tally.refusals)} stale_edit refusals across {TOTAL} edits")
