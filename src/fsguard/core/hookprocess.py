"""One hook's process: ``sh -c <command>`` in a session of its own, the event on its stdin, its answer read from
stdout and stderr while it runs, and read as :class:`HookResult`.

A session of its own makes the hook a process group, so a timeout or a cancellation kills its children too. A
process it started in a session of its own (``setsid``) is out of reach of that kill and may hold the pipes open
for as long as it lives: the hook is answered when it exits, with what it wrote by then, never when its pipes close.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from subprocess import PIPE, Popen, TimeoutExpired
from typing import IO, Literal, cast

from fsguard.core.oserrors import shorten

Decision = Literal["allow", "deny", "continue"]
_DECISIONS: dict[str, Decision] = {"allow": "allow", "deny": "deny", "continue": "continue"}
_EXIT_DECISIONS: dict[int | None, str] = {0: "allow", 2: "deny"}
_REASON_CHARS = 2000  # of a hook's reason, stderr or additional_context in an answer to the model
_POLL_SECONDS = 0.05  # how often a running hook is asked whether it has exited (and its call whether it is wanted)
_IDLE_SECONDS = 0.05  # after it exited: how long its pipes may stay silent before they are closed
_DRAIN_SECONDS = 1.0  # after it exited: the longest its pipes are read (a child outside its group may write on)
_CHUNK = 1 << 16


@dataclass(frozen=True)
class Hook:
    """One configured command hook."""

    command: str
    timeout: float
    fail_on_error: bool
    label: str


@dataclass(frozen=True)
class HookResult:
    """What one hook answered, or why it gave no answer (``failure``)."""

    hook: Hook
    decision: Decision
    reason: str = ""
    modified_content: str | None = None
    context: str | None = None
    failure: str | None = None


def run_hook(hook: Hook, payload: str, cwd: Path | None, stop: threading.Event) -> HookResult:
    """Run ``hook`` with the event JSON ``payload`` on its stdin until it exits, outruns its timeout or is
    ``stop``ped (then its group is killed); a hook that could not be started or run is a failed hook, never an
    error of the call it runs for (a post-hook's change is made by then)."""
    try:
        process = Popen(
            ["/bin/sh", "-c", hook.command], cwd=cwd, start_new_session=True, stdin=PIPE, stdout=PIPE, stderr=PIPE
        )
    except Exception as exc:  # OSError, ValueError (a NUL in the command), whatever else Popen refuses
        return interpret(hook, None, "", f"could not start ({exc})")
    with process:
        try:
            answered = _exchange(process, payload.encode("utf-8", "replace"), hook.timeout, stop)
        except OSError as exc:
            _kill(process)
            return interpret(hook, None, "", f"could not be run ({exc}) and was killed")
        except BaseException:
            _kill(process)  # leaving the block waits for the hook: it must not run on
            raise
    if answered is None and stop.is_set():
        return interpret(hook, None, "", "was killed: its call was cancelled")
    if answered is None:
        return interpret(hook, None, "", f"timed out after {hook.timeout:g} s and was killed")
    return interpret(hook, process.returncode, answered[0], answered[1].strip())


def _exchange(process: Popen[bytes], payload: bytes, timeout: float, stop: threading.Event) -> tuple[str, str] | None:
    """The hook's stdout and stderr once it has exited; None when it outran ``timeout`` or was ``stop``ped (then
    killed).

    A child the hook left running (``cmd &``) holds its pipes open: waiting for them to close held the call for the
    whole timeout, and one outside its group (``setsid cmd &``) for as long as that child lived. Once the hook
    itself has exited, what is in its pipes is read, its group is killed, and the pipes are closed.
    """
    deadline = time.monotonic() + timeout
    pipes = _Pipes(process, payload)
    try:
        while process.poll() is None:
            if stop.is_set() or time.monotonic() >= deadline:
                _kill(process)
                return None
            pipes.pump(max(0.0, min(_POLL_SECONDS, deadline - time.monotonic())))
        pipes.drain(0.0)
        if pipes.reading:
            _kill(process)  # its children hold the pipes: they go with the group
            pipes.drain(_IDLE_SECONDS)
    finally:
        pipes.close()
    return pipes.text()


def _kill(process: Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)


class _Pipes:
    """A hook's stdin, stdout and stderr, served without blocking: the event written as the hook reads it, its
    output read as it writes (a hook writing more than a pipe holds waits for its reader)."""

    def __init__(self, process: Popen[bytes], payload: bytes) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        self._process = process
        self._stdin: IO[bytes] = process.stdin
        self._left = memoryview(payload)
        self._output: dict[IO[bytes], list[bytes]] = {process.stdout: [], process.stderr: []}
        self._selector = selectors.DefaultSelector()
        os.set_blocking(self._stdin.fileno(), False)  # a write takes what the pipe has room for
        self._selector.register(self._stdin, selectors.EVENT_WRITE)
        for stream in self._output:
            self._selector.register(stream, selectors.EVENT_READ)

    @property
    def reading(self) -> bool:
        """Whether stdout or stderr is still open at the other end (not yet read to its end)."""
        return any(key.fileobj is not self._stdin for key in self._selector.get_map().values())

    def pump(self, seconds: float) -> bool:
        """Write and read what is ready within ``seconds``; whether anything was."""
        if not self._selector.get_map():  # all closed: only its exit is waited for
            with contextlib.suppress(TimeoutExpired):
                self._process.wait(seconds)
            return False
        ready = self._selector.select(seconds)
        for key, _ in ready:
            if key.fileobj is self._stdin:
                self._write()
            else:
                self._read(cast("IO[bytes]", key.fileobj))
        return bool(ready)

    def drain(self, idle: float) -> None:
        """Read what the exited hook left in its pipes until they are silent for ``idle`` seconds, at their end, or
        read for :data:`_DRAIN_SECONDS`; its stdin is closed first (nobody reads it now)."""
        self._done_writing()
        end = time.monotonic() + _DRAIN_SECONDS
        while self.reading and time.monotonic() < end and self.pump(idle):
            pass

    def close(self) -> None:
        self._done_writing()
        self._selector.close()

    def text(self) -> tuple[str, str]:
        """Stdout and stderr as text, line breaks read as a text-mode pipe reads them."""
        out, err = (b"".join(chunks) for chunks in self._output.values())
        # A byte of stdout that is not UTF-8 stays one (U+DC80-U+DCFF): a modified_content holding one is refused
        # (see interpret), never written with U+FFFD in its place.
        return _lines(out.decode("utf-8", "surrogateescape")), _lines(err.decode("utf-8", "replace"))

    def _write(self) -> None:
        try:
            sent = os.write(self._stdin.fileno(), self._left[:_CHUNK])
        except BlockingIOError:
            return
        except BrokenPipeError:
            sent = len(self._left)  # the hook did not read its event, or not all of it
        self._left = self._left[sent:]
        if not self._left:
            self._done_writing()

    def _read(self, stream: IO[bytes]) -> None:
        chunk = os.read(stream.fileno(), _CHUNK)
        if chunk:
            self._output[stream].append(chunk)
        else:
            self._selector.unregister(stream)

    def _done_writing(self) -> None:
        if not self._stdin.closed:
            with contextlib.suppress(KeyError):
                self._selector.unregister(self._stdin)
            with contextlib.suppress(OSError):
                self._stdin.close()


def _lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def interpret(hook: Hook, code: int | None, out: str, err: str) -> HookResult:
    """Read a finished hook's answer; ``code`` is ``None`` when it never finished and ``err`` says why."""
    data = _answer(out)
    if data is None and _EXIT_DECISIONS.get(code) != "deny":  # an exit code 2 denies whatever it printed
        problem = (
            f"printed output that is not a JSON answer ({shorten(_readable(out.strip()), 200)!r}): it must be the "
            "whole of its stdout, or its last line"
        )
        verdict_of_unread: Decision = "deny" if hook.fail_on_error else "continue"
        return HookResult(hook, verdict_of_unread, f"the hook {problem} (failOnError is set)", failure=problem)
    data = data or {}
    answer = data.get("decision") or _EXIT_DECISIONS.get(code)
    decision = _DECISIONS.get(str(answer).strip().lower())  # "DENY" denies, as event names are read in any case
    err = shorten(err, _REASON_CHARS)  # a hook's stderr goes into an answer to the model: megabytes flooded it
    if decision is None:
        problem = f"exited with code {code}" + (f": {err}" if err else "") if code is not None else err
        problem = f"answered with unknown decision {answer!r}" if answer is not None else problem
        verdict: Decision = "deny" if hook.fail_on_error else "continue"
        return HookResult(hook, verdict, f"the hook {problem} (failOnError is set)", failure=problem)
    text = {
        key: _readable(value) for key, value in data.items() if isinstance(value, str) and key != "modified_content"
    }
    content = data.get("modified_content")
    if isinstance(content, str) and not _is_unicode(content) and decision != "deny":
        problem = "answered a modified_content that is not valid UTF-8 (not applied)"
        verdict_of_bytes: Decision = "deny" if hook.fail_on_error else "continue"
        return HookResult(hook, verdict_of_bytes, f"the hook {problem} (failOnError is set)", failure=problem)
    content = content if isinstance(content, str) and _is_unicode(content) else None
    reason = shorten(text.get("reason") or err or "no reason given", _REASON_CHARS)
    context = text.get("additional_context")
    context = shorten(context, _REASON_CHARS) if context else None  # a note to the model, as the reason is
    return HookResult(hook, decision, reason, content, context)


def _is_unicode(text: str) -> bool:
    """Whether ``text`` holds no lone surrogate: a byte of the hook's stdout that was not UTF-8, or half a pair."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _readable(text: str) -> str:
    """``text`` for a message: a byte that was not UTF-8 shown as U+FFFD."""
    if _is_unicode(text):
        return text
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # half a surrogate pair, spelled in the JSON (\ud800): no byte stands behind it
        return text.encode("utf-8", "replace").decode("utf-8")


def _answer(out: str) -> dict[str, object] | None:
    """The JSON object a hook answered with: its whole stdout, or else its last non-empty line (a hook that logs a
    line before its answer); ``{}`` for no answer (empty output, or plain text holding no ``{``: a formatter naming
    the files it wrote), the exit code deciding. None for an answer that cannot be read (a deny followed by another
    line): read as allow, it let through what the hook refused."""
    text = out.strip()
    if not text:
        return {}
    for candidate in (text, text.splitlines()[-1].strip()):
        try:
            data = json.loads(candidate)
        except json.JSONDecodeError:
            continue
        if isinstance(data, dict):
            return data
    return None if "{" in text else {}
