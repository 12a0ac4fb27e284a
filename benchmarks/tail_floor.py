"""The tail row of bench_scale.py beside its floor, in one run: fsguard's tail of a log, the reference server's, and a
one-tool MCPServer on fsguard's SDK answering about as many characters with no file work at all (floor_server.py over
fsguard's stdio transport): what any fsguard call of that size costs before fsguard does anything.

Three server processes, their calls taken in turn (bench_scale.py's ``interleave``), ``--rounds`` rounds after a
warm-up, first back to back, then with ``--pause-ms`` between calls (an agent's calls come seconds apart, its server's
caches cold by then). What fsguard's own work costs is its time less the floor's.

    .venv/bin/python benchmarks/tail_floor.py [--rounds 200] [--log-mb 200] [--pause-ms 5]
    git worktree add /tmp/before <commit>
    .venv/bin/python benchmarks/tail_floor.py --build before=/tmp/before/src   # that build too, in the same turns
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

from bench_read import fsguard_executable
from bench_scale import FSGUARD_WARM, REFERENCE_WARM, ServerSide, Side, Warm, find_reference, interleave
from scale_data import FULL, TAIL_LINES, Args, Dataset, rows

FLOOR = Path(__file__).resolve().parent / "floor_server.py"
TIMEOUT_S = 60
ANSWER = TAIL_LINES * len("tail line 001\n")  # the floor answers as many characters as the tail holds


class PausedSide(ServerSide):
    """A server whose every timed call comes after a pause."""

    def __init__(self, pause_s: float, command: list[str], tool: str, args: Args, log: Path, warm: Warm) -> None:
        super().__init__(command, tool, args, TIMEOUT_S, log, warm)
        self.pause_s = pause_s

    def again(self) -> float:
        time.sleep(self.pause_s)
        return super().again()


def sides(
    data: Dataset, work: Path, reference: list[str] | None, builds: dict[str, str], pause_s: float
) -> dict[str, Side]:
    """This build, any other ``builds`` (a source tree on PYTHONPATH each: a worktree of the commit before a
    change), the floor and the reference, each calling after ``pause_s``."""
    row = rows(data)["tail"]()
    commands = {
        name: ["env", f"PYTHONPATH={source}", sys.executable, "-m", "fsguard"] for name, source in builds.items()
    }
    commands["fsguard"] = [fsguard_executable()]
    made: dict[str, Side] = {
        name: PausedSide(
            pause_s,
            [*command, "--state-dir", str(work / name), str(data.root)],
            row.tool,
            row.args,
            work / f"{name}.log",
            FSGUARD_WARM,
        )
        for name, command in commands.items()
    }
    floor = [sys.executable, str(FLOOR), "--fsguard-stdio"]
    warm: Warm = ("text", {"size": 1})
    made["floor"] = PausedSide(pause_s, floor, "text", {"size": ANSWER}, work / "floor.log", warm)
    # fsguard's tools run on the event loop: this is the floor under its calls, without the SDK's thread hop.
    on_loop = [*floor, "--on-loop"]
    made["floor on the loop"] = PausedSide(pause_s, on_loop, "text", {"size": ANSWER}, work / "floor-on-loop.log", warm)
    if reference is not None and row.reference is not None:
        tool, args = row.reference
        made["reference"] = PausedSide(
            pause_s, [*reference, str(data.root)], tool, args, work / "reference.log", REFERENCE_WARM
        )
    return made


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=200, help="timed rounds (default 200)")
    parser.add_argument("--log-mb", type=int, default=200, help="size of the generated log (default 200 MB)")
    parser.add_argument("--pause-ms", type=float, default=5, help="pause before each call, second run (default 5)")
    parser.add_argument(
        "--build", action="append", default=[], metavar="NAME=SRC", help="another fsguard build beside (repeatable)"
    )
    args = parser.parse_args()
    builds = dict(item.split("=", 1) for item in args.build)
    if not all(name and name not in ("fsguard", "floor", "floor on the loop", "reference") for name in builds):
        parser.error("--build takes NAME=SRC, NAME not fsguard, floor or reference")
    reference = find_reference(skip=False)
    with tempfile.TemporaryDirectory(prefix="fsguard-tail-floor-") as scratch:
        work = Path(scratch)
        data = Dataset(work / "data", dataclasses.replace(FULL, log_bytes=args.log_mb * 1_000_000))
        data.log  # noqa: B018 - made now, not inside the first timed call
        os.sync()
        time.sleep(2.5)  # past fsguard's racy window, as the bench's settled rows
        names = list(
            sides(data, work, reference, builds, 0.0)
        )  # not started: a side's process begins with its first call
        print("| calls | " + " | ".join(f"{name} ms" for name in names) + " | fsguard less the floor on the loop ms |")
        print("| --- |" + " ---: |" * (len(names) + 1))
        for pause_ms in (0.0, args.pause_ms):
            made = sides(data, work, reference, builds, pause_ms / 1000)
            interleave(list(made.values()), 5, quick_runs=args.rounds)  # every call is quick: 5 warm-up rounds
            ms = {name: side.timing.median_ms for name, side in made.items()}
            label = "back to back" if not pause_ms else f"{pause_ms:g} ms apart"
            cells = " | ".join(f"{value:.3f}" for value in ms.values())
            print(f"| {label} | {cells} | {ms['fsguard'] - ms['floor on the loop']:.3f} |", flush=True)
    print(f"\nmedian of {args.rounds} calls each, taken in turn after 5 rounds of warm-up; a {args.log_mb} MB log")
    return 0


if __name__ == "__main__":
    sys.exit(main())
