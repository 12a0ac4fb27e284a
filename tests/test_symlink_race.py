"""Containment against a racing local process: a directory and a symlink leaving the root swap places nonstop.

A swapper process exchanges ``root/swap`` (a real tree) with ``root/swaplink`` (an absolute symlink to
``outside/``, a sentinel tree with the same names) by ``renameat2(RENAME_EXCHANGE)``, as fast as it can,
while one client runs every mutating tool (and the read-only ones) on paths under ``swap/``, round after
round, in both protocol eras. At any instant ``swap`` is either the tree or the link, so a server that
resolves a path string twice between check and act ends up writing, deleting, moving or reading outside.

Afterwards the sentinel tree must be identical by lstat (type, mode, size, mtime, inode) and by content, no
temporary file may have appeared outside the root, no result may carry outside content (a marker string,
or the content_hash of an outside file), nothing from outside may have reached the root or the state dir,
and every refusal must carry a specific code (never ``internal_error`` or the generic ``error``).

The second test races the final component: ``final.txt`` (a file) swaps with ``finallink`` (an absolute
link to ``outside/secret.txt``) while writes, edits, copies, deletes, undo/restore, reads and get_file_info
work on ``final.txt``; the swapper puts back a deleted file or link so the race never dies out. The secret
must stay byte- and lstat-identical and must never be read: not in a result, the root or a backup.

Both tests check that the race really ran (swap count, successes and refusals), so neither can pass
vacuously. Every wait is bounded; nothing sleeps; the swapper is always stopped.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import select
import stat
import subprocess
import sys
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, error_code, structured

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        sys.platform != "linux" or not hasattr(ctypes.CDLL(None), "renameat2"), reason="needs Linux renameat2"
    ),
]

MARKER = "OUTSIDE-SENTINEL"
DIRS = 4
FILES = 5
CALLS = 1200  # tool calls per era in the tree race: each of its 32 steps about 37 times
FINAL_CALLS = 500  # tool calls per era in the final-component race
WORKLOAD_S = 150  # bound on one era's workload; a hang fails instead of blocking the suite
SWAPPER_LIMIT_S = 180  # the swapper stops by itself after this long, whatever happens to the test
SWAPPER_WAIT_S = 30
MIN_SWAPS = 1000
INSIDE = "line 1\nalpha\n"
# Specific refusals a race may legitimately produce; internal_error and the generic "error" are bugs. Every
# argument sent is valid and every name has the same type inside and outside, so invalid_params is not here.
ALLOWED_CODES = frozenset(
    {
        "access_denied",
        "not_found",
        "not_a_directory",
        "is_directory",
        "already_exists",
        "stale_edit",
        "external_change",
        "no_match",
        "undo_conflict",
        "nothing_to_undo",
    }
)

# Runs in its own process, pinned to CPU 1: exchanges two names in one directory until stdin closes or the
# limit passes, then prints its counts. kind "file": every 256 exchanges it checks that one name is a link
# and the other is not, and puts back whatever a delete or a write took away.
SWAPPER = r"""
import ctypes, os, stat, sys, threading, time

root, a, b, kind, target, limit = sys.argv[1:7]
a, b = a.encode(), b.encode()
cpus = sorted(os.sched_getaffinity(0))
if len(cpus) > 1:
    os.sched_setaffinity(0, {cpus[1]})
renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
renameat2.restype = ctypes.c_int
fd = os.open(root, os.O_PATH | os.O_DIRECTORY)
stop = threading.Event()


def wait_for_eof():
    sys.stdin.buffer.read()
    stop.set()


def look(name):
    try:
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    return "link" if stat.S_ISLNK(mode) else "other"


def put(name, as_link):
    spare = b".swapper-spare"
    try:
        os.unlink(spare, dir_fd=fd)
    except FileNotFoundError:
        pass
    if as_link:
        os.symlink(target, spare, dir_fd=fd)
    else:
        made = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644, dir_fd=fd)
        os.write(made, b"inside\nalpha\n")
        os.close(made)
    os.rename(spare, name, src_dir_fd=fd, dst_dir_fd=fd)


def repair():
    have = [look(a), look(b)]
    if have.count("link") == 1 and None not in have:
        return 0
    try:
        if have[0] is None:
            put(a, have[1] != "link")
        elif have[1] is None or have[0] == have[1]:
            put(b, have[0] != "link")
    except OSError:
        pass
    return 1


threading.Thread(target=wait_for_eof, daemon=True).start()
swaps = errors = repairs = 0
deadline = time.monotonic() + float(limit)
print("ready", flush=True)
while not stop.is_set() and time.monotonic() < deadline:
    for _ in range(256):
        if renameat2(fd, a, fd, b, 2) == 0:
            swaps += 1
        else:
            errors += 1
    if kind == "file":
        repairs += repair()
print(swaps, errors, repairs, flush=True)
"""

# An entry under outside/ as seen by lstat: (type, mode, size, mtime_ns, inode, sha256 or link target).
Entry = tuple[str, int, int, int, int, str | None]


def fnv1a(data: bytes) -> str:
    """The content_hash fsguard reports: FNV-1a 32-bit, 8 lowercase hex digits."""
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


def snapshot(top: Path) -> dict[str, Entry]:
    """Every entry under ``top`` (and ``top`` itself as "."), by lstat, with a sha256 of each file."""
    tree: dict[str, Entry] = {}
    for path in [top, *sorted(top.rglob("*"))]:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            kind, detail = "link", str(path.readlink())
        elif stat.S_ISDIR(info.st_mode):
            kind, detail = "dir", None
        else:
            kind, detail = "file", hashlib.sha256(path.read_bytes()).hexdigest()
        name = path.relative_to(top).as_posix()
        tree[name] = (kind, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ino, detail)
    return tree


def differences(before: dict[str, Entry], after: dict[str, Entry]) -> list[str]:
    """Entries added, removed or changed, as short readable lines."""
    lines = [f"removed {name}" for name in sorted(before.keys() - after.keys())]
    lines += [f"added {name}" for name in sorted(after.keys() - before.keys())]
    lines += [
        f"changed {name}: {before[name]} -> {after[name]}"
        for name in sorted(before.keys() & after.keys())
        if before[name] != after[name]
    ]
    return lines


def stray_temp_files(tmp_path: Path) -> list[str]:
    """Names containing fsguard's temp mark anywhere in tmp_path except under root/ and state/."""
    found = []
    for top, dirs, files in os.walk(tmp_path):
        if Path(top) == tmp_path:
            dirs[:] = [d for d in dirs if d not in ("root", "state")]
        found += [str(Path(top, name)) for name in dirs + files if ".fsguard-tmp-" in name]
    return found


def carriers_of(top: Path, secret: bytes) -> list[str]:
    """Entries under ``top`` (symlinks not followed) with ``secret`` in their name, or in their bytes if files."""
    found = []
    for folder, dirs, files in os.walk(top):
        for name in dirs + files:
            path = Path(folder, name)
            if secret.decode() in name or (path.is_file() and not path.is_symlink() and secret in path.read_bytes()):
                found.append(str(path))
    return found


@dataclass
class Swapper:
    """What the swapper process reported when it stopped."""

    swaps: int = 0
    errors: int = 0
    repairs: int = 0


def first_line(fd: int, timeout: float) -> bytes:
    """Bytes read from ``fd`` up to the first newline, end of file or ``timeout`` seconds."""
    line = b""
    deadline = time.monotonic() + timeout
    while not line.endswith(b"\n"):
        ready, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0))
        chunk = os.read(fd, 1) if ready else b""
        if not chunk:
            break
        line += chunk
    return line


@contextmanager
def swapping(directory: Path, a: str, b: str, *, kind: str, target: Path) -> Iterator[Swapper]:
    """Run the swapper on ``directory/a`` ↔ ``directory/b`` for the duration of the block; always stops it."""
    report = Swapper()
    process = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, str(directory), a, b, kind, str(target), str(SWAPPER_LIMIT_S)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    started = b""
    try:
        started = first_line(process.stdout.fileno(), SWAPPER_WAIT_S)
        if started == b"ready\n":
            yield report
    finally:
        try:
            out, err = process.communicate(timeout=SWAPPER_WAIT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            out, err = process.communicate()
    assert started == b"ready\n", f"the swapper did not start: {err.decode()}"
    assert process.returncode == 0, err.decode()
    report.swaps, report.errors, report.repairs = (int(n) for n in out.split())


@dataclass
class Tally:
    """Every call's outcome: successes per tool, refusal codes per tool, and any result carrying a secret."""

    hashes: list[str]  # content hashes of outside files, matched as whole 8-hex-digit tokens (besides MARKER)
    calls: int = 0
    ok: Counter[str] = field(default_factory=Counter)
    codes: Counter[tuple[str, str]] = field(default_factory=Counter)
    leaks: list[str] = field(default_factory=list)

    def record(self, name: str, result: CallToolResult) -> dict[str, Any] | None:
        """Count the result; return its structuredContent when it succeeded."""
        self.calls += 1
        dumped = result.model_dump_json()
        found = re.search("|".join([MARKER, *(rf"(?<![0-9a-f]){h}(?![0-9a-f])" for h in self.hashes)]), dumped)
        if found:
            self.leaks.append(f"{name}: …{dumped[max(found.start() - 200, 0) : found.end() + 60]}…")
        if result.is_error:
            self.codes[name, error_code(result)] += 1
            return None
        data = structured(result)
        failed = [r for r in data.get("results", []) if r.get("status") == "failed"]
        for entry in failed:
            self.codes[name, str(entry.get("error_code"))] += 1
        if not failed:
            self.ok[name] += 1
        return data

    @property
    def refused(self) -> int:
        return sum(self.codes.values())

    @property
    def succeeded(self) -> int:
        return sum(self.ok.values())

    def unspecific(self) -> dict[tuple[str, str], int]:
        """Refusals whose code is not one a race may legitimately produce, per (step, code)."""
        return {key: count for key, count in self.codes.items() if key[1] not in ALLOWED_CODES}

    def summary(self) -> str:
        by_code = Counter[str]()
        for (_, code), count in self.codes.items():
            by_code[code] += count
        counts = f"{self.calls} calls, {self.succeeded} succeeded"
        return f"{counts}; refusals by code {dict(by_code)}; successes per step {dict(self.ok)}"


Arguments = Callable[[int, int], dict[str, Any]]
FROM_POOL = "<taken from the ids earlier results returned>"

# (step, tool, arguments for directory k in round n). Each round works in one swap/dK; the steps re-create
# what others delete or move away, so a good share of calls has something to do.
TREE_STEPS: list[tuple[str, str, Arguments]] = [
    ("write_file:new", "write_file", lambda k, n: {"path": f"swap/d{k}/new.txt", "content": f"fresh {n}\n"}),
    ("write_file:replace", "write_file", lambda k, n: {"path": f"swap/d{k}/f{n % FILES}.txt", "content": INSIDE}),
    ("edit_file", "edit_file", lambda k, n: {"path": f"swap/d{k}/f1.txt", "old_text": "alpha", "new_text": "beta"}),
    (
        "edit_file:back",
        "edit_file",
        lambda k, n: {"path": f"swap/d{k}/f1.txt", "old_text": "beta", "new_text": "alpha"},
    ),
    (
        "multi_edit",
        "multi_edit",
        lambda k, n: {
            "path": f"swap/d{k}/f2.txt",
            "edits_json": [{"old_text": "line 1", "new_text": "line one"}, {"old_text": "alpha", "new_text": "gamma"}],
        },
    ),
    (
        "multi_edit:back",
        "multi_edit",
        lambda k, n: {
            "path": f"swap/d{k}/f2.txt",
            "edits_json": [{"old_text": "line one", "new_text": "line 1"}, {"old_text": "gamma", "new_text": "alpha"}],
        },
    ),
    ("delete_file:soft", "delete_file", lambda k, n: {"path": f"swap/d{k}/f3.txt"}),
    ("backup:restore_trash", "backup", lambda k, n: {"action": "restore_trash", "sd_id": FROM_POOL}),
    ("delete_file:permanent", "delete_file", lambda k, n: {"path": f"swap/d{k}/f4.txt", "permanent": True}),
    ("backup:undo_last", "backup", lambda k, n: {"action": "undo_last", "file_path": f"swap/d{k}/f{n % FILES}.txt"}),
    ("backup:restore", "backup", lambda k, n: {"action": "restore", "backup_id": FROM_POOL}),
    ("create_directory", "create_directory", lambda k, n: {"path": f"swap/d{k}/sub/deep/er"}),
    (
        "copy_file:file",
        "copy_file",
        lambda k, n: {"source_path": f"swap/d{k}/f0.txt", "dest_path": f"swap/d{k}/sub/c{n % 3}.txt"},
    ),
    ("copy_file:tree", "copy_file", lambda k, n: {"source_path": f"swap/d{k}/sub", "dest_path": f"swap/d{k}/tree"}),
    (
        "delete_file:tree",
        "delete_file",
        lambda k, n: {"path": f"swap/d{k}/tree", "recursive": True, "permanent": n % 2 == 0},
    ),
    (
        "move_file:within",
        "move_file",
        lambda k, n: {"source_path": f"swap/d{k}/f1.txt", "dest_path": f"swap/d{k}/moved.txt"},
    ),
    (
        "move_file:within_back",
        "move_file",
        lambda k, n: {"source_path": f"swap/d{k}/moved.txt", "dest_path": f"swap/d{k}/f1.txt"},
    ),
    ("move_file:out", "move_file", lambda k, n: {"source_path": f"swap/d{k}/f2.txt", "dest_path": f"parked/f{k}.txt"}),
    ("move_file:in", "move_file", lambda k, n: {"source_path": f"parked/f{k}.txt", "dest_path": f"swap/d{k}/f2.txt"}),
    (
        "move_file:dir_within",
        "move_file",
        lambda k, n: {"source_path": f"swap/d{k}/sub", "dest_path": f"swap/d{k}/sub2"},
    ),
    (
        "move_file:dir_within_back",
        "move_file",
        lambda k, n: {"source_path": f"swap/d{k}/sub2", "dest_path": f"swap/d{k}/sub"},
    ),
    ("move_file:dir_out", "move_file", lambda k, n: {"source_path": f"swap/d{k}/sub", "dest_path": f"parked/sub{k}"}),
    ("move_file:dir_in", "move_file", lambda k, n: {"source_path": f"parked/sub{k}", "dest_path": f"swap/d{k}/sub"}),
    (
        "delete_file:dir",
        "delete_file",
        lambda k, n: {"path": f"swap/d{k}/sub", "recursive": True, "permanent": n % 2 == 1},
    ),
    ("project_replace", "project_replace", lambda k, n: {"path": f"swap/d{k}", "find": "alpha", "replace": "delta"}),
    (
        "project_replace:back",
        "project_replace",
        lambda k, n: {"path": f"swap/d{k}", "find": "delta", "replace": "alpha"},
    ),
    (
        "server_info:capture",
        "server_info",
        lambda k, n: {"action": "artifact", "sub_action": "capture", "content": f"art {n}\n"},
    ),
    (
        "server_info:artifact_write",
        "server_info",
        lambda k, n: {"action": "artifact", "sub_action": "write", "path": f"swap/d{k}/a{n}.md"},
    ),
    ("read_file", "read_file", lambda k, n: {"path": f"swap/d{k}/f{n % FILES}.txt"}),
    ("list_directory", "list_directory", lambda k, n: {"path": f"swap/d{k}"}),
    ("get_file_info", "get_file_info", lambda k, n: {"path": f"swap/d{k}/f{n % FILES}.txt"}),
    (
        "search_files",
        "search_files",
        lambda k, n: {"path": f"swap/d{k}", "pattern": "alpha", "include_content": True},
    ),
]
NOT_MUTATING = {"server_info:capture", "read_file", "list_directory", "get_file_info", "search_files"}

FINAL_STEPS: list[tuple[str, str, Arguments]] = [
    ("write_file", "write_file", lambda k, n: {"path": "final.txt", "content": f"inside {n}\nalpha\n"}),
    ("edit_file", "edit_file", lambda k, n: {"path": "final.txt", "old_text": "alpha", "new_text": "beta"}),
    ("read_file", "read_file", lambda k, n: {"path": "final.txt"}),
    ("edit_file:back", "edit_file", lambda k, n: {"path": "final.txt", "old_text": "beta", "new_text": "alpha"}),
    ("get_file_info", "get_file_info", lambda k, n: {"path": "final.txt"}),
    (
        "multi_edit",
        "multi_edit",
        lambda k, n: {"path": "final.txt", "edits_json": [{"old_text": "alpha", "new_text": "gamma"}]},
    ),
    ("project_replace", "project_replace", lambda k, n: {"path": "final.txt", "find": "gamma", "replace": "alpha"}),
    ("backup:undo_last", "backup", lambda k, n: {"action": "undo_last", "file_path": "final.txt"}),
    ("copy_file", "copy_file", lambda k, n: {"source_path": "final.txt", "dest_path": "copy.txt"}),
    ("delete_file:copy", "delete_file", lambda k, n: {"path": "copy.txt", "permanent": True}),
    ("delete_file:soft", "delete_file", lambda k, n: {"path": "final.txt"}),
    ("write_file:create", "write_file", lambda k, n: {"path": "final.txt", "content": INSIDE}),
    ("delete_file:permanent", "delete_file", lambda k, n: {"path": "final.txt", "permanent": True}),
    ("backup:restore", "backup", lambda k, n: {"action": "restore", "backup_id": FROM_POOL}),
]


class Workload:
    """Runs the steps in rotation until ``calls`` calls were made, feeding back the sd_ids and backup_ids."""

    def __init__(self, client: Client, tally: Tally, steps: list[tuple[str, str, Arguments]]) -> None:
        self.client = client
        self.tally = tally
        self.steps = steps
        self.pools: dict[str, deque[str]] = {"sd_id": deque(maxlen=64), "backup_id": deque(maxlen=64)}

    async def run(self, calls: int) -> None:
        index = 0
        while self.tally.calls < calls:
            rounds, slot = divmod(index, len(self.steps))
            index += 1
            step, tool, arguments = self.steps[slot]
            filled = self.fill(arguments(rounds % DIRS, rounds))
            if filled is not None:
                self.keep(self.tally.record(step, await self.client.call_tool(tool, filled)))

    def fill(self, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """The arguments with each FROM_POOL value replaced by the oldest id kept; None when there is none."""
        for key, pool in self.pools.items():
            if arguments.get(key) == FROM_POOL:
                if not pool:
                    return None
                arguments[key] = pool.popleft()
        return arguments

    def keep(self, data: dict[str, Any] | None) -> None:
        """Remember the backup_ids and sd_ids a success returned, for later restores."""
        if data is None:
            return
        for entry in [data, *data.get("results", [])]:
            for key, pool in self.pools.items():
                if isinstance(entry.get(key), str):
                    pool.append(entry[key])


def sentinel_tree(top: Path) -> list[str]:
    """outside/: d0..d3, each with f0..f4.txt, sub/ and a file named by the marker; returns the content hashes."""
    hashes = []
    for k in range(DIRS):
        folder = top / f"d{k}"
        (folder / "sub").mkdir(parents=True)
        for name in [*(f"f{i}.txt" for i in range(FILES)), f"{MARKER}.txt", f"sub/{MARKER}.txt"]:
            data = f"line 1\nalpha {MARKER}\n{MARKER} d{k}/{name}\n".encode()
            (folder / name).write_bytes(data)
            hashes.append(fnv1a(data))
    return hashes


def working_tree(top: Path) -> None:
    """root/swap: the same shape as outside/, with inside content and no marker."""
    for k in range(DIRS):
        folder = top / f"d{k}"
        (folder / "sub").mkdir(parents=True)
        for i in range(FILES):
            (folder / f"f{i}.txt").write_text(INSIDE, encoding="utf-8")
        (folder / "sub" / "s.txt").write_text(INSIDE, encoding="utf-8")


def breaches(
    tally: Tally, swapper: Swapper, before: dict[str, Entry], outside: Path, tmp_path: Path, top_before: set[str]
) -> list[str]:
    """What went wrong, one line each: empty when nothing outside was touched or read and the race really ran."""
    problems = []
    changed = differences(before, snapshot(outside))
    if changed:
        problems.append(f"{len(changed)} outside entries changed: {changed[:12]}")
    if tally.leaks:
        problems.append(f"{len(tally.leaks)} results carried outside content, e.g. {tally.leaks[:2]}")
    stray = stray_temp_files(tmp_path)
    if stray:
        problems.append(f"temp files outside the root: {stray[:10]}")
    appeared = {p.name for p in tmp_path.iterdir()} - top_before - {"state"}
    if appeared:
        problems.append(f"new entries next to the root: {sorted(appeared)}")
    carriers = carriers_of(tmp_path / "root", MARKER.encode()) + carriers_of(tmp_path / "state", MARKER.encode())
    if carriers:
        problems.append(f"{len(carriers)} files in the root or the state dir hold outside content: {carriers[:6]}")
    unspecific = tally.unspecific()
    if unspecific:
        problems.append(f"{sum(unspecific.values())} refusals without a specific code: {unspecific}")
    if swapper.swaps < MIN_SWAPS:
        problems.append(f"the swapper barely ran: {swapper}")
    if tally.succeeded < tally.calls // 10 or tally.refused < tally.calls // 20:
        problems.append(f"the race did not bite both ways: {tally.succeeded} successes, {tally.refused} refusals")
    return problems


def too_few_acted(tally: Tally, minimum: int) -> list[str]:
    """A line when mutating calls succeeded fewer than ``minimum`` times in all.

    The final-component race flips one name 100k times a second, so a call needing that name to be the file
    at three or four syscalls in a row rarely gets through; requiring each tool to succeed would make the test
    flaky (edit_file missed in 4 of 10 runs). The tree race checks each tool reached its acting part.
    """
    acted = sum(count for step, count in tally.ok.items() if step not in NOT_MUTATING)
    return [f"only {acted} mutating calls succeeded (at least {minimum} needed)"] if acted < minimum else []


def unreached(tally: Tally, steps: list[tuple[str, str, Arguments]]) -> list[str]:
    """A line naming the mutating tools that never succeeded (so the race never reached their acting part)."""
    mutating = {tool for step, tool, _ in steps if step not in NOT_MUTATING}
    never = mutating - {step.split(":")[0] for step in tally.ok if step not in NOT_MUTATING}
    return [f"mutating tools that never succeeded: {sorted(never)}"] if never else []


async def test_a_symlink_swap_race_never_touches_anything_outside_the_root(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    hashes = sentinel_tree(outside)
    working_tree(root / "swap")
    (root / "parked").mkdir()
    (root / "swaplink").symlink_to(outside.resolve(), target_is_directory=True)
    before = snapshot(outside)
    top_before = {p.name for p in tmp_path.iterdir()}
    tally = Tally(hashes=hashes)

    with swapping(root, "swap", "swaplink", kind="dir", target=outside.resolve()) as swapper:
        async with connect() as client:
            with anyio.fail_after(WORKLOAD_S):
                await Workload(client, tally, TREE_STEPS).run(CALLS)

    problems = breaches(tally, swapper, before, outside, tmp_path, top_before) + unreached(tally, TREE_STEPS)
    assert not problems, "\n".join([*problems, tally.summary(), f"swapper: {swapper}"])


async def test_a_final_component_swapped_with_an_outside_link_is_never_followed(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = f"{MARKER} secret\nalpha\n".encode()
    (outside / "secret.txt").write_bytes(secret)
    (root / "final.txt").write_text(INSIDE, encoding="utf-8")
    (root / "finallink").symlink_to((outside / "secret.txt").resolve())
    before = snapshot(outside)
    top_before = {p.name for p in tmp_path.iterdir()}
    tally = Tally(hashes=[fnv1a(secret)])

    with swapping(root, "final.txt", "finallink", kind="file", target=(outside / "secret.txt").resolve()) as swapper:
        async with connect() as client:
            with anyio.fail_after(WORKLOAD_S):
                await Workload(client, tally, FINAL_STEPS).run(FINAL_CALLS)

    problems = breaches(tally, swapper, before, outside, tmp_path, top_before) + too_few_acted(tally, 50)
    assert not problems, "\n".join([*problems, tally.summary(), f"swapper: {swapper}"])
