"""A hook's process: answered when it exits whatever its children hold, started or failed, its notes cut."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fsguard.core.errors import HookDeniedError
from fsguard.core.hookprocess import Hook, interpret, run_hook
from fsguard.core.hooks import HookEvent, HookRunner


def load(tmp_path: Path, root: Path, hooks: dict[str, Any], **callbacks: Any) -> HookRunner:
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    return HookRunner.load(config, (root,), **callbacks)


def one(command: str, **options: Any) -> list[dict[str, Any]]:
    return [{"hooks": [{"type": "command", "command": command, **options}]}]


def write_event(root: Path) -> HookEvent:
    return HookEvent(event="pre-write", tool_name="write_file", file_path=str(root / "a.txt"), operation="write_file")


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A command starting a child in a session of its own (as ``setsid cmd &`` does) that holds the hook's stdout
    and stderr for 30 s, out of reach of the kill of the hook's group; and the file its pid lands in."""
    pid_file = tmp_path / "daemon.pid"
    script = tmp_path / "daemon.py"
    source = f"import os, time\nos.setsid()\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(30)\n"
    script.write_text(source, encoding="utf-8")
    # The hook exits only once the child has left its group, so the child is surely outside it then.
    wait = f"while [ ! -s {shlex.quote(str(pid_file))} ]; do :; done"
    yield f"{shlex.quote(sys.executable)} {shlex.quote(str(script))} & {wait}", pid_file
    with contextlib.suppress(ValueError, OSError):
        os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)


def test_a_hook_whose_child_holds_its_pipes_in_a_session_of_its_own_is_answered_when_it_exits(
    tmp_path: Path, root: Path, daemon: tuple[str, Path]
) -> None:
    command, _ = daemon
    runner = load(
        tmp_path, root, {"pre-write": one(f"""{command}; echo '{{"decision": "deny", "reason": "checked"}}'""")}
    )
    started = time.monotonic()
    with pytest.raises(HookDeniedError, match="checked"):  # what it wrote before it exited is read
        runner.run(write_event(root))
    assert time.monotonic() - started < 10  # not the 30 s its child holds the pipes


def test_a_call_cancelled_after_its_hook_exited_does_not_wait_for_a_child_holding_the_pipes(
    tmp_path: Path, root: Path, daemon: tuple[str, Path]
) -> None:
    command, pid_file = daemon

    def stop_if_cancelled() -> None:
        if pid_file.exists() and pid_file.read_text(encoding="utf-8"):  # the hook is exiting or gone by now
            raise KeyboardInterrupt

    runner = load(tmp_path, root, {"pre-write": one(command)}, stop_if_cancelled=stop_if_cancelled)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        runner.run(write_event(root))
    assert time.monotonic() - started < 10


def test_a_hook_that_cannot_be_started_is_a_failed_hook_whatever_popen_raises(tmp_path: Path) -> None:
    # Loading refuses a NUL in a command; Popen's ValueError for one was an internal error, after a post-write's write.
    hook = Hook("echo a\0b", 5.0, False, "(echo a b)")
    result = run_hook(hook, "{}", tmp_path, threading.Event())
    assert result.decision == "continue"
    assert result.failure is not None
    assert result.failure.startswith("could not start (")
    assert "null byte" in result.failure


def test_a_hooks_additional_context_is_cut_as_its_reason_is(tmp_path: Path, root: Path) -> None:
    script = tmp_path / "context.py"
    script.write_text("import json\nprint(json.dumps({'additional_context': 'c' * 2_000_000}))\n", encoding="utf-8")
    runner = load(tmp_path, root, {"post-write": one(f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}")})
    outcome = runner.run(HookEvent(event="post-write", tool_name="write_file", file_path="a", operation="write_file"))
    (note,) = outcome.notes
    assert len(note) < 3_000
    assert note.endswith("(2,000,000 characters)")
    assert "…" in note


def test_a_hooks_answer_after_a_logged_line_is_read_from_its_last_line() -> None:
    hook = Hook("lint", 5.0, False, "(lint)")
    result = interpret(hook, 0, 'checking...\n{"decision": "deny", "reason": "frozen"}\n', "")
    assert (result.decision, result.reason) == ("deny", "frozen")


def test_a_hooks_answer_followed_by_more_output_is_a_failed_hook_not_an_allow() -> None:
    out = '{"decision": "deny", "reason": "frozen"}\nhook done\n'
    went_on = interpret(Hook("lint", 5.0, False, "(lint)"), 0, out, "")
    refused = interpret(Hook("lint", 5.0, True, "(lint)"), 0, out, "")
    assert went_on.decision == "continue"
    assert went_on.failure is not None
    assert "not a JSON answer" in went_on.failure
    assert refused.decision == "deny"


def test_a_hooks_plain_text_output_leaves_the_decision_to_its_exit_code() -> None:
    hook = Hook("prettier --write", 5.0, True, "(prettier)")
    assert interpret(hook, 0, "a.js 12ms\n", "").decision == "allow"
    assert interpret(hook, 2, "a.js is frozen\n", "").decision == "deny"


def test_a_modified_content_holding_bytes_that_are_not_utf8_is_a_failed_hook_not_applied() -> None:
    result = interpret(Hook("fmt", 5.0, False, "(fmt)"), 0, '{"modified_content": "caf\udce9\\n"}', "")
    assert result.decision == "continue"
    assert result.modified_content is None
    assert result.failure is not None
    assert "not valid UTF-8" in result.failure


def test_a_hook_printing_bytes_that_are_not_utf8_in_its_modified_content_is_not_applied(tmp_path: Path) -> None:
    hook = Hook('printf \'{"modified_content": "caf\\351"}\'', 5.0, False, "(fmt)")
    result = run_hook(hook, "{}", tmp_path, threading.Event())
    assert (result.decision, result.modified_content) == ("continue", None)
