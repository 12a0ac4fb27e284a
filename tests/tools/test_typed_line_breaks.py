"""A line break typed in a replacement lands in the ending of the line it replaces (SPEC, byte preservation: "EOL
preservation ... apply to every mode"), in every mode that substitutes typed text: edit_file search_replace and
regex, batch search_and_replace, pipeline regex_transform and project_replace. Both eras; the bytes on disk decide."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def edit(client: Client, path: str, **args: Any) -> dict[str, Any]:
    return structured(await client.call_tool("edit_file", {"path": path, **args}))


async def search_and_replace(client: Client, path: str, old_text: str, new_text: str) -> None:
    """One batch_operations search_and_replace operation, which must succeed."""
    operation = {"type": "search_and_replace", "path": path, "old_text": old_text, "new_text": new_text}
    structured(await client.call_tool("batch_operations", {"request_json": {"operations": [operation]}}))


async def test_search_replace_spells_a_typed_line_break_as_crlf_in_a_crlf_file(client: Client, root: Path) -> None:
    (root / "c.txt").write_bytes(b"a;b\r\nc;d\r\n")
    data = await edit(client, "c.txt", mode="search_replace", pattern=";", replacement="\n")
    assert data["replacements"] == 2
    assert (root / "c.txt").read_bytes() == b"a\r\nb\r\nc\r\nd\r\n"


async def test_search_replace_gives_each_match_the_ending_of_its_own_line_in_a_mixed_file(
    client: Client, root: Path
) -> None:
    (root / "m.txt").write_bytes(b"x;1\r\ny;2\nz;3\rw;4")
    await edit(client, "m.txt", mode="search_replace", pattern=";", replacement="\r\n")
    # The last line has no break of its own: the file's first break spells it.
    assert (root / "m.txt").read_bytes() == b"x\r\n1\r\ny\n2\nz\r3\rw\r\n4"


async def test_a_typed_crlf_becomes_lf_in_an_lf_file(client: Client, root: Path) -> None:
    (root / "l.txt").write_bytes(b"one two\n")
    await edit(client, "l.txt", mode="search_replace", pattern=" ", replacement="\r\n")
    assert (root / "l.txt").read_bytes() == b"one\ntwo\n"


async def test_regex_spells_typed_breaks_in_the_file_ending_and_keeps_a_group_s_own_bytes(
    client: Client, root: Path
) -> None:
    (root / "r.txt").write_bytes(b"key=1\r\nother\r\n")
    await edit(client, "r.txt", mode="regex", pattern=r"key=(\d)", replacement="key=$1\nnew=$1")
    assert (root / "r.txt").read_bytes() == b"key=1\r\nnew=1\r\nother\r\n"
    (root / "g.txt").write_bytes(b"a\r\nb\nc\n")
    # The group carries the file's CRLF as it is; the break typed after it takes the match's ending.
    await edit(client, "g.txt", mode="regex", pattern=r"(a\r\nb)", replacement="[$1]\n")
    assert (root / "g.txt").read_bytes() == b"[a\r\nb]\r\n\nc\n"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"a;  \nb;\t\nc\n", b"a;\nb;\nc\n"),
        (b"a;  \r\nb;\t\r\nc\r\n", b"a;\r\nb;\r\nc\r\n"),
        (b"a;  \rb;\t\rc\r", b"a;\rb;\rc\r"),
        (b"a;  \r\nb;\t\nc \rd", b"a;\r\nb;\nc\rd"),
    ],
)
async def test_regex_line_end_anchors_see_every_line_break_and_keep_it(
    client: Client, root: Path, before: bytes, after: bytes
) -> None:
    # $ never held before a CRLF (0 replacements) and \s took each CR, turning the file LF.
    (root / "t.txt").write_bytes(before)
    stripped = await edit(client, "t.txt", mode="regex", pattern=r"(?m)[ \t]+$", replacement="")
    assert ((root / "t.txt").read_bytes(), stripped["replacements"]) == (after, 3 if b"c " in before else 2)
    (root / "t.txt").write_bytes(before)
    await edit(client, "t.txt", mode="regex", pattern=r"(?m)\s+$", replacement="")
    assert (root / "t.txt").read_bytes() == after.rstrip(b"\r\n")
    (root / "t.txt").write_bytes(before)
    # Rules in order, each with its limit: only the first line's ; before its trailing blanks goes.
    rules = [{"pattern": r"(?m)[ \t]+$", "replacement": ""}, {"pattern": r"(?m);$", "replacement": ".", "limit": 1}]
    applied = await edit(client, "t.txt", mode="regex", patterns_json=rules)
    assert (root / "t.txt").read_bytes() == after.replace(b";", b".", 1)
    assert applied["line"] == 1


async def test_regex_rules_in_a_classic_mac_file_insert_cr_breaks(client: Client, root: Path) -> None:
    (root / "mac.txt").write_bytes(b"head\rbody\r")
    rules = [{"pattern": "head", "replacement": "head\nsub"}, {"pattern": "body", "replacement": "body\n\nend"}]
    await edit(client, "mac.txt", mode="regex", patterns_json=rules)
    assert (root / "mac.txt").read_bytes() == b"head\rsub\rbody\r\rend\r"


async def test_undo_of_a_search_replace_in_a_crlf_file_restores_the_exact_bytes(client: Client, root: Path) -> None:
    original = b"a;b\r\nc\r\n"
    (root / "u.txt").write_bytes(original)
    await edit(client, "u.txt", mode="search_replace", pattern=";", replacement="\n")
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "u.txt"}))
    assert (root / "u.txt").read_bytes() == original


async def test_batch_search_and_replace_spells_typed_breaks_in_the_file_ending(client: Client, root: Path) -> None:
    (root / "b.txt").write_bytes(b"x = 1; y = 2\r\n")
    await search_and_replace(client, "b.txt", "; ", "\n")
    assert (root / "b.txt").read_bytes() == b"x = 1\r\ny = 2\r\n"


async def test_pipeline_regex_transform_spells_typed_breaks_in_the_file_ending(client: Client, root: Path) -> None:
    (root / "p.txt").write_bytes(b"import a, b\r\n")
    step = {
        "action": "regex_transform",
        "params": {
            "files": "p.txt",
            "patterns": [{"pattern": r"import (\w), (\w)", "replacement": "import $1\nimport $2"}],
        },
    }
    structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "split", "steps": [step]}}))
    assert (root / "p.txt").read_bytes() == b"import a\r\nimport b\r\n"


async def test_pipeline_regex_transform_anchors_at_the_end_of_each_crlf_line(client: Client, root: Path) -> None:
    (root / "q.txt").write_bytes(b"x = 1;\r\ny = 2;\r\n")
    step = {"action": "regex_transform", "params": {"files": "q.txt", "pattern": "(?m);$", "replacement": ""}}
    structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "semis", "steps": [step]}}))
    assert (root / "q.txt").read_bytes() == b"x = 1\r\ny = 2\r\n"


async def test_pipeline_count_occurrences_of_a_regex_counts_the_crlf_line_ends_its_regex_step_replaces(
    client: Client, root: Path
) -> None:
    (root / "q.txt").write_bytes(b"x = 1;\r\ny = 2;\r\n")
    step = {"action": "count_occurrences", "params": {"files": "q.txt", "pattern": "(?m);$", "regex": True}}
    done = structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "n", "steps": [step]}}))
    assert done["steps"][0]["count"] == 2
    assert (root / "q.txt").read_bytes() == b"x = 1;\r\ny = 2;\r\n"


@pytest.mark.parametrize("pattern", ["(?m)$", "x*", "(?m)^"])
async def test_pipeline_count_occurrences_counts_what_the_regex_transform_step_then_replaces(
    client: Client, root: Path, pattern: str
) -> None:
    (root / "q.txt").write_bytes(b"a;\r\nb;\n")
    count = {"action": "count_occurrences", "params": {"files": "q.txt", "pattern": pattern, "regex": True}}
    change = {"action": "regex_transform", "params": {"files": "q.txt", "pattern": pattern, "replacement": "|"}}
    counted = structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "c", "steps": [count]}}))
    changed = structured(
        await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": [change]}})
    )
    assert counted["steps"][0]["count"] == changed["steps"][0]["edits"]
    assert (root / "q.txt").read_bytes().count(b"|") == counted["steps"][0]["count"]


@pytest.mark.parametrize("regex", [False, True])
async def test_project_replace_spells_typed_breaks_in_each_file_s_ending_and_undoes_exactly(
    client: Client, root: Path, regex: bool
) -> None:
    files = {"crlf.txt": b"a TODO b\r\nend\r\n", "lf.txt": b"a TODO b\nend\n", "cr.txt": b"a TODO b\rend\r"}
    for name, data in files.items():
        (root / name).write_bytes(data)
    find, replace = (r"TO(DO)", "$1\nNE") if regex else ("TODO", "DO\nNE")
    applied = structured(
        await client.call_tool("project_replace", {"find": find, "replace": replace, "literal": not regex})
    )
    assert applied["files_changed"] == 3
    assert (root / "crlf.txt").read_bytes() == b"a DO\r\nNE b\r\nend\r\n"
    assert (root / "lf.txt").read_bytes() == b"a DO\nNE b\nend\n"
    assert (root / "cr.txt").read_bytes() == b"a DO\rNE b\rend\r"
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]}))
    assert {name: (root / name).read_bytes() for name in files} == files


@pytest.mark.parametrize(
    "args",
    [
        {"mode": "search_replace", "pattern": "\r\n", "replacement": "\n"},
        {"old_text": "a\r\nb", "new_text": "a\nb"},
        {"mode": "regex", "pattern": r"\r\n", "replacement": "\n"},
    ],
    ids=["search_replace", "replace", "regex"],
)
async def test_an_edit_that_only_retypes_line_breaks_writes_nothing_and_says_how_to_convert_endings(
    client: Client, root: Path, args: dict[str, Any]
) -> None:
    (root / "w.txt").write_bytes(b"a\r\nb\r\n")
    data = await edit(client, "w.txt", **args)
    assert (root / "w.txt").read_bytes() == b"a\r\nb\r\n"
    assert data.get("backup_id") is None
    assert any("write_file content_base64" in note for note in data["notes"])


async def test_an_edit_that_changes_nothing_else_gets_no_line_ending_note(client: Client, root: Path) -> None:
    (root / "same.txt").write_bytes(b"a\r\nb\r\n")
    data = await edit(client, "same.txt", old_text="a\r\nb", new_text="a\r\nb")
    assert (root / "same.txt").read_bytes() == b"a\r\nb\r\n"
    assert not data.get("notes")


async def test_search_replace_with_an_lf_pattern_finds_the_lines_of_a_crlf_file_and_keeps_their_ending(
    client: Client, root: Path
) -> None:
    (root / "c.txt").write_bytes(b"keep\r\nold one\r\nold two\r\nkeep\rold one\rold two\r")
    data = await edit(client, "c.txt", mode="search_replace", pattern="old one\nold two", replacement="new\nlines")
    assert data["replacements"] == 2
    assert data["match_tier"] == "line_endings"
    assert (root / "c.txt").read_bytes() == b"keep\r\nnew\r\nlines\r\nkeep\rnew\rlines\r"


async def test_a_search_replace_pattern_spelling_the_file_s_own_breaks_matches_only_those(
    client: Client, root: Path
) -> None:
    (root / "m.txt").write_bytes(b"a\r\nb\na\nb\n")
    data = await edit(client, "m.txt", mode="search_replace", pattern="a\r\nb", replacement="X")
    assert data["replacements"] == 1
    assert (root / "m.txt").read_bytes() == b"X\na\nb\n"


async def test_batch_search_and_replace_with_an_lf_pattern_edits_a_crlf_file(client: Client, root: Path) -> None:
    (root / "b.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await search_and_replace(client, "b.txt", "one\ntwo", "1\n2")
    assert (root / "b.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_literal_finds_never_take_half_a_crlf(client: Client, root: Path) -> None:
    original = b"one\r\ntwo\r\nthree\r\n"
    (root / "s.txt").write_bytes(original)
    await edit(client, "s.txt", mode="search_replace", pattern="\ntwo", replacement="")
    assert (root / "s.txt").read_bytes() == b"one\r\nthree\r\n"
    (root / "b.txt").write_bytes(original)
    await search_and_replace(client, "b.txt", "two\r", "2\r")
    assert (root / "b.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"
    (root / "s.txt").write_bytes(original)
    structured(await client.call_tool("project_replace", {"find": "\nthree", "replace": "\n3"}))
    assert (root / "s.txt").read_bytes() == b"one\r\ntwo\r\n3\r\n"
    assert (root / "b.txt").read_bytes() == b"one\r\n2\r\n3\r\n"


async def test_stripping_every_cr_with_search_replace_turns_a_crlf_file_lf(client: Client, root: Path) -> None:
    (root / "c.txt").write_bytes(b"a\r\nb\r\n")
    data = await edit(client, "c.txt", mode="search_replace", pattern="\r", replacement="")
    assert data["replacements"] == 2
    assert (root / "c.txt").read_bytes() == b"a\nb\n"


async def test_project_replace_with_a_find_typed_in_lf_lines_edits_crlf_files_too(client: Client, root: Path) -> None:
    files = {"crlf.txt": b"keep\r\nold a\r\nold b\r\n", "lf.txt": b"keep\nold a\nold b\n", "no.txt": b"old a\n"}
    for name, data in files.items():
        (root / name).write_bytes(data)
    preview = structured(
        await client.call_tool("project_replace", {"find": "old a\nold b", "replace": "new", "preview": True})
    )
    assert preview["total_replacements"] == 2
    applied = structured(await client.call_tool("project_replace", {"find": "old a\nold b", "replace": "new\nlines"}))
    assert applied["files_changed"] == 2
    assert (root / "crlf.txt").read_bytes() == b"keep\r\nnew\r\nlines\r\n"
    assert (root / "lf.txt").read_bytes() == b"keep\nnew\nlines\n"
    assert (root / "no.txt").read_bytes() == b"old a\n"


@pytest.mark.parametrize("eol", [b"\r\n", b"\r"], ids=["crlf", "cr"])
async def test_lf_typed_old_text_that_starts_and_ends_inside_lines_edits_a_crlf_or_cr_file(
    client: Client, root: Path, eol: bytes
) -> None:
    lines = [b"def f(x):", b"    y = x + 1  # one", b"    return y", b""]
    (root / "f.py").write_bytes(eol.join(lines))
    data = await edit(client, "f.py", old_text="x + 1  # one\n    return", new_text="x + 2\n    # two\n    return")
    assert (data["replacements"], data["match_tier"]) == (1, "line_endings")
    edited = [b"def f(x):", b"    y = x + 2", b"    # two", b"    return y", b""]
    assert (root / "f.py").read_bytes() == eol.join(edited)
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "f.py"}))
    assert (root / "f.py").read_bytes() == eol.join(lines)


async def test_lf_typed_old_text_found_twice_inside_crlf_lines_is_ambiguous_and_writes_nothing(
    client: Client, root: Path
) -> None:
    (root / "t.txt").write_bytes(b"a b\r\nc d\r\na b\r\nc d\r\n")
    result = await client.call_tool("edit_file", {"path": "t.txt", "old_text": "b\nc", "new_text": "B\nC"})
    assert error_code(result) == "ambiguous_match"
    assert (root / "t.txt").read_bytes() == b"a b\r\nc d\r\na b\r\nc d\r\n"
    replaced = await edit(client, "t.txt", old_text="b\nc", new_text="B\nC", replace_all=True)
    assert replaced["replacements"] == 2
    assert (root / "t.txt").read_bytes() == b"a B\r\nC d\r\na B\r\nC d\r\n"


async def test_lf_old_text_typing_a_blank_line_never_finds_one_crlf_as_two_breaks(client: Client, root: Path) -> None:
    # Each typed LF found any break, so a CRLF's CR ended "line1" and its LF passed for a blank line after it.
    original = b"line1\r\nline2\r\n"
    (root / "a.txt").write_bytes(original)
    result = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "line1\n\n", "new_text": "LINE1\n\n"})
    assert error_code(result) == "no_match"
    edits = [{"old_text": "line1\n\n", "new_text": "LINE1\n\n"}]
    assert error_code(await client.call_tool("multi_edit", {"path": "a.txt", "edits": edits})) == "no_match"
    found = await edit(client, "a.txt", mode="search_replace", pattern="line1\n\nline2", replacement="x")
    assert found["replacements"] == 0
    projected = structured(await client.call_tool("project_replace", {"find": "line1\n\nline2", "replace": "x"}))
    assert projected["total_replacements"] == 0
    operation = {"type": "search_and_replace", "path": "a.txt", "old_text": "line1\n\n", "new_text": "Z\n"}
    assert (await client.call_tool("batch_operations", {"request_json": {"operations": [operation]}})).is_error
    assert (root / "a.txt").read_bytes() == original


async def test_replacing_every_typed_blank_line_in_a_crlf_file_counts_each_crlf_once(
    client: Client, root: Path
) -> None:
    (root / "b.txt").write_bytes(b"x\r\n\r\ny\r\n")
    data = await edit(client, "b.txt", old_text="\n\n", new_text="\n", replace_all=True)
    assert data["replacements"] == 1
    assert (root / "b.txt").read_bytes() == b"x\r\ny\r\n"
    (root / "b.txt").write_bytes(b"x\r\n\r\ny\r\n")
    await edit(client, "b.txt", old_text="\n\n", new_text="\n")  # one place, not ambiguous
    assert (root / "b.txt").read_bytes() == b"x\r\ny\r\n"


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("edit_file", {"path": "m.txt", "old_text": "a\nb\n", "new_text": "a\nB\n"}),
        ("edit_file", {"path": "m.txt", "old_text": "a\nb\r\n", "new_text": "a\nB\r\n"}),
        ("multi_edit", {"path": "m.txt", "edits": [{"old_text": "a\nb\n", "new_text": "a\nB\n"}]}),
        ("edit_file", {"path": "m.txt", "mode": "search_replace", "pattern": "a\nb\r\n", "replacement": "a\nB\r\n"}),
        ("edit_file", {"path": "m.txt", "mode": "replace_range", "start_line": 1, "end_line": 2, "new_text": "a\nB\n"}),
        ("project_replace", {"find": "a\nb\r\n", "replace": "a\nB\r\n"}),
        ("project_replace", {"find": "a\nb\r\n", "replace": "a\nB\r\n", "literal": False}),
        (
            "batch_operations",
            {
                "request_json": {
                    "operations": [{"type": "edit", "path": "m.txt", "old_text": "a\nb\n", "new_text": "a\nB\n"}]
                }
            },
        ),
    ],
    ids=[
        "replace",
        "replace_exact",
        "multi_edit",
        "search_replace",
        "replace_range",
        "project",
        "project_regex",
        "batch",
    ],
)
async def test_an_edit_across_lines_of_mixed_endings_keeps_each_line_s_own_ending(
    client: Client, root: Path, tool: str, args: dict[str, Any]
) -> None:
    # Every break typed in the replacement took the match's first one: line b's CRLF became LF.
    (root / "m.txt").write_bytes(b"a\nb\r\nc\r\n")
    structured(await client.call_tool(tool, args))
    assert (root / "m.txt").read_bytes() == b"a\nB\r\nc\r\n"


@pytest.mark.parametrize("preview", [True, False])
@pytest.mark.parametrize("literal", [True, False])
async def test_project_replace_that_only_retypes_line_breaks_names_the_files_it_leaves_and_how_to_convert_endings(
    client: Client, root: Path, literal: bool, preview: bool
) -> None:
    # It answered "Replaced 0 occurrences in 0 files" with the find in the file and no word of why.
    (root / "w.txt").write_bytes(b"a\r\nb\r\n")
    (root / "same.txt").write_bytes(b"a\nb\n")
    result = await client.call_tool(
        "project_replace", {"find": "\r\n", "replace": "\n", "literal": literal, "preview": preview}
    )
    data = structured(result)
    assert (root / "w.txt").read_bytes() == b"a\r\nb\r\n"
    assert (data["total_replacements"], data["line_endings_kept"], data["line_endings_kept_paths"]) == (0, 1, ["w.txt"])
    assert "Left as they are, though they hold find: w.txt. Edits keep the line ending" in text_of(result)


async def test_project_replace_whose_replacement_equals_its_find_names_no_line_endings(
    client: Client, root: Path
) -> None:
    (root / "w.txt").write_bytes(b"a\r\nb\r\n")
    data = structured(await client.call_tool("project_replace", {"find": "a\r\n", "replace": "a\r\n"}))
    assert data.get("line_endings_kept") is None


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("edit_file", {"path": "m.txt", "old_text": "a\nb\n", "new_text": "A\n\n"}),
        ("multi_edit", {"path": "m.txt", "edits": [{"old_text": "a\nb\n", "new_text": "A\n\n"}]}),
        ("edit_file", {"path": "m.txt", "mode": "search_replace", "pattern": "a\rb\n", "replacement": "A\n\n"}),
        ("edit_file", {"path": "m.txt", "mode": "regex", "pattern": "a\\nb\\n", "replacement": "A\n\n"}),
        ("edit_file", {"path": "m.txt", "mode": "replace_range", "start_line": 1, "end_line": 2, "new_text": "A\n\n"}),
        (
            "batch_operations",
            {
                "request_json": {
                    "operations": [{"type": "edit", "path": "m.txt", "old_text": "a\nb\n", "new_text": "A\n\n"}]
                }
            },
        ),
    ],
    ids=["replace", "multi_edit", "search_replace", "regex", "replace_range", "batch"],
)
async def test_a_cr_line_typed_before_a_blank_lf_line_keeps_the_blank_line(
    client: Client, root: Path, tool: str, args: dict[str, Any]
) -> None:
    # Line A took a's CR and the blank line b's LF: together they read as one CRLF, the blank line lost (A\r\nc\n).
    (root / "m.txt").write_bytes(b"a\rb\nc\n")
    structured(await client.call_tool(tool, args))
    assert (root / "m.txt").read_bytes() == b"A\n\nc\n"


@pytest.mark.parametrize("literal", [True, False])
async def test_project_replace_keeps_a_blank_line_typed_between_a_cr_line_and_an_lf_line(
    client: Client, root: Path, tool_engine: str, literal: bool
) -> None:
    (root / "m.txt").write_bytes(b"a\rb\nc\n")
    structured(await client.call_tool("project_replace", {"find": "a\nb\n", "replace": "A\n\n", "literal": literal}))
    assert (root / "m.txt").read_bytes() == b"A\n\nc\n"


@pytest.mark.parametrize(
    ("text", "args", "expected"),
    [
        # The last typed break took the match's CR and read as one CRLF with the LF after the match.
        (b"a\rb\nc\n", {"old_text": "a\nb", "new_text": "A\nB\n"}, b"A\rB\n\nc\n"),
        # The first typed break took the line's LF and read as one CRLF with the CR before the match.
        (b"a\rb\nc\n", {"old_text": "b", "new_text": "\nB"}, b"a\r\rB\nc\n"),
        (b"a\rb\n", {"mode": "insert", "anchor": "b", "position": "before", "new_text": "\nX"}, b"a\r\rX\nb\n"),
    ],
    ids=["after", "before", "insert"],
)
async def test_a_break_typed_at_the_edge_of_an_edit_never_fuses_with_the_file_s_break_beside_it(
    client: Client, root: Path, text: bytes, args: dict[str, Any], expected: bytes
) -> None:
    (root / "m.txt").write_bytes(text)
    await edit(client, "m.txt", **args)
    assert (root / "m.txt").read_bytes() == expected
