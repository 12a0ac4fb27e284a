"""The one way fsguard runs git: an argument list, never a shell, in a directory reached through the pinned walk.

The directory is ``/proc/self/fd/N`` of a directory fd fsguard holds, so a directory swapped for a symlink after the
check cannot move it. The environment is the server's minus every variable that would point git at another
repository or program (``GIT_DIR``, ``GIT_WORK_TREE``, ``GIT_EXTERNAL_DIFF`` …), plus: no terminal prompts
(``GIT_TERMINAL_PROMPT=0``, ``GIT_ASKPASS=echo``, a session of its own so ssh finds no terminal), no pager, no editor,
``LC_ALL=C`` so its messages are the documented English ones, no optional locks. stdin is /dev/null. A run is
stopped, with its children, after :data:`GIT_TIMEOUT_S`. Output can be read with a line budget and a byte budget:
what lies past them is counted, not kept.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from subprocess import DEVNULL, PIPE, Popen
from typing import IO

from fsguard.core.errors import GitFailedError, GitUnavailableError, InvalidParamsError
from fsguard.core.gitparse import text
from fsguard.core.safeguards import Safeguards

GIT_TIMEOUT_S = 60.0
# How often a stoppable run asks whether its call was cancelled, and how long git has to clean up its lock files
# after SIGTERM before the session is killed.
_POLL_S = 0.05
_TERM_GRACE_S = 2.0

_CHUNK = 1 << 16
_STDERR_LINES = 12
_STDERR_CHARS = 1500
_SCRUBBED = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_CEILING_DIRECTORIES",
        "GIT_DISCOVERY_ACROSS_FILESYSTEM",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_EXTERNAL_DIFF",
        "GIT_DIFF_OPTS",
        "GIT_PAGER",
        "PAGER",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
        "GIT_GLOB_PATHSPECS",
        "GIT_NOGLOB_PATHSPECS",
        "GIT_ICASE_PATHSPECS",
        "PWD",
    }
)
_ENVIRONMENT = {
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ASKPASS": "echo",
    "SSH_ASKPASS_REQUIRE": "never",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_MERGE_AUTOEDIT": "no",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
    "LANGUAGE": "C",
    # Every pathspec is a path, as fsguard resolved and checked it: no glob, and no magic such as ":(glob).e*"
    # or ":(icase)" matching a file a deny rule hides under a name that passed the checks.
    "GIT_LITERAL_PATHSPECS": "1",
}
# Off: settings that would make git run a program on its own (fsmonitor, the ext:: transport) or colour its output,
# and bare repositories git finds by itself (a directory holding HEAD, objects/, refs/ and a config an agent wrote
# is one); repository commands name theirs anyway (gitrepo). The rest of the user's and the repository's
# configuration (identity, filters) applies as for the user.
_CONFIG = (
    *("-c", "core.quotepath=off", "-c", "color.ui=false", "-c", "core.pager=cat"),
    *("-c", "core.fsmonitor=false", "-c", "protocol.ext.allow=never", "-c", "safe.bareRepository=explicit"),
)
# Hooks are off unless the operator allows them (--git-hooks): with core.hooksPath in the working tree (husky's
# .husky/, .githooks/), an agent could write a hook with write_file and have git(action="commit") run it.
_NO_HOOKS = ("-c", "core.hooksPath=/dev/null")


@dataclass(frozen=True)
class Scratch:
    """An index file of fsguard's in place of the repository's (or the repository's own: None), and optionally a
    directory of its own where git writes new objects (reading the repository's as alternates), so a look at the
    working tree leaves nothing in the repository."""

    index: Path | None
    objects: Path | None = None
    alternates: Path | None = None

    def environment(self) -> dict[str, str]:
        env = {"GIT_INDEX_FILE": str(self.index)} if self.index is not None else {}
        if self.objects is not None and self.alternates is not None:
            env |= {"GIT_OBJECT_DIRECTORY": str(self.objects), "GIT_ALTERNATE_OBJECT_DIRECTORIES": str(self.alternates)}
        return env


@dataclass(frozen=True)
class GitOutput:
    """What one git process printed: stdout (cut after ``keep_lines`` lines or ``keep_bytes`` bytes when asked),
    its total line count, and stderr; ``size`` is every byte of stdout, ``clipped`` that the byte budget cut what
    the line budget kept."""

    code: int
    stdout: bytes
    lines: int
    stderr: str
    size: int = 0
    clipped: bool = False


class GitProcess:
    """Runs git in a directory reached through the pinned walk."""

    def __init__(
        self, safe: Safeguards, executable: str = "git", timeout: float = GIT_TIMEOUT_S, *, run_hooks: bool = False
    ) -> None:
        self._safe = safe
        self._executable = executable
        self._timeout = timeout
        self._config = _CONFIG if run_hooks else (*_CONFIG, *_NO_HOOKS)
        self.run_hooks = run_hooks

    def run(
        self,
        directory: Path,
        args: Sequence[str],
        *,
        keep_lines: int | None = None,
        keep_bytes: int | None = None,
        check: bool = True,
        repository: Sequence[str] = (),
        stdin: int | bytes | None = None,
        scratch: Scratch | None = None,
        pass_fds: Iterable[int] = (),
        stoppable: bool = False,
    ) -> GitOutput:
        """Run ``git <repository> <args>`` in ``directory``; with ``check`` a non-zero exit raises.

        ``repository`` holds git's global options naming the repository (``--git-dir``, ``--work-tree``).
        ``keep_lines`` and ``keep_bytes`` bound what of stdout is kept (:class:`GitOutput`).
        ``stdin`` is what git reads (an open file, or bytes; else nothing); ``scratch`` puts an index and objects
        of fsguard's in place of the repository's; ``pass_fds`` are descriptors git inherits (to read files fsguard
        opened, as ``/proc/self/fd/N``). A ``stoppable`` run (one that may wait long on a repository hook or a
        remote) is stopped when its call is cancelled (:meth:`PathLocks.stop_if_cancelled`): git and its session get
        SIGTERM, on which git takes back its lock files, and the cancellation is raised.

        Raises:
            GitUnavailableError: no git executable on PATH.
            GitFailedError: git exited non-zero (with ``check``) or ran past the timeout.
            InvalidParamsError: an argument holds a NUL character.
        """
        if any("\0" in arg for arg in args):
            raise InvalidParamsError("a git argument contains a NUL character, which git cannot take. Remove it.")
        env = {key: value for key, value in os.environ.items() if key not in _SCRUBBED} | _ENVIRONMENT
        if scratch is not None:
            env |= scratch.environment()
        executable = shutil.which(self._executable, path=env.get("PATH", os.defpath))
        if executable is None:
            raise _unavailable(self._executable)
        argv = [executable, "--no-pager", *self._config, *repository, *args]
        with (
            self._safe.beneath.directory(directory) as fd,
            tempfile.TemporaryFile() as errors,
            _input(stdin) as given,
        ):
            cwd = f"/proc/self/fd/{fd}" if Path("/proc/self/fd").is_dir() else str(directory)
            try:
                process = Popen(
                    argv,
                    stdin=given,
                    stdout=PIPE,
                    stderr=errors,
                    cwd=cwd,
                    env=env,
                    start_new_session=True,
                    pass_fds=tuple(pass_fds),
                )
            except FileNotFoundError as exc:
                raise _unavailable(executable) from exc
            timed_out = threading.Event()
            timer = threading.Timer(self._timeout, _stop, (process, timed_out))
            timer.start()
            try:
                with process:
                    assert process.stdout is not None
                    if stoppable:
                        kept = self._collected_unless_cancelled(process, keep_lines, keep_bytes)
                    else:
                        kept = _collect(process.stdout, keep_lines, keep_bytes)
            finally:
                timer.cancel()
            errors.seek(0)
            stderr = text(errors.read())
        if timed_out.is_set():
            raise GitFailedError(
                f"git {args[0]} did not finish within {self._timeout:g} s and was stopped (a network remote that "
                'does not answer, or a very large repository). Check git(action="status"), then retry, or ask the '
                "user to run it.",
                command=args[0],
            )
        if check and process.returncode != 0:
            raise failure(args[0], process.returncode, stderr, kept.stdout)
        return GitOutput(process.returncode, kept.stdout, kept.lines, stderr, kept.size, kept.clipped)

    def _collected_unless_cancelled(
        self, process: Popen[bytes], keep_lines: int | None, keep_bytes: int | None
    ) -> _Collected:
        """What ``process`` prints, read on a thread of its own while this one (the call's) asks every
        :data:`_POLL_S` whether the call was cancelled: a cancelled commit otherwise waited for its hook, or a push
        for its remote, until the timeout, made its change then, and a server told to stop waited for it."""
        assert process.stdout is not None
        stream = process.stdout
        collected: list[_Collected] = []
        reader = threading.Thread(
            target=lambda: collected.append(_collect(stream, keep_lines, keep_bytes)),
            name="fsguard-git-out",
            daemon=True,
        )
        reader.start()
        while reader.is_alive():
            reader.join(_POLL_S)
            try:
                self._safe.locks.stop_if_cancelled()
            except BaseException:  # the cancellation, of whatever kind the event loop raises
                _terminate(process)
                reader.join()
                raise
        if not collected:  # the reader failed (a read error): read what is left here, as an unstoppable run does
            return _collect(stream, keep_lines, keep_bytes)
        return collected[0]


def failure(command: str, code: int, stderr: str, stdout: bytes = b"", advice: str = "") -> GitFailedError:
    """A GitFailedError quoting git's own words (its stderr, else its stdout), trimmed, hints left out."""
    said = [line for line in (stderr.strip() or text(stdout).strip()).splitlines() if not line.startswith("hint:")]
    quoted = "\n".join(said[:_STDERR_LINES])[:_STDERR_CHARS] or "(git printed nothing)"
    advice = advice or "Nothing was changed by fsguard; fix what git names above and retry."
    return GitFailedError(f"git {command} failed (exit {code}):\n{quoted}\n{advice}", command=command, exit_code=code)


def _unavailable(executable: str) -> GitUnavailableError:
    return GitUnavailableError(
        f"git is not available: no {executable!r} executable on the server's PATH. Install git on the machine "
        "running fsguard (e.g. apt-get install git) and restart it; the other tools work without it.",
    )


@contextmanager
def _input(stdin: int | bytes | None) -> Iterator[int]:
    """What git reads on stdin: the open file given, the bytes given (from a temporary file, so a large input
    never waits on a pipe git is not reading yet), or nothing."""
    if stdin is None:
        yield DEVNULL
    elif isinstance(stdin, int):
        yield stdin
    else:
        with tempfile.TemporaryFile() as held:
            held.write(stdin)
            held.seek(0)
            yield held.fileno()


def _terminate(process: Popen[bytes]) -> None:
    """End ``process`` and its session (a hook, ssh, a local remote's receive-pack): SIGTERM first, on which git
    removes the lock files it holds (a SIGKILL leaves them, and the next git call fails on them), then SIGKILL for
    what is left. git is not reaped meanwhile, so the group's id is still its own when SIGKILL goes."""
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + _TERM_GRACE_S
    while time.monotonic() < deadline and not _exited(process):
        time.sleep(_POLL_S / 5)
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


def _exited(process: Popen[bytes]) -> bool:
    """Whether ``process`` exited, leaving it unreaped."""
    try:
        return os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped already
        return True


def _stop(process: Popen[bytes], timed_out: threading.Event) -> None:
    timed_out.set()
    with suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the whole session: ssh and helpers too


@dataclass(frozen=True)
class _Collected:
    stdout: bytes
    lines: int
    size: int
    clipped: bool


def _collect(stream: IO[bytes], keep_lines: int | None, keep_bytes: int | None = None) -> _Collected:
    """All of ``stream``, or its first ``keep_lines`` lines and at most ``keep_bytes`` bytes of them, read on to
    count the rest: its lines and bytes."""
    kept = bytearray()
    seen = size = 0
    last = b""
    clipped = False
    while chunk := stream.read(_CHUNK):
        if keep_lines is None or seen < keep_lines:
            cut = -1 if keep_lines is None else _after_newline(chunk, keep_lines - seen)
            wanted = chunk if cut < 0 else chunk[:cut]
            room = len(wanted) if keep_bytes is None else max(keep_bytes - len(kept), 0)
            clipped = clipped or len(wanted) > room
            kept += wanted[:room]
        seen += chunk.count(b"\n")
        size += len(chunk)
        last = chunk[-1:]
    return _Collected(bytes(kept), seen + (1 if last not in (b"", b"\n") else 0), size, clipped)


def _after_newline(chunk: bytes, count: int) -> int:
    """The index just after the ``count``-th newline of ``chunk``, or -1 when it has fewer."""
    position = -1
    for _ in range(count):
        position = chunk.find(b"\n", position + 1)
        if position < 0:
            return -1
    return position + 1
