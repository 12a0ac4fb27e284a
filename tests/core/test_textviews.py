"""The views the whitespace-tolerant tiers search: the normal form maps every character back to the text, and
line windows start only where old_text's first line could."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import textviews
from fsguard.core.linewindows import line_windows
from fsguard.core.textviews import NormalForm, TextViews
from tests.strategies import whitespace_texts


def character_table(text: str) -> tuple[str, list[int], list[bool]]:
    """The normal form spelled out one character at a time: each output character's source offset and whether
    it is the first one that source character produced."""
    out: list[str] = []
    origin: list[int] = []
    first: list[bool] = []
    i = 0
    while i < len(text):
        produced = "    " if text[i] == "\t" else "\n" if text[i] == "\r" else text[i]
        out.append(produced)
        origin.extend([i] * len(produced))
        first.extend([True] + [False] * (len(produced) - 1))
        i += 2 if text.startswith("\r\n", i) else 1
    return "".join(out), origin, first


@given(whitespace_texts())
def test_normal_form_maps_every_character_back_to_where_the_table_says(text: str) -> None:
    normal = NormalForm(text)
    expected, origin, first = character_table(text)
    assert normal.text == expected
    assert [normal.source(p) for p in range(len(expected))] == origin
    assert [normal.starts_character(p) for p in range(len(expected))] == first
    assert normal.source(len(expected)) == len(text)


def brute_windows(
    views: TextViews, old: str, same: Callable[[str, str], bool], overlapping: bool
) -> list[tuple[int, int, int, int]]:
    """Every window of lines matching old_text's (without ``overlapping``, none overlapping one before it), tried at
    every line, with the span it replaces: a line break old_text starts with is the one ending the line before the
    window."""
    parts = old.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    lead = len(parts) > 1 and parts[0] == ""
    parts = parts[1:] if lead else parts
    with_break = len(parts) > 1 and parts[-1] == ""
    wanted = parts[:-1] if with_break else parts
    if not any(line.strip() for line in wanted):
        return []
    lines, starts = views.index.lines, views.index.starts
    found: list[tuple[int, int, int, int]] = []
    free, first = 0, 1 if lead else 0
    while first + len(wanted) <= len(lines):
        if all(same(lines[first + k].rstrip("\r\n"), wanted[k]) for k in range(len(wanted))):
            start = starts[first - 1] + len(lines[first - 1].rstrip("\r\n")) if lead else starts[first]
            last = lines[first + len(wanted) - 1]
            end = starts[first + len(wanted) - 1] + len(last if with_break else last.rstrip("\r\n"))
            if overlapping or start >= free:
                found.append((first, len(wanted), start, end))
                free = end
        first += 1
    return found


@given(whitespace_texts(), whitespace_texts(), st.booleans(), st.booleans())
def test_line_windows_tried_at_candidate_lines_are_those_of_a_scan_of_every_line(
    text: str, old: str, trailing_only: bool, overlapping: bool
) -> None:
    def key(line: str) -> str:
        return line.rstrip(" \t") if trailing_only else line.strip()

    def same(line: str, want: str) -> bool:
        return key(line) == key(want)

    views = TextViews(text)
    assert line_windows(views, old, key, overlapping) == brute_windows(views, old, same, overlapping)


LIKE_LINES = st.sampled_from(["a", " a", "a ", "\ta\t", "b", "", "  "])


@given(
    st.lists(LIKE_LINES, min_size=1, max_size=60),
    st.lists(LIKE_LINES, min_size=1, max_size=8),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
    st.booleans(),
)
def test_line_windows_in_a_file_of_like_lines_are_those_of_a_scan_of_every_line(
    lines: list[str], wanted: list[str], eol: str, trailing_only: bool, overlapping: bool
) -> None:
    # Many like lines make each candidate window long to compare: the windows are then found reading each line once.
    def key(line: str) -> str:
        return line.rstrip(" \t") if trailing_only else line.strip()

    def same(line: str, want: str) -> bool:
        return key(line) == key(want)

    views, old = TextViews(eol.join(lines) + eol), "\n".join(wanted)
    assert line_windows(views, old, key, overlapping) == brute_windows(views, old, same, overlapping)


def test_a_window_search_in_a_file_of_like_lines_reads_each_line_once() -> None:
    # 50 lines of old_text against 2.5 million like lines compared up to 50 lines at each: minutes for one edit.
    looked = 0

    def key(line: str) -> str:
        nonlocal looked
        looked += 1
        return line.strip()

    views, old = TextViews("a\n" * 5000), "a\n" * 100 + "b"
    assert line_windows(views, old, key, overlapping=True) == []
    assert looked <= 5000 + 101


@given(st.lists(LIKE_LINES, max_size=40), LIKE_LINES)
def test_lines_found_densely_are_those_of_a_scan_of_every_line(lines: list[str], content: str) -> None:
    # Past DENSE lines found by looking for them, the rest are read one by one (2 here, 10,000 in the server).
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(textviews, "DENSE", 2)
        views = TextViews("\n".join(lines))
        found = views.lines_reading(content.strip())
    assert found == [number for number, line in enumerate(views.index.lines) if line.strip() == content.strip()]
