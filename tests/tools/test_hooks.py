"""Hooks through the tools, in both eras: a deny writes nothing, a rewrite changes what is written."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


def hook_config(tmp_path: Path, hooks: dict[str, list[dict[str, Any]]]) -> Path:
    path = tmp_path / "hooks.json"
    path.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    return path


def python_hook(tmp_path: Path, name: str, body: str) -> str:
    """A hook command running a small Python script (reads the event JSON on stdin)."""
    script = tmp_path / f"{name}.py"
    script.write_text("import json, sys\nevent = json.load(sys.stdin)\n" + body, encoding="utf-8")
    return f"{sys.executable} {script}"


async def test_a_denying_pre_write_hook_stops_the_write(connect: ClientFactory, root: Path, tmp_path: Path) -> None:
    deny = python_hook(tmp_path, "deny", 'print(json.dumps({"decision": "deny", "reason": "frozen file"}))')
    config = hook_config(
        tmp_path, {"pre-write": [{"pattern": "write_file", "hooks": [{"type": "command", "command": deny}]}]}
    )
    (root / "a.txt").write_text("original\n", encoding="utf-8")
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("write_file", {"path": "a.txt", "content": "changed\n"})
        listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert error_code(result) == "hook_denied"
    assert "frozen file" in text_of(result)
    assert (root / "a.txt").read_text(encoding="utf-8") == "original\n"
    assert listing["total"] == 0


@pytest.mark.parametrize(
    "args",
    [
        {"old_text": "b", "new_text": "B"},
        {"mode": "regex", "pattern": "b", "replacement": "B"},
        {"mode": "delete_range", "start_line": 1, "end_line": 1},
        {"mode": "insert", "anchor": "a", "new_text": "z"},
    ],
)
async def test_a_denying_pre_edit_hook_stops_every_edit_mode(
    connect: ClientFactory, root: Path, tmp_path: Path, args: dict[str, Any]
) -> None:
    config = hook_config(
        tmp_path, {"pre-edit": [{"pattern": "*", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}
    )
    (root / "a.txt").write_text("a\nb\n", encoding="utf-8")
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("edit_file", {"path": "a.txt", **args})
        multi = await client.call_tool("multi_edit", {"path": "a.txt", "edits": [{"old_text": "a", "new_text": "A"}]})
    assert error_code(result) == "hook_denied"
    assert error_code(multi) == "hook_denied"
    assert (root / "a.txt").read_text(encoding="utf-8") == "a\nb\n"


async def test_a_pre_write_hook_that_rewrites_the_content_changes_what_is_written(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    upper = python_hook(
        tmp_path, "upper", 'print(json.dumps({"decision": "allow", "modified_content": event["content"].upper()}))'
    )
    config = hook_config(tmp_path, {"pre-write": [{"hooks": [{"type": "command", "command": upper}]}]})
    async with connect(hooks_config=config) as client:
        data = structured(await client.call_tool("write_file", {"path": "a.txt", "content": "shout\n"}))
    assert (root / "a.txt").read_text(encoding="utf-8") == "SHOUT\n"
    assert data["bytes_written"] == 6


async def test_a_path_glob_hook_fires_only_for_matching_files(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "fired.log"
    record = python_hook(
        tmp_path, "record", f"open({str(log)!r}, 'a', encoding='utf-8').write(event['file_path'] + '\\n')"
    )
    config = hook_config(
        tmp_path, {"post-edit": [{"path": "**/*.py", "hooks": [{"type": "command", "command": record}]}]}
    )
    (root / "pkg").mkdir()
    (root / "pkg" / "m.py").write_text("x = 1\n", encoding="utf-8")
    (root / "notes.txt").write_text("x = 1\n", encoding="utf-8")
    async with connect(hooks_config=config) as client:
        structured(await client.call_tool("edit_file", {"path": "pkg/m.py", "old_text": "1", "new_text": "2"}))
        structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "1", "new_text": "2"}))
    assert log.read_text(encoding="utf-8").splitlines() == [str(root / "pkg" / "m.py")]


async def test_a_file_glob_given_as_pattern_matches_files_as_the_seeds_examples_meant(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # The seed's shipped examples ("pattern": "*.go") matched tool names only, so they never fired (its BUG 20).
    deny = python_hook(tmp_path, "deny", "sys.exit(2)")
    config = hook_config(tmp_path, {"pre-edit": [{"pattern": "*.go", "hooks": [{"type": "command", "command": deny}]}]})
    (root / "a.go").write_text("package a\n", encoding="utf-8")
    (root / "a.txt").write_text("package a\n", encoding="utf-8")
    async with connect(hooks_config=config) as client:
        refused = await client.call_tool(
            "edit_file", {"path": "a.go", "old_text": "package a", "new_text": "package b"}
        )
        edited = await client.call_tool(
            "edit_file", {"path": "a.txt", "old_text": "package a", "new_text": "package b"}
        )
    assert error_code(refused) == "hook_denied"
    assert not edited.is_error
    assert (root / "a.go").read_text(encoding="utf-8") == "package a\n"
    assert (root / "a.txt").read_text(encoding="utf-8") == "package b\n"


async def test_a_batch_step_answers_to_the_seeds_batch_family_name_and_to_batch_operations(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    deny = python_hook(tmp_path, "deny", "sys.exit(2)")
    entry = [{"pattern": "batch_write", "hooks": [{"type": "command", "command": deny}]}]
    config = hook_config(tmp_path, {"pre-write": entry, "pre-edit": entry})
    (root / "e.txt").write_text("old\n", encoding="utf-8")
    write = {"operations": [{"type": "write", "path": "n.txt", "content": "x\n"}]}
    edit = {"operations": [{"type": "edit", "path": "e.txt", "old_text": "old", "new_text": "new"}]}
    async with connect(hooks_config=config) as client:
        refused = await client.call_tool("batch_operations", {"request_json": json.dumps(write)})
        edited = await client.call_tool("batch_operations", {"request_json": json.dumps(edit)})
        written = await client.call_tool("write_file", {"path": "w.txt", "content": "y\n"})
    assert error_code(refused) == "batch_failed"
    assert "hook" in text_of(refused)
    assert not (root / "n.txt").exists()
    assert not edited.is_error  # batch_write names the batch's writes, not its edits
    assert (root / "e.txt").read_text(encoding="utf-8") == "new\n"
    assert not written.is_error  # nor write_file's
    assert (root / "w.txt").read_text(encoding="utf-8") == "y\n"


async def test_delete_move_copy_create_and_read_fire_their_hooks(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "events.log"
    record = python_hook(
        tmp_path,
        "events",
        f"open({str(log)!r}, 'a', encoding='utf-8').write(event['event'] + ' ' + event['tool_name'] + '\\n')",
    )
    events = [
        "pre-delete",
        "post-delete",
        "pre-move",
        "post-move",
        "pre-copy",
        "post-copy",
        "pre-create",
        "post-create",
        "pre-read",
        "post-read",
    ]
    config = hook_config(tmp_path, {e: [{"hooks": [{"type": "command", "command": record}]}] for e in events})
    (root / "a.txt").write_text("a", encoding="utf-8")
    async with connect(hooks_config=config) as client:
        structured(await client.call_tool("read_file", {"path": "a.txt"}))
        structured(await client.call_tool("copy_file", {"source_path": "a.txt", "dest_path": "b.txt"}))
        structured(await client.call_tool("move_file", {"source_path": "b.txt", "dest_path": "c.txt"}))
        structured(await client.call_tool("create_directory", {"path": "d"}))
        structured(await client.call_tool("delete_file", {"path": "c.txt"}))
    assert log.read_text(encoding="utf-8").splitlines() == [
        "pre-read read_file",
        "post-read read_file",
        "pre-copy copy_file",
        "post-copy copy_file",
        "pre-move move_file",
        "post-move move_file",
        "pre-create create_directory",
        "post-create create_directory",
        "pre-delete delete_file",
        "post-delete delete_file",
    ]


async def test_a_broken_hooks_config_stops_the_server_from_starting(tmp_path: Path, root: Path) -> None:
    from fsguard.config import Settings
    from fsguard.core.errors import FsguardError
    from fsguard.server import build_server

    bad = tmp_path / "hooks.json"
    bad.write_text('{"hooks": {"pre-nothing": []}}', encoding="utf-8")
    with pytest.raises(FsguardError, match="unknown event"):
        build_server(Settings(roots=(root,), state_dir=tmp_path / "s", hooks_config=bad))


async def test_hooks_do_not_run_for_dry_runs(
    connect: ClientFactory, root: Path, tmp_path: Path, client: Client
) -> None:
    config = hook_config(tmp_path, {"pre-edit": [{"hooks": [{"type": "command", "command": "exit 2"}]}]})
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    async with connect(hooks_config=config) as hooked:
        preview = structured(
            await hooked.call_tool("edit_file", {"path": "a.txt", "old_text": "a", "new_text": "b", "dry_run": True})
        )
    assert preview["dry_run"] is True
    assert (root / "a.txt").read_text(encoding="utf-8") == "a\n"


async def test_search_files_fires_the_search_events_and_a_denying_pre_search_hook_stops_it(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "events.jsonl"
    record = python_hook(tmp_path, "record", f"open({str(log)!r}, 'a').write(json.dumps(event) + '\\n')")
    deny = python_hook(tmp_path, "deny", 'print(json.dumps({"decision": "deny", "reason": "no searching secrets"}))')
    (root / "a.txt").write_text("needle\n", encoding="utf-8")
    (root / "secrets").mkdir()
    (root / "secrets" / "b.txt").write_text("needle\n", encoding="utf-8")
    config = hook_config(
        tmp_path,
        {
            "pre-search": [
                {"pattern": "search_files", "hooks": [{"type": "command", "command": record}]},
                {"path": "**/secrets", "hooks": [{"type": "command", "command": deny}]},
            ],
            "post-search": [{"pattern": "*", "hooks": [{"type": "command", "command": record}]}],
        },
    )
    async with connect(hooks_config=config) as client:
        found = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
        refused = await client.call_tool("search_files", {"pattern": "needle", "path": "secrets"})
    assert found["total_matches"] == 2
    assert error_code(refused) == "hook_denied"
    assert "no searching secrets" in text_of(refused)
    events = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(e["event"], e["tool_name"], e["file_path"]) for e in events] == [
        ("pre-search", "search_files", str(root)),
        ("post-search", "search_files", str(root)),
        ("pre-search", "search_files", str(root / "secrets")),
    ]
    assert events[0]["metadata"] == {"pattern": "needle", "mode": "content"}
    assert events[1]["metadata"]["total_matches"] == 2


@pytest.mark.parametrize(
    ("event", "tool", "arguments", "undone"),
    [
        ("pre-delete", "delete_file", {"path": "a.txt"}, "deleted"),
        ("pre-move", "move_file", {"source_path": "a.txt", "dest_path": "b.txt"}, "moved"),
        ("pre-copy", "copy_file", {"source_path": "a.txt", "dest_path": "b.txt"}, "copied"),
        ("pre-create", "create_directory", {"path": "d"}, "created"),
        ("pre-write", "write_file", {"path": "a.txt", "content": "x\n"}, "written"),
    ],
)
async def test_a_denying_pre_hook_says_what_did_not_happen_in_the_words_of_the_operation(
    connect: ClientFactory, root: Path, tmp_path: Path, event: str, tool: str, arguments: dict[str, Any], undone: str
) -> None:
    config = hook_config(
        tmp_path, {event: [{"pattern": "*", "hooks": [{"type": "command", "command": "echo no >&2; exit 2"}]}]}
    )
    (root / "a.txt").write_text("original\n", encoding="utf-8")
    async with connect(hooks_config=config) as client:
        result = await client.call_tool(tool, arguments)
    assert error_code(result) == "hook_denied"
    assert f"Nothing was {undone}." in text_of(result)
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]
    assert (root / "a.txt").read_text(encoding="utf-8") == "original\n"


LINE_1 = {"start_line": 1, "end_line": 1}


@pytest.mark.parametrize(
    ("event", "tool", "arguments", "path"),
    [
        ("pre-edit", "edit_file", {"path": "a.txt", "old_text": "a", "new_text": "z"}, "a.txt"),
        ("pre-edit", "project_replace", {"find": "a", "replace": "z"}, "a.txt"),
        ("pre-edit", "minify_js", {"path": "a.js"}, "a.js"),
        ("pre-write", "write_file", {"path": "a.txt", "content": "c\n", "append": True}, "a.txt"),
        (
            "pre-edit",
            "batch_operations",
            {"request_json": {"operations": [{"type": "extract", "source": "a.txt", "destination": "b", **LINE_1}]}},
            "a.txt",
        ),
    ],
    ids=["edit_file", "project_replace", "minify_js", "append", "extract"],
)
@pytest.mark.parametrize("eol", [b"\r\n", b"\r"], ids=["crlf", "cr"])
async def test_a_pre_hooks_lf_text_over_a_crlf_or_cr_file_keeps_the_files_line_breaks_as_write_file_does(
    connect: ClientFactory,
    root: Path,
    tmp_path: Path,
    event: str,
    tool: str,
    arguments: dict[str, Any],
    path: str,
    eol: bytes,
) -> None:
    rewrite = python_hook(tmp_path, "rewrite", 'print(json.dumps({"modified_content": "A\\nB\\n"}))')
    config = hook_config(tmp_path, {event: [{"path": path, "hooks": [{"type": "command", "command": rewrite}]}]})
    (root / path).write_bytes(b"a" + eol + b"b" + eol)
    async with connect(hooks_config=config) as client:
        structured(await client.call_tool(tool, arguments))
    assert (root / path).read_bytes() == b"A" + eol + b"B" + eol


async def test_what_the_hooks_tell_the_agent_and_a_failed_pre_hook_reach_write_file_and_edit_file_results(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    def told(context: str) -> dict[str, Any]:
        return {"type": "command", "command": f"""echo '{{"additional_context": "{context}"}}'"""}

    broken = {"type": "command", "command": "exit 1", "description": "lint"}
    hooks = [{"hooks": [told("run make fmt"), broken]}]
    config = hook_config(
        tmp_path,
        {"pre-write": hooks, "pre-edit": hooks, "post-write": [{"hooks": [told("indexed")]}]},
    )
    (root / "e.txt").write_bytes(b"one\n")
    async with connect(hooks_config=config) as client:
        written = await client.call_tool("write_file", {"path": "w.txt", "content": "x\n"})
        edited = await client.call_tool("edit_file", {"path": "e.txt", "old_text": "one", "new_text": "two"})
        appended = await client.call_tool("write_file", {"path": "w.txt", "content": "y\n", "append": True})
    failed = 'pre-{} hook "lint" (exit 1) exited with code 1; went on without it.'
    assert structured(written)["feedback"] == "\n".join(["run make fmt", failed.format("write"), "indexed"])
    assert structured(appended)["feedback"] == structured(written)["feedback"]
    assert structured(edited)["notes"] == ["run make fmt", failed.format("edit")]
    for result in (written, edited):
        assert "run make fmt" in text_of(result)
        assert "went on without it" in text_of(result)
    assert (root / "w.txt").read_bytes() == b"x\ny\n"
    assert (root / "e.txt").read_bytes() == b"two\n"


async def test_a_pre_delete_hook_that_fails_a_batch_does_not_stop_its_rollback_of_a_copy(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # Taking back the batch's own copy is no delete for the hook to refuse: it left c.txt after an "atomic" failure.
    config = hook_config(tmp_path, {"pre-delete": [{"hooks": [{"type": "command", "command": "exit 2"}]}]})
    (root / "a.txt").write_bytes(b"one\n")
    (root / "m.txt").write_bytes(b"m\n")
    operations = [
        {"type": "copy", "path": "a.txt", "destination": "c.txt"},
        {"type": "write", "path": "b.txt", "content": "b\n"},
        {"type": "delete", "path": "m.txt"},
    ]
    async with connect(hooks_config=config) as client:
        failed = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(failed) == "batch_failed"
    assert {path.name: path.read_bytes() for path in root.iterdir()} == {"a.txt": b"one\n", "m.txt": b"m\n"}


async def test_a_hooks_megabytes_of_additional_context_reach_the_agent_cut_as_its_reason_is(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    flood = python_hook(tmp_path, "flood", 'print(json.dumps({"additional_context": "c" * 5_000_000}))')
    config = hook_config(tmp_path, {"post-write": [{"hooks": [{"type": "command", "command": flood}]}]})
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("write_file", {"path": "a.txt", "content": "x\n"})
    feedback = structured(result)["feedback"]
    assert len(feedback) < 3_000
    assert feedback.endswith("(5,000,000 characters)")
    assert len(text_of(result)) < 3_000
    assert (root / "a.txt").read_bytes() == b"x\n"


async def test_a_post_write_hook_that_cannot_be_started_leaves_the_write_a_success(
    connect: ClientFactory, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A NUL in a command made Popen raise ValueError: the write was made, then the call said internal_error, "Retry".
    def refused(*args: object, **kwargs: object) -> None:
        raise ValueError("embedded null byte")

    monkeypatch.setattr("fsguard.core.hookprocess.Popen", refused)
    config = hook_config(tmp_path, {"post-write": [{"hooks": [{"type": "command", "command": "true"}]}]})
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("write_file", {"path": "a.txt", "content": "x\n"})
    assert not result.is_error
    assert structured(result)["created"]
    assert (root / "a.txt").read_bytes() == b"x\n"
