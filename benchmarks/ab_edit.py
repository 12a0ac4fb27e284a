"""Two fsguard builds editing (or reading) side by side over stdio, call for call: how much a change moved an edit.

Each build is a source tree given to ``PYTHONPATH`` (a ``git worktree`` of the commit before the change, say);
an empty one means the installed fsguard. Every build serves its own copy of a 2,000-line, 100,000-byte file
(the harness's lines) with its own state dir, and gets the harness's ``--scenario edit --fresh`` edit (line
1,000, new text every call) in turn, the order flipping every call, so a slow spell of this shared VM hits
both alike. The bench against the reference server is ``bench_latency.py``; this one only compares builds.

    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/ab_edit.py before=/tmp/before/src after= [-n 400] [--suffix .py]
    .venv/bin/python benchmarks/ab_edit.py txt@.txt= py@.py=      # one build, a .txt and a .py file
    .venv/bin/python benchmarks/ab_edit.py before=/tmp/before/src after= --read   # whole reads instead
    .venv/bin/python benchmarks/ab_edit.py before=/tmp/before/src after= --tail 100   # its last 100 lines (5 KB)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

LINES = 2000
LINE_BYTES = 50  # the harness's line: "line 01000 xxx…\n"
SKIPPED = 30  # the first calls of each build, while its caches fill


def harness_text() -> str:
    """The harness's generated file (bench_stdio.make_text): fixed-width lines, so edits never shift others."""
    lines = []
    for number in range(1, LINES + 1):
        head = f"line {number:05d} "
        lines.append(head + "x" * (LINE_BYTES - 1 - len(head)) + "\n")
    return "".join(lines)


@dataclass
class Build:
    """One fsguard build, serving its own copy of the file."""

    label: str
    process: subprocess.Popen[bytes]
    path: Path
    original: str
    current: str
    times_ms: list[float] = field(default_factory=list)

    def send(self, message: dict[str, Any]) -> None:
        stdin: IO[bytes] | None = self.process.stdin
        assert stdin is not None
        stdin.write((json.dumps(message) + "\n").encode())
        stdin.flush()

    def receive(self) -> bytes:
        stdout: IO[bytes] | None = self.process.stdout
        assert stdout is not None
        return stdout.readline()

    def call(self, call: int, tool: str, arguments: dict[str, Any]) -> None:
        """One tools/call, timed from the request written to the answer read; a failed call stops the run."""
        started = time.perf_counter()
        self.send(
            {"jsonrpc": "2.0", "id": call, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}
        )
        answer = self.receive()
        self.times_ms.append((time.perf_counter() - started) * 1000)
        if b'"isError":false' not in answer:
            raise SystemExit(f"{self.label}: {tool} failed: {answer[:300]!r}")


def start(label: str, source: str, suffix: str, work: Path) -> Build:
    root = work / label / "root"
    root.mkdir(parents=True)
    path = root / f"f{suffix}"
    text = harness_text()
    path.write_text(text, encoding="utf-8")
    env = dict(os.environ)
    if source:
        env["PYTHONPATH"] = source
    command = [sys.executable, "-m", "fsguard", str(root), "--state-dir", str(work / label / "state")]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env
    )
    original = text.split("\n")[LINES // 2 - 1]
    build = Build(label, process, path, original, original)
    build.send(
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "ab", "version": "1"},
            },
        }
    )
    build.receive()
    build.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return build


def read(build: Build, call: int) -> None:
    """A whole read of the file (as bench_latency's read row: every line, so the answer is the 100,000 bytes)."""
    build.call(call, "read_file", {"path": str(build.path), "start_line": 1, "end_line": LINES})


def tail(lines: int) -> Callable[[Build, int], None]:
    """A read of the file's last ``lines`` lines: a small answer, where a call's fixed costs show."""

    def read_tail(build: Build, call: int) -> None:
        build.call(call, "read_file", {"path": str(build.path), "mode": "tail", "max_lines": lines})

    return read_tail


def edit(build: Build, call: int) -> None:
    new = f"{build.original} v{call}"
    build.call(call, "edit_file", {"path": str(build.path), "old_text": build.current, "new_text": new})
    build.current = new


def _labelled(spec: str, suffix: str) -> tuple[str, str, str]:
    """``LABEL[@SUFFIX]=PYTHONPATH`` as (label, source tree, suffix of the file it edits)."""
    label, _, source = spec.partition("=")
    name, _, own_suffix = label.partition("@")
    return name, source, own_suffix or suffix


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "builds", nargs="+", metavar="LABEL[@SUFFIX]=PYTHONPATH", help="a build: its label and source tree"
    )
    parser.add_argument("-n", type=int, default=400, help="edits per build (default 400)")
    parser.add_argument(
        "--suffix", default=".txt", help="the edited file's suffix unless a build names its own (.py: structure check)"
    )
    parser.add_argument("--read", action="store_true", help="whole reads of the file instead of edits")
    parser.add_argument("--tail", type=int, metavar="LINES", help="reads of the file's last LINES lines instead")
    args = parser.parse_args()
    call_once = tail(args.tail) if args.tail else read if args.read else edit
    with tempfile.TemporaryDirectory(prefix="fsguard-ab-") as scratch:
        builds = [start(*_labelled(spec, args.suffix), Path(scratch)) for spec in args.builds]
        try:
            for call in range(1, args.n + 1):
                for build in builds if call % 2 else builds[::-1]:
                    call_once(build, call)
        finally:
            for build in builds:
                if build.process.stdin is not None:
                    build.process.stdin.close()
                build.process.wait()
    what = f"edit of line {LINES // 2} in {LINES} lines, new text every call"
    if args.tail or args.read:
        what = f"read of the last {args.tail} lines" if args.tail else "whole read"
    print(f"{what}, {args.n} calls each, alternating; the first {SKIPPED} left out\n")
    print("| build | file | median ms | p25 ms | p75 ms |\n| --- | --- | ---: | ---: | ---: |")
    for build in builds:
        kept = build.times_ms[SKIPPED:]
        p25, _, p75 = statistics.quantiles(kept, n=4)
        print(f"| {build.label} | {build.path.name} | {statistics.median(kept):.3f} | {p25:.3f} | {p75:.3f} |")


if __name__ == "__main__":
    main()
