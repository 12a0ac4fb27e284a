"""An edit of a long file looks for its old_text, its closest lines and the already-applied case, and numbers the
line it changes, without a table or a list of every line, nor a list of every occurrence."""

from __future__ import annotations

import difflib
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from fsguard.core import misses
from fsguard.core.applied import already_applied
from fsguard.core.errors import NoMatchError
from fsguard.core.matching import Replacement, find_matches

LONG = "".join(f"{n:07d} some log text here ok\n" for n in range(100_000))  # 3 MB, every line distinct


def peak_of(work: Callable[[], Any]) -> int:
    """The most Python memory ``work`` held at once."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _fails(old: str, new: str = "y") -> NoMatchError:
    with pytest.raises(NoMatchError) as caught:
        find_matches(LONG, Replacement(old, new))
    return caught.value


def test_a_failed_edit_of_a_long_file_holds_no_table_of_its_lines() -> None:
    peak = peak_of(lambda: _fails("a line that is not there\nnor this one"))
    assert "No line resembles the first line of old_text." in _fails("a line that is not there").message
    assert peak < len(LONG) // 2  # a table of the lines by content and a list of them stripped took 8 times it
    near = peak_of(lambda: _fails("0054321 some log text here okay"))
    assert "54322: 0054321 some log text here ok" in _fails("0054321 some log text here okay").message
    assert near < len(LONG) // 2  # the closest lines were shown from the file split into lines


def test_past_closest_scan_lines_the_closest_are_looked_for_among_lines_sharing_a_word(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(misses, "CLOSEST_SCAN", 1_000)
    compared: list[int] = []
    likeliest = misses._likeliest

    def counted(first: str, lines: list[str]) -> list[str]:
        compared.append(len(lines))
        return likeliest(first, lines)

    monkeypatch.setattr(misses, "_likeliest", counted)
    error = _fails("0054321 some log text here okay")
    assert "54322: 0054321 some log text here ok" in error.message  # line 54,322 holds 0054321
    assert compared == [1]  # the one line holding 0054321, not the 100,000


def test_a_one_letter_new_text_found_everywhere_is_looked_at_without_a_list_of_every_place() -> None:
    text = "tax " * 250_000
    peak = peak_of(lambda: already_applied(text, "qqq", "x"))
    assert already_applied(text, "qqq", "x") is None
    assert already_applied("a-a-a", "zz", "a-a") is None  # two places, overlapping: no single reading
    assert already_applied("foo bar baz", "qux", "bar") == 4
    assert peak < 256 * 1024  # the list of the 250,000 places took 9 MB


def test_an_edit_of_a_crlf_file_numbers_its_line_without_splitting_the_file() -> None:
    text = LONG.replace("\n", "\r\n")
    old = "0054321 some log text here ok\r\n0054322"
    peak = peak_of(lambda: find_matches(text, Replacement(old, "EDITED\r\n0054322")))
    plan = find_matches(text, Replacement(old, "EDITED\r\n0054322"))
    assert (plan.first_line, [text[match.start : match.end] for match in plan.matches]) == (54322, [old])
    assert find_matches("a\rb\r\nold\n", Replacement("old", "new")).first_line == 3  # a lone CR ends a line
    assert peak < len(text) // 2  # its lines and their offsets took 4 times it


def test_a_missed_long_old_text_among_like_blocks_compares_a_bounded_few_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 500 lines of old_text against 60,000 like lines compared a 40 KB block at every line: minutes for one miss.
    compared: list[int] = []
    real = difflib.SequenceMatcher

    class Counted(real):  # type: ignore[misc,valid-type]
        def ratio(self) -> float:
            if "\n" in self.b:  # a block; the closest first line is looked for with this class too
                compared.append(len(self.a) + len(self.b))
            return float(super().ratio())

    monkeypatch.setattr(difflib, "SequenceMatcher", Counted)
    line = "x" * 400 + "\n"
    with pytest.raises(NoMatchError) as caught:
        find_matches(line * 1000, Replacement(line * 500 + "not there", "y"))
    assert "Closest lines:" in caught.value.message
    assert 0 < len(compared) <= misses.BLOCK_PLACES
    assert max(compared) <= 2 * misses.BLOCK_LINES * (misses.LINE_CHARS + 1)
