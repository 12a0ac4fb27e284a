"""The seed's own acceptance cases (catalog §4) that no other test here spells with the seed's data.

Each test is one §4 bullet, called through MCP as a test written from the catalog would call it, with the seed's
inputs and expected bytes; the bytes on disk are checked, and structuredContent is read by the field names SPEC
gives. Where the seed pinned one of its bugs, the test pins the fix instead and says so. Both protocol eras,
through ``client`` (and ``connect`` where a server flag is needed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


def write(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


async def test_a_header_edit_dropping_its_final_newline_does_not_fuse_the_next_line(client: Client, root: Path) -> None:
    """§4 edit_file, boundary newline (the seed's bug10 case, LF and CRLF)."""
    source = b"    public void codiPressupost)\n    {\n        using var db = new Db();\n    }\n"
    cs = write(root, "a.cs", source)
    header = "    public void codiPressupost)\n    {"
    structured(await client.call_tool("edit_file", {"path": "a.cs", "old_text": header + "\n", "new_text": header}))
    assert cs.read_bytes() == source
    crlf = write(root, "c.txt", b"line1\r\nline2\r\nline3\r\n")
    structured(await client.call_tool("edit_file", {"path": "c.txt", "old_text": "line2\n", "new_text": "line2"}))
    assert crlf.read_bytes() == b"line1\r\nline2\r\nline3\r\n"


async def test_an_indented_target_is_replaced_in_place_keeping_the_trailing_newline(client: Client, root: Path) -> None:
    """§4 edit_file: the scanner tier case."""
    path = write(root, "s.txt", b"alpha\n    target\nomega\n")
    structured(await client.call_tool("edit_file", {"path": "s.txt", "old_text": "target", "new_text": "replaced"}))
    assert path.read_bytes() == b"alpha\n    replaced\nomega\n"


async def test_search_replace_dry_run_writes_nothing_and_the_real_run_replaces_every_occurrence(
    client: Client, root: Path
) -> None:
    """§4 edit_file search_replace: DRY RUN in the text and the file unchanged; then DELTA beta DELTA."""
    path = write(root, "d.txt", b"alpha beta alpha")
    arguments = {"path": "d.txt", "mode": "search_replace", "pattern": "alpha", "replacement": "DELTA"}
    dry = await client.call_tool("edit_file", {**arguments, "dry_run": True})
    assert "DRY RUN" in text_of(dry)
    assert path.read_bytes() == b"alpha beta alpha"
    applied = await client.call_tool("edit_file", arguments)
    assert structured(applied)["replacements"] == 2
    assert "DRY RUN" not in text_of(applied)
    assert path.read_bytes() == b"DELTA beta DELTA"


async def test_regex_mode_with_pattern_and_replacement_and_no_patterns_json_transforms(
    client: Client, root: Path
) -> None:
    """§4 edit_file regex: pattern+replacement synthesize one transformation (the FOO[123] case)."""
    path = write(root, "r.txt", b"FOO[123] FOO[456] bar789\n")
    arguments = {"path": "r.txt", "mode": "regex", "pattern": r"FOO\[(\d+)\]", "replacement": "X$1"}
    assert structured(await client.call_tool("edit_file", arguments))["replacements"] == 2
    assert path.read_bytes() == b"X123 X456 bar789\n"


@pytest.mark.parametrize(
    ("before", "rules", "options", "after", "replacements"),
    [
        (b"foo bar baz\n", [("foo", "FOO"), ("bar", "BAR"), ("baz", "BAZ")], {}, b"FOO BAR BAZ\n", 3),
        (b"hello HELLO Hello hELLo\n", [("hello", "Hi")], {"case_sensitive": False}, b"Hi Hi Hi Hi\n", 4),
        (b"test test test test test\n", [("test", "TEST", 2)], {}, b"TEST TEST test test test\n", 2),
    ],
    ids=["sequential", "case_insensitive", "limit"],
)
async def test_the_regex_transformer_cases_of_the_seed(
    client: Client,
    root: Path,
    before: bytes,
    rules: list[tuple[Any, ...]],
    options: dict[str, Any],
    after: bytes,
    replacements: int,
) -> None:
    """§4 regex transformer: three sequential patterns, case-insensitive (4 replacements), limit 2."""
    path = write(root, "t.txt", before)
    spelled = [dict(zip(("pattern", "replacement", "limit"), rule, strict=False)) for rule in rules]
    arguments = {"path": "t.txt", "mode": "regex", "patterns_json": json.dumps(spelled), **options}
    assert structured(await client.call_tool("edit_file", arguments))["replacements"] == replacements
    assert path.read_bytes() == after


@pytest.mark.parametrize(
    ("before", "arguments", "after"),
    [
        (
            b"func a() {\n}\nfunc b() {\n}\n",
            {"anchor": "func a() {\n}\n", "new_text": "func inserted() {\n}\n"},
            b"func a() {\n}\nfunc inserted() {\n}\nfunc b() {\n}\n",
        ),
        (b"line1\nANCHOR\nline3\n", {"anchor": "ANCHOR", "new_text": "INSERTED"}, b"line1\nANCHOR\nINSERTED\nline3\n"),
        (
            b"header\nfooter\n",
            {"anchor": "footer", "new_text": "middle", "position": "before"},
            b"header\nmiddle\nfooter\n",
        ),
        (b"aaa\r\nbbb\r\nccc\r\n", {"anchor": "bbb", "new_text": "XXX"}, b"aaa\r\nbbb\r\nXXX\r\nccc\r\n"),
    ],
    ids=["after_block", "mid_line_anchor", "before", "crlf"],
)
async def test_the_insert_cases_of_the_seed(
    client: Client, root: Path, before: bytes, arguments: dict[str, str], after: bytes
) -> None:
    """§4 edit_file insert: the inserted text lands on its own lines, the anchor's bytes untouched."""
    path = write(root, "i.txt", before)
    result = structured(await client.call_tool("edit_file", {"path": "i.txt", "mode": "insert", **arguments}))
    assert path.read_bytes() == after
    assert (result["lines_added"], result["lines_removed"]) == (after.count(b"\n") - before.count(b"\n"), 0)


async def test_a_written_file_is_verified_on_disk_and_listed_at_once(client: Client, root: Path) -> None:
    """§4 write_file: verified=true, bytes_written == on-disk size == len(content), hash of the disk bytes."""
    content = "verified post-write evidence\n"
    answer = await client.call_tool("write_file", {"path": "v.txt", "content": content})
    result = structured(answer)
    on_disk = (root / "v.txt").read_bytes()
    assert on_disk == content.encode()
    assert result["verified"] is True
    assert result["bytes_written"] == len(on_disk) == len(content)
    assert result["path"].endswith("v.txt")
    assert result["message"] == text_of(answer)
    read = structured(await client.call_tool("read_file", {"path": "v.txt"}))
    assert result["content_hash"] == read["content_hash"]
    listed = structured(await client.call_tool("list_directory", {"path": "."}))
    assert "v.txt" in [entry["name"] for entry in listed["entries"]]


async def test_base64_round_trips_the_seeds_vectors_and_creates_parent_directories(client: Client, root: Path) -> None:
    """§4 read_file base64 engine: "Hello, World!" ↔ SGVsbG8sIFdvcmxkIQ==, 00 01 02 FF FE FD ↔ AAEC//79."""
    for name, encoded, raw in [
        ("deep/er/h.bin", "SGVsbG8sIFdvcmxkIQ==", b"Hello, World!"),
        ("b.bin", "AAEC//79", bytes([0, 1, 2, 0xFF, 0xFE, 0xFD])),
    ]:
        written = structured(await client.call_tool("write_file", {"path": name, "content_base64": encoded}))
        assert written["bytes_written"] == len(raw)
        assert (root / name).read_bytes() == raw
        read = structured(await client.call_tool("read_file", {"path": name, "encoding": "base64"}))
        assert read["content"] == encoded


async def test_a_multi_edit_risk_note_counts_its_real_replacements(client: Client, root: Path) -> None:
    """§4 multi_edit risk: the note after 4 applied edits says "4 replacements" (the seed once said 0)."""
    path = write(root, "w.txt", b"".join(b"w%d abc\n" % i for i in range(6)))
    edits = [{"old_text": f"w{i} abc", "new_text": f"W{i} ABC"} for i in range(4)]
    result = structured(await client.call_tool("multi_edit", {"path": "w.txt", "edits_json": json.dumps(edits)}))
    assert result["risk_level"] == "MEDIUM"
    assert "4 replacements" in result["risk_warning"]
    assert path.read_bytes() == b"W0 ABC\nW1 ABC\nW2 ABC\nW3 ABC\nw4 abc\nw5 abc\n"


async def test_a_critical_multi_edit_proceeds_with_a_backup(client: Client, root: Path) -> None:
    """§4 multi_edit risk: AB→CD (CRITICAL) is applied, not blocked, and backed up first."""
    path = write(root, "ab.txt", b"AB")
    result = structured(
        await client.call_tool("multi_edit", {"path": "ab.txt", "edits": [{"old_text": "AB", "new_text": "CD"}]})
    )
    assert result["risk_level"] == "CRITICAL"
    assert path.read_bytes() == b"CD"
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "ab.txt"}))
    assert path.read_bytes() == b"AB"


async def test_max_results_caps_the_text_as_well_as_the_json(client: Client, root: Path) -> None:
    """§4 search_files: max_results 3 on 7 matches ⇒ total 7, returned 3, truncated; the text shows ≤3 matches."""
    write(root, "seven.txt", b"".join(b"tok %d\n" % i for i in range(7)))
    arguments = {"path": "seven.txt", "pattern": "tok", "max_results": 3}
    answer = await client.call_tool("search_files", arguments)
    result = structured(answer)
    assert (result["total_matches"], result["returned_matches"], result["truncated"]) == (7, 3, True)
    assert sum(1 for line in text_of(answer).splitlines() if "tok " in line) <= 3


async def test_context_lines_are_shown_in_compact_mode_too(connect: ClientFactory, root: Path) -> None:
    """§4 search_files: include_context shows the neighbouring lines 2 and 4 (also in compact mode)."""
    write(root, "c.txt", b"one\ntwo\nthree hit\nfour\nfive\n")
    async with connect(compact_mode=True) as client:
        arguments = {"path": "c.txt", "pattern": "hit", "include_context": True, "context_lines": 1}
        answer = await client.call_tool("search_files", arguments)
    (match,) = structured(answer)["matches"]
    assert (match["context_before"], match["context_after"]) == (["two"], ["four"])
    assert "two" in text_of(answer)
    assert "four" in text_of(answer)


async def test_a_pipeline_intersection_keeps_only_the_files_both_steps_found(client: Client, root: Path) -> None:
    """§4 pipeline: merge intersection ⇒ only both.txt; aggregate of one step ⇒ its files."""
    write(root, "m/both.txt", b"k q\n")
    write(root, "m/only_k.txt", b"k\n")
    write(root, "m/only_q.txt", b"q\n")
    steps = [
        {"id": "k", "action": "search", "params": {"pattern": "k", "path": "m"}},
        {"id": "q", "action": "search", "params": {"pattern": "q", "path": "m"}},
        {"id": "both", "action": "merge", "input_from_all": ["k", "q"], "params": {"mode": "intersection"}},
        {"id": "all", "action": "merge", "input_from_all": ["k", "q"], "params": {"mode": "union"}},
    ]
    answer = await client.call_tool("batch_operations", {"pipeline_json": json.dumps({"name": "m", "steps": steps})})
    by_id = {step["id"]: sorted(Path(f).name for f in step["files"]) for step in structured(answer)["steps"]}
    assert by_id["both"] == ["both.txt"]
    assert by_id["all"] == ["both.txt", "only_k.txt", "only_q.txt"]


async def test_pipeline_conditions_and_templates_as_the_seed_pins_them(client: Client, root: Path) -> None:
    """§4 pipeline: count_gt 8>5 true, 8>10 false, count_lt, count_eq 3+2==5, file_exists/not_exists,
    step_succeeded/failed; a template's unknown step or field is left verbatim."""
    write(root, "t/a.txt", b"x x x x x x x x\n")
    write(root, "t/b.txt", b"y y y\n")
    write(root, "t/c.txt", b"y y\n")
    search = {"action": "search", "params": {"pattern": "x", "path": "t"}}
    template = "o-{{a.count}}-{{zz.count}}-{{a.x}}"
    steps = [
        {"id": "a", "action": "search", "params": {"pattern": "x", "path": "t/a.txt"}},
        {"id": "ys", "action": "search", "params": {"pattern": "y", "path": "t"}},
        {"id": "gt5", **search, "condition": {"type": "count_gt", "step_ref": "a", "value": 5}},
        {"id": "gt10", **search, "condition": {"type": "count_gt", "step_ref": "a", "value": 10}},
        {"id": "lt10", **search, "condition": {"type": "count_lt", "step_ref": "a", "value": 10}},
        {"id": "eq5", **search, "condition": {"type": "count_eq", "step_ref": "ys", "value": 5}},
        {"id": "exists", **search, "condition": {"type": "file_exists", "path": "t/a.txt"}},
        {"id": "absent", **search, "condition": {"type": "file_not_exists", "path": "t/a.txt"}},
        {"id": "ok", **search, "condition": {"type": "step_succeeded", "step_ref": "a"}},
        {"id": "failed", **search, "condition": {"type": "step_failed", "step_ref": "a"}},
        {"id": "tpl", "action": "copy", "input_from": "a", "params": {"destination": template}},
    ]
    answer = await client.call_tool("batch_operations", {"pipeline_json": json.dumps({"name": "c", "steps": steps})})
    status = {step["id"]: step["status"] for step in structured(answer)["steps"]}
    skipped = {name for name, value in status.items() if value == "skipped"}
    assert skipped == {"gt10", "absent", "failed"}
    assert (root / "o-8-{{zz.count}}-{{a.x}}" / "a.txt").read_bytes() == b"x x x x x x x x\n"


async def test_a_case_insensitive_literal_project_replace_keeps_a_dollar_literal(client: Client, root: Path) -> None:
    """§4 project_replace case-insensitive ⇒ 3; the seed's BUG (a regex under the hood ate `$`) is not copied."""
    path = write(root, "p/i.txt", b"UTF8_ENCODE Utf8_Encode utf8_encode\n")
    arguments = {"path": "p", "find": "utf8_encode", "replace": "x$1", "case_sensitive": False}
    assert structured(await client.call_tool("project_replace", arguments))["total_replacements"] == 3
    assert path.read_bytes() == b"x$1 x$1 x$1\n"


async def test_restore_trash_refuses_the_seeds_bad_ids(client: Client, root: Path) -> None:
    """§4 trash: ../../etc/passwd, ..\\.., foo/bar, .., ., ;rm are "invalid"; an empty id is a missing one."""
    for bad in ["../../etc/passwd", "..\\..", "foo/bar", "..", ".", ";rm"]:
        refused = await client.call_tool("backup", {"action": "restore_trash", "sd_id": bad})
        assert error_code(refused) == "invalid_params", bad
        assert "invalid" in text_of(refused).lower(), bad
    empty = await client.call_tool("backup", {"action": "restore_trash", "sd_id": ""})
    assert error_code(empty) == "invalid_params"
