"""Content search for a common word over a large real tree: fsguard vs raw ``rg --json``, side by side.

The tree is the running Python's standard library directory (thousands of files). Three figures:

* raw ripgrep: ``rg --json -i <word> <tree>`` run as a process, output discarded (what fsguard builds on);
* fsguard ``search_files`` over stdio (through the harness's ``bench_stdio.py``: MCP framing included),
  with ``max_results`` large enough that nothing is cut;
* fsguard's pure-Python fallback engine, in-process, same query.

    .venv/bin/python benchmarks/bench_search.py [-n 20] [--word import]
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

from bench_read import fsguard_executable, harness_script
from fsguard.core.ignore import WalkOptions
from fsguard.core.search import ripgrep_path, search_content


def timed(runs: int, action: Callable[[], object]) -> list[float]:
    """Milliseconds of each of ``runs`` calls of ``action`` (after one warm-up call)."""
    action()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=20, help="timed runs per figure (default 20)")
    parser.add_argument("--word", default="import", help="word to search for (default: import)")
    args = parser.parse_args()
    tree = Path(sysconfig.get_paths()["stdlib"])
    rg = ripgrep_path()
    script = harness_script()
    if rg is None or not script.is_file():
        print("needs the ripgrep wheel and the harness (run.sh)", file=sys.stderr)
        return 2
    print(f"$ {shlex.join([sys.executable, *sys.argv])}")
    files = sum(1 for p in tree.rglob("*") if p.is_file())
    print(f"tree: {tree} ({files:,} files)")

    raw = [str(rg), "--json", "-i", "--no-require-git", args.word, str(tree)]
    raw_ms = timed(args.n, lambda: subprocess.run(raw, stdout=subprocess.DEVNULL, check=False))
    found = search_content(tree, args.word, WalkOptions(), max_results=10**7, engine="ripgrep")
    python_ms = timed(
        max(3, args.n // 5),
        lambda: search_content(tree, args.word, WalkOptions(), max_results=10**7, engine="python"),
    )
    with tempfile.TemporaryDirectory(prefix="fsguard-bench-search-") as scratch:
        out = Path(scratch) / "search.json"
        call = json.dumps({"pattern": args.word, "path": str(tree), "include_content": True, "count_only": True})
        command = [
            "bash",
            str(script),
            "bench",
            "-n",
            str(args.n),
            "--warmup",
            "2",
            "--tool",
            "search_files",
            "--args",
            call,
            "--json",
            str(out),
            "--timeout",
            "120",
            "--",
            fsguard_executable(),
            str(tree),
            "--state-dir",
            str(Path(scratch) / "state"),
            "--max-search-results",
            str(10**7),
        ]
        print(f"$ {shlex.join(command)}")
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, timeout=1800)
        op = json.loads(out.read_text())["ops"][0]
    rows = [
        ("raw rg --json (process, output discarded)", statistics.median(raw_ms)),
        ("fsguard search_files count_only, over stdio", float(op["median_ms"])),
        ("fsguard pure-Python engine, in-process", statistics.median(python_ms)),
    ]
    print(f"\nsearch for {args.word!r}: {found.total_matches:,} matches in {len(found.counts):,} files\n")
    print("| what | median ms | / raw rg |")
    print("| --- | ---: | ---: |")
    for label, median in rows:
        print(f"| {label} | {median:.1f} | {median / rows[0][1]:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
