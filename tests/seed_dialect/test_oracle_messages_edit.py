"""The seed's own words in fsguard's refusals: catalog Appendix A, "Validation / wiring", "Edit family" and "Write".

A test written against the seed asserts its distinctive phrase (``anchor not found``, ``edits array cannot be
empty`` …); fsguard's message opens with that phrase, then says what fsguard adds and the next action. Each
case checks the phrase, the stable error code, and that no file changed. Both protocol eras, through ``client``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

LONG = "".join(f"line {n} of a long file, padded to make it weigh something\n" for n in range(200))
A = {"a.txt": "a\nb\n"}
X3 = {"a.txt": "x x x\n"}
BRACES = {"a.txt": "a\n}\n}\n"}

# (tool, files before the call, arguments, the seed's phrase, fsguard's error code)
REFUSALS: dict[str, tuple[str, dict[str, str], dict[str, Any], str, str]] = {
    "paths_json": ("read_file", A, {"paths": "[a.txt"}, "Invalid paths JSON", "invalid_params"),
    "paths_empty": ("read_file", A, {"paths": []}, "paths array is empty", "invalid_params"),
    "unicode": (
        "write_file",
        {},
        {"path": "a\u202eb.txt", "content": "x"},
        "path contains dangerous Unicode character U+202E",
        "access_denied",
    ),
    "old_missing": (
        "edit_file",
        A,
        {"path": "a.txt", "new_text": "b"},
        "old_text (or old_str) is required",
        "invalid_params",
    ),
    "old_empty": (
        "edit_file",
        A,
        {"path": "a.txt", "old_text": "", "new_text": "b"},
        "old_text (or old_str) is required",
        "invalid_params",
    ),
    "search_replace_pattern": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "search_replace", "replacement": "b"},
        'pattern is required for mode:"search_replace"',
        "invalid_params",
    ),
    "regex_neither": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "regex"},
        'mode:"regex" requires either patterns_json, or pattern (with replacement/new_text)',
        "invalid_params",
    ),
    "patterns_json": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "regex", "patterns_json": "[{"},
        "Failed to parse patterns JSON",
        "invalid_params",
    ),
    "insert_anchor": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "insert", "new_text": "b"},
        'anchor is required for mode:"insert"',
        "invalid_params",
    ),
    "insert_new_text": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "insert", "anchor": "a"},
        'new_text (the text to insert) is required for mode:"insert"',
        "invalid_params",
    ),
    "delete_range_lines": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "delete_range", "start_line": 1},
        'mode:"delete_range" requires start_line and end_line (1-based, inclusive)',
        "invalid_params",
    ),
    "replace_range_new_text": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "replace_range", "start_line": 1, "end_line": 1},
        'mode:"replace_range" requires start_line and end_line (1-based, inclusive) and new_text',
        "invalid_params",
    ),
    "stale_edit": (
        "edit_file",
        A,
        {"path": "a.txt", "old_text": "a", "new_text": "A", "expected_hash": "deadbeef"},
        "stale edit: file content changed since read (expected hash: deadbeef, actual: ",
        "stale_edit",
    ),
    "stale_multi_edit": (
        "multi_edit",
        A,
        {"path": "a.txt", "edits_json": [{"old_text": "a", "new_text": "A"}], "expected_hash": "deadbeef"},
        "Re-read the file with read_file to get the current content_hash, then retry.",
        "stale_edit",
    ),
    "rewrite": (
        "edit_file",
        {"big.txt": LONG},
        {"path": "big.txt", "old_text": LONG.splitlines(keepends=True)[0], "new_text": LONG[:6000]},
        "edit_file blocked: looks like an accidental full-file rewrite",
        "rewrite_blocked",
    ),
    "no_match": (
        "edit_file",
        A,
        {"path": "a.txt", "old_text": "zzz", "new_text": "b"},
        'edit failed: no matches found for text: "zzz"',
        "no_match",
    ),
    "stale_read": (
        "edit_file",
        A,
        {"path": "a.txt", "old_text": "zzz", "new_text": "b"},
        "[STALE_READ] File was not read in the current session before editing",
        "no_match",
    ),
    "regex_invalid": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "regex", "pattern": "(", "replacement": "x"},
        "Transformation failed: invalid pattern '('",
        "invalid_params",
    ),
    "occurrence_missing": (
        "edit_file",
        X3,
        {"path": "a.txt", "old_text": "q", "new_text": "y", "occurrence": 2},
        "pattern not found: 'q'",
        "no_match",
    ),
    "directory": (
        "edit_file",
        {"d/x.txt": "x"},
        {"path": "d", "old_text": "x", "new_text": "y"},
        "cannot edit directory",
        "is_directory",
    ),
    "occurrence": (
        "edit_file",
        X3,
        {"path": "a.txt", "old_text": "x", "new_text": "y", "occurrence": 5},
        "occurrence 5 out of range (only 3 matches found)",
        "no_match",
    ),
    "anchor_missing": (
        "edit_file",
        BRACES,
        {"path": "a.txt", "mode": "insert", "anchor": "zz", "new_text": "y"},
        'anchor not found: "zz"',
        "no_match",
    ),
    "anchor_twice": (
        "edit_file",
        BRACES,
        {"path": "a.txt", "mode": "insert", "anchor": "}", "new_text": "y"},
        "anchor matches 2 times (expected 1). Quote more surrounding context to make it unique",
        "ambiguous_match",
    ),
    "position": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "insert", "anchor": "a", "new_text": "y", "position": "sideways"},
        'position must be "after" or "before"',
        "invalid_params",
    ),
    "beyond_end": (
        "edit_file",
        A,
        {"path": "a.txt", "mode": "delete_range", "start_line": 5, "end_line": 6},
        "start_line 5 is beyond end of file (2 lines)",
        "invalid_params",
    ),
    "empty_file": (
        "edit_file",
        {"a.txt": ""},
        {"path": "a.txt", "mode": "delete_range", "start_line": 1, "end_line": 1},
        "file is empty: nothing to delete",
        "invalid_params",
    ),
    "edits_json": ("multi_edit", A, {"path": "a.txt", "edits_json": "[{"}, "Invalid edits JSON", "invalid_params"),
    "edits_empty": (
        "multi_edit",
        A,
        {"path": "a.txt", "edits_json": "[]"},
        "edits array cannot be empty",
        "invalid_params",
    ),
    "none_match": (
        "multi_edit",
        A,
        {"path": "a.txt", "edits_json": [{"old_text": "q", "new_text": "Q"}, {"old_text": "r", "new_text": "R"}]},
        "Multi-edit error: context validation failed: none of the 2 edits match the current file content",
        "no_match",
    ),
    "multi_ambiguous": (
        "multi_edit",
        X3,
        {"path": "a.txt", "edits_json": [{"old_text": "x", "new_text": "y"}]},
        "ambiguous match: old_text for edit 1 matches 3 times (expected 1)",
        "ambiguous_match",
    ),
    "rolled_back": (
        "multi_edit",
        A,
        {"path": "a.txt", "edits_json": [{"old_text": "a", "new_text": "A"}, {"old_text": "zz", "new_text": "Z"}]},
        "Multi-edit ROLLED BACK (file unchanged): atomic rollback: 1 of 2 edits failed — file NOT modified",
        "no_match",
    ),
    "content_missing": (
        "write_file",
        A,
        {"path": "a.txt"},
        'Invalid content: required argument "content" not found',
        "invalid_params",
    ),
    "base64_invalid": (
        "write_file",
        A,
        {"path": "a.txt", "content_base64": "!!!"},
        "Invalid base64: ",
        "invalid_params",
    ),
    "base64_missing": (
        "write_file",
        A,
        {"path": "a.txt", "encoding": "base64"},
        'content_base64 or content with encoding:"base64" is required',
        "invalid_params",
    ),
}


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("case", list(REFUSALS))
async def test_a_refusal_opens_with_the_seeds_words_and_leaves_every_file_untouched(
    client: Client, root: Path, case: str
) -> None:
    tool, files, arguments, phrase, code = REFUSALS[case]
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    before = _tree(root)
    refused = await client.call_tool(tool, arguments)
    assert error_code(refused) == code
    assert phrase in text_of(refused)
    assert _tree(root) == before


async def test_a_path_outside_the_roots_is_refused_as_outside_allowed_directories(
    client: Client, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep\n")
    refused = await client.call_tool("write_file", {"path": str(outside), "content": "x"})
    assert error_code(refused) == "access_denied"
    assert "access denied" in text_of(refused)
    assert "outside allowed directories" in text_of(refused)
    assert outside.read_bytes() == b"keep\n"


@pytest.mark.parametrize(
    ("content", "phrase"),
    [
        ("short\n", "is less than 50% of existing file ("),
        (LONG * 4, "Looks like an inflation loop (content = read + append repeated)"),
    ],
    ids=["truncation", "inflation"],
)
async def test_a_write_that_looks_accidental_says_so_in_the_seeds_words_and_backs_the_file_up(
    client: Client, root: Path, content: str, phrase: str
) -> None:
    """The seed downgraded these blocks to warnings once a backup was made; so does fsguard, in the same words."""
    (root / "big.txt").write_text(LONG, encoding="utf-8")
    written = await client.call_tool("write_file", {"path": "big.txt", "content": content})
    structured(written)
    assert phrase in text_of(written)
    assert (root / "big.txt").read_text(encoding="utf-8") == content
    listed = structured(await client.call_tool("backup", {"action": "list", "file_path": "big.txt"}))
    assert listed["total"] == 1


async def test_the_same_old_text_failing_twice_says_so_in_the_seeds_words(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\nb\n")
    wrong = {"path": "a.txt", "old_text": "zzz", "new_text": "Z"}
    await client.call_tool("edit_file", wrong)
    again = await client.call_tool("edit_file", wrong)
    assert error_code(again) == "no_match"
    assert "[REPEATED_OLD_TEXT] old_text has failed to match 2 times on this file" in text_of(again)
    assert (root / "a.txt").read_bytes() == b"a\nb\n"


async def test_an_edit_of_a_file_changed_behind_the_sessions_back_says_so_in_the_seeds_words(
    connect: ClientFactory, root: Path
) -> None:
    """--auto-occ warn edits and says so; block refuses and leaves the other process's bytes."""
    (root / "a.txt").write_bytes(b"a\nb\n")
    async with connect(auto_occ="warn") as client:
        await client.call_tool("read_file", {"path": "a.txt"})
        (root / "a.txt").write_bytes(b"a\nb\nc\n")
        warned = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "b", "new_text": "B"})
        note = structured(warned)["external_change"]
    assert note.startswith("file changed on disk since this session last saw it (known hash ")
    assert ", on-disk " in note
    assert "another process may have modified it" in text_of(warned)
    assert (root / "a.txt").read_bytes() == b"a\nB\nc\n"
    async with connect(auto_occ="block") as client:
        await client.call_tool("read_file", {"path": "a.txt"})
        (root / "a.txt").write_bytes(b"other\n")
        blocked = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "other", "new_text": "mine"})
    assert error_code(blocked) == "external_change"
    assert "edit_file blocked: file changed on disk since this session last read it" in text_of(blocked)
    assert (root / "a.txt").read_bytes() == b"other\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "big.txt", "old_text": "line 1 ", "new_text": "LINE 1 "}),
        ("multi_edit", {"path": "big.txt", "edits_json": [{"old_text": "line 1 ", "new_text": "LINE 1 "}]}),
    ],
    ids=["edit_file", "multi_edit"],
)
async def test_an_edit_of_a_file_above_the_size_limit_is_refused_in_the_seeds_words(
    connect: ClientFactory, root: Path, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "big.txt").write_text(LONG, encoding="utf-8")
    async with connect(max_file_size=1000) as client:
        refused = await client.call_tool(tool, arguments)
    assert error_code(refused) == "too_large"
    assert "file validation failed: file too large for editing" in text_of(refused)
    assert "--max-file-size" in text_of(refused)
    assert (root / "big.txt").read_text(encoding="utf-8") == LONG


async def test_a_write_that_cannot_be_read_back_says_post_write_verification_failed(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seed's warning when the file cannot be reopened after the rename; the write itself happened."""

    def unreadable(*_: object) -> bool:
        raise OSError("replaced since the rename")

    monkeypatch.setattr("fsguard.core.mutation.on_disk_equals", unreadable)
    written = await client.call_tool("write_file", {"path": "w.txt", "content": "new\n"})
    assert structured(written)["verified"] is False
    assert "POST-WRITE VERIFICATION FAILED" in text_of(written)
    assert "do not repeat the write blindly" in text_of(written)
    assert (root / "w.txt").read_bytes() == b"new\n"
