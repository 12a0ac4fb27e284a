"""read then edit of one line in a 2,000-line file: fsguard against the reference TypeScript server, over stdio.

Runs the external harness's bench_stdio.py (``run.sh bench --scenario read-edit``) once per server and prints
one Markdown table per operation (read, edit, read+edit pair) with the servers side by side:

- fsguard (``--dialect seed``: read_file, then edit_file with old_text/new_text), with its defaults: every edit is
  backed up and the file and its backup are fsynced;
- the Python SDK minimal server (the harness's ``py_min_server.py``, ``--dialect reference``): the floor any
  Python SDK server pays for the transport; its edit is a plain string replace with no diff;
- the reference TypeScript server (``--dialect reference``: read_text_file, then edit_file with edits[]).

The harness is ``$FSGUARD_HARNESS`` (run.sh, or its folder), else ``<repo>/../shared/harness/run.sh``.

    .venv/bin/python benchmarks/bench_edit.py [-n 300] [--warmup 20]
"""

from __future__ import annotations

import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from bench_read import fmt, fsguard_executable, reference_command, run_bench, start

LINES = 2000
OPS = ("read", "edit", "pair")
Dialect = Literal["seed", "reference"]


@dataclass(frozen=True)
class Op:
    """One operation's figures from bench_stdio.py's --json output (all times in ms)."""

    name: str
    median_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float
    per_s: float
    measured_per_s: bool  # False: derived as 1000 / mean (bench_stdio times only the whole loop)

    @classmethod
    def from_json(cls, op: dict[str, Any]) -> Op:
        mean = float(op["mean_ms"])
        measured = "calls_per_s" in op
        return cls(
            name=str(op["op"]),
            median_ms=float(op["median_ms"]),
            p95_ms=float(op["p95_ms"]),
            p99_ms=float(op["p99_ms"]),
            mean_ms=mean,
            per_s=float(op["calls_per_s"]) if measured else (1000.0 / mean if mean else float("nan")),
            measured_per_s=measured,
        )


@dataclass(frozen=True)
class Run:
    """One server's read-edit run: its read, edit and pair figures."""

    server: str
    ops: dict[str, Op]
    initialize_ms: float
    rss_mib: float | None
    file_lines: int | None

    @classmethod
    def from_json(cls, label: str, data: dict[str, Any]) -> Run:
        ops = data["ops"]
        if len(ops) != len(OPS):
            raise SystemExit(f"{label}: expected {len(OPS)} ops (read, edit, pair) in the JSON, got {len(ops)}")
        info = data.get("serverInfo", {})
        rss_kb = data.get("server_rss_kb")
        lines = data.get("file_lines")
        return cls(
            server=f"{label} ({info.get('name', '?')} {info.get('version', '?')})",
            ops={key: Op.from_json(op) for key, op in zip(OPS, ops, strict=True)},
            initialize_ms=float(data.get("initialize_ms", float("nan"))),
            rss_mib=rss_kb / 1024 if isinstance(rss_kb, int) else None,
            file_lines=lines if isinstance(lines, int) else None,
        )


@dataclass(frozen=True)
class Target:
    """A server command and the tool dialect bench_stdio.py speaks to it."""

    label: str
    dialect: Dialect
    command: list[str]


def bench(script: Path, target: Target, out: Path, n: int, warmup: int) -> Run:
    """One bench_stdio.py read-edit run; exits when the file did not keep its size."""
    options = ["--scenario", "read-edit", "--lines", str(LINES), "--dialect", target.dialect]
    options += ["-n", str(n), "--warmup", str(warmup)]
    run = Run.from_json(target.label, run_bench(script, target.label, options, target.command, out))
    if run.file_lines != LINES:
        raise SystemExit(f"{target.label}: the file has {run.file_lines} lines after the run, not {LINES}")
    return run


def table(key: str, runs: list[Run], reference: Run) -> str:
    """One operation across the runs as a Markdown table; the last column is each median over the reference's."""
    unit = "pairs/s" if key == "pair" else "calls/s"
    rows = [
        f"| server | tool | median ms | p95 ms | p99 ms | mean ms | {unit} | median / reference |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    base = reference.ops[key].median_ms
    for run in runs:
        op = run.ops[key]
        ratio = op.median_ms / base if base else float("nan")
        rate = fmt(op.per_s, 0) + ("" if op.measured_per_s else "*")
        rows.append(
            f"| {run.server} | {op.name} | {fmt(op.median_ms)} | {fmt(op.p95_ms)} | {fmt(op.p99_ms)} "
            f"| {fmt(op.mean_ms)} | {rate} | {fmt(ratio)}x |"
        )
    return "\n".join(rows)


def servers(runs: list[Run]) -> str:
    """Start-up and memory of each server, once for all three tables."""
    rows = ["| server | initialize ms | RSS after run MiB |", "| --- | ---: | ---: |"]
    rows.extend(f"| {run.server} | {fmt(run.initialize_ms, 0)} | {fmt(run.rss_mib, 0)} |" for run in runs)
    return "\n".join(rows)


def main() -> int:
    started = start(__doc__, "read+edit pairs")
    if started is None:
        return 2
    args, script = started
    with tempfile.TemporaryDirectory(prefix="fsguard-bench-edit-") as scratch:
        work = Path(scratch)
        targets = [
            Target(
                "fsguard, defaults: a backup and fsyncs per edit",
                "seed",
                [fsguard_executable(), "${TMP}", "--state-dir", str(work / "state")],
            ),
            Target(
                "Python SDK minimal server (harness py_min_server.py)",
                "reference",
                [sys.executable, str(script.parent / "py_min_server.py"), "${TMP}"],
            ),
            Target("reference TypeScript server", "reference", [*reference_command(script), "${TMP}"]),
        ]
        runs = [bench(script, t, work / f"run{i}.json", args.n, args.warmup) for i, t in enumerate(targets)]
    reference = runs[-1]
    titles = {
        "read": "read (fsguard's read_file returns the first 300 lines and a hint; the others all 2,000 lines)",
        "edit": "edit_file of one line (line 1000, alternating between two 50-byte values)",
        "pair": "read then edit, per pair",
    }
    print()
    print(f"read-edit on a {LINES:,}-line file of 50-byte lines (100,000 B), n={args.n}, warmup={args.warmup}, serial")
    for key in OPS:
        print()
        print(f"### {titles[key]}")
        print()
        print(table(key, runs, reference))
    print()
    print("\\* bench_stdio.py times only the whole loop, so per-op throughput is derived as 1000 / mean latency.")
    print()
    print(servers(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
