"""Where an edit's and a whole read's time goes (issue 14), in one run: the SDK's floor, fsguard's own work, fsyncs.

Over stdio, with the external harness's bench (``run.sh bench``, one call at a time, ``-n`` calls after a warm-up),
in alternating rounds: the reference server's call, fsguard's, and two floors: a one-tool MCPServer on the same SDK
(``benchmarks/floor_server.py``) answering about as many characters as fsguard's answer holds, with no file work,
over the SDK's own stdio transport and over fsguard's (the floor fsguard itself stands on).
Then in-process (``server.call_tool``, no transport), fsguard's call timed, then profiled (cProfile), its time
shared out by where the profile found it: the durable steps (``os.fsync``, the rename, the wait for the thread
that writes and fsyncs the temp file), other system calls, fsguard's code, and the SDK with pydantic and the
standard library. The shares come from the profile, the milliseconds from the unprofiled run.

    .venv/bin/python benchmarks/profile_latency.py [-n 300] [--warmup 20] [--rounds 3] [--top 12]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from bench_latency import LINES, READ_FSGUARD, READ_GEN, READ_REFERENCE
from bench_read import fmt, fsguard_executable, reference_command, run_bench, start

FLOOR = Path(__file__).resolve().parent / "floor_server.py"
READ_ANSWER = 100_000  # characters of the floor's answer: the text fsguard's whole read sends (twice, as the floor)
EDIT_ANSWER = 400  # about the diff of a one-line edit that fsguard's answer holds
LINE = "line {:05d} " + "x" * 38 + "\n"  # the harness's 50-byte line
DURABLE = ("posix.fsync", "posix.rename", "'acquire' of '_thread.lock'")  # the last: waiting for the filler thread
SYSCALLS = ("built-in method posix.", "built-in method fcntl.", "method 'readinto'", "method 'read' of")
FSGUARD = "/fsguard/"
KINDS = (
    "durable steps (fsync, rename, the temp file's thread)",
    "other system calls",
    "fsguard's code",
    "the standard library (pathlib, json, …)",
    "the SDK, pydantic and anyio",
)
Call = Callable[[int], Awaitable[object]]


def stdio_rows(script: Path, work: Path, args: argparse.Namespace) -> list[tuple[str, float, float, float, float]]:
    """(call, reference ms, floor ms, transport floor ms, fsguard ms) over stdio: each the median of ``--rounds``
    runs' medians, the runs alternating round after round (each round starting one run later), since this VM drifts
    between runs."""
    reference = [*reference_command(script), "${TMP}"]
    floor = [sys.executable, str(FLOOR)]
    ours = [*floor, "--fsguard-stdio"]
    edit = ["--scenario", "edit", "--fresh", "--lines", str(LINES), "--file", "${TMP}/f.txt"]
    read = ["--gen", READ_GEN, "--tool"]
    runs: list[tuple[str, list[str], list[str] | None]] = [  # None: fsguard, with a state dir of its own
        ("reference edit", [*edit, "--dialect", "reference"], reference),
        ("fsguard edit", [*edit, "--dialect", "seed"], None),
        ("floor edit", ["--tool", "text", "--args", f'{{"size":{EDIT_ANSWER}}}'], floor),
        ("transport floor edit", ["--tool", "text", "--args", f'{{"size":{EDIT_ANSWER}}}'], ours),
        ("reference read", [*read, "read_text_file", "--args", READ_REFERENCE], reference),
        ("fsguard read", [*read, "read_file", "--args", READ_FSGUARD], None),
        ("floor read", ["--tool", "text", "--args", f'{{"size":{READ_ANSWER}}}'], floor),
        ("transport floor read", ["--tool", "text", "--args", f'{{"size":{READ_ANSWER}}}'], ours),
    ]
    medians: dict[str, list[float]] = {label: [] for label, _options, _server in runs}
    for round_number in range(args.rounds):
        shift = round_number % len(runs)
        for label, options, server in runs[shift:] + runs[:shift]:
            out = work / f"{round_number}-{label.replace(' ', '-')}"
            command = server or [fsguard_executable(), "${TMP}", "--state-dir", str(out.with_suffix(".state"))]
            os.sync()
            report = run_bench(script, label, ["-n", str(args.n), "--warmup", str(args.warmup), *options], command, out)
            medians[label].append(float(report["ops"][0]["median_ms"]))
    figure = {label: statistics.median(values) for label, values in medians.items()}
    return [
        (
            task,
            figure[f"reference {kind}"],
            figure[f"floor {kind}"],
            figure[f"transport floor {kind}"],
            figure[f"fsguard {kind}"],
        )
        for task, kind in (
            ("edit one line of 2,000, new text every call", "edit"),
            ("whole read of a 100,000-byte file", "read"),
        )
    ]


def in_process(n: int) -> dict[str, tuple[float, pstats.Stats]]:
    """fsguard's edit and read through ``server.call_tool``: median ms of ``n`` calls, and the profile of ``n`` more."""
    from fsguard.config import Settings
    from fsguard.server import build_server

    root = Path(tempfile.mkdtemp(prefix="fsguard-profile-"))
    lines = [LINE.format(number) for number in range(1, LINES + 1)]
    (root / "f.txt").write_text("".join(lines), encoding="utf-8")
    (root / "r.txt").write_text("".join(lines), encoding="utf-8")
    server = build_server(Settings(roots=(root,), state_dir=root.parent / f"{root.name}-state", transport="stdio"))
    current = [lines[999]]

    async def edit(number: int) -> object:
        new = LINE.format(1000).replace("x" * 12, f"e{number:011d}", 1)
        result = await server.call_tool("edit_file", {"path": "f.txt", "old_text": current[0], "new_text": new})
        current[0] = new
        return result

    async def read(_number: int) -> object:
        return await server.call_tool("read_file", {"path": "r.txt", "start_line": 1, "end_line": LINES})

    async def measure(call: Call) -> tuple[float, pstats.Stats]:
        for number in range(20):
            await call(number)
        times = []
        for number in range(n):
            began = time.perf_counter()
            await call(number)
            times.append((time.perf_counter() - began) * 1000)
        profile = cProfile.Profile()
        profile.enable()
        for number in range(n):
            await call(number)
        profile.disable()
        return statistics.median(times), pstats.Stats(profile)

    async def both() -> dict[str, tuple[float, pstats.Stats]]:
        return {"edit": await measure(edit), "read": await measure(read)}

    return anyio.run(both)


def shares(stats: pstats.Stats) -> dict[str, float]:
    """The profile's own time (tottime) by where it was spent, as fractions of the whole. A built-in function's time
    (a str method, a C hash, a pydantic validation) goes to its callers' kind, in the share each caller took, unless
    it is a system call."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]  # pstats keeps its table untyped
    totals = dict.fromkeys(KINDS, 0.0)
    for (filename, _line, name), (_calls, _primitive, tottime, _cumulative, callers) in table.items():
        kind = _kind(filename, name)
        if kind is not None:
            totals[kind] += tottime
            continue
        by_caller = {caller: figures[2] for caller, figures in callers.items()} or {("~", 0, name): tottime}
        whole = sum(by_caller.values()) or 1.0
        for (caller_file, _caller_line, caller_name), share in by_caller.items():
            totals[_kind(caller_file, caller_name) or KINDS[3]] += tottime * share / whole
    whole = sum(totals.values()) or 1.0
    return {kind: value / whole for kind, value in totals.items()}


def _kind(filename: str, name: str) -> str | None:
    """Where a function's own time goes; None for a built-in that is not a system call (its callers decide)."""
    if filename == "~":
        if any(mark in name for mark in DURABLE):
            return KINDS[0]
        if any(mark in name for mark in SYSCALLS):
            return KINDS[1]
        return KINDS[4] if "pydantic_core" in name else None
    if FSGUARD in filename:
        return KINDS[2]
    return KINDS[4] if "site-packages" in filename else KINDS[3]


def main() -> int:
    def more(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of the stdio runs (default 3)")
        parser.add_argument("--top", type=int, default=12, help="functions listed per profile (default 12)")

    started = start(__doc__, "calls", more)
    if started is None:
        return 2
    args, script = started
    with tempfile.TemporaryDirectory(prefix="fsguard-profile-latency-") as scratch:
        rows = stdio_rows(script, Path(scratch), args)
    measured = in_process(args.n)
    print(
        "\nOver stdio (median ms; a floor answers as many characters as fsguard's answer, doing no file work, over "
        "the SDK's own stdio or over fsguard's):\n"
    )
    print("| call | reference | SDK floor | floor, fsguard's stdio | fsguard | fsguard / reference | fsguard over it |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for task, reference, floor, transport, ours in rows:
        cells = f"{fmt(reference)} | {fmt(floor)} | {fmt(transport)} | {fmt(ours)} | {fmt(ours / reference)}x"
        cells += f" | {fmt(ours - transport)}"
        print(f"| {task} | {cells} |")
    print("\nIn-process (server.call_tool, no transport): each call's time shared out by its profile:\n")
    print("| call | median ms | " + " | ".join(KINDS) + " |")
    print("| --- | ---: |" + " ---: |" * len(KINDS))
    for name, (median, stats) in measured.items():
        cells = " | ".join(fmt(median * share) for share in shares(stats).values())
        print(f"| {name} | {fmt(median)} | {cells} |")
    for name, (_median, stats) in measured.items():
        print(f"\nThe {name}'s {args.top} costliest functions by own time ({args.n} calls, profiled):\n")
        stats.sort_stats("tottime").print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
