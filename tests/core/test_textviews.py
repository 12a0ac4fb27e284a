"""The views the whitespace-tolerant tiers search: the normal form maps every character back to the text, and
line windows start only where old_text's first line could."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.matching import _line_windows
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
    def same(line: str, want: str) -> bool:
        return line.rstrip(" \t") == want.rstrip(" \t") if trailing_only else line.strip() == want.strip()

    views = TextViews(text)
    assert _line_windows(views, old, same, overlapping) == brute_windows(views, old, same, overlapping)
