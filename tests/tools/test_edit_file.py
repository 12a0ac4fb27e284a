"""edit_file through the in-memory Client, in both protocol eras, checked byte for byte on disk."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core.paths import PathPolicy
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

# One call per mode, each valid against the file MODE_FILE.
MODE_FILE = b"alpha\nbeta\ngamma\nbeta2\n"
MODE_CALLS: dict[str, dict[str, Any]] = {
    "replace": {"old_text": "gamma", "new_text": "GAMMA"},
    "search_replace": {"mode": "search_replace", "pattern": "beta", "replacement": "B"},
    "regex": {"mode": "regex", "pattern": "(a)l(p)", "replacement": "$2$1"},
    "insert": {"mode": "insert", "anchor": "gamma", "new_text": "inserted", "position": "before"},
    "replace_range": {"mode": "replace_range", "start_line": 2, "end_line": 3, "new_text": "X"},
    "delete_range": {"mode": "delete_range", "start_line": 1, "end_line": 1},
}
MODE_RESULTS = {
    "replace": b"alpha\nbeta\nGAMMA\nbeta2\n",
    "search_replace": b"alpha\nB\ngamma\nB2\n",
    "regex": b"paha\nbeta\ngamma\nbeta2\n",
    "insert": b"alpha\nbeta\ninserted\ngamma\nbeta2\n",
    "replace_range": b"alpha\nX\nbeta2\n",
    "delete_range": b"beta\ngamma\nbeta2\n",
}


@pytest.mark.parametrize("mode_name", list(MODE_CALLS))
async def test_every_mode_writes_the_expected_bytes_and_returns_the_new_hash(
    client: Client, root: Path, mode_name: str
) -> None:
    (root / "m.txt").write_bytes(MODE_FILE)
    data = structured(await client.call_tool("edit_file", {"path": "m.txt", **MODE_CALLS[mode_name]}))
    assert (root / "m.txt").read_bytes() == MODE_RESULTS[mode_name]
    reread = structured(await client.call_tool("read_file", {"path": "m.txt"}))
    assert data["content_hash"] == reread["content_hash"]
    assert data["backup_id"]
    assert data["dry_run"] is False


@pytest.mark.parametrize("mode_name", list(MODE_CALLS))
async def test_every_mode_refuses_a_stale_hash_and_names_the_current_one(
    client: Client, root: Path, mode_name: str
) -> None:
    (root / "m.txt").write_bytes(MODE_FILE)
    current = structured(await client.call_tool("read_file", {"path": "m.txt"}))["content_hash"]
    args = {"path": "m.txt", **MODE_CALLS[mode_name], "expected_hash": "deadbeef"}
    result = await client.call_tool("edit_file", args)
    assert error_code(result) == "stale_edit"
    assert current in text_of(result)
    assert (result.meta or {})["fsguard/error"]["current_hash"] == current
    assert (root / "m.txt").read_bytes() == MODE_FILE
    listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert listing["total"] == 0


@pytest.mark.parametrize("mode_name", list(MODE_CALLS))
async def test_every_mode_dry_run_shows_the_diff_and_writes_nothing(client: Client, root: Path, mode_name: str) -> None:
    (root / "m.txt").write_bytes(MODE_FILE)
    result = await client.call_tool("edit_file", {"path": "m.txt", **MODE_CALLS[mode_name], "dry_run": True})
    data = structured(result)
    assert data["dry_run"] is True
    assert data["diff"].startswith("--- a/m.txt")
    assert "backup_id" not in data
    assert (root / "m.txt").read_bytes() == MODE_FILE
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


@pytest.mark.parametrize(
    ("original", "old", "new", "expected"),
    [
        # CRLF: the replacement takes CRLF, every other byte is untouched.
        (b"one\r\ntwo\r\nthree\r\n", "two\n", "TWO\nextra\n", b"one\r\nTWO\r\nextra\r\nthree\r\n"),
        # mixed endings stay mixed; only the matched line changes.
        (b"a\r\nb\nc\r\nd\n", "c", "C", b"a\r\nb\nC\r\nd\n"),
        # lone CR (old Mac) files keep CR.
        (b"x\ry\rz\r", "y\n", "Y\n", b"x\rY\rz\r"),
        # no final newline stays without one.
        (b"last line", "line", "word", b"last word"),
    ],
)
async def test_line_endings_are_kept_byte_for_byte(
    client: Client, root: Path, original: bytes, old: str, new: str, expected: bytes
) -> None:
    (root / "e.txt").write_bytes(original)
    structured(await client.call_tool("edit_file", {"path": "e.txt", "old_text": old, "new_text": new}))
    assert (root / "e.txt").read_bytes() == expected


@pytest.mark.parametrize(
    ("encoding", "bom"),
    [
        ("utf-8", b"\xef\xbb\xbf"),
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("cp1252", b""),
        ("latin-1", b""),
    ],
)
async def test_bom_and_encoding_are_kept_and_only_the_span_changes(
    client: Client, root: Path, encoding: str, bom: bytes
) -> None:
    eight_bit = encoding in ("cp1252", "latin-1")
    text = "Grüße, café\r\nzweite Zeile\r\n" if eight_bit else "Grüße, café\r\nzweite Zeile — ok\r\nende\r\n"
    (root / "enc.txt").write_bytes(bom + text.encode(encoding))
    structured(await client.call_tool("edit_file", {"path": "enc.txt", "old_text": "café", "new_text": "Café!"}))
    assert (root / "enc.txt").read_bytes() == bom + text.replace("café", "Café!").encode(encoding)


async def test_a_character_the_encoding_cannot_store_is_refused_and_nothing_is_written(
    client: Client, root: Path
) -> None:
    original = "Grüße aus Köln, schöne Äpfel und Öl.\n".encode("cp1252") * 4
    (root / "w.txt").write_bytes(original)
    args = {"path": "w.txt", "old_text": "Köln", "new_text": "東京", "replace_all": True}
    result = await client.call_tool("edit_file", args)
    assert error_code(result) == "encoding_error"
    assert (root / "w.txt").read_bytes() == original


async def test_ambiguity_is_refused_naming_every_line(client: Client, root: Path) -> None:
    (root / "a.py").write_text("x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n", encoding="utf-8")
    result = await client.call_tool("edit_file", {"path": "a.py", "old_text": "x = 1", "new_text": "x = 9"})
    assert error_code(result) == "ambiguous_match"
    assert "lines 1, 3, 5" in text_of(result)
    assert (result.meta or {})["fsguard/error"]["lines"] == [1, 3, 5]
    assert (root / "a.py").read_text(encoding="utf-8") == "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n"


async def test_occurrence_and_replace_all_choose_among_repeats(client: Client, root: Path) -> None:
    (root / "x.txt").write_text("x x x\n", encoding="utf-8")
    second = structured(
        await client.call_tool("edit_file", {"path": "x.txt", "old_text": "x", "new_text": "y", "occurrence": 2})
    )
    assert (root / "x.txt").read_text(encoding="utf-8") == "x y x\n"
    assert (second["replacements"], second["total_lines"]) == (1, 1)
    structured(
        await client.call_tool("edit_file", {"path": "x.txt", "old_text": "x", "new_text": "z", "replace_all": True})
    )
    assert (root / "x.txt").read_text(encoding="utf-8") == "z y z\n"


async def test_no_match_shows_the_file_and_says_already_applied_when_it_is(client: Client, root: Path) -> None:
    (root / "s.txt").write_text("alpha\nbeta\n", encoding="utf-8")
    missing = await client.call_tool("edit_file", {"path": "s.txt", "old_text": "gamma", "new_text": "delta"})
    assert error_code(missing) == "no_match"
    assert "    2: beta" in text_of(missing)
    applied = await client.call_tool("edit_file", {"path": "s.txt", "old_text": "alfa", "new_text": "beta"})
    assert error_code(applied) == "no_match"
    assert "already applied" in text_of(applied)


async def test_regex_groups_and_named_groups_use_go_style_templates(client: Client, root: Path) -> None:
    (root / "r.txt").write_text("hello world\nprice: $5\n", encoding="utf-8")
    data = structured(
        await client.call_tool(
            "edit_file",
            {
                "path": "r.txt",
                "mode": "regex",
                "patterns_json": [
                    {"pattern": "(hello) (world)", "replacement": "$2 $1"},
                    {"pattern": r"\$(?P<n>\d+)", "replacement": "$$${n}.00"},
                ],
            },
        )
    )
    assert (root / "r.txt").read_text(encoding="utf-8") == "world hello\nprice: $5.00\n"
    assert data["replacements"] == 2


async def test_an_invalid_regex_is_invalid_params(client: Client, root: Path) -> None:
    (root / "r.txt").write_text("x\n", encoding="utf-8")
    result = await client.call_tool(
        "edit_file", {"path": "r.txt", "mode": "regex", "pattern": "(x", "replacement": "y"}
    )
    assert error_code(result) == "invalid_params"
    assert "RE2" in text_of(result)


async def test_search_replace_is_truly_literal(client: Client, root: Path) -> None:
    (root / "l.txt").write_text("cost $1 (a+b)\n", encoding="utf-8")
    structured(
        await client.call_tool(
            "edit_file", {"path": "l.txt", "mode": "search_replace", "pattern": "$1 (a+b)", "replacement": r"\1 $0"}
        )
    )
    assert (root / "l.txt").read_text(encoding="utf-8") == "cost \\1 $0\n"


async def test_whole_word_with_tolerant_whitespace_never_edits_inside_a_word(client: Client, root: Path) -> None:
    # The tolerant tier ignored whole_word: "foo    bar" matched the tab-spaced "foo\tbar" inside "xfoo\tbary" and
    # the edit landed in the middle of a word. Now the only whole-word place is the one changed.
    (root / "w.txt").write_bytes(b"xfoo\tbary\r\nfoo\tbar\r\n")
    args = {"path": "w.txt", "old_text": "foo    bar", "new_text": "Z", "whole_word": True, "tolerant_whitespace": True}
    structured(await client.call_tool("edit_file", args))
    assert (root / "w.txt").read_bytes() == b"xfoo\tbary\r\nZ\r\n"

    (root / "v.txt").write_bytes(b"xfoo\tbary\n")
    args = {**args, "path": "v.txt"}
    assert error_code(await client.call_tool("edit_file", args)) == "no_match"
    assert (root / "v.txt").read_bytes() == b"xfoo\tbary\n"


async def test_whole_word_old_text_ending_in_a_line_break_matches_before_a_line_starting_with_a_letter(
    client: Client, root: Path
) -> None:
    # The letter after the line break counted as the word going on: "done\n" never matched with whole_word.
    (root / "w.txt").write_bytes(b"undone\ndone\nnext\n")
    args = {"path": "w.txt", "old_text": "done\n", "new_text": "finished\n", "whole_word": True}
    assert structured(await client.call_tool("edit_file", args))["match_tier"] == "exact"
    assert (root / "w.txt").read_bytes() == b"undone\nfinished\nnext\n"


async def test_lf_old_text_starting_with_a_line_break_is_as_ambiguous_in_a_crlf_file_as_in_an_lf_one(
    client: Client, root: Path
) -> None:
    # The line tiers read old_text's leading line break as a blank first line, so in the CRLF file only the
    # "return x" after the blank line matched and was changed, silently, where the LF file says ambiguous. That
    # break ends whatever line comes before: both places match, and a unique one is changed without a blank line.
    body = "def f():\n    return x\n}\n\n    return x\n}\n"
    edit = {"old_text": "\n    return x\n}", "new_text": "\n    return y\n}"}
    for name, data in (("lf.txt", body.encode()), ("crlf.txt", body.replace("\n", "\r\n").encode())):
        (root / name).write_bytes(data)
        assert error_code(await client.call_tool("edit_file", {"path": name, **edit})) == "ambiguous_match", name
        assert (root / name).read_bytes() == data
        second = structured(await client.call_tool("edit_file", {"path": name, **edit, "occurrence": 2}))
        assert second["replacements"] == 1
        assert (root / name).read_bytes() == data.replace(b"x", b"y").replace(b"y", b"x", 1)

    (root / "one.txt").write_bytes(b"a  \r\n    return x\r\n}\r\n")
    structured(await client.call_tool("edit_file", {"path": "one.txt", **edit}))
    assert (root / "one.txt").read_bytes() == b"a  \r\n    return y\r\n}\r\n"


async def test_old_text_found_at_two_overlapping_places_is_ambiguous_and_leaves_the_file_untouched(
    client: Client, root: Path
) -> None:
    # "}\n}" in three closing lines was taken as unique (counted without overlaps) and lines 1-2 changed, where the
    # agent may have meant lines 2-3.
    data = b"    }\n}\n}\n"
    (root / "braces.txt").write_bytes(data)
    edit = {"path": "braces.txt", "old_text": "}\n}", "new_text": "X"}
    refused = await client.call_tool("edit_file", edit)
    assert error_code(refused) == "ambiguous_match"
    assert "some of them overlap" in text_of(refused)
    assert (root / "braces.txt").read_bytes() == data
    structured(await client.call_tool("edit_file", {**edit, "occurrence": 2}))
    assert (root / "braces.txt").read_bytes() == b"    }\nX\n"


async def test_old_text_starting_with_lf_or_ending_with_cr_takes_a_whole_crlf_never_half(
    client: Client, root: Path
) -> None:
    # The exact tier matched the LF of a CRLF: deleting "\ntwo" left "one\r\r\n", a lone CR that reads as an extra
    # line break in a file that was uniformly CRLF.
    data = b"one\r\ntwo\r\nthree\r\n"
    cases: list[tuple[dict[str, Any], bytes]] = [
        ({"old_text": "\ntwo", "new_text": ""}, b"one\r\nthree\r\n"),
        ({"old_text": "\ntw", "new_text": "\nTW"}, b"one\r\nTWo\r\nthree\r\n"),
        ({"old_text": "one\r", "new_text": "ONE"}, b"ONE\r\ntwo\r\nthree\r\n"),
        ({"old_text": "wo\r", "new_text": ""}, b"one\r\ntthree\r\n"),
        ({"old_text": "\n", "new_text": "\n\n", "occurrence": 2}, b"one\r\ntwo\r\n\r\nthree\r\n"),
    ]
    for number, (edit, expected) in enumerate(cases):
        name = f"crlf{number}.txt"
        (root / name).write_bytes(data)
        assert structured(await client.call_tool("edit_file", {"path": name, **edit}))["match_tier"] == "exact"
        assert (root / name).read_bytes() == expected, edit
    (root / "cr.txt").write_bytes(data)  # CRs alone are what old_text is after: deleting them makes the file LF
    structured(
        await client.call_tool("edit_file", {"path": "cr.txt", "old_text": "\r", "new_text": "", "replace_all": True})
    )
    assert (root / "cr.txt").read_bytes() == b"one\ntwo\nthree\n"
    (root / "multi.txt").write_bytes(data)
    edits = [{"old_text": "\ntwo", "new_text": ""}, {"old_text": "one\r", "new_text": "1"}]
    structured(await client.call_tool("multi_edit", {"path": "multi.txt", "edits": edits}))
    assert (root / "multi.txt").read_bytes() == b"1\r\nthree\r\n"


async def test_escaped_newlines_in_old_text_match_a_crlf_or_cr_file_as_they_match_an_lf_one(
    client: Client, root: Path
) -> None:
    # The escape fix turned "a\\nfoo" into LF text, which only an LF file holds: the CRLF file said no_match.
    edit = {"old_text": "a\\nfoo", "new_text": "A\\nF"}
    for name, eol in (("lf.txt", b"\n"), ("crlf.txt", b"\r\n"), ("cr.txt", b"\r")):
        (root / name).write_bytes(eol.join([b"x", b"a", b"foo", b"z"]))
        data = structured(await client.call_tool("edit_file", {"path": name, **edit}))
        assert data["match_tier"] == "escape_fixed", name
        assert (root / name).read_bytes() == eol.join([b"x", b"A", b"F", b"z"]), name


async def test_insert_gives_the_new_lines_the_anchor_lines_break_as_a_replacement_would(
    client: Client, root: Path
) -> None:
    # insert spelled its lines with the file's first break: under an LF first line, lines inserted into a CRLF body
    # came out LF, where the same lines added by a replace came out CRLF.
    data = b"#!/bin/sh\nrem a\r\nrem b\r\nrem c\n"
    cases = [
        ({"anchor": "rem a", "position": "after"}, b"#!/bin/sh\nrem a\r\nX\r\nY\r\nrem b\r\nrem c\n"),
        ({"anchor": "rem b", "position": "before"}, b"#!/bin/sh\nrem a\r\nX\r\nY\r\nrem b\r\nrem c\n"),
        ({"anchor": "rem c", "position": "before"}, b"#!/bin/sh\nrem a\r\nrem b\r\nX\nY\nrem c\n"),
    ]
    for number, (where, expected) in enumerate(cases):
        name = f"mixed{number}.bat"
        (root / name).write_bytes(data)
        structured(await client.call_tool("edit_file", {"path": name, "mode": "insert", "new_text": "X\nY", **where}))
        assert (root / name).read_bytes() == expected, where
    (root / "tail.txt").write_bytes(b"a\nb\r\nc")  # a last line without a break: the file's first break
    structured(
        await client.call_tool("edit_file", {"path": "tail.txt", "mode": "insert", "anchor": "c", "new_text": "d"})
    )
    assert (root / "tail.txt").read_bytes() == b"a\nb\r\nc\nd"


async def test_insert_shifts_new_text_as_a_replace_does_when_the_anchor_matched_at_another_indentation(
    client: Client, root: Path
) -> None:
    # The anchor found by the indentation tier was shifted, new_text was not: a method inserted at column 0 ended
    # the class, and spaces went into a tab-indented file (TabError).
    source = b"class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"
    method = {"mode": "insert", "anchor": "def f(self):\n    return 1", "new_text": "def h(self):\n    return 3"}
    cases = [
        ("m.py", source, method, source.replace(b"1\n", b"1\n    def h(self):\n        return 3\n")),
        (
            "t.py",
            b"def f():\n\tif x:\n\t\ty()\n",
            {
                "mode": "insert",
                "anchor": "    if x:",
                "position": "before",
                "new_text": "    z()\n    if w:\n        v()",
            },
            b"def f():\n\tz()\n\tif w:\n\t\tv()\n\tif x:\n\t\ty()\n",
        ),
    ]
    for name, data, args, expected in cases:
        (root / name).write_bytes(data)
        preview = structured(await client.call_tool("edit_file", {"path": name, **args, "dry_run": True}))
        done = structured(await client.call_tool("edit_file", {"path": name, **args}))
        assert done["match_tier"] == "indentation", name
        assert (root / name).read_bytes() == expected, name
        assert preview["diff"] == done["diff"], name


async def test_a_rewrite_looking_edit_is_blocked_unless_allowed(client: Client, root: Path) -> None:
    body = "".join(f"line {i} of a long file\n" for i in range(150))
    (root / "big.txt").write_text(body, encoding="utf-8")
    args = {"path": "big.txt", "old_text": "line 0 of a long file\n", "new_text": body}
    blocked = await client.call_tool("edit_file", args)
    assert error_code(blocked) == "rewrite_blocked"
    assert "write_file" in text_of(blocked)
    assert (root / "big.txt").read_text(encoding="utf-8") == body
    structured(await client.call_tool("edit_file", {**args, "allow_rewrite": True}))
    assert (root / "big.txt").read_text(encoding="utf-8") == body + body[len("line 0 of a long file\n") :]


async def test_a_structure_warning_appears_only_when_the_edit_breaks_the_file(client: Client, root: Path) -> None:
    (root / "ok.py").write_text("def f(x):\n    return (x + 1)\n", encoding="utf-8")
    (root / "bad.py").write_text("def f(x:\n    return x\n", encoding="utf-8")
    broken = structured(
        await client.call_tool("edit_file", {"path": "ok.py", "old_text": "(x + 1)", "new_text": "(x + 1"})
    )
    assert "Python syntax error introduced at line" in broken["structure_warning"]
    still = structured(
        await client.call_tool("edit_file", {"path": "bad.py", "old_text": "return x", "new_text": "return y"})
    )
    assert "structure_warning" not in still
    fine = structured(
        await client.call_tool("edit_file", {"path": "ok.py", "old_text": "(x + 1", "new_text": "(x + 2)"})
    )
    assert "structure_warning" not in fine


async def test_auto_occ_warns_about_an_external_change_and_block_mode_refuses(
    connect: ClientFactory, root: Path
) -> None:
    target = root / "o.txt"
    target.write_text("one\ntwo\n", encoding="utf-8")
    async with connect() as client:
        await client.call_tool("read_file", {"path": "o.txt"})
        target.write_text("one\ntwo\nthree\n", encoding="utf-8")
        warned = structured(await client.call_tool("edit_file", {"path": "o.txt", "old_text": "one", "new_text": "1"}))
    assert "changed on disk" in warned["external_change"]
    assert target.read_text(encoding="utf-8") == "1\ntwo\nthree\n"
    async with connect(auto_occ="block") as client:
        await client.call_tool("read_file", {"path": "o.txt"})
        target.write_text("changed behind our back\n", encoding="utf-8")
        blocked = await client.call_tool("edit_file", {"path": "o.txt", "old_text": "changed", "new_text": "x"})
    assert error_code(blocked) == "external_change"
    assert target.read_text(encoding="utf-8") == "changed behind our back\n"


async def test_stale_read_hint_is_shown_once_and_never_with_expected_hash(client: Client, root: Path) -> None:
    (root / "h.txt").write_text("a\nb\nc\n", encoding="utf-8")
    first = structured(await client.call_tool("edit_file", {"path": "h.txt", "old_text": "a", "new_text": "A"}))
    second = structured(await client.call_tool("edit_file", {"path": "h.txt", "old_text": "b", "new_text": "B"}))
    assert "STALE_READ" in first["feedback"]
    assert "feedback" not in second


async def test_compact_one_line_edit_costs_at_most_200_bytes_plus_a_5_line_diff(
    connect: ClientFactory, root: Path
) -> None:
    (root / "t.txt").write_text("".join(f"row {i}\n" for i in range(2000)), encoding="utf-8")
    async with connect(compact_mode=True) as client:
        await client.call_tool("read_file", {"path": "t.txt", "start_line": 1, "end_line": 1})
        result = await client.call_tool("edit_file", {"path": "t.txt", "old_text": "row 1000\n", "new_text": "ROW\n"})
    summary, _, diff = text_of(result).partition("\n")
    assert len(summary.encode()) <= 200
    assert 0 < len(diff.splitlines()) <= 5
    assert "-row 1000" in diff
    assert "+ROW" in diff


async def test_a_binary_file_is_never_edited_as_text(client: Client, root: Path) -> None:
    (root / "b.bin").write_bytes(b"\x00\x01abc")
    result = await client.call_tool("edit_file", {"path": "b.bin", "old_text": "abc", "new_text": "x"})
    assert error_code(result) == "binary_file"
    assert (root / "b.bin").read_bytes() == b"\x00\x01abc"


async def test_missing_required_text_for_a_mode_is_invalid_params(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    for args in ({"old_text": "a"}, {"mode": "insert", "new_text": "x"}, {"mode": "delete_range", "start_line": 1}):
        assert error_code(await client.call_tool("edit_file", {"path": "a.txt", **args})) == "invalid_params"
    assert (root / "a.txt").read_text(encoding="utf-8") == "a\n"


async def test_a_range_starting_at_line_0_is_refused_saying_lines_count_from_1(client: Client, root: Path) -> None:
    # 0 reads as not given (harnesses fill unset numbers with it): the refusal said start_line and end_line were
    # required, though both were sent.
    (root / "a.txt").write_text("a\nb\n", encoding="utf-8")
    args = {"path": "a.txt", "mode": "replace_range", "start_line": 0, "end_line": 1, "new_text": "x"}
    refused = await client.call_tool("edit_file", args)
    assert error_code(refused) == "invalid_params"
    assert "start_line is missing or 0" in text_of(refused)
    assert "Lines count from 1" in text_of(refused)
    assert (root / "a.txt").read_text(encoding="utf-8") == "a\nb\n"


async def test_old_str_and_new_str_aliases_work(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("old\n", encoding="utf-8")
    structured(await client.call_tool("edit_file", {"path": "a.txt", "old_str": "old", "new_string": "new"}))
    assert (root / "a.txt").read_text(encoding="utf-8") == "new\n"


@pytest.mark.parametrize("mode_name", list(MODE_CALLS))
async def test_the_seeds_force_and_create_backup_are_accepted_by_every_mode_and_a_backup_is_still_taken(
    client: Client, root: Path, mode_name: str
) -> None:
    (root / "m.txt").write_bytes(MODE_FILE)
    arguments = {"path": "m.txt", **MODE_CALLS[mode_name], "force": True, "create_backup": False}
    data = structured(await client.call_tool("edit_file", arguments))
    assert (root / "m.txt").read_bytes() == MODE_RESULTS[mode_name]
    assert data["backup_id"]
    assert any("create_backup=false is ignored" in note for note in data["notes"])
    assert any(note.startswith("force=true changes nothing") for note in data["notes"])
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "m.txt"}))
    assert (root / "m.txt").read_bytes() == MODE_FILE


async def test_flags_with_their_defaults_add_no_note(client: Client, root: Path) -> None:
    (root / "m.txt").write_bytes(MODE_FILE)
    arguments = {"path": "m.txt", "old_text": "gamma", "new_text": "G", "force": False, "create_backup": True}
    answer = await client.call_tool("edit_file", arguments)
    assert "notes" not in structured(answer)
    assert "create_backup" not in text_of(answer)


async def test_create_backup_false_in_a_dry_run_says_nothing_was_written(client: Client, root: Path) -> None:
    (root / "m.txt").write_bytes(MODE_FILE)
    arguments = {"path": "m.txt", "old_text": "gamma", "new_text": "G", "create_backup": "false", "dry_run": True}
    answer = await client.call_tool("edit_file", arguments)
    assert structured(answer)["notes"] == [
        "create_backup=false is ignored: fsguard backs up every change it writes (this call wrote nothing)."
    ]
    assert "create_backup=false is ignored" in text_of(answer)
    assert (root / "m.txt").read_bytes() == MODE_FILE


async def test_force_does_not_lift_the_rewrite_guard_and_the_refusal_names_allow_rewrite(
    client: Client, root: Path
) -> None:
    body = "".join(f"line {i} of a long file\n" for i in range(150))
    (root / "big.txt").write_text(body, encoding="utf-8")
    args = {"path": "big.txt", "old_text": "line 0 of a long file\n", "new_text": body, "force": True}
    blocked = await client.call_tool("edit_file", args)
    assert error_code(blocked) == "rewrite_blocked"
    assert "force=true does not lift this guard" in text_of(blocked)
    assert "allow_rewrite=true" in text_of(blocked)
    assert (root / "big.txt").read_text(encoding="utf-8") == body


@pytest.mark.parametrize(
    ("limit", "expected"),
    [(-1, b"X X X X\n"), (0, b"X X X X\n"), (2, b"X X a a\n"), (1, b"X a a a\n"), (9, b"X X X X\n")],
)
async def test_a_regex_rule_limit_of_minus_one_or_zero_replaces_every_match(
    client: Client, root: Path, limit: int, expected: bytes
) -> None:
    (root / "r.txt").write_bytes(b"a a a a\n")
    rules = [{"pattern": "a", "replacement": "X", "limit": limit}]
    data = structured(await client.call_tool("edit_file", {"path": "r.txt", "mode": "regex", "patterns_json": rules}))
    assert (root / "r.txt").read_bytes() == expected
    assert data["replacements"] == expected.count(b"X")


async def test_regex_rules_sent_as_json_text_with_limit_minus_one_apply_in_order(client: Client, root: Path) -> None:
    (root / "r.txt").write_bytes(b"foo bar foo\r\nfoo\r\n")
    rules = '[{"pattern": "foo", "replacement": "baz", "limit": -1}, {"pattern": "bar", "replacement": "qux"}]'
    structured(await client.call_tool("edit_file", {"path": "r.txt", "mode": "regex", "patterns_json": rules}))
    assert (root / "r.txt").read_bytes() == b"baz qux baz\r\nbaz\r\n"


async def test_edit_in_a_directory_whose_name_is_not_utf8_writes_the_bytes(client: Client, root: Path) -> None:
    directory = root / os.fsdecode(b"caf\xe9")  # a Latin-1 name: the path reaches the server with a lone surrogate
    directory.mkdir()
    (directory / "menu.txt").write_bytes(b"soup\nbread\n")

    result = await client.call_tool(
        "edit_file", {"path": f"{directory.name}/menu.txt", "old_text": "soup", "new_text": "stew"}
    )

    assert not result.is_error, text_of(result)
    assert (directory / "menu.txt").read_bytes() == b"stew\nbread\n"


async def test_occurrence_zero_is_taken_as_absent_like_the_seed(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"alpha beta\n")
    args = {"path": "a.txt", "old_text": "alpha", "new_text": "ALPHA", "occurrence": 0}
    assert structured(await client.call_tool("edit_file", args))["replacements"] == 1
    assert (root / "a.txt").read_bytes() == b"ALPHA beta\n"
    (root / "x.txt").write_bytes(b"x x x\n")
    repeated = await client.call_tool("edit_file", {"path": "x.txt", "old_text": "x", "new_text": "y", "occurrence": 0})
    assert error_code(repeated) == "ambiguous_match"
    assert (root / "x.txt").read_bytes() == b"x x x\n"


async def test_occurrence_with_replace_all_is_refused_naming_both(client: Client, root: Path) -> None:
    (root / "x.txt").write_bytes(b"x x x\n")
    args = {"path": "x.txt", "old_text": "x", "new_text": "y", "occurrence": 2, "replace_all": True}
    for dry_run in (True, False):
        result = await client.call_tool("edit_file", {**args, "dry_run": dry_run})
        assert error_code(result) == "invalid_params"
        assert "occurrence" in text_of(result)
        assert "replace_all" in text_of(result)
    assert (root / "x.txt").read_bytes() == b"x x x\n"
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_an_expected_hash_a_stale_read_cache_handed_out_is_refused_and_the_unseen_bytes_stay(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file system whose stat does not show a rewrite of the same size (two writes in one coarse tick): the read
    # cache then hands out the old bytes' hash. An edit hashes the bytes it holds under the lock, never the cache.
    monkeypatch.setattr("fsguard.core.hashing.identity", lambda stat: (stat.st_dev, stat.st_ino, stat.st_size))
    monkeypatch.setattr("fsguard.core.remembered.RACY_WINDOW_NS", -(1 << 62))
    target = root / "f.txt"
    target.write_bytes(b"alpha\nbeta\n")
    seen = structured(await client.call_tool("read_file", {"path": "f.txt"}))["content_hash"]
    with target.open("r+b") as handle:  # in place: same inode, same size
        handle.write(b"ALPHA")
    stale = structured(await client.call_tool("read_file", {"path": "f.txt"}))
    assert stale["content_hash"] == seen  # the cache was fooled, as such a file system would fool it
    edit = {"path": "f.txt", "old_text": "beta", "new_text": "gamma", "expected_hash": seen}
    result = await client.call_tool("edit_file", edit)
    assert error_code(result) == "stale_edit", text_of(result)
    assert target.read_bytes() == b"ALPHA\nbeta\n"


@pytest.mark.parametrize("swapped", ["the file", "its directory"])
async def test_an_edit_whose_path_is_swapped_for_a_link_after_it_was_resolved_writes_nowhere(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch, swapped: str
) -> None:
    # Between resolving the path and pinning it, d/a.txt (or d/) becomes a link to e/a.txt (or e/), inside the root.
    # Followed, the edit changed e/a.txt under d/a.txt's lock, so an edit of e/a.txt by another process, holding
    # e/a.txt's lock, could be lost; and the backup went on d/a.txt's undo chain.
    for name in ("d/a.txt", "e/a.txt"):
        (root / name).parent.mkdir()
        (root / name).write_bytes(b"alpha\n")
    real_resolve = PathPolicy.resolve

    def resolve_then_swap(self: PathPolicy, user_path: str) -> Path:
        resolved = real_resolve(self, user_path)
        if swapped == "the file":
            (root / "d" / "a.txt").rename(root / "d" / "before.txt")
            (root / "d" / "a.txt").symlink_to(root / "e" / "a.txt")
        else:
            (root / "d").rename(root / "d-before")
            (root / "d").symlink_to("e")
        return resolved

    monkeypatch.setattr(PathPolicy, "resolve", resolve_then_swap)
    result = await client.call_tool("edit_file", {"path": "d/a.txt", "old_text": "alpha", "new_text": "omega"})
    monkeypatch.undo()
    assert error_code(result) == "access_denied", text_of(result)
    assert (root / "e" / "a.txt").read_bytes() == b"alpha\n"
    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "e/a.txt"}))
    assert chain["backups"] == []


async def test_new_text_holding_a_byte_surrogate_the_file_cannot_store_is_encoding_error_and_writes_nothing(
    client: Client, root: Path
) -> None:
    # U+DC80-U+DCFF pass the argument check (they spell a non-UTF-8 name's bytes): the edit sizing them failed.
    (root / "a.txt").write_bytes(b"hello\n")

    result = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "hello", "new_text": "h\udcffi"})

    assert error_code(result) == "encoding_error"
    assert (root / "a.txt").read_bytes() == b"hello\n"


@pytest.mark.parametrize(
    ("pattern", "replacement", "after", "count"),
    [
        ("(?m)^", "> ", b"> a\r\n> b\r\n> c\r\n> ", 4),  # Go's ReplaceAllString: the text's end is a line start
        (r"\b", "|", b"|a|\r\n|b|\r\n|c|\r\n", 6),
        ("x*", "-", b"-a-\r\n-b-\r\n-c-\r\n-", 7),  # a CRLF is one line break: no empty match inside it
    ],
)
async def test_regex_mode_replaces_each_empty_match_once_as_go_does(
    client: Client, root: Path, pattern: str, replacement: str, after: bytes, count: int
) -> None:
    # The re2 wheel's finditer gives an empty match found after another twice: "> " landed twice on lines 2 and 3.
    (root / "e.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    call = {"path": "e.txt", "mode": "regex", "pattern": pattern, "replacement": replacement}
    result = structured(await client.call_tool("edit_file", call))
    assert ((root / "e.txt").read_bytes(), result["replacements"]) == (after, count)


async def test_regex_mode_reads_gnu_word_edges_as_search_files_does(client: Client, root: Path) -> None:
    (root / "w.txt").write_bytes(b"<div> div divx\n")
    call = {"path": "w.txt", "mode": "regex", "pattern": r"\<div\>", "replacement": "span"}
    result = structured(await client.call_tool("edit_file", call))
    assert ((root / "w.txt").read_bytes(), result["replacements"]) == (b"<span> span divx\n", 2)


async def test_a_stale_refusal_repeats_an_expected_hash_far_longer_than_a_hash_by_its_start_and_length(
    client: Client, root: Path
) -> None:
    (root / "m.txt").write_bytes(MODE_FILE)
    pasted = "x" * 200_000  # a file's text passed as its hash
    result = await client.call_tool("edit_file", {"path": "m.txt", **MODE_CALLS["replace"], "expected_hash": pasted})
    assert error_code(result) == "stale_edit"
    assert len(text_of(result)) < 1_000
    assert "200,000 characters" in text_of(result)
    assert len((result.meta or {})["fsguard/error"]["expected_hash"]) < 100
    assert (root / "m.txt").read_bytes() == MODE_FILE


async def test_an_edit_finds_its_one_window_among_thousands_of_like_lines(client: Client, root: Path) -> None:
    # Every line reads as old_text's first ones: the windows are found reading each line once (the count is pinned in
    # tests/core/test_textviews.py), and the one whose last line is old_text's changes, by the trailing-space tier.
    body = "row  \n" * 3000 + "row\nend\n" + "row\n" * 3000
    (root / "rows.txt").write_bytes(body.encode())
    result = await client.call_tool(
        "edit_file", {"path": "rows.txt", "old_text": "row\n" * 200 + "end", "new_text": "done"}
    )
    assert structured(result)["match_tier"] == "trailing_whitespace"
    assert (root / "rows.txt").read_bytes() == ("row  \n" * 2801 + "done\n" + "row\n" * 3000).encode()
