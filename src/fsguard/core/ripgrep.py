"""The ripgrep engine of content search: rg walks the tree itself, with flags that give the walk of
:func:`fsguard.core.ignore.walk_files`.

Two runs. The first, ``--count-matches``, walks and counts: it names every text file with a match (binary
files, with a NUL byte anywhere, are left out) and its output stays small however many matches there are. The
second, ``--json``, reads only the first of those files in walk order, as many as ``max_results`` matches need,
for lines, columns and context.

The walk flags: only ``.gitignore`` files (``--no-require-git``; none from above rg's working directory,
globally, ``.git/info/exclude``, ``.ignore`` or ``.rgignore``); hidden names and VCS directories excluded by
override globs rather than by ``--hidden`` being off, because a ``.gitignore`` whitelist (``!.github``) would
otherwise bring a hidden entry back; ``--max-filesize``. A search below ``rules_from`` (the server root) runs
from there, narrowed to the searched directory by an ``--ignore-file``, so the ``.gitignore`` files on the way
apply as they do in the tree. Include globs are checked in Python on the output: ``-g`` globs would override
the ``.gitignore`` rules. Name-only globs also narrow the walk, as a file type, which filters after them.
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fsguard.core.beneath import Beneath
from fsguard.core.ignore import VCS_DIRS, WalkOptions, gitignore_top, glob_matcher

# Per file with matches, in walk order: (path, match count, [(line number, byte spans)], the lines by number).
# Files past the first ``max_results`` matches come with their count only.
Hit = tuple[str, int, Sequence[tuple[int, list[tuple[int, int]]]], Mapping[int, bytes]]
Progress = Callable[[int], None]
Cwd = Path | int  # where rg starts: a path, or an open directory fd

_POLL_SECONDS = 0.1  # how often a long count run reads what rg wrote, reports progress and can be cancelled
_BATCH_FILES = 500  # paths per --json run: ~50 KB of arguments for typical paths
# ``--count-matches --null --crlf`` output: ./path NUL count CR LF, where a path may hold anything but NUL
_COUNT_RECORD = re.compile(rb"\./([^\0]*)\0(\d+)\r\n")
_NO_LINES: Mapping[int, bytes] = MappingProxyType({})
_SIMPLE_NAME_GLOB = re.compile(r"[^/{}\[\]\\,:!]+")  # read the same by fnmatch and ripgrep's globset


class RipgrepFailed(Exception):
    """rg could not start, or stopped with an error before finishing."""


def ripgrep_path() -> Path | None:
    """The ``rg`` of the ripgrep wheel next to the interpreter, else ``rg`` on PATH, else None."""
    bundled = Path(sys.executable).parent / "rg"
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return bundled
    found = shutil.which("rg")
    return Path(found) if found else None


def walk_flags(options: WalkOptions, below: tuple[str, ...] = ()) -> list[str]:
    """The rg flags whose walk is :func:`fsguard.core.ignore.walk_files` (include globs aside), for a walk of the
    directory ``below`` rg's working directory: hidden and VCS names are left out under it, not on the way."""
    flags = ["--hidden", "--no-messages"]
    if options.respect_gitignore:
        flags += ["--no-require-git", "--no-ignore-global", "--no-ignore-parent", "--no-ignore-exclude"]
        flags += ["--no-ignore-dot"]
    else:
        flags.append("--no-ignore")
    excluded = sorted(VCS_DIRS) + ([] if options.include_hidden else [".*"])
    under = "".join(_glob_literal(part) + "/" for part in below)
    flags += ["--glob", f"!{under}{'**/' if under else ''}{{{','.join(excluded)}}}"]
    if options.max_file_size is not None:
        flags += ["--max-filesize", str(options.max_file_size)]
    if options.globs and all(_SIMPLE_NAME_GLOB.fullmatch(glob) for glob in options.globs):
        flags += [arg for glob in options.globs for arg in ("--type-add", f"fsguard:{glob}")]
        flags += ["--type", "fsguard"]
    return flags


@dataclass(frozen=True)
class Limits:
    """How much of a search to detail: lines of context, matches, and files counted one by one."""

    context: int
    max_results: int
    max_files: int | None


def ripgrep_hits(
    rg: Path,
    root: Path,
    rust_pattern: str,
    options: WalkOptions,
    limits: Limits,
    *,
    progress: Progress | None,
    beneath: Beneath | None = None,
) -> tuple[list[Hit], tuple[int, int]]:
    """Search the tree at ``root`` with ``rg``: the hits of the first files in walk order (all the files that
    the first ``max_results`` matches need, and at least ``max_files`` files, or every file if it is None), and the
    number of matches and of files with matches in the whole tree.

    Raises:
        RipgrepFailed: rg could not run or reported an error.
    """
    common = [str(rg), "--no-config", "--crlf", "--no-mmap", "-e", rust_pattern]
    wanted = glob_matcher(options.globs) if options.globs else None
    top = gitignore_top(root, options)  # rg walks from there, so the .gitignore files above root apply
    inside = root.relative_to(top).parts
    lead = b"".join(os.fsencode(part) + b"/" for part in inside)
    with _only_below(inside) as narrowing, _pinned(beneath, top) as cwd:
        command = [*common, *walk_flags(options, inside), *narrowing, "--count-matches", "--null", "--", "./"]
        output = _run_spooled(command, cwd, progress)
    # Tens of thousands of records: no per-record work in Python beyond the sort key unless a filter needs it.
    counted: list[tuple[bytes, bytes]] = _COUNT_RECORD.findall(output)
    if lead or wanted is not None:
        counted = [
            (relative[len(lead) :], count)
            for relative, count in counted
            if relative.startswith(lead) and (wanted is None or wanted(os.fsdecode(relative[len(lead) :])))
        ]
    counted.sort(key=_walk_order)
    shown: list[bytes] = []
    needed = limits.max_results
    for relative, count in counted:
        if needed <= 0:
            break
        shown.append(relative)
        needed -= int(count)
    with _pinned(beneath, root) as cwd:
        details = _details(common, cwd, shown, limits.context)
    prefix = str(root).rstrip("/") + "/"
    kept = counted if limits.max_files is None else counted[: max(limits.max_files, len(shown))]
    # One decode for all the names: os.fsdecode per name costs more than the rest of the loop.
    names = b"\0".join(relative for relative, _ in kept).decode(
        sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
    )
    hits: list[Hit] = []
    for (relative, count), name in zip(kept, names.split("\0") if kept else [], strict=True):
        if relative in details:
            found, lines = details[relative]
            if found:  # a file that turned binary since the count is left out
                hits.append((prefix + name, sum(len(spans) for _, spans in found), found, lines))
        else:
            hits.append((prefix + name, int(count), (), _NO_LINES))  # shared empties: no garbage per file
    return hits, (sum(map(int, map(itemgetter(1), counted))), len(counted))


def _details(
    common: list[str], root: Cwd, files: list[bytes], context: int
) -> dict[bytes, tuple[list[tuple[int, list[tuple[int, int]]]], dict[int, bytes]]]:
    """Matches and the lines around them in ``files`` (explicit paths: no walk, no filter)."""
    details: dict[bytes, tuple[list[tuple[int, list[tuple[int, int]]]], dict[int, bytes]]] = {}
    for start in range(0, len(files), _BATCH_FILES):
        batch = [b"./" + file for file in files[start : start + _BATCH_FILES]]
        command: list[str | bytes] = [*common, "--json", "-C", str(context), "--", *batch]
        for message in _run(command, root):
            data = message["data"]
            relative = _data(data["path"]).removeprefix(b"./")
            found, lines = details.setdefault(relative, ([], {}))
            if message["type"] == "end":
                if data.get("binary_offset") is not None:
                    found.clear()
                continue
            number, raw = data["line_number"], _data(data["lines"])
            lines[number] = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1] if raw.endswith(b"\n") else raw
            if spans := [(sub["start"], sub["end"]) for sub in data.get("submatches", [])]:
                found.append((number, spans))
    for found, _lines in details.values():
        found.sort()
    return details


def _data(value: dict[str, str]) -> bytes:
    return value["text"].encode() if "text" in value else base64.b64decode(value["bytes"])


@contextmanager
def _only_below(parts: tuple[str, ...]) -> Iterator[list[str]]:
    """rg flags that leave out everything but the directory ``parts`` below the walk's start: an ``--ignore-file``
    (its patterns are anchored at rg's working directory and weigh less than any ``.gitignore``, so an excluded
    directory stays excluded). No flags for no parts.

    Raises:
        RipgrepFailed: a name holds a line break, which no ignore file can spell.
    """
    if not parts:
        yield []
        return
    if any("\n" in part or "\r" in part for part in parts):
        raise RipgrepFailed("a directory name on the way holds a line break")
    lines, above = [], ""
    for part in parts:
        lines += [f"{above}/*", f"!{above}/{_gitignore_literal(part)}/"]
        above += "/" + _gitignore_literal(part)
    with tempfile.NamedTemporaryFile("w", prefix="fsguard-rg-", suffix=".ignore", encoding="utf-8") as rules:
        rules.write("\n".join(lines) + "\n")
        rules.flush()
        yield ["--ignore-file", rules.name]


def _gitignore_literal(name: str) -> str:
    """``name`` as a path component of an rg ignore pattern (never its first character): glob syntax escaped."""
    escaped = _glob_literal(name)
    trimmed = escaped.rstrip(" ")
    return trimmed + "\\ " * (len(escaped) - len(trimmed))  # trailing spaces would be dropped


def _glob_literal(name: str) -> str:
    """``name`` with the characters of ripgrep's glob syntax (globset) escaped."""
    return re.sub(r"([\\*?\[\]{}])", r"\\\1", name)


def _walk_order(record: tuple[bytes, bytes]) -> bytes:
    """Directories depth first, names byte-wise: the order of ``walk_files``, as NUL sorts before any name byte."""
    return record[0].replace(b"/", b"\0")


@contextmanager
def _pinned(beneath: Beneath | None, directory: Path) -> Iterator[Cwd]:
    """The directory rg starts in, as an fd reached by the pinned walk when there is one (else its path).

    rg itself opens what it walks by name below that point: a search reads, it never writes.
    """
    if beneath is None or not Path("/proc/self/fd").is_dir():
        yield directory
        return
    with beneath.directory(directory) as fd:
        yield fd


def _run(command: list[Any], cwd: Cwd) -> Iterator[Any]:
    """rg's match, context and end messages.

    Raises:
        RipgrepFailed: rg could not start, or exited with status 2 and an error on stderr.
    """
    process = _start(command, cwd, subprocess.PIPE)
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            if raw.startswith((b'{"type":"match"', b'{"type":"context"', b'{"type":"end"')):
                yield json.loads(raw)
    except (OSError, ValueError) as exc:
        raise RipgrepFailed(str(exc)) from exc
    finally:
        _finish(process)


def _run_spooled(command: list[Any], cwd: Cwd, progress: Progress | None) -> bytes:
    """rg's whole output, spooled to a temporary file; every 0.1 s ``progress`` gets the number of files reported
    so far (it may raise to stop rg).

    rg writes each file's result as it finishes, in parallel; through a pipe every write wakes the reader, which
    made a 30,000-file count 40% slower than into a file.

    Raises:
        RipgrepFailed: rg could not start, or exited with status 2 and an error on stderr.
    """
    chunks: list[bytes] = []
    files = 0
    with tempfile.TemporaryFile(prefix="fsguard-rg-") as spool:
        process = _start(command, cwd, spool)
        try:
            offset, finished = 0, False
            while not finished:
                finished = _exited(process, _POLL_SECONDS)
                while chunk := os.pread(spool.fileno(), 1 << 20, offset):
                    offset += len(chunk)
                    files += chunk.count(b"\0")  # one NUL per record
                    chunks.append(chunk)
                if progress is not None:
                    progress(files)
        finally:
            _finish(process)
    return b"".join(chunks)


def _start(command: list[Any], cwd: Cwd, stdout: Any) -> subprocess.Popen[bytes]:
    # An fd is inherited by the child, which enters the very directory it names: no path is resolved again.
    where, keep = (f"/proc/self/fd/{cwd}", (cwd,)) if isinstance(cwd, int) else (cwd, ())
    try:
        return subprocess.Popen(command, cwd=where, stdout=stdout, stderr=subprocess.PIPE, pass_fds=keep)
    except OSError as exc:  # e.g. E2BIG: too many paths for one command line
        raise RipgrepFailed(str(exc)) from exc


def _exited(process: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait up to ``timeout`` seconds for ``process`` to end, waking as soon as it does where pidfd exists."""
    if hasattr(os, "pidfd_open"):
        pidfd = os.pidfd_open(process.pid)
        try:
            select.select([pidfd], [], [], timeout)
        finally:
            os.close(pidfd)
        return process.poll() is not None
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        return False
    return True


def _finish(process: subprocess.Popen[bytes]) -> None:
    """Stop ``process`` if it still runs (the search was cancelled) and raise if it failed."""
    process.kill()
    _, stderr = process.communicate()
    if process.returncode not in (0, 1, -signal.SIGKILL) and stderr.strip():
        raise RipgrepFailed(stderr.decode("utf-8", "replace").strip())
