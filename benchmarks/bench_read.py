"""read_file on a 100,000-byte file: fsguard against the reference TypeScript server, over stdio.

Runs the external harness's bench_stdio.py (``run.sh bench``) twice in one go, once per server, and
prints a Markdown table side by side. The harness is ``$FSGUARD_HARNESS`` (run.sh, or its folder),
else ``<repo>/../shared/harness/run.sh``.

    .venv/bin/python benchmarks/bench_read.py [-n 300] [--warmup 20]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
FILE_BYTES = 100_000
GEN = f"${{TMP}}/f100k.txt={FILE_BYTES}"
READ_ARGS = '{"path":"${TMP}/f100k.txt"}'
# The generated file has 2,000 lines; fsguard cuts whole reads at 300, so ask for every line to compare
# like for like with the reference server, which always returns the whole file.
WHOLE_ARGS = '{"path":"${TMP}/f100k.txt","start_line":1,"end_line":2000}'
TIMEOUT_S = 600


@dataclass(frozen=True)
class Run:
    """One benchmark run's figures, from bench_stdio.py's --json output."""

    server: str
    tool: str
    median_ms: float
    p95_ms: float
    p99_ms: float
    calls_per_s: float
    initialize_ms: float
    rss_mib: float | None
    response_bytes: float

    @classmethod
    def from_json(cls, label: str, data: dict[str, Any]) -> Run:
        op = data["ops"][0]
        info = data.get("serverInfo", {})
        rss_kb = data.get("server_rss_kb")
        return cls(
            server=f"{label} ({info.get('name', '?')} {info.get('version', '?')})",
            tool=str(op["op"]),
            median_ms=float(op["median_ms"]),
            p95_ms=float(op["p95_ms"]),
            p99_ms=float(op["p99_ms"]),
            calls_per_s=float(op.get("calls_per_s", float("nan"))),
            initialize_ms=float(data.get("initialize_ms", float("nan"))),
            rss_mib=rss_kb / 1024 if isinstance(rss_kb, int) else None,
            response_bytes=float(op.get("response_bytes_median", 0)),
        )


def harness_script() -> Path:
    """run.sh of the external harness."""
    configured = os.environ.get("FSGUARD_HARNESS")
    if configured:
        script = Path(configured).expanduser()
        return script / "run.sh" if script.is_dir() else script
    return REPO_ROOT.parent / "shared" / "harness" / "run.sh"


def fsguard_executable() -> str:
    """The fsguard console script next to this interpreter, else the one on PATH."""
    beside = Path(sys.executable).parent / "fsguard"
    if beside.is_file():
        return str(beside)
    found = shutil.which("fsguard")
    if found is None:
        raise SystemExit("fsguard is not installed in this environment: run `make install` first")
    return found


def reference_command(script: Path) -> list[str]:
    """The reference server's command line, as ``run.sh reference-server`` prints it."""
    proc = subprocess.run(
        ["bash", str(script), "reference-server"], capture_output=True, text=True, check=True, timeout=TIMEOUT_S
    )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if not lines:
        raise SystemExit(f"run.sh reference-server printed nothing; stderr:\n{proc.stderr[-2000:]}")
    return shlex.split(lines[-1])


@dataclass(frozen=True)
class Target:
    """A server command and the call to time on it."""

    label: str
    tool: str
    arguments: str
    command: list[str]


def run_bench(script: Path, label: str, options: list[str], server: list[str], out: Path) -> dict[str, Any]:
    """``run.sh bench <options> --json <out> -- <server>``, echoed; its JSON report, or exit with its output."""
    command = ["bash", str(script), "bench", *options, "--json", str(out), "--", *server]
    print(f"$ {shlex.join(command)}", flush=True)
    proc = subprocess.run(command, capture_output=True, text=True, check=False, timeout=TIMEOUT_S)
    sys.stdout.write("".join(f"    {line}\n" for line in proc.stdout.splitlines()))
    if proc.returncode != 0 or not out.is_file():
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"{label}: benchmark failed (exit {proc.returncode})")
    report: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return report


def bench(script: Path, target: Target, out: Path, n: int, warmup: int) -> Run:
    """One bench_stdio.py run of the target's call."""
    options = ["-n", str(n), "--warmup", str(warmup), "--gen", GEN, "--tool", target.tool, "--args", target.arguments]
    return Run.from_json(target.label, run_bench(script, target.label, options, target.command, out))


def fmt(value: float | None, digits: int = 2) -> str:
    """A table cell: ``-`` for a missing or NaN value."""
    return "-" if value is None or value != value else f"{value:.{digits}f}"


def table(runs: list[Run], reference: Run) -> str:
    """The runs as a Markdown table; the last column is each median over the reference median."""
    header = (
        "| server | tool | median ms | p95 ms | p99 ms | calls/s | initialize ms | RSS MiB | response KiB "
        "| median / reference |"
    )
    rows = [header, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for run in runs:
        ratio = run.median_ms / reference.median_ms if reference.median_ms else float("nan")
        rows.append(
            f"| {run.server} | {run.tool} | {fmt(run.median_ms)} | {fmt(run.p95_ms)} | {fmt(run.p99_ms)} "
            f"| {fmt(run.calls_per_s, 0)} | {fmt(run.initialize_ms, 0)} | {fmt(run.rss_mib, 0)} "
            f"| {fmt(run.response_bytes / 1024, 1)} | {fmt(ratio)}x |"
        )
    return "\n".join(rows)


def start(
    doc: str | None, unit: str, more: Callable[[argparse.ArgumentParser], object] | None = None
) -> tuple[argparse.Namespace, Path] | None:
    """Parse -n/--warmup (and what ``more`` adds), find the harness and print the command line; None when the harness
    is missing."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=300, help=f"measured {unit} per server (default 300)")
    parser.add_argument("--warmup", type=int, default=20, help=f"unmeasured {unit} first (default 20)")
    if more is not None:
        more(parser)
    args = parser.parse_args()
    script = harness_script()
    if not script.is_file():
        print(f"harness not found: {script}. Set FSGUARD_HARNESS to its run.sh.", file=sys.stderr)
        return None
    print(f"$ {shlex.join([sys.executable, *sys.argv])}")
    return args, script


def main() -> int:
    started = start(__doc__, "calls")
    if started is None:
        return 2
    args, script = started
    with tempfile.TemporaryDirectory(prefix="fsguard-bench-") as scratch:
        work = Path(scratch)
        fsguard = [fsguard_executable(), "${TMP}", "--state-dir", str(work / "state")]
        targets = [
            Target("fsguard, default read (first 300 lines + hint)", "read_file", READ_ARGS, fsguard),
            Target("fsguard, whole file (start_line=1 end_line=2000)", "read_file", WHOLE_ARGS, fsguard),
            # The smallest server the Python SDK allows: what any Python server pays for the transport.
            Target(
                "Python SDK minimal server (harness py_min_server.py)",
                "read_text_file",
                READ_ARGS,
                [sys.executable, str(script.parent / "py_min_server.py"), "${TMP}"],
            ),
            Target("reference TypeScript server", "read_text_file", READ_ARGS, [*reference_command(script), "${TMP}"]),
        ]
        runs = [bench(script, t, work / f"run{i}.json", args.n, args.warmup) for i, t in enumerate(targets)]
    print()
    print(f"read of a {FILE_BYTES:,}-byte file (50-byte lines), n={args.n}, warmup={args.warmup}, concurrency 1")
    print()
    print(table(runs, runs[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
