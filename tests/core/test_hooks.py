"""The hooks engine on real ``sh -c`` processes: loading, matching, decisions, timeouts and parallel runs."""

from __future__ import annotations

import json
import logging
import os
import re
import shlex
import sys
import time
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from fsguard.core.errors import FsguardError, HookConfigError, HookDeniedError
from fsguard.core.hooks import HOOK_EVENTS, HookEvent, HookOutcome, HookRunner


def load(tmp_path: Path, root: Path, hooks: dict[str, Any]) -> HookRunner:
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    return HookRunner.load(config, (root,))


def one(command: str, **options: Any) -> list[dict[str, Any]]:
    """A single catch-all matcher entry holding one command hook."""
    return [{"hooks": [{"type": "command", "command": command, **options}]}]


def event_for(root: Path, name: str = "a.txt", **fields: Any) -> HookEvent:
    values: dict[str, Any] = {"event": "pre-write", "tool_name": "write_file", "operation": "write_file"}
    return HookEvent(file_path=str(root / name), **{**values, **fields})


def python_hook(tmp_path: Path, source: str) -> str:
    """A command running ``source`` as a script under this interpreter."""
    script = tmp_path / f"hook_{abs(hash(source))}.py"
    script.write_text(source, encoding="utf-8")
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def test_hook_events_are_the_sixteen_pre_and_post_names() -> None:
    assert len(HOOK_EVENTS) == len(set(HOOK_EVENTS)) == 16
    assert HOOK_EVENTS[0] == "pre-write"
    assert HOOK_EVENTS[-1] == "post-search"
    assert {"pre-edit", "post-move", "pre-copy", "post-read"} <= set(HOOK_EVENTS)


def test_exit_code_2_denies_with_stderr_as_the_reason(tmp_path: Path, root: Path) -> None:
    command = "echo 'secrets are not allowed' >&2; exit 2"
    runner = load(tmp_path, root, {"pre-write": one(command, description="secret scan")})
    with pytest.raises(HookDeniedError) as denied:
        runner.run(event_for(root))
    message = denied.value.message
    assert denied.value.code == "hook_denied"
    assert message.startswith(
        "pre-write hook denied write_file on a.txt: secrets are not allowed. Nothing was written."
    )
    assert "secret scan" in message


def test_a_json_deny_decision_denies_with_its_reason_even_on_exit_0(tmp_path: Path, root: Path) -> None:
    command = """echo '{"decision": "deny", "reason": "the file is frozen"}'"""
    runner = load(tmp_path, root, {"pre-edit": one(command)})
    with pytest.raises(HookDeniedError, match="the file is frozen"):
        runner.run(event_for(root, event="pre-edit", tool_name="edit_file", operation="edit_file:replace"))


def test_a_decision_in_capitals_is_read_as_its_lower_case(tmp_path: Path, root: Path) -> None:
    command = """echo '{"decision": "DENY", "reason": "frozen"}'"""
    runner = load(tmp_path, root, {"pre-write": one(command)})
    with pytest.raises(HookDeniedError, match="frozen"):
        runner.run(event_for(root))


def test_a_denying_hooks_megabytes_of_stderr_are_cut_in_the_refusal(tmp_path: Path, root: Path) -> None:
    command = python_hook(tmp_path, "import sys\nsys.stderr.write('x' * 2_000_000)\nsys.exit(2)\n")
    runner = load(tmp_path, root, {"pre-write": one(command)})
    with pytest.raises(HookDeniedError) as denied:
        runner.run(event_for(root))
    assert len(denied.value.message) < 3_000
    assert "2,000,000 characters" in denied.value.message


def test_a_hook_that_leaves_a_child_running_is_answered_when_it_exits_not_at_its_timeout(
    tmp_path: Path, root: Path
) -> None:
    # The child holds the pipes open; the hook's own exit decides, and the child is killed with its group.
    command = """sleep 30 & echo '{"decision": "deny", "reason": "checked"}'"""
    runner = load(tmp_path, root, {"pre-write": one(command, timeout=20)})
    with pytest.raises(HookDeniedError, match="checked"):  # not "timed out after 20 s"
        runner.run(event_for(root))


def test_exit_0_allows_and_additional_context_becomes_a_note(tmp_path: Path, root: Path) -> None:
    context = one("""echo '{"additional_context": "ok"}'""")
    runner = load(tmp_path, root, {"pre-write": one("true"), "post-write": context})
    assert runner.run(event_for(root)) == HookOutcome(None, (), 1)
    assert runner.run(event_for(root, event="post-write")) == HookOutcome(None, ("ok",), 1)


def test_modified_content_from_a_pre_write_hook_replaces_the_content(tmp_path: Path, root: Path) -> None:
    upper = python_hook(
        tmp_path,
        "import json, sys\nprint(json.dumps({'modified_content': json.load(sys.stdin)['content'].upper()}))\n",
    )
    runner = load(tmp_path, root, {"pre-write": one(upper), "post-write": one(upper)})
    assert runner.run(event_for(root, content="hello")).modified_content == "HELLO"
    assert runner.run(event_for(root, event="post-write", content="hello")).modified_content is None


def test_the_last_non_empty_modified_content_in_config_order_wins(tmp_path: Path, root: Path) -> None:
    answers = ["first", "last", ""]
    entries = [one(f"""echo '{{"modified_content": "{text}"}}'""")[0] for text in answers]
    runner = load(tmp_path, root, {"pre-write": entries})
    outcome = runner.run(event_for(root, content="x"))
    assert outcome == HookOutcome("last", (), 3, """(echo '{"modified_content": "last"}')""")


@pytest.mark.parametrize(
    ("glob", "name", "fires"),
    [
        ("**/*.py", "a.py", True),
        ("**/*.py", "src/pkg/a.py", True),
        ("**/*.py", "notes.txt", False),
        ("*.py", "src/a.py", True),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/sub/a.py", False),
        ("src/**", "src/sub/a.py", True),
        ("docs/*.md", "src/docs/a.md", False),
        ("./src/*.py", "src/a.py", True),
        ("src//*.py", "src/a.py", True),
        ("{root}/src/*.py", "src/a.py", True),
        ("{root}/src/*.py", "a.py", False),
    ],
)
def test_a_path_glob_hook_fires_only_for_matching_files(
    tmp_path: Path, root: Path, glob: str, name: str, fires: bool
) -> None:
    entry = {"path": glob.format(root=root), "hooks": one("true")[0]["hooks"]}
    runner = load(tmp_path, root, {"pre-write": [entry]})
    assert runner.run(event_for(root, name)).ran == int(fires)


def test_a_path_glob_also_matches_the_destination_of_a_move(tmp_path: Path, root: Path) -> None:
    runner = load(tmp_path, root, {"pre-move": [{"path": "**/*.py", "hooks": one("exit 2")[0]["hooks"]}]})
    move = event_for(root, "a.txt", event="pre-move", tool_name="move_file", operation="move_file")
    assert runner.run(move).ran == 0
    with pytest.raises(HookDeniedError):
        runner.run(event_for(root, "a.txt", event="pre-move", tool_name="move_file", dest_path=str(root / "b.py")))


@pytest.mark.parametrize(
    ("pattern", "tool", "fires"),
    [
        ("write_file", "write_file", True),
        ("write_file", "edit_file", False),
        ("*", "anything", True),
        ("*_file", "edit_file", True),
        ("write_*", "edit_file", False),
        ("re:^(write|edit)_file$", "edit_file", True),
        ("re:^write", "edit_file", False),
        ("re:edit", "multi_edit_file", True),
    ],
)
def test_tool_name_patterns_match_exactly_by_wildcard_or_by_regex(
    tmp_path: Path, root: Path, pattern: str, tool: str, fires: bool
) -> None:
    runner = load(tmp_path, root, {"pre-write": [{"pattern": pattern, "hooks": one("true")[0]["hooks"]}]})
    assert runner.run(event_for(root, tool_name=tool)).ran == int(fires)


def test_the_event_json_on_stdin_has_the_documented_fields(tmp_path: Path, root: Path) -> None:
    captured, cwd = tmp_path / "stdin.json", tmp_path / "cwd.txt"
    runner = load(tmp_path, root, {"post-edit": one(f"cat > {shlex.quote(str(captured))}; pwd > {cwd}")})
    runner.run(
        event_for(
            root,
            event="post-edit",
            tool_name="edit_file",
            operation="edit_file:replace",
            old_content="a",
            new_content="b",
            metadata={"edits": 1},
        )
    )
    payload = json.loads(captured.read_text(encoding="utf-8"))
    assert set(payload) == {
        *("event", "tool_name", "file_path", "operation", "old_content", "new_content", "metadata"),
        *("timestamp", "working_dir"),
    }
    assert payload["event"] == "post-edit"
    assert payload["file_path"] == str(root / "a.txt")
    assert payload["operation"] == "edit_file:replace"
    assert (payload["old_content"], payload["new_content"], payload["metadata"]) == ("a", "b", {"edits": 1})
    assert datetime.fromisoformat(payload["timestamp"]).tzinfo is not None
    assert payload["working_dir"] == str(root) == cwd.read_text(encoding="utf-8").strip()


def test_a_timed_out_hook_is_killed_and_the_call_continues_with_a_note(tmp_path: Path, root: Path) -> None:
    pid_file = tmp_path / "pid"
    runner = load(tmp_path, root, {"pre-write": one(f"echo $$ > {pid_file}; exec sleep 30", timeout=0.5)})
    started = time.monotonic()
    outcome = runner.run(event_for(root))
    assert time.monotonic() - started < 10
    assert outcome.ran == 1
    assert len(outcome.notes) == 1
    assert "timed out after 0.5 s and was killed" in outcome.notes[0]
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text(encoding="utf-8")), 0)


def test_a_timed_out_hook_with_fail_on_error_denies(tmp_path: Path, root: Path) -> None:
    runner = load(tmp_path, root, {"pre-delete": one("exec sleep 30", timeout=0.5, failOnError=True)})
    with pytest.raises(HookDeniedError, match=r"timed out after 0\.5 s"):
        runner.run(event_for(root, event="pre-delete", tool_name="delete_file", operation="delete_file"))


@pytest.mark.parametrize(
    ("command", "problem"),
    [
        ("echo broken >&2; exit 1", "exited with code 1: broken"),
        ("""echo '{"decision": "maybe"}'""", "unknown decision 'maybe'"),
    ],
)
def test_a_failing_hook_continues_with_a_note_unless_fail_on_error(
    tmp_path: Path, root: Path, command: str, problem: str
) -> None:
    lenient = load(tmp_path, root, {"pre-write": one(command)})
    outcome = lenient.run(event_for(root))
    assert outcome.modified_content is None
    assert problem in outcome.notes[0]
    strict = load(tmp_path, root, {"pre-write": one(command, failOnError=True)})
    with pytest.raises(HookDeniedError, match=re.escape(problem)):
        strict.run(event_for(root))


def test_post_hooks_never_raise_and_only_log_their_failures(
    tmp_path: Path, root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    entries = [*one("echo vetoed >&2; exit 2", failOnError=True), *one("exit 7")]
    runner = load(tmp_path, root, {"post-write": entries})
    with caplog.at_level(logging.WARNING, logger="fsguard.core.hooks"):
        outcome = runner.run(event_for(root, event="post-write"))
    assert outcome == HookOutcome(None, (), 2)
    logged = caplog.text
    assert "vetoed" in logged
    assert "exited with code 7" in logged


def test_disabled_hooks_do_not_run(tmp_path: Path, root: Path) -> None:
    marker = tmp_path / "ran"
    disabled = one(f"touch {marker}", enabled=False)
    assert not load(tmp_path, root, {"pre-write": disabled}).enabled
    runner = load(tmp_path, root, {"pre-write": [*disabled, *one("true")]})
    assert runner.enabled
    assert runner.run(event_for(root)).ran == 1
    assert not marker.exists()


def test_parallel_hooks_run_concurrently_and_once_per_command(tmp_path: Path, root: Path) -> None:
    log = tmp_path / "log"

    def rendezvous(mine: str, theirs: str) -> str:
        # Each waits (bounded) for the other's marker, so both succeed only when they run at the same time.
        a, b = tmp_path / mine, tmp_path / theirs
        wait = f"i=0; while [ ! -e {b} ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i+1)); done"
        return f"touch {a}; {wait}; test -e {b} || exit 2"

    logging_hook = f"echo run >> {log}"
    entries = [*one(logging_hook), *one(rendezvous("a", "b")), *one(logging_hook), *one(rendezvous("b", "a"))]
    entries[0]["hooks"].append({"command": logging_hook})
    runner = load(tmp_path, root, {"pre-copy": entries})
    outcome = runner.run(event_for(root, event="pre-copy", tool_name="copy_file", operation="copy_file"))
    assert outcome.ran == 3
    assert log.read_text(encoding="utf-8") == "run\n"


def test_underscore_event_spellings_are_accepted(tmp_path: Path, root: Path) -> None:
    runner = load(tmp_path, root, {"pre_write": one("exit 2")})
    with pytest.raises(HookDeniedError):
        runner.fire("pre", "write", tool_name="write_file", file_path=str(root / "a"), operation="write_file")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, "cannot be read"),
        ("{not json", "cannot be read as JSON"),
        (json.dumps({"hooks": {"pre-frobnicate": []}}), "unknown event 'pre-frobnicate'"),
        (json.dumps({"hooks": {"pre-write": [{"pattern": "re:(", "hooks": []}]}}), "not a valid regular expression"),
        (json.dumps({"hooks": {"pre-write": one("true", timeout=0)}}), '"timeout" must be a positive number'),
        ('{"hooks": {"pre-write": [{"hooks": [{"command": "true", "timeout": NaN}]}]}}', "at most 3600, not nan"),
        ('{"hooks": {"pre-write": [{"hooks": [{"command": "true", "timeout": Infinity}]}]}}', "at most 3600, not inf"),
        (json.dumps({"hooks": {"pre-write": one("true", timeout=1e300)}}), "at most 3600, not 1e+300"),
        (json.dumps({"hooks": {"pre-write": one("true", timeout=10**400)}}), "at most 3600, not 1000"),
        (json.dumps({"hooks": {"post-write": one("echo a\u0000b")}}), "holds a NUL character"),
        (json.dumps({"hooks": {"pre-write": one("true", failOnErorr=True)}}), "unknown key 'failOnErorr'"),
        (json.dumps({"hooks": {"pre-write": [{"pattern": "*"}]}}), 'needs a "hooks" list'),
        (json.dumps({"hooks": {"pre-write": one("true", type="http")}}), '"type": "command"'),
        (json.dumps({"hookz": {}}), 'a "hooks" object'),
        (json.dumps({"hooks": {}, "extra": 1}), "unknown top-level key 'extra'"),
        ('{"hooks": {"pre-write": [{"hooks": [{"command": "true"}]}]}, "hooks": {}}', "the key 'hooks' appears twice"),
        (
            '{"hooks": {"pre-write": [{"hooks": [{"command": "a", "command": "b"}]}]}}',
            "the key 'command' appears twice",
        ),
    ],
)
def test_a_missing_or_invalid_config_is_refused_at_load_naming_the_file(
    tmp_path: Path, root: Path, text: str | None, problem: str
) -> None:
    config = tmp_path / "hooks.json"
    if text is not None:
        config.write_text(text, encoding="utf-8")
    with pytest.raises(HookConfigError) as refused:
        HookRunner.load(config, (root,))
    assert isinstance(refused.value, FsguardError)
    assert refused.value.code == "invalid_params"
    assert str(config) in refused.value.message
    assert problem in refused.value.message


def test_no_config_means_no_hooks_and_an_empty_outcome(root: Path) -> None:
    runner = HookRunner.load(None, (root,))
    assert not runner.enabled
    assert runner.run(event_for(root)) == HookOutcome(None, (), 0)
    assert runner.fire("post", "delete", bogus="fields are not even looked at") == HookOutcome(None, (), 0)
