"""render_diff: formats, git-style rendering, hunk numbering, the trimmed matching against a full difflib, the guard."""

from __future__ import annotations

import difflib
import re
import time
from typing import get_args

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fsguard.core.diff import MAX_MATCHED_LINES, NO_NEWLINE_MARK, DiffFormat, DiffResult, render_diff
from fsguard.core.errors import InvalidParamsError
from fsguard.core.textio import count_lines, split_lines
from tests.strategies import break_mixed_texts, edited_texts, local_edits

HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def _numbered(count: int, changed: dict[int, str] | None = None) -> str:
    """``count`` distinct lines ``line 1`` .. ``line N``, with the lines in ``changed`` (1-based) replaced."""
    changed = changed or {}
    return "".join(changed.get(number, f"line {number}") + "\n" for number in range(1, count + 1))


def _full_difflib(label: str, before: str, after: str, context: int = 3) -> str:
    """``difflib.unified_diff`` of the whole line lists, endings stripped and git's marker added as render_diff does."""
    out: list[str] = []
    old, new = split_lines(before), split_lines(after)
    for index, line in enumerate(difflib.unified_diff(old, new, f"a/{label}", f"b/{label}", n=context, lineterm="")):
        if index < 2 or line.startswith("@"):
            out.append(line)
            continue
        bare = line.removesuffix("\n").removesuffix("\r")
        out += [bare] if bare != line else [line, NO_NEWLINE_MARK]
    return "\n".join(out)


def _trim(a: list[str], b: list[str]) -> tuple[int, int]:
    """Common prefix and suffix line counts, the suffix taken from what the prefix leaves."""
    prefix = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    limit = min(len(a), len(b)) - prefix
    return prefix, next((k for k in range(limit) if a[-1 - k] != b[-1 - k]), limit)


def _trimmed_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """The opcodes of the whole texts when difflib matches only the middle left by :func:`_trim`."""
    prefix, suffix = _trim(a, b)
    middle = difflib.SequenceMatcher(None, a[prefix : len(a) - suffix], b[prefix : len(b) - suffix])
    codes = [("equal", 0, prefix, 0, prefix)] if prefix else []
    codes += [(tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix) for tag, i1, i2, j1, j2 in middle.get_opcodes()]
    return codes + ([("equal", len(a) - suffix, len(a), len(b) - suffix, len(b))] if suffix else [])


def _lines_shown(text: str) -> list[tuple[str, bool]]:
    """A text's lines as a diff shows them: content without the ending, and whether there was one."""
    return [(line.removesuffix("\n").removesuffix("\r"), line.endswith(("\n", "\r"))) for line in split_lines(text)]


def _apply(diff: str, before: str) -> list[tuple[str, bool]]:
    """Apply a full diff to ``before``, checking every hunk's numbers and context against it."""
    old = _lines_shown(before)
    new: list[tuple[str, bool]] = []
    lines = diff.split("\n")[2:]
    at = index = 0
    while index < len(lines):
        match = HUNK.fullmatch(lines[index])
        assert match, lines[index]
        old_count, new_count = int(match[2] or 1), int(match[4] or 1)
        old_start = int(match[1]) - (1 if old_count else 0)
        new_start = int(match[3]) - (1 if new_count else 0)
        assert old_start >= at
        new += old[at:old_start]
        at = old_start
        assert len(new) == new_start
        index += 1
        while index < len(lines) and not lines[index].startswith("@@"):
            mark, content = lines[index][0], lines[index][1:]
            ended = not (index + 1 < len(lines) and lines[index + 1] == NO_NEWLINE_MARK)
            index += 1 if ended else 2
            if mark in " -":
                assert old[at] == (content, ended)
                at += 1
            if mark in " +":
                new.append((content, ended))
        assert (at - old_start, len(new) - new_start) == (old_count, new_count)
    return new + old[at:]


@pytest.mark.parametrize("fmt", get_args(DiffFormat))
def test_identical_texts_give_an_empty_result_in_every_format(fmt: DiffFormat) -> None:
    assert render_diff("f.txt", "same\n", "same\n", fmt) == DiffResult("", 0, 0, False)


def test_full_diff_has_git_headers_one_hunk_and_three_context_lines() -> None:
    result = render_diff("src/app.py", _numbered(9), _numbered(9, {5: "five"}), "full")

    assert result.text.split("\n") == [
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "@@ -2,7 +2,7 @@",
        *[" line 2", " line 3", " line 4", "-line 5", "+five", " line 6", " line 7", " line 8"],
    ]
    assert (result.added, result.removed, result.elided) == (1, 1, False)


def test_stat_is_the_added_and_removed_counts_and_none_is_empty_but_counted() -> None:
    before, after = _numbered(20), _numbered(20, {3: "x", 10: "y\nz"})

    assert render_diff("f", before, after, "stat") == DiffResult("+3 -2", 3, 2, False)
    assert render_diff("f", before, after, "none") == DiffResult("", 3, 2, False)


def test_hunks_deep_in_a_large_file_are_numbered_from_the_files_first_line() -> None:
    before = _numbered(100_000)
    after = _numbered(100_000, {50_000: "changed", 53_001: "also changed"})

    lines = render_diff("big.txt", before, after, "full").text.split("\n")

    assert [line for line in lines if line.startswith("@@")] == ["@@ -49997,7 +49997,7 @@", "@@ -52998,7 +52998,7 @@"]
    assert lines[3:9] == [" line 49997", " line 49998", " line 49999", "-line 50000", "+changed", " line 50001"]


def test_a_last_line_without_newline_is_marked_like_git_in_changes_and_context() -> None:
    added_newline = render_diff("f", "a\nb", "a\nb\n", "full").text.split("\n")
    context_unended = render_diff("f", "a\nb", "A\nb", "full").text.split("\n")

    assert added_newline[2:] == ["@@ -1,2 +1,2 @@", " a", "-b", NO_NEWLINE_MARK, "+b"]
    assert context_unended[2:] == ["@@ -1,2 +1,2 @@", "-a", "+A", " b", NO_NEWLINE_MARK]


def test_crlf_and_cr_lines_are_shown_without_their_endings() -> None:
    result = render_diff("win.txt", "one\r\ntwo\r\nold\rend\n", "one\r\ntwo\r\nnew\rend\n", "full")

    assert result.text.split("\n")[2:] == ["@@ -1,4 +1,4 @@", " one", " two", "-old", "+new", " end"]
    assert "\r" not in result.text


def test_a_changed_line_ending_alone_shows_as_a_replaced_line() -> None:
    assert render_diff("f", "a\nb\n", "a\r\nb\n", "full").text.split("\n")[2:] == ["@@ -1,2 +1,2 @@", "-a", "+a", " b"]


def test_changes_more_than_six_lines_apart_make_separate_hunks() -> None:
    six_apart = render_diff("f", _numbered(30), _numbered(30, {5: "x", 12: "y"}), "full").text
    seven_apart = render_diff("f", _numbered(30), _numbered(30, {5: "x", 13: "y"}), "full").text

    assert [line for line in six_apart.split("\n") if line.startswith("@@")] == ["@@ -2,14 +2,14 @@"]
    assert [line for line in seven_apart.split("\n") if line.startswith("@@")] == [
        "@@ -2,7 +2,7 @@",
        "@@ -10,7 +10,7 @@",
    ]


def test_summary_cuts_a_hunk_longer_than_six_lines_to_its_first_and_last_three() -> None:
    after = _numbered(40, {number: f"new {number}" for number in range(10, 20)})

    result = render_diff("f", _numbered(40), after, "summary")

    assert result.text.split("\n") == [
        "--- a/f",
        "+++ b/f",
        "@@ -7,16 +7,16 @@ (+10 -10)",
        *[" line 7", " line 8", " line 9", "    … 20 more lines …", " line 20", " line 21", " line 22"],
    ]
    assert (result.added, result.removed, result.elided) == (10, 10, False)


def test_summary_keeps_a_short_hunk_whole_and_says_one_more_line_in_the_singular() -> None:
    short = render_diff("f", "a\nb\n", "a\nc\n", "summary").text.split("\n")
    without_line_4 = "".join(f"line {number}\n" for number in (1, 2, 3, 5, 6, 7))
    seven = render_diff("f", _numbered(7), without_line_4, "summary").text.split("\n")

    assert short[2:] == ["@@ -1,2 +1,2 @@ (+1 -1)", " a", "-b", "+c"]
    assert seven[3:] == [" line 1", " line 2", " line 3", "    … 1 more line …", " line 5", " line 6", " line 7"]


def test_auto_shows_the_full_diff_up_to_auto_max_lines() -> None:
    before, after = _numbered(9), _numbered(9, {5: "five"})
    full = render_diff("f", before, after, "full")

    assert len(full.text.split("\n")) == 11
    assert render_diff("f", before, after, "auto", auto_max_lines=11) == full
    assert render_diff("f", before, after, "auto", auto_max_lines=10).elided


def test_auto_falls_back_to_the_summary_with_a_note_naming_the_elided_lines() -> None:
    before, after = _numbered(100), _numbered(100, dict.fromkeys(range(10, 40), "x"))

    result = render_diff("f", before, after)

    summary = render_diff("f", before, after, "summary").text
    note = '(summary: 60 diff lines elided — pass diff_format="full" to see the complete diff)'
    assert result == DiffResult(f"{summary}\n{note}", 30, 30, True)


def test_a_middle_above_the_guard_is_reported_as_one_replaced_block_without_matching() -> None:
    count = MAX_MATCHED_LINES + 1
    before = "head\n" + _numbered(count) + "tail\n"
    after = "head\n" + "".join(f"other {number}\n" for number in range(count + 10)) + "tail\n"

    started = time.perf_counter()
    result = render_diff("f", before, after, "full")
    elapsed = time.perf_counter() - started

    assert result.text.split("\n") == [
        "--- a/f",
        "+++ b/f",
        "@@ -2,5001 +2,5011 @@",
        "(5,001 lines replaced by 5,011 lines; diff not computed for a change this large)",
    ]
    assert (result.added, result.removed) == (count + 10, count)
    assert render_diff("f", before, after) == result
    assert elapsed < 1.0


def test_a_middle_at_the_guard_is_still_matched_line_by_line() -> None:
    before = _numbered(MAX_MATCHED_LINES)
    after = "".join(f"other {number}\n" for number in range(MAX_MATCHED_LINES))

    result = render_diff("f", before, after, "full")

    assert (result.added, result.removed) == (MAX_MATCHED_LINES, MAX_MATCHED_LINES)
    hunk = f"@@ -1,{MAX_MATCHED_LINES} +1,{MAX_MATCHED_LINES} @@"
    assert result.text.split("\n")[2:5] == [hunk, "-line 1", "-line 2"]


def test_an_unknown_format_is_refused_as_invalid_params() -> None:
    with pytest.raises(InvalidParamsError) as info:
        render_diff("f", "a", "b", "colour")  # type: ignore[arg-type]
    assert "diff_format" in info.value.message


# 2,400 lines of 28 characters: the prefix and suffix scans compare 16,384 characters at a time, and lines
# 586, 1171 and 1756 straddle a prefix chunk edge, lines 645, 1230 and 1815 a suffix chunk edge.
@pytest.mark.parametrize("line", [1, 585, 586, 587, 645, 1171, 1230, 1756, 1815, 2399, 2400])
def test_changes_around_the_character_scan_chunks_match_full_difflib(line: int) -> None:
    before = "".join(f"{number:>26}\r\n" for number in range(1, 2401))
    after = before.replace(f"{line:>26}\r\n", "changed\r", 1)

    assert render_diff("f", before, after, "full").text == _full_difflib("f", before, after)


# difflib matches the longest block first, and that block may reach into the common prefix or suffix:
# here "A B C" (so the first "A B" goes), and two blank lines matched across the inserted line.
@pytest.mark.parametrize(
    ("before", "after", "trimmed", "full"),
    [
        ("A\nB\nA\nB\nC\n", "A\nB\nC\n", [" A", " B", "-A", "-B", " C"], ["-A", "-B", " A", " B", " C"]),
        ("\n\n\n", "\nnew\n\n\n", [" ", "+new", " ", " "], ["+", "+new", " ", " ", "-"]),
    ],
)
def test_a_change_among_repeated_lines_may_differ_from_full_difflib_yet_is_a_correct_diff(
    before: str, after: str, trimmed: list[str], full: list[str]
) -> None:
    result = render_diff("f", before, after, "full")

    assert result.text.split("\n")[3:] == trimmed
    assert _full_difflib("f", before, after).split("\n")[3:] == full
    assert _apply(result.text, before) == _lines_shown(after)


@given(pair=local_edits())
def test_diff_equals_full_difflib_when_lines_are_replaced_by_lines_new_to_their_surroundings(
    pair: tuple[str, str],
) -> None:
    before, after = pair
    a, b = split_lines(before), split_lines(after)
    prefix, suffix = _trim(a, b)
    old, new = a[prefix : len(a) - suffix], b[prefix : len(b) - suffix]
    # The theorem's premise: a real replacement, and no changed line among the unchanged ones.
    assume(old and new and not (set(a[:prefix]) | set(a[len(a) - suffix :])) & set(old + new))

    assert render_diff("f.txt", before, after, "full").text == _full_difflib("f.txt", before, after)


@given(pair=edited_texts(), context=st.integers(min_value=0, max_value=5))
def test_diff_is_a_correct_patch_and_equals_full_difflib_whenever_their_alignments_agree(
    pair: tuple[str, str], context: int
) -> None:
    before, after = pair
    assume(before != after)

    result = render_diff("f.txt", before, after, "full", context=context)

    assert _apply(result.text, before) == _lines_shown(after)
    body = result.text.split("\n")[2:]
    assert (result.added, result.removed) == (
        sum(line.startswith("+") for line in body),
        sum(line.startswith("-") for line in body),
    )
    assert render_diff("f.txt", before, after, "stat").text == f"+{result.added} -{result.removed}"
    a, b = split_lines(before), split_lines(after)
    if _trimmed_opcodes(a, b) == difflib.SequenceMatcher(None, a, b).get_opcodes():
        assert result.text == _full_difflib("f.txt", before, after, context)


@given(before=break_mixed_texts(), after=break_mixed_texts())
def test_the_lines_a_diff_adds_and_removes_carry_the_line_count_from_before_to_after(before: str, after: str) -> None:
    # edit_file reports the new line count this way instead of counting the whole new text again.
    result = render_diff("f.txt", before, after, "none")

    assert count_lines(after) == count_lines(before) + result.added - result.removed


@given(text=break_mixed_texts(), span=st.tuples(st.integers(0, 30), st.integers(0, 30)), new=break_mixed_texts())
def test_a_local_edit_changes_the_line_count_by_what_its_diff_adds_and_removes(
    text: str, span: tuple[int, int], new: str
) -> None:
    start, end = sorted(min(bound, len(text)) for bound in span)
    after = text[:start] + new + text[end:]  # the edit may split or join a CRLF at either end

    result = render_diff("f.txt", text, after, "none")

    assert count_lines(after) == count_lines(text) + result.added - result.removed
