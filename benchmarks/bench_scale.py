"""Scale: gigabyte files, 200k-entry directories and big trees, fsguard beside the reference server and raw rg.

Generates its data in a temporary directory (removed afterwards; about 1.3 GB and 452,000 files at full size),
then runs each row: the fsguard call and the reference TypeScript server's equivalent over stdio (raw
newline-delimited JSON-RPC, 2025-11-25 handshake, a fresh server process per row), or raw ``rg`` run as a
process with its output read through a pipe. A time is the median of ``--runs`` calls after a first call that is
shown apart (it is the cold one: nothing cached; each server has answered one call of a tool that touches no data
before it, :data:`FSGUARD_WARM`); when their median is under 50 ms, those calls were the warm-up and the median of
30 more is the time, while the servers are fresh. When both sides of a row are that quick, ``--settle-rounds`` (300)
more follow, untimed, and the median of 30 more is the time once they are warm: the table's, its "ratio, fresh" the
fresh one; a target is met when it holds in both. The two sides' calls are taken in turn, one each, so that what
else the machine does meanwhile falls on both (both servers run at once, idle while the other answers). Peak RSS is the
server process's VmHWM, reset after the handshake (``/proc/PID/clear_refs``), less its RSS at that moment; rg child
processes are not counted. The listing rows start once their directory is 2.5 s old: fsguard never remembers the scan
of a directory changed in the last two seconds, and a directory an agent lists has usually stood longer than data
made just before it is timed (the first call, shown apart, is the scan).

fsguard runs with its default flags, plus ``--max-list-items`` for the whole 20,000-entry listing and any
``--fsguard-arg``. The reference server is ``run.sh reference-server`` of the external harness (``$FSGUARD_HARNESS``,
else ``<repo>/../shared/harness/run.sh``); without it the reference cells are empty.

    .venv/bin/python benchmarks/bench_scale.py [--quick] [--only ROW ...] [--runs 5] [--settle-rounds 300]
        [--fsguard-arg=--flag=value]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bench_read import fsguard_executable, harness_script, reference_command
from fsguard.core.search import ripgrep_path
from scale_data import FULL, QUICK, Args, Dataset, Row, rows
from stdio_client import Outcome, Server, proc_status

RSS_LIMIT_MIB = 64
SLOW_MS = 10_000  # a first call slower than this is not repeated: its time is the figure
QUICK_MS, QUICK_RUNS = 50, 30  # calls whose median is under QUICK_MS are timed QUICK_RUNS times
# Then, untimed, this many more rounds before QUICK_RUNS are timed again: the reference's JavaScript is still being
# compiled over its first calls (its 1 GB tail went from 1.0-1.2 ms in calls 6-35 to 0.5-0.8 ms after 300 more).
SETTLE_ROUNDS = 300
SETTLED_S = 2.5  # how old a settled row's data is when its timing starts (past fsguard's 2 s racy window)


@dataclass
class Timing:
    """One side of a row: first call, median of the rest, peak RSS above idle, or the error that stopped it."""

    first_ms: float = 0.0
    median_ms: float = (
        0.0  # a quick side's last QUICK_RUNS calls (once warm if its row settled), else all but the first
    )
    fresh_ms: float | None = None  # a quick side's first QUICK_RUNS after the warm-up, before the SETTLE_ROUNDS
    peak_mib: float | None = None
    error: str | None = None
    detail: str = ""
    outcome: Outcome | None = None
    server: str = "rg"


class SideFailed(Exception):
    """A side stopped answering (timed out, died): its timing holds why, the other sides go on."""


class Side(Protocol):
    """What one side of a row times: a cold first call, then calls again and again."""

    timing: Timing

    def first(self) -> bool:
        """The first call; False when no more should follow (it failed, or it alone is the figure)."""

    def again(self) -> float: ...

    def finish(self) -> None: ...


# One call of a tool that touches no data, answered before a row's first call and before the idle RSS is read: after
# a warm start fsguard builds its tools on its first call (README, "Cold start"), 0.2-0.6 s and ~10 MiB that were
# neither the row's cold cost nor its memory.
Warm = tuple[str, Args]
FSGUARD_WARM: Warm = ("server_info", {"action": "stats"})
REFERENCE_WARM: Warm = ("list_allowed_directories", {})


class ServerSide:
    """A fresh server process calling one tool; its peak RSS is read at the end."""

    def __init__(self, command: list[str], tool: str, args: Args, timeout: float, log: Path, warm: Warm) -> None:
        self.command, self.tool, self.args, self.timeout, self.log = command, tool, args, timeout, log
        self.warm = warm
        self.timing = Timing()
        self.server: Server | None = None
        self.idle: int | None = None
        self.died = False

    def first(self) -> bool:
        self.server = Server(self.command, self.timeout, self.log)
        try:
            self.idle = self.server.ready(self.warm)
            self.timing.server = self.server.name
            self.timing.first_ms, outcome = self.server.call(self.tool, self.args)
        except (TimeoutError, ConnectionError, BrokenPipeError, json.JSONDecodeError) as failure:
            self._failed(failure)
            return False
        timing = self.timing
        timing.median_ms = timing.first_ms
        timing.error, timing.detail, timing.outcome = outcome.error, outcome.summary(), outcome
        if outcome.error == "internal_error":  # a bug: its traceback is in the log, which goes with the data
            timing.detail += "\n" + self.log.read_text(encoding="utf-8", errors="replace")[-3000:]
        return outcome.error is None and timing.first_ms < SLOW_MS

    def again(self) -> float:
        assert self.server is not None
        try:
            return self.server.call(self.tool, self.args)[0]
        except (TimeoutError, ConnectionError, BrokenPipeError, json.JSONDecodeError) as failure:
            self._failed(failure)
            raise SideFailed from failure

    def _failed(self, failure: Exception) -> None:
        self.died = True
        if isinstance(failure, TimeoutError):
            self.timing.error = f"timeout > {self.timeout:g} s"
            return
        tail = self.log.read_text(encoding="utf-8", errors="replace")[-300:]
        self.timing.error, self.timing.detail = "server died", f"{type(failure).__name__}; log: {tail!r}"

    def finish(self) -> None:
        if self.server is None:
            return
        peak = proc_status(self.server.proc.pid, "VmHWM")
        if peak is not None and self.idle is not None and not self.died:
            self.timing.peak_mib = (peak - self.idle) / 1024
        self.server.close()


class RgSide:
    """Raw rg as a process, its output read through a pipe (rg stops early when it sees stdout is /dev/null)."""

    def __init__(self, rg: Path, argv: list[str]) -> None:
        self.argv = [str(rg), *argv]
        self.timing = Timing()

    def first(self) -> bool:
        self.timing.first_ms = self.again()
        return True

    def again(self) -> float:
        started = time.perf_counter()
        proc = subprocess.run(self.argv, capture_output=True, check=False)
        elapsed = (time.perf_counter() - started) * 1000
        lines = proc.stdout.count(b"\n")
        self.timing.detail = f"{lines:,} lines"
        return elapsed

    def finish(self) -> None:
        pass


def interleave(sides: list[Side], runs: int, quick_runs: int = QUICK_RUNS, settle_rounds: int = 0) -> None:
    """Each side's first call, then ``runs`` rounds of one call per side in turn; the sides whose median is under
    QUICK_MS then take ``quick_runs`` more rounds, and those are their figure (the first rounds were the warm-up).
    With ``settle_rounds``, those are their fresh figure, and ``settle_rounds`` untimed rounds later ``quick_runs``
    more are their figure once warm.

    In turn, so that what the machine does meanwhile (another process, writeback, a frequency change) falls on both
    sides alike: timed one after the other, a 1 ms row's ratio moved between 0.65x and 1.39x from run to run.
    """
    try:
        live = [side for side in sides if side.first()]
        samples: dict[int, list[float]] = {id(side): [] for side in live}

        def rounds(count: int, among: list[Side]) -> None:
            for _ in range(count):
                for side in list(among):
                    try:
                        samples[id(side)].append(side.again())
                    except SideFailed:
                        among.remove(side)
                        live.remove(side)

        rounds(runs, live)
        quick = [side for side in live if statistics.median(samples[id(side)]) < QUICK_MS]
        for side in quick:
            samples[id(side)].clear()
        rounds(quick_runs, quick)
        # Only when every side is quick: a side's warm calls would otherwise be taken alone, not in turn.
        if settle_rounds and quick and len(quick) == len(live):
            for side in quick:
                side.timing.fresh_ms = statistics.median(samples[id(side)])
            rounds(settle_rounds, quick)
            for side in quick:
                samples[id(side)].clear()
            rounds(quick_runs, quick)
        for side in live:
            side.timing.median_ms = statistics.median(samples[id(side)])
    finally:
        for side in sides:
            side.finish()


@dataclass
class Measured:
    """A row's figures: fsguard's timing, the baseline's, and the fsguard answer's detail."""

    row: Row
    fsguard: Timing
    baseline: Timing | None

    def ratio(self) -> float | None:
        if self.baseline is None or self.fsguard.error or self.baseline.error or not self.baseline.median_ms:
            return None
        return self.fsguard.median_ms / self.baseline.median_ms

    def fresh_ratio(self) -> float | None:
        """The ratio of the fresh medians, when both sides were quick (see :data:`SETTLE_ROUNDS`)."""
        ours, theirs = self.fsguard.fresh_ms, self.baseline.fresh_ms if self.baseline else None
        if ours is None or not theirs or self.ratio() is None:
            return None
        return ours / theirs

    def met(self) -> str:
        target, timing = self.row.target, self.fsguard
        if timing.error:
            return f"no ({timing.error})"
        if self.row.expect and not (timing.outcome and timing.outcome.contains(self.row.expect)):
            return f"no (answer lacks {self.row.expect!r})"
        if target is None:
            return "—"
        structured = timing.outcome.structured if timing.outcome else {}
        warm = target.verdict(timing.first_ms, timing.median_ms, self.ratio(), structured)
        if timing.fresh_ms is None:
            return warm
        fresh = target.verdict(timing.first_ms, timing.fresh_ms, self.fresh_ratio(), structured)
        # Met only when it holds both while the servers are fresh and once they are warm.
        return warm if warm == fresh else f"no (met {'fresh' if fresh == 'yes' else 'warm'} only)"


def measure(row: Row, ctx: Context) -> Measured:
    """Run one row: fsguard and its baseline, their calls taken in turn."""
    fsguard = [*ctx.fsguard, *row.flags, *ctx.fsguard_args, str(ctx.data.root), *map(str, row.roots)]
    ours = ServerSide(fsguard, row.tool, row.args, ctx.timeout, ctx.logs / "fsguard.log", FSGUARD_WARM)
    baseline: Side | None = None
    if row.rg is not None:
        baseline = RgSide(ctx.rg, row.rg)
    elif row.reference is not None and ctx.reference is not None:
        reference = [*ctx.reference, str(ctx.data.root), *map(str, row.roots)]
        tool, args = row.reference
        baseline = ServerSide(reference, tool, args, ctx.timeout, ctx.logs / "reference.log", REFERENCE_WARM)
    interleave([ours] if baseline is None else [ours, baseline], ctx.runs, settle_rounds=ctx.settle_rounds)
    return Measured(row, ours.timing, None if baseline is None else baseline.timing)


@dataclass
class Context:
    """What every row runs with."""

    data: Dataset
    fsguard: list[str]
    fsguard_args: list[str]
    reference: list[str] | None
    rg: Path
    runs: int
    settle_rounds: int
    timeout: float
    logs: Path


def cell(value: float | None, digits: int = 1) -> str:
    return "—" if value is None else f"{value:,.{digits}f}"


def timing_cell(timing: Timing | None) -> str:
    if timing is None:
        return "—"
    return timing.error or cell(timing.median_ms)


def rss_cell(timing: Timing | None) -> str:
    if timing is None or timing.peak_mib is None:
        return "—"
    return f"{timing.peak_mib:,.1f} {'ok' if timing.peak_mib <= RSS_LIMIT_MIB else 'OVER'}"


def table(results: list[Measured]) -> str:
    """The Markdown table of the rows measured."""
    lines = [
        "| task | reference / rg ms | fsguard ms | fsguard first call ms | ratio | ratio, fresh | target | met? "
        f"| fsguard peak RSS MiB above idle (≤ {RSS_LIMIT_MIB}) | reference peak RSS MiB above idle |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: |",
    ]
    for m in results:
        ratio, fresh = m.ratio(), m.fresh_ratio()
        baseline_rss = rss_cell(m.baseline) if m.row.rg is None else "—"
        lines.append(
            f"| {m.row.task} | {timing_cell(m.baseline)} | {timing_cell(m.fsguard)} "
            f"| {'—' if m.fsguard.error else cell(m.fsguard.first_ms)} | {'—' if ratio is None else f'{ratio:.2f}x'} "
            f"| {'—' if fresh is None else f'{fresh:.2f}x'} "
            f"| {m.row.target.label if m.row.target else '—'} | {m.met()} | {rss_cell(m.fsguard)} | {baseline_rss} |"
        )
    return "\n".join(lines)


def details(results: list[Measured], data: Path) -> str:
    """Two lines per row: each side's call and what it answered; DATA is the generated data's directory."""
    out = []
    for m in results:
        base = f"rg {shlex.join(m.row.rg)}" if m.row.rg else json.dumps(m.row.reference)
        baseline = m.baseline.detail + _phases(m.baseline) if m.baseline else "-"
        ours = m.fsguard.detail + _phases(m.fsguard)
        out.append(f"- {m.row.task}\n    fsguard {m.row.tool} {json.dumps(m.row.args)} -> {ours}")
        out.append(f"    baseline {base} -> {baseline}")
    return "\n".join(out).replace(str(data), "DATA")


def _phases(timing: Timing) -> str:
    """A quick side's medians while fresh and once warm."""
    if timing.fresh_ms is None:
        return ""
    return f"; fresh {timing.fresh_ms:.2f} ms, warm {timing.median_ms:.2f} ms"


def parse(keys: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes (64 MiB files, 20,000 entries): a fast check")
    parser.add_argument("--only", action="append", default=[], help=f"rows to run, repeatable: {', '.join(keys)}")
    parser.add_argument("--runs", type=int, default=None, help="timed calls after the first (default 5; quick 3)")
    parser.add_argument(
        "--settle-rounds",
        type=int,
        default=None,
        help=f"untimed rounds between a quick row's fresh and warm timings (default {SETTLE_ROUNDS}; quick 0)",
    )
    parser.add_argument("--timeout", type=float, default=300, help="seconds one call may take (default 300)")
    parser.add_argument(
        "--fsguard-arg", action="append", default=[], help="extra fsguard flag, e.g. --fsguard-arg=--compact-mode"
    )
    parser.add_argument("--no-reference", action="store_true", help="leave the reference server out")
    args = parser.parse_args()
    args.only = [key for item in args.only for key in item.split(",") if key]
    unknown = sorted(set(args.only) - set(keys))
    if unknown:
        parser.error(f"unknown row {', '.join(unknown)}; rows: {', '.join(keys)}")
    return args


def find_reference(skip: bool) -> list[str] | None:
    script = harness_script()
    if skip or not script.is_file():
        if not skip:
            print(f"harness not found ({script}): reference cells stay empty; set FSGUARD_HARNESS", file=sys.stderr)
        return None
    return reference_command(script)


def main() -> int:
    keys = list(rows(Dataset(Path(), QUICK)))
    args = parse(keys)
    rg = ripgrep_path()
    if rg is None:
        print("needs rg (the ripgrep wheel): run `make install`", file=sys.stderr)
        return 2
    sizes = QUICK if args.quick else FULL
    runs = args.runs if args.runs is not None else (3 if args.quick else 5)
    settle = args.settle_rounds if args.settle_rounds is not None else (0 if args.quick else SETTLE_ROUNDS)
    print(f"$ {shlex.join([sys.executable, *sys.argv])}", flush=True)
    with tempfile.TemporaryDirectory(prefix="fsguard-bench-scale-") as scratch:
        work = Path(scratch)
        (work / "data").mkdir()
        ctx = Context(
            data=Dataset(work / "data", sizes),
            fsguard=[fsguard_executable(), "--state-dir", str(work / "state")],
            fsguard_args=args.fsguard_arg,
            reference=find_reference(args.no_reference),
            rg=rg,
            runs=runs,
            settle_rounds=settle,
            timeout=args.timeout,
            logs=work,
        )
        results = []
        for key, build in rows(ctx.data).items():
            if args.only and key not in args.only:
                continue
            started = time.perf_counter()
            row = build()
            built = time.perf_counter()
            os.sync()  # the data's writeback would otherwise run during the timed calls, against one side or both
            print(f"[{key}] data ready in {time.perf_counter() - started:.1f} s; measuring", flush=True)
            if row.settled:
                time.sleep(max(0.0, SETTLED_S - (time.perf_counter() - built)))
            results.append(measure(row, ctx))
            print(f"[{key}] fsguard: {timing_cell(results[-1].fsguard)}", flush=True)
        quick = f"of {QUICK_RUNS} more after them" + (
            f"; when both sides are, {QUICK_RUNS} more after {settle} untimed rounds (the figure; the first "
            f"{QUICK_RUNS}, calls {runs + 1}-{runs + QUICK_RUNS}, are the fresh one)"
            if settle
            else ""
        )
        print(
            f"\nmedian of {runs} calls after a first call (when under {QUICK_MS} ms: {quick}); "
            "the two sides' calls in turn; a fresh server process per row; data removed after\n"
        )
        print(table(results))
        print()
        print(details(results, ctx.data.root))
        servers = sorted({t.server for m in results for t in (m.fsguard, m.baseline) if t and t.server != "rg"})
        print(f"servers: {', '.join(servers)}; rg: {ctx.rg}")
        print("\ncleaning up…", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
