"""edit_file's line ranges (fsguard.core.modes.line_range) in files of mixed line endings."""

from __future__ import annotations

import pytest

from fsguard.core.modes import line_range


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a\rb\nc\r\nd", "a\rX\r\nd"),  # lines 2-3 end in CRLF: the line after the range keeps it
        ("a\r\nb\r\nc\nd", "a\r\nX\nd"),
        ("a\nb\nc", "a\nX"),  # the file's last line, with no break: none is added
    ],
)
def test_a_replaced_range_keeps_its_last_lines_own_line_break(text: str, expected: str) -> None:
    # The break was the range's first one: replacing lines 2-3 of "a\rb\nc\r\nd" gave "X\n".
    assert line_range(2, 3, "X", path="f.txt")(text).new_text == expected


@pytest.mark.parametrize(
    ("new_text", "expected"),
    [("a\nB\n", "a\nB\r\nc\r\n"), ("a\nB", "a\nB\r\nc\r\n"), ("A\nB\nX\n", "A\nB\r\nX\r\nc\r\n")],
)
def test_each_line_of_a_replaced_range_keeps_the_ending_of_the_line_it_stands_for(new_text: str, expected: str) -> None:
    # The range's first break spelled every one: line b's CRLF became LF.
    assert line_range(1, 2, new_text, path="f.txt")("a\nb\r\nc\r\n").new_text == expected
