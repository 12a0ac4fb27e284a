"""The result bound stops a substitution at the match that passes it, before anything larger is joined."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fsguard.core.errors import TooLargeError
from fsguard.core.growth import bounded, check_result, replace_all, results_up_to


def test_a_bounded_substitution_stops_at_the_first_match_past_the_limit() -> None:
    calls = 0

    def replace(_match: Any) -> str:
        nonlocal calls
        calls += 1
        return "yy"  # each match grows the text by one character

    text = "x" * 1000
    with results_up_to(1100, "f.txt"), pytest.raises(TooLargeError):
        re.sub("x", bounded(replace, len(text)), text)
    assert calls == 101


def test_outside_a_change_results_are_not_bounded() -> None:
    check_result(10**12)
    assert re.sub("x", bounded(lambda _m: "yy", 3), "xxx") == "yyyyyy"


def test_a_fixed_replacement_goes_in_literally_backslashes_and_group_syntax_too() -> None:
    replacement = r"\1 \g<0> $1 \\ \n"
    assert replace_all(re.compile("x"), "axbx", replacement) == (f"a{replacement}b{replacement}", 2)
    with results_up_to(10**6, "f.txt"):
        assert replace_all(re.compile("x"), "axbx", replacement) == (f"a{replacement}b{replacement}", 2)


def test_a_long_fixed_replacement_goes_in_literally_and_is_bounded_too() -> None:
    long = "\\1 $1 " * 1000
    assert replace_all(re.compile("x"), "axbx", long) == (f"a{long}b{long}", 2)
    with results_up_to(len(long), "f.txt"), pytest.raises(TooLargeError):
        replace_all(re.compile("x"), "axbx", long)


def test_a_fixed_replacement_is_refused_before_the_result_passes_the_limit_and_allowed_up_to_it() -> None:
    text = "x" * 1000
    with results_up_to(1999, "f.txt"), pytest.raises(TooLargeError) as refused:
        replace_all(re.compile("x"), text, "yy")
    assert "at least 2,000 characters" in refused.value.message
    with results_up_to(2000, "f.txt"):
        assert replace_all(re.compile("x"), text, "yy") == ("yy" * 1000, 1000)


@given(
    text=st.text(alphabet="ab\r\n\\", max_size=60),
    find=st.sampled_from(["a", "ab", "b+", "b*", "\r?\n", "a|bb"]),
    replacement=st.text(alphabet="xy\\$1", max_size=4),
    limit=st.integers(min_value=0, max_value=150),
)
def test_a_fixed_replacement_is_what_a_callback_puts_in_refused_exactly_when_the_result_passes_the_limit(
    text: str, find: str, replacement: str, limit: int
) -> None:
    assume(len(text) <= limit)  # the text a change starts from was read within the limit
    finder = re.compile(find)
    expected = finder.subn(lambda _m: replacement, text)
    assert replace_all(finder, text, replacement) == expected
    with results_up_to(limit, "f.txt"):
        if len(expected[0]) > limit:
            with pytest.raises(TooLargeError):
                replace_all(finder, text, replacement)
        else:
            assert replace_all(finder, text, replacement) == expected
