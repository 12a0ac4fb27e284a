"""Details of the seed catalog's §1, tool by tool: defaults, parameter shapes and error wording a seed client relies on.

Each case is a call shaped as the seed's callers send it and the effect catalog §1 documents (or fsguard's
deliberate improvement of it, named in the test). Where a file changes, the bytes on disk are checked. Both
protocol eras, through ``client``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def lines(root: Path) -> Path:
    path = root / "lines.txt"
    path.write_bytes(b"one\ntwo\nthree\n")
    return path


async def test_zero_for_an_optional_line_number_or_limit_is_taken_as_not_given(client: Client, lines: Path) -> None:
    """The seed read 0 as "not given" (catalog §1.1: a range read starts only at start_line > 0)."""
    whole = structured(await client.call_tool("read_file", {"path": "lines.txt", "start_line": 0, "end_line": 0}))
    assert whole["content"] == "one\ntwo\nthree\n"
    head = structured(await client.call_tool("read_file", {"path": "lines.txt", "start_line": 0, "end_line": 2}))
    assert head["content"] == "one\ntwo\n"
    edit = {"path": "lines.txt", "old_text": "two", "new_text": "TWO", "start_line": 0, "end_line": 0}
    structured(await client.call_tool("edit_file", edit))
    assert lines.read_bytes() == b"one\nTWO\nthree\n"
    listed = structured(await client.call_tool("backup", {"action": "list", "limit": 0}))
    assert listed["total"] == 1
    tree = {"path": ".", "output_format": "tree", "max_depth": 0}
    assert structured(await client.call_tool("list_directory", tree))["tree"]["children"]
    search = {"path": ".", "pattern": "e", "include_content": True, "max_results": 0}
    assert structured(await client.call_tool("search_files", search))["returned_matches"] == 3


async def test_a_negative_line_number_is_still_refused(client: Client, lines: Path) -> None:
    refused = await client.call_tool("read_file", {"path": "lines.txt", "start_line": -1})
    assert error_code(refused) == "invalid_params"


async def test_a_multi_edit_edit_without_an_old_key_is_refused_as_the_seed_words_it(client: Client, root: Path) -> None:
    """Catalog §1.4 / §4: oldString/newString ⇒ "no recognized old key", naming the keys sent; nothing written."""
    (root / "m.txt").write_bytes(b"X\n")
    edits = json.dumps([{"oldString": "X", "newString": "Y"}])
    refused = await client.call_tool("multi_edit", {"path": "m.txt", "edits_json": edits})
    assert error_code(refused) == "invalid_params"
    assert "no recognized old key" in text_of(refused)
    assert "got keys: newString, oldString" in text_of(refused)
    assert (root / "m.txt").read_bytes() == b"X\n"


async def test_a_multi_edit_edit_may_pick_one_occurrence_as_its_ambiguity_error_suggests(
    client: Client, root: Path
) -> None:
    (root / "m.txt").write_bytes(b"X X X\nend\n")
    ambiguous = await client.call_tool(
        "multi_edit", {"path": "m.txt", "edits_json": [{"old_text": "X", "new_text": "Y"}]}
    )
    assert error_code(ambiguous) == "ambiguous_match"
    assert "occurrence=N" in text_of(ambiguous)
    edits = [{"old_text": "X", "new_text": "Y", "occurrence": 2}, {"old_text": "end", "new_text": "END"}]
    result = structured(await client.call_tool("multi_edit", {"path": "m.txt", "edits_json": edits}))
    assert result["successful_edits"] == 2
    assert (root / "m.txt").read_bytes() == b"X Y X\nEND\n"
    both = [{"old_text": "X", "new_text": "Y", "occurrence": 1, "replace_all": True}]
    assert error_code(await client.call_tool("multi_edit", {"path": "m.txt", "edits_json": both})) == "invalid_params"
    assert (root / "m.txt").read_bytes() == b"X Y X\nEND\n"


async def test_insert_names_the_anchor_when_it_is_missing_or_not_unique(client: Client, root: Path) -> None:
    """Catalog §1.3 F: "anchor not found" / "anchor matches N times … Quote more surrounding context"; the advice
    never names old_text, occurrence or replace_all, which insert does not take."""
    (root / "i.txt").write_bytes(b"{\n}\n{\n}\n")
    missing = await client.call_tool(
        "edit_file", {"path": "i.txt", "mode": "insert", "anchor": "nope", "new_text": "x"}
    )
    assert error_code(missing) == "no_match"
    assert text_of(missing).startswith('anchor not found: "nope" — anchor was not found in i.txt')
    twice = await client.call_tool("edit_file", {"path": "i.txt", "mode": "insert", "anchor": "}", "new_text": "x"})
    assert error_code(twice) == "ambiguous_match"
    assert text_of(twice).startswith(
        "anchor matches 2 times (expected 1). Quote more surrounding context to make it unique: anchor is found "
        "in i.txt (at lines 2, 4"
    )
    for answer in (missing, twice):
        assert "anchor" in text_of(answer).splitlines()[-1]
        assert not any(word in text_of(answer) for word in ("old_text", "occurrence", "replace_all", "tolerant"))
    assert (root / "i.txt").read_bytes() == b"{\n}\n{\n}\n"


async def test_a_missing_anchor_in_a_long_file_is_named_as_the_anchor_too(client: Client, root: Path) -> None:
    """Past 20 lines the report shows the closest lines instead of the whole file; it names the anchor there too."""
    body = b"".join(b"line %d\n" % n for n in range(1, 40))
    (root / "long.txt").write_bytes(body)
    texts = []
    for anchor in ("zzzzzzzz", "line 7x"):  # nothing like it, then a near miss
        missing = await client.call_tool(
            "edit_file", {"path": "long.txt", "mode": "insert", "anchor": anchor, "new_text": "x"}
        )
        assert error_code(missing) == "no_match"
        texts.append(text_of(missing))
    assert "No line resembles the first line of anchor." in texts[0]
    assert "Closest lines:" in texts[1]
    assert not any("old_text" in text for text in texts)
    assert (root / "long.txt").read_bytes() == body


async def test_analyze_operation_rates_writing_a_new_file_low_risk_and_writes_nothing(
    client: Client, root: Path
) -> None:
    """Catalog §1.7: the write score counts an existing file as a risk factor; a new file overwrites nothing, so it
    is not the CRITICAL "100 % of the file changes" an empty before-state would measure."""
    plan = {"operation": "write", "path": "new/notes.txt", "content": "hello\n"}
    result = structured(await client.call_tool("analyze_operation", plan))
    assert (result["exists"], result["risk_level"]) == (False, "LOW")
    assert result["risk_factors"] == ["creates a new file: nothing existing is overwritten"]
    assert not any("backup" in suggestion for suggestion in result["suggestions"])
    assert result["lines_added"] == 1
    assert not (root / "new").exists()


async def test_restore_trash_takes_the_sd_id_in_backup_id_as_the_seeds_skill_documented_it(
    client: Client, lines: Path
) -> None:
    """Catalog §1.15 / §7: the seed's skill file told agents to call restore_trash with backup_id."""
    trashed = structured(await client.call_tool("delete_file", {"path": "lines.txt"}))
    sd_id = trashed["results"][0]["sd_id"]
    assert not lines.exists()
    structured(await client.call_tool("backup", {"action": "restore_trash", "backup_id": sd_id}))
    assert lines.read_bytes() == b"one\ntwo\nthree\n"


@pytest.mark.parametrize(
    ("action", "needed"),
    [("undo_last", "file_path"), ("undo_chain", "file_path"), ("compare", "backup_id"), ("restore_trash", "sd_id")],
)
async def test_a_backup_action_missing_its_id_or_file_names_the_action_and_an_example(
    client: Client, lines: Path, action: str, needed: str
) -> None:
    refused = await client.call_tool("backup", {"action": action})
    assert error_code(refused) == "invalid_params"
    assert f"{needed} is required" in text_of(refused)
    assert action in text_of(refused)
    assert f"e.g. {needed}=" in text_of(refused)


async def test_include_context_shows_three_lines_each_side_once_in_line_order(client: Client, root: Path) -> None:
    """Catalog §1.6: context_lines defaults to 3. Context two matches share is shown once, a match line is never
    repeated as context, and a gap between groups is marked ``--``, as rg prints it."""
    body = [f"l{n}" for n in range(1, 21)]
    for n in (3, 5, 15):
        body[n - 1] = "foo"
    (root / "a.txt").write_text("\n".join(body) + "\n", encoding="utf-8")
    answer = await client.call_tool("search_files", {"path": ".", "pattern": "foo", "include_context": True})
    result = structured(answer)
    assert [m["context_before"] for m in result["matches"]] == [
        ["l1", "l2"],
        ["l2", "foo", "l4"],
        ["l12", "l13", "l14"],
    ]
    assert result["matches"][2]["context_after"] == ["l16", "l17", "l18"]
    shown = text_of(answer).splitlines()[1:]
    assert shown == [
        "a.txt",
        *["1-l1", "2-l2", "3:1:foo", "4-l4", "5:1:foo", "6-l6", "7-l7", "8-l8"],
        "--",
        *["12-l12", "13-l13", "14-l14", "15:1:foo", "16-l16", "17-l17", "18-l18"],
    ]


@pytest.mark.parametrize("path", ["", "lines.txt"], ids=["an empty path", "a path among paths"])
async def test_paths_with_a_path_that_adds_nothing_reads_the_paths(client: Client, lines: Path, path: str) -> None:
    """Catalog §1.1: without a range the seed reads ``paths`` whatever ``path`` says; fsguard does so when path is
    empty or one of them (harnesses send both), and still refuses a different path rather than ignore it."""
    (lines.parent / "b.txt").write_bytes(b"bee\n")
    many = structured(await client.call_tool("read_file", {"path": path, "paths": ["lines.txt", "b.txt"]}))
    assert [f["content"] for f in many["files"]] == ["one\ntwo\nthree\n", "bee\n"]
    other = await client.call_tool("read_file", {"path": "other.txt", "paths": ["lines.txt", "b.txt"]})
    assert error_code(other) == "invalid_params"


async def test_search_replace_on_a_directory_points_to_project_replace_and_writes_nothing(
    client: Client, root: Path
) -> None:
    """Catalog §1.3 B: the seed's search_replace walked a whole directory (unbounded, no backup: a BUG/GAP);
    fsguard edits one file and names the tool that replaces across a tree."""
    (root / "d").mkdir()
    (root / "d" / "a.txt").write_bytes(b"foo\n")
    arguments = {"path": "d", "mode": "search_replace", "pattern": "foo", "replacement": "bar"}
    refused = await client.call_tool("edit_file", arguments)
    assert error_code(refused) == "is_directory"
    assert "project_replace(path='d', find=..., replace=..., preview=true)" in text_of(refused)
    assert (root / "d" / "a.txt").read_bytes() == b"foo\n"


async def test_git_log_takes_the_seeds_output_oneline(client: Client, root: Path) -> None:
    """Catalog §1.18: log's output is oneline (default) or full; oneline means nothing for diff or show."""
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    (root / "f.txt").write_bytes(b"x\n")
    subprocess.run(["git", "add", "f.txt"], cwd=root, check=True)
    identity = ["-c", "user.name=a", "-c", "user.email=a@example.com"]
    subprocess.run(["git", *identity, "commit", "-qm", "first commit"], cwd=root, check=True)
    log = structured(await client.call_tool("git", {"action": "log", "path": str(root), "output": "oneline"}))
    assert [c["subject"] for c in log["commits"]] == ["first commit"]
    refused = await client.call_tool("git", {"action": "diff", "path": str(root), "output": "oneline"})
    assert error_code(refused) == "invalid_params"
    assert "output='oneline' is for log" in text_of(refused)


async def test_list_trash_shows_up_to_fifty_entries_by_default_as_the_seed(client: Client, root: Path) -> None:
    """Catalog §1.15: limit defaults to 20 for list and 50 for list_trash."""
    names = [f"f{n:02}.txt" for n in range(25)]
    for name in names:
        (root / name).write_bytes(b"x\n")
    structured(await client.call_tool("delete_file", {"paths": names}))
    trash = structured(await client.call_tool("backup", {"action": "list_trash"}))
    assert (trash["total"], len(trash["trash"])) == (25, 25)
    assert not any(root.iterdir())


@pytest.mark.parametrize(
    "arguments",
    [
        {"mode": "search_replace", "pattern": "zzz", "replacement": "B"},
        {"mode": "regex", "pattern": "z+", "replacement": "B"},
        {"mode": "regex", "pattern": "z+", "replacement": "B", "dry_run": True},
    ],
    ids=["search_replace", "regex", "regex dry run"],
)
async def test_search_replace_and_regex_without_a_match_are_zero_replacements_not_an_error(
    client: Client, lines: Path, arguments: dict[str, object]
) -> None:
    """Catalog §1.3 B/C: the seed answered "No matches found" (not an error) and its regex mode called zero matches a
    success (then rewrote the file anyway, a BUG). fsguard: 0 replacements, nothing written, no backup."""
    answer = await client.call_tool("edit_file", {"path": "lines.txt", **arguments})
    result = structured(answer)
    assert (result["replacements"], result.get("backup_id")) == (0, None)
    assert "0 replacements" in text_of(answer)
    assert lines.read_bytes() == b"one\ntwo\nthree\n"
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_the_same_old_text_failing_twice_adds_the_repeated_old_text_advice(client: Client, lines: Path) -> None:
    """Catalog §2.2: the same old_text (first 60 characters) failing ≥2 times on a file gets REPEATED_OLD_TEXT;
    a successful edit of the file starts the count over."""
    wrong = {"path": "lines.txt", "old_text": "four", "new_text": "4"}
    first = await client.call_tool("edit_file", wrong)
    assert error_code(first) == "no_match"
    assert "REPEATED_OLD_TEXT" not in text_of(first)
    second = await client.call_tool("edit_file", wrong)
    assert error_code(second) == "no_match"
    assert "[REPEATED_OLD_TEXT] old_text has failed to match 2 times on this file" in text_of(second)
    assert lines.read_bytes() == b"one\ntwo\nthree\n"
    structured(await client.call_tool("edit_file", {"path": "lines.txt", "old_text": "one", "new_text": "1"}))
    assert "REPEATED_OLD_TEXT" not in text_of(await client.call_tool("edit_file", wrong))
    assert lines.read_bytes() == b"1\ntwo\nthree\n"


async def test_a_dry_run_of_a_large_edit_does_not_ask_to_verify_what_was_not_written(
    client: Client, lines: Path
) -> None:
    """Catalog §2.5: the verify hint follows a written large edit (≥ 40 %); a dry run wrote nothing to read back."""
    numbers = "".join(f"line {n}\n" for n in range(12)).encode()
    lines.write_bytes(numbers)
    head = numbers[:49].decode()  # 7 lines of 12: 59 % of the file
    plan = {"path": "lines.txt", "old_text": head, "new_text": head.upper(), "dry_run": True}
    answer = await client.call_tool("edit_file", plan)
    assert structured(answer)["risk_warning"].startswith("note: large edit")
    assert "verify with read_file" not in text_of(answer)
    assert lines.read_bytes() == numbers


async def test_an_edit_of_a_few_characters_in_a_small_file_is_noted_as_one_and_not_as_a_large_edit(
    client: Client, lines: Path
) -> None:
    """Catalog §2.5: in a file of fewer than 10 lines, an edit of fewer than 200 characters is "note: edit on small
    file (L lines, ~C bytes affected, N replacements)", with no share of the file and no hint to read it back."""
    answer = await client.call_tool("edit_file", {"path": "lines.txt", "old_text": "one\ntwo", "new_text": "1\n2"})
    note = structured(answer)["risk_warning"]
    assert note.startswith("note: edit on small file (3 lines, ~7 bytes affected, 1 replacement). backup:")
    assert "% of file" not in text_of(answer)
    assert "verify with read_file" not in text_of(answer)
    assert lines.read_bytes() == b"1\n2\nthree\n"


async def test_pipeline_steps_without_an_id_are_named_from_step_0_as_the_seed_names_them(
    client: Client, root: Path
) -> None:
    """Catalog §0.1 / §4: a step without an id is ``step-<index>``, counting from 0; a seed pipeline's
    ``input_from: "step-1"`` means its second step, so the edit works on that step's files alone."""
    (root / "a.txt").write_bytes(b"alpha\n")
    (root / "b.txt").write_bytes(b"beta alpha\n")
    pipeline = {
        "name": "seed-ids",
        "steps": [
            {"type": "search", "params": {"pattern": "alpha", "path": "."}},
            {"type": "search", "params": {"pattern": "beta", "path": "."}},
            {"type": "edit", "input_from": "step-1", "params": {"old_text": "alpha", "new_text": "ALPHA"}},
        ],
    }
    result = structured(await client.call_tool("batch_operations", {"pipeline_json": json.dumps(pipeline)}))
    assert [step["id"] for step in result["steps"]] == ["step-0", "step-1", "step-2"]
    assert (root / "a.txt").read_bytes() == b"alpha\n"
    assert (root / "b.txt").read_bytes() == b"beta ALPHA\n"


async def test_a_forced_critical_project_replace_says_force_applied_it_and_a_repeat_changes_nothing(
    client: Client, root: Path
) -> None:
    """Catalog §4 / §5: 1000 occurrences are blocked without force (nothing written); with force they are applied
    and the answer says force=true applied them, so the caller does not force it again; a repeat is a no-op."""
    (root / "many.txt").write_bytes(b"zq " * 1000)
    blocked = await client.call_tool("project_replace", {"path": ".", "find": "zq", "replace": "ZQ"})
    assert error_code(blocked) == "risk_blocked"
    assert (root / "many.txt").read_bytes() == b"zq " * 1000
    arguments = {"path": ".", "find": "zq", "replace": "ZQ", "force": "true"}
    forced = await client.call_tool("project_replace", arguments)
    assert structured(forced)["total_replacements"] == 1000
    assert "risk CRITICAL; applied because force=true" in text_of(forced)
    assert (root / "many.txt").read_bytes() == b"ZQ " * 1000
    again = structured(await client.call_tool("project_replace", arguments))
    assert again["total_replacements"] == 0
    assert "force=true" not in again["message"]


async def test_old_text_typed_with_spaces_finds_a_tab_indented_block_and_keeps_the_tabs(
    client: Client, root: Path
) -> None:
    """Catalog §2.8 tier 6 / §4: an HTML block indented with tabs, quoted with four spaces and no
    tolerant_whitespace, is edited in place; new_text lands in the file's tabs; a space-indented file quoted with
    tabs likewise keeps its spaces."""
    (root / "page.html").write_bytes(b'<div class="a">\n\t<span>hi</span>\n\t<br/>\n</div>\n')
    edit = {
        "path": "page.html",
        "old_text": '<div class="a">\n    <span>hi</span>',
        "new_text": '<div class="b">\n    <span>yo</span>\n    <hr/>',
    }
    assert structured(await client.call_tool("edit_file", edit))["match_tier"] == "indentation"
    assert (root / "page.html").read_bytes() == b'<div class="b">\n\t<span>yo</span>\n\t<hr/>\n\t<br/>\n</div>\n'
    (root / "spaces.py").write_bytes(b"def f():\n    if x:\n        return 1\n")
    edits = json.dumps([{"old_text": "\tif x:\n\t\treturn 1", "new_text": "\tif y:\n\t\treturn 2"}])
    structured(await client.call_tool("multi_edit", {"path": "spaces.py", "edits_json": edits}))
    assert (root / "spaces.py").read_bytes() == b"def f():\n    if y:\n        return 2\n"


@pytest.mark.parametrize("tool", ["read_file", "get_file_info", "delete_file"])
async def test_neither_path_nor_paths_is_a_missing_path_worded_as_the_seed_words_it(client: Client, tool: str) -> None:
    """Catalog §0.1 / Appendix A: path is required unless paths is given, and its absence reads
    `• missing required parameter "path"`, as for every other tool."""
    refused = await client.call_tool(tool, {})
    assert error_code(refused) == "invalid_params"
    assert '• missing required parameter "path"' in text_of(refused)


async def test_an_edit_of_an_unread_file_that_fails_to_match_carries_the_stale_read_hint_once(
    client: Client, root: Path
) -> None:
    """Catalog §1.3 A.7 / §2.2: STALE_READ appears in edit_file's error text and in multi_edit's failures, at most
    once per file; the file is untouched."""
    (root / "e.txt").write_bytes(b"x\n")
    first = await client.call_tool("edit_file", {"path": "e.txt", "old_text": "nomatch", "new_text": "y"})
    assert error_code(first) == "no_match"
    assert "STALE_READ" in text_of(first)
    again = await client.call_tool("edit_file", {"path": "e.txt", "old_text": "other", "new_text": "y"})
    assert "STALE_READ" not in text_of(again)
    (root / "m.txt").write_bytes(b"a\na\n")
    edits = json.dumps([{"old_text": "a", "new_text": "b"}])
    failed = await client.call_tool("multi_edit", {"path": "m.txt", "edits_json": edits})
    assert error_code(failed) == "ambiguous_match"
    assert "STALE_READ" in text_of(failed)
    assert (root / "e.txt").read_bytes() == b"x\n"
    assert (root / "m.txt").read_bytes() == b"a\na\n"
