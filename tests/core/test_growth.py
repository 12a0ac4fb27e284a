"""The result bound stops a substitution at the match that passes it, before anything larger is joined."""

from __future__ import annotations

import re
from typing import Any

import pytest

from fsguard.core.errors import TooLargeError
from fsguard.core.growth import bounded, check_result, results_up_to


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
