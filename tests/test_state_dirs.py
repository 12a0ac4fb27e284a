"""Two fsguard processes on one project with *different* state directories: expected_hash still has one winner.

Each process used to lock paths only in its own state directory, so two edits checked against the same hash
could both pass the check and both write: both acknowledged, one of them lost (56 rounds of 60 on a 2-core
box). The lock is now also taken in a directory every fsguard of the user shares. Two real ``python -m
fsguard`` children, each with its own ``--state-dir``, are sent an edit of the same file with the same
``expected_hash`` at once, round after round: one must win and the other be refused as ``stale_edit``, and the
file must hold the winner's edit. The file is rewritten by Python between rounds. Every wait is bounded.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client
from mcp.types import CallToolResult

import fsguard
from fsguard.core.hashing import content_hash
from tests.conftest import error_code, structured

pytestmark = pytest.mark.anyio

ROUNDS = 20
CALL_TIMEOUT_S = 30.0
SOURCES = str(Path(fsguard.__file__).resolve().parents[1])
ORIGINAL = b"".join(b"line %d\n" % number for number in range(2000))  # big enough that the two edits overlap


@asynccontextmanager
async def servers(root: Path, state_dirs: list[Path], logs: Path, mode: str) -> AsyncIterator[list[Client]]:
    """One connected ``python -m fsguard`` child per state directory, all stopped when the block ends."""
    async with AsyncExitStack() as stack:
        clients = []
        for number, state_dir in enumerate(state_dirs):
            params = StdioServerParameters(
                command=sys.executable,
                args=["-m", "fsguard", str(root), "--state-dir", str(state_dir)],
                env={**get_default_environment(), "PYTHONPATH": SOURCES},  # the children run the code under test
            )
            errlog = stack.enter_context((logs / f"server-{number}.log").open("w", encoding="utf-8"))
            client = Client(stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=CALL_TIMEOUT_S)
            clients.append(await stack.enter_async_context(client))
        yield clients


async def test_two_processes_with_different_state_dirs_never_both_pass_the_same_expected_hash(
    tmp_path: Path, root: Path, mode: str
) -> None:
    target = root / "shared.txt"
    logs = tmp_path / "logs"
    logs.mkdir()
    edits = {0: ("line 5\n", "edited by 0\n"), 1: ("line 1500\n", "edited by 1\n")}
    with anyio.fail_after(ROUNDS * CALL_TIMEOUT_S):
        async with servers(root, [tmp_path / "state-a", tmp_path / "state-b"], logs, mode) as clients:
            for round_number in range(ROUNDS):
                target.write_bytes(ORIGINAL)
                expected = content_hash(ORIGINAL)
                results: dict[int, CallToolResult] = {}

                async def edit(
                    number: int, expected: str = expected, results: dict[int, CallToolResult] = results
                ) -> None:
                    old_text, new_text = edits[number]
                    arguments = {"path": "shared.txt", "old_text": old_text, "new_text": new_text}
                    results[number] = await clients[number].call_tool(
                        "edit_file", {**arguments, "expected_hash": expected}
                    )

                async with anyio.create_task_group() as group:
                    for number in edits:
                        group.start_soon(edit, number)
                winners = [number for number, result in results.items() if not result.is_error]
                assert len(winners) == 1, f"round {round_number}: {len(winners)} edits passed one expected_hash"
                [loser] = set(edits) - set(winners)
                assert error_code(results[loser]) == "stale_edit"
                [winner] = winners
                old_text, new_text = edits[winner]
                assert target.read_bytes() == ORIGINAL.replace(old_text.encode(), new_text.encode(), 1)
                assert structured(results[winner])["content_hash"] == content_hash(target.read_bytes())
