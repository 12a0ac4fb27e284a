"""Running rg: started in a directory (a path, or an open directory fd the child enters), its ``--json`` messages
streamed or its whole output spooled, stopped when the search is cancelled, and its failure raised; files given by
name passed in as few runs as the system's argument space allows.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import signal
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

Progress = Callable[[int], None]
Cwd = Path | int  # where rg starts: a path, or an open directory fd

# Bytes of paths per rg run given files by name: a quarter of what Linux takes for arguments and environment together
# (2 MiB at the usual 8 MiB stack limit). A run per 500 files took 160 runs to find the NULs of 80,000 files holding a
# word: 1.6 s of spawning.
_ARGUMENT_BYTES = 512 * 1024
_LEAST_ARGUMENT_SPACE = 128 * 1024  # what Linux grants whatever the stack limit
_SUBMATCHES = b',"submatches":['  # the last field of a match's data; a quote inside a JSON string is escaped
_SUBMATCH = b',{"match":'
_POLL_SECONDS = 0.1  # how often a long count run reads what rg wrote, reports progress and can be cancelled
_VANISHED = b": No such file or directory (os error 2)"  # rg's line for a file deleted while it ran


def ticking(progress: Progress | None) -> Progress | None:
    """``progress`` told the rounds of every rg run it is given to, counted together, so that a second run's
    reports go on from the first's (MCP progress must increase) and a cancelled search still stops there."""
    if progress is None:
        return None
    rounds = itertools.count(1)
    return lambda _round: progress(next(rounds))


class RipgrepFailed(Exception):
    """rg could not start, or stopped with an error before finishing."""


def named_batches(files: list[bytes]) -> Iterator[list[bytes]]:
    """``files`` as ``./``-led arguments, in runs of at most :data:`_ARGUMENT_BYTES`, or a quarter of the argument
    space when the stack limit makes it smaller (each argument also costs its NUL and a pointer)."""
    room = min(_ARGUMENT_BYTES, _argument_space() // 4)
    batch: list[bytes] = []
    size = 0
    for file in files:
        if batch and size + len(file) + 11 > room:
            yield batch
            batch, size = [], 0
        batch.append(b"./" + file)
        size += len(file) + 11
    if batch:
        yield batch


def _argument_space() -> int:
    """Bytes of arguments and environment a program started now may get: a quarter of the stack limit (asked at
    each call: a limit of 1 MiB leaves 256 KiB, and runs sized for 2 MiB failed to start with E2BIG)."""
    try:
        space = os.sysconf("SC_ARG_MAX")
    except (ValueError, OSError):
        return _LEAST_ARGUMENT_SPACE
    return space if space > 0 else _LEAST_ARGUMENT_SPACE


def run_messages(command: list[Any], cwd: Cwd, *, submatches: Callable[[], int] | None = None) -> Iterator[Any]:
    """rg's match, context and end messages, each match's submatches cut to the first ``submatches()``, asked
    again for each message.

    Raises:
        RipgrepFailed: rg could not start, or exited with status 2 and an error on stderr.
    """
    process = _start(command, cwd, subprocess.PIPE)
    try:
        assert process.stdout is not None
        lines: Iterator[bytes | bytearray] = process.stdout
        if submatches is not None:
            lines = first_submatches(iter(partial(os.read, process.stdout.fileno(), 1 << 16), b""), submatches)
        for raw in lines:
            if raw.startswith((b'{"type":"match"', b'{"type":"context"', b'{"type":"end"')):
                yield json.loads(raw)
    except (OSError, ValueError) as exc:
        raise RipgrepFailed(str(exc)) from exc
    finally:
        _finish(process)


def first_submatches(chunks: Iterator[bytes], most: Callable[[], int]) -> Iterator[bytes | bytearray]:
    """rg's JSON output, read in ``chunks``, as lines, a match's submatches cut to the first ``most()`` (asked as
    each line starts, once the one before was handled): the rest of the list is skipped as it is read, never
    held."""
    line = bytearray()
    cut = _Cut(most())
    for chunk in chunks:
        at = 0
        while at < len(chunk):
            end = chunk.find(b"\n", at)
            if not cut.done:
                line += chunk[at : len(chunk) if end < 0 else end + 1]
                if cut.reached(line):
                    del line[cut.end :]
                    line += b"]}}\n"
            if end < 0:
                break
            yield line  # decoded before the next is read: handed on as it is, not copied (a line may be 50 MB)
            line = bytearray()
            cut = _Cut(most())
            at = end + 1
    if line:
        yield line


class _Cut:
    """Where a match message's submatch list is cut, found as the message grows."""

    def __init__(self, most: int) -> None:
        self.most, self.seen, self.end, self.done = most, 0, -1, False
        self.searched = 0  # how far the message was looked through for the list, then for its elements

    def reached(self, line: bytearray) -> bool:
        """Whether ``line`` (a message so far) holds the first ``most`` submatches and the start of the next."""
        if not line.startswith(b'{"type":"match"'):
            return False
        if self.end < 0:
            start = line.find(_SUBMATCHES, max(self.searched - len(_SUBMATCHES), 0))
            self.searched = len(line)
            if start < 0:
                return False
            self.end = self.searched = start + len(_SUBMATCHES)
        while self.seen < self.most:
            found = line.find(_SUBMATCH, max(self.searched - len(_SUBMATCH), self.end + 1))
            if found < 0:
                self.searched = len(line)
                return False
            self.seen, self.end, self.searched = self.seen + 1, found, found + 1
        self.done = True
        return True


def run_spooled(
    command: list[Any], cwd: Cwd, progress: Progress | None, meanwhile: Callable[[], None] | None = None
) -> bytes:
    """rg's whole output, spooled to a temporary file; every 0.1 s ``progress`` gets the number of rounds so far
    (it may raise to stop rg). Not what rg reported: the files it names would count those a deny rule hides, each
    round shaped by the agent's pattern. ``meanwhile`` runs once rg has started, while it works (on another core).

    rg writes each file's result as it finishes, in parallel; through a pipe every write wakes the reader, which
    made a 30,000-file count 40% slower than into a file.

    Raises:
        RipgrepFailed: rg could not start, or exited with status 2 and an error on stderr.
    """
    chunks: list[bytes] = []
    rounds = 0
    with tempfile.TemporaryFile(prefix="fsguard-rg-") as spool:
        process = _start(command, cwd, spool)
        try:
            if meanwhile is not None:
                meanwhile()
            offset, finished = 0, False
            while not finished:
                finished = _exited(process, _POLL_SECONDS)
                while chunk := os.pread(spool.fileno(), 1 << 20, offset):
                    offset += len(chunk)
                    chunks.append(chunk)
                rounds += 1
                if progress is not None:
                    progress(rounds)
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
            waiting = select.poll()  # not select(): it refuses a descriptor numbered 1024 or more
            waiting.register(pidfd, select.POLLIN)
            waiting.poll(timeout * 1000)
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
    if process.returncode not in (0, 1, -signal.SIGKILL) and _failures(stderr):
        raise RipgrepFailed(stderr.decode("utf-8", "replace").strip())


def _failures(stderr: bytes) -> list[bytes]:
    """rg's error lines but those of a file or directory removed while it ran: rg names it and exits 2, though
    what it found elsewhere is whole, as if the entry had gone before the walk (the Python engine's view of
    it), where taking it for a failure searched everything again in Python, or refused an engine='ripgrep' call."""
    return [line for line in stderr.splitlines() if line.strip() and not line.endswith(_VANISHED)]
