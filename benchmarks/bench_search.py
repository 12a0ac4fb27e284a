"""Content search for a common word over a large real tree: fsguard vs raw ``rg --json``, side by side.

The tree is the running Python's standard library directory (tens of thousands of files). Four figures:

* raw ripgrep: ``rg --json -i <word> <tree>`` run as a process, output discarded (what fsguard builds on);
* fsguard ``search_files`` over stdio (through the harness's ``bench_stdio.py``: MCP framing included), as an
  agent calls it: content search with the default cap (the first 1,000 matches, every match counted), and
  count_only;
* fsguard's pure-Python fallback engine, in-process, the same content search.

    .venv/bin/python benchmarks/bench_search.py [-n 20] [--rounds 3] [--word import]
"""

from __future__ import annotations

import argparse
import json
import shlex
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_read import fsguard_executable, harness_script, run_bench
from fsguard.core.ignore import WalkOptions
from fsguard.core.search import ContentRequest, ripgrep_path, search_content


def timed(runs: int, action: Callable[[], object]) -> list[float]:
    """Milliseconds of each of ``runs`` calls of ``action`` (after one warm-up call)."""
    action()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def stdio_median(script: Path, tree: Path, runs: int, call: dict[str, object]) -> float:
    """Median ms of ``search_files(**call)`` against a fresh fsguard over stdio, measured by the harness."""
    with tempfile.TemporaryDirectory(prefix="fsguard-bench-search-") as scratch:
        options = ["-n", str(runs), "--warmup", "2", "--tool", "search_files", "--args", json.dumps(call)]
        server = [fsguard_executable(), str(tree), "--state-dir", str(Path(scratch) / "state")]
        report = run_bench(script, "fsguard", options, server, Path(scratch) / "search.json")
        return float(report["ops"][0]["median_ms"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=20, help="timed runs per figure (default 20)")
    parser.add_argument("--word", default="import", help="word to search for (default: import)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds of every figure (default 3)")
    args = parser.parse_args()
    tree = Path(sysconfig.get_paths()["stdlib"])
    rg = ripgrep_path()
    script = harness_script()
    if rg is None or not script.is_file():
        print("needs the ripgrep wheel and the harness (run.sh)", file=sys.stderr)
        return 2
    print(f"$ {shlex.join([sys.executable, *sys.argv])}")
    print("fsguard over stdio: run.sh bench -n N --warmup 2 --tool search_files --args '{...}' -- fsguard TREE")
    files = sum(1 for p in tree.rglob("*") if p.is_file())
    print(f"tree: {tree} ({files:,} files)")

    raw = [str(rg), "--json", "-i", "--no-require-git", args.word, str(tree)]
    found = search_content(tree, ContentRequest(pattern=args.word, max_results=0, engine="ripgrep"), WalkOptions())
    calls = {
        "content": {"pattern": args.word, "path": str(tree), "include_content": True},
        "count": {"pattern": args.word, "path": str(tree), "count_only": True},
    }
    # The shared 2-core box drifts by tens of percent over a minute: the figures are taken in alternating rounds,
    # and each is the median of its rounds' medians, so rg and fsguard see the same drift.
    rounds: dict[str, list[float]] = {"raw": [], "content": [], "count": []}
    for _ in range(args.rounds):
        rounds["raw"].append(statistics.median(timed(args.n, lambda: subprocess.run(raw, stdout=subprocess.DEVNULL))))
        for label, call in calls.items():
            rounds[label].append(stdio_median(script, tree, args.n, call))
    python_ms = timed(
        max(3, args.n // 5),
        lambda: search_content(tree, ContentRequest(pattern=args.word, engine="python"), WalkOptions()),
    )
    medians = {label: statistics.median(values) for label, values in rounds.items()}
    rows = [
        ("raw rg --json (process, output discarded)", medians["raw"]),
        ("fsguard search_files (first 1,000 matches, exact total), over stdio", medians["content"]),
        ("fsguard search_files count_only, over stdio", medians["count"]),
        ("fsguard pure-Python engine, same content search, in-process", statistics.median(python_ms)),
    ]
    print(f"\nsearch for {args.word!r}: {found.total_matches:,} matches in {found.files_with_matches:,} files")
    print(f"medians of {args.rounds} alternating rounds of {args.n} runs each\n")
    print("| what | median ms | / raw rg |")
    print("| --- | ---: | ---: |")
    for label, median in rows:
        print(f"| {label} | {median:.1f} | {median / rows[0][1]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
