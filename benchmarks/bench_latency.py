"""Latency targets of issue 14, in one go: fsguard beside the reference TypeScript server (run.sh bench).

- edit of one line in a 2,000-line file with new text every call (``--scenario edit --fresh``): fsguard (a backup
  and three fsyncs per edit) against the reference server (no backup, no fsync); target ≤ 0.9x;
- the same edit of a ``.py`` file (the structure check parses it): target ≤ 1.1x fsguard's ``.txt`` edit;
- a whole 100,000-byte read (fsguard asked for every line, so both send the same text): target ≤ 0.8x;
- cold start, spawn to the ``tools/list`` answer, and RSS then (idle): fsguard against a one-tool MCPServer on
  the same SDK (``benchmarks/one_tool_server.py``); targets ≤ 1.1x. Median of ``--starts`` spawns each.

The harness is ``$FSGUARD_HARNESS`` (run.sh, or its folder), else ``<repo>/../shared/harness/run.sh``.

    .venv/bin/python benchmarks/bench_latency.py [-n 300] [--warmup 20] [--rounds 3] [--starts 15]
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
from typing import Any

from bench_read import fmt, fsguard_executable, reference_command, run_bench, start

LINES = 2000
READ_GEN = "${TMP}/f100k.txt=100000"
READ_REFERENCE = '{"path":"${TMP}/f100k.txt"}'
READ_FSGUARD = '{"path":"${TMP}/f100k.txt","start_line":1,"end_line":2000}'
ONE_TOOL = Path(__file__).resolve().parent / "one_tool_server.py"


@dataclass(frozen=True)
class Row:
    """One compared measurement: what, fsguard's figure, the baseline's, and the target ratio."""

    task: str
    ours: float
    baseline: float
    baseline_name: str
    target: float
    unit: str = "ms"

    @property
    def ratio(self) -> float:
        return self.ours / self.baseline if self.baseline else float("nan")

    def line(self) -> str:
        met = "met" if self.ratio <= self.target else f"not met ({self.ratio / self.target - 1:+.0%} over)"
        return (
            f"| {self.task} | {fmt(self.ours)} {self.unit} | {fmt(self.baseline)} {self.unit} ({self.baseline_name}) "
            f"| {fmt(self.ratio)}x | ≤ {self.target}x: {met} |"
        )


def median_call(report: dict[str, Any]) -> float:
    return float(report["ops"][0]["median_ms"])


def edit(script: Path, server: list[str], dialect: str, name: str, out: Path, args: argparse.Namespace) -> float:
    options = ["--scenario", "edit", "--fresh", "--lines", str(LINES), "--file", f"${{TMP}}/{name}"]
    options += ["--dialect", dialect, "-n", str(args.n), "--warmup", str(args.warmup)]
    return median_call(run_bench(script, name, options, server, out))


def read(script: Path, server: list[str], arguments: str, tool: str, out: Path, args: argparse.Namespace) -> float:
    options = ["--gen", READ_GEN, "--tool", tool, "--args", arguments, "-n", str(args.n), "--warmup", str(args.warmup)]
    return median_call(run_bench(script, tool, options, server, out))


def cold_start(command: list[str], starts: int) -> tuple[float, float]:
    """Median ms from spawn to the tools/list answer, and median RSS (MiB) at that moment."""
    times, rss = [], []
    handshake = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}},
    ]
    for _ in range(starts):
        began = time.perf_counter()
        proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert proc.stdin is not None
        assert proc.stdout is not None
        for message in handshake:
            proc.stdin.write(json.dumps(message).encode() + b"\n")
        proc.stdin.flush()
        while True:
            line = proc.stdout.readline()
            if not line:
                raise SystemExit(f"{shlex.join(command)} exited before answering tools/list")
            if json.loads(line).get("id") == 2:
                break
        times.append((time.perf_counter() - began) * 1000)
        status = Path(f"/proc/{proc.pid}/status").read_text(encoding="utf-8")
        rss.append(int(next(x for x in status.splitlines() if x.startswith("VmRSS:")).split()[1]) / 1024)
        proc.stdin.close()
        proc.wait(timeout=30)
    return statistics.median(times), statistics.median(rss)


def main() -> int:
    def more(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--starts", type=int, default=15, help="cold starts per server (default 15)")
        parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of the call benchmarks (3)")

    started = start(__doc__, "calls", more)
    if started is None:
        return 2
    args, script = started
    reference = [*reference_command(script), "${TMP}"]
    medians: dict[str, list[float]] = {key: [] for key in ("ref_edit", "txt_edit", "py_edit", "ref_read", "our_read")}
    with tempfile.TemporaryDirectory(prefix="fsguard-bench-latency-") as scratch:
        work = Path(scratch)
        # The box drifts between runs by more than the differences measured: the runs alternate, round after
        # round, each round starting one run later than the last, and each figure is the median of its rounds'
        # medians. Every fsguard run has its own state. Each run starts with nothing dirty in the page cache: the
        # reference never fsyncs, so its 300 edits left ~30 MB for the kernel to write back during the next run,
        # and the rotation keeps the same run after it in every round (fsguard's .txt edit, which came out slower
        # than its .py edit in most runs for that reason alone).
        for round_number in range(args.rounds):
            out = work / f"round{round_number}"
            out.mkdir()
            states = {name: [fsguard_executable(), "${TMP}", "--state-dir", str(out / name)] for name in "tpr"}
            runs = [
                ("ref_edit", edit, (script, reference, "reference", "f.txt")),
                ("txt_edit", edit, (script, states["t"], "seed", "f.txt")),
                ("py_edit", edit, (script, states["p"], "seed", "f.py")),
                ("ref_read", read, (script, reference, READ_REFERENCE, "read_text_file")),
                ("our_read", read, (script, states["r"], READ_FSGUARD, "read_file")),
            ]
            shift = round_number % len(runs)
            for key, measure, given in runs[shift:] + runs[:shift]:
                os.sync()
                medians[key].append(measure(*given, out / f"{key}.json", args))
        (work / "served").mkdir()
        idle = [fsguard_executable(), str(work / "served"), "--state-dir", str(work / "state-idle")]
        # One unmeasured start stores fsguard's tool list (as the first start after an install does); then the
        # two servers alternate, spawn by spawn, so the box's drift hits both alike.
        cold_start(idle, 1)
        ours, one = [], []
        for _ in range(args.starts):
            ours.append(cold_start(idle, 1))
            one.append(cold_start([sys.executable, str(ONE_TOOL)], 1))
        our_start, our_rss = (statistics.median(figure[i] for figure in ours) for i in (0, 1))
        one_start, one_rss = (statistics.median(figure[i] for figure in one) for i in (0, 1))
    ref_edit, txt_edit, py_edit, ref_read, our_read = (statistics.median(medians[key]) for key in medians)
    rows = [
        Row("edit one line of 2,000, new text every call (.txt)", txt_edit, ref_edit, "reference", 0.9),
        Row("the same edit of a .py file", py_edit, txt_edit, "fsguard .txt edit", 1.1),
        Row("whole read of a 100,000-byte file", our_read, ref_read, "reference", 0.8),
        Row("cold start to the tools/list answer", our_start, one_start, "one-tool MCPServer", 1.1),
        Row("RSS at that moment (idle)", our_rss, one_rss, "one-tool MCPServer", 1.1, "MiB"),
    ]
    print()
    print(
        f"n={args.n}, warmup={args.warmup}, one call at a time over stdio, median of {args.rounds} alternating rounds' "
        f"medians; cold starts: median of {args.starts}, alternating with the baseline, after one unmeasured start"
    )
    print()
    print("| task | fsguard | baseline | ratio | target |")
    print("| --- | ---: | ---: | ---: | --- |")
    for row in rows:
        print(row.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
