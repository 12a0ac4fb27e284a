"""The tail of a log in-process, with the CPU's caches warm and after other work has evicted them: what a call's
memory footprint costs, apart from the work it does.

Over stdio a server sleeps between calls while its client (and anything else) runs, so a call seldom finds its
code and data in the caches. This script times ``server.call_tool`` (no transport, no client process) for
fsguard's tail of a log and for the floor (``floor_server.py --on-loop``: a one-tool MCPServer answering as many
characters with no file work), each first back to back ("warm"), then with ``--evict-mb`` MB of memory written
before every call ("evicted"), the rounds of the two servers in turn. The difference between the two columns is
what the call pays for the memory it touches; the work itself is the warm column.

    .venv/bin/python benchmarks/cold_calls.py [--calls 500] [--evict-mb 8] [--log-mb 50]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio

from scale_data import TAIL_LINES

Call = Callable[[], Awaitable[object]]


def fsguard_tail(work: Path, log_mb: int) -> Call:
    """fsguard's read_file tail of a generated log, in-process."""
    from fsguard.config import Settings
    from fsguard.server import build_server

    root = work / "root"
    root.mkdir()
    log = root / "big.log"
    line = b"2026-12-06T10:00:00Z worker-07 some payload text to fill up the line\n"
    with log.open("wb") as out:
        out.write(line * (log_mb * 1_000_000 // len(line)))
        out.write("".join(f"tail line {i:03d}\n" for i in range(1, TAIL_LINES + 1)).encode())
    server = build_server(Settings(roots=(root,), state_dir=work / "state", transport="stdio"))
    args = {"path": str(log), "mode": "tail", "max_lines": TAIL_LINES}
    return lambda: server.call_tool("read_file", args)


def floor_text() -> Call:
    """The floor's tool answering as many characters as the tail holds, in-process."""
    sys.argv.append("--on-loop")  # floor_server picks its tool by this flag when imported
    import floor_server

    size = TAIL_LINES * len("tail line 001\n")
    return lambda: floor_server.server.call_tool("text", {"size": size})


async def timed(calls: dict[str, Call], rounds: int, evict: bytearray | None) -> dict[str, float]:
    """Median µs of each call over ``rounds`` rounds taken in turn, ``evict`` written before every call."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            if evict is not None:
                evict[::64] = bytes(len(evict[::64]))  # one byte in every cache line
            started = time.perf_counter()
            await call()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(values) * 1e6 for name, values in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=500, help="timed calls of each server per column (default 500)")
    parser.add_argument("--evict-mb", type=int, default=8, help="memory written before each evicted call (default 8)")
    parser.add_argument("--log-mb", type=int, default=50, help="size of the generated log (default 50 MB)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fsguard-cold-calls-") as scratch:
        calls = {"fsguard tail": fsguard_tail(Path(scratch), args.log_mb), "floor": floor_text()}

        async def run() -> tuple[dict[str, float], dict[str, float]]:
            await timed(calls, 300, None)  # the first calls build the tools and fill the caches it keeps
            warm = await timed(calls, args.calls, None)
            evicted = await timed(calls, args.calls, bytearray(args.evict_mb << 20))
            return warm, evicted

        warm, evicted = anyio.run(run)
    print("| call | warm µs | evicted µs | evicted less warm µs |")
    print("| --- | ---: | ---: | ---: |")
    for name in calls:
        print(f"| {name} | {warm[name]:.0f} | {evicted[name]:.0f} | {evicted[name] - warm[name]:.0f} |")
    print(f"\nmedian of {args.calls} calls each, in-process, taken in turn; evicted: {args.evict_mb} MB written first")
    return 0


if __name__ == "__main__":
    sys.exit(main())
