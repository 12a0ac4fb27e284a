"""Tails within the response budget: the streamed read of a file and the read of its whole text end alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import ranges
from fsguard.core.ranges import layout, survey, utf8_size
from fsguard.core.tails import streamed_tail, text_tail
from fsguard.core.textio import decode, split_lines
from fsguard.models import ReadFileResult
from tests.strategies import Encoding, encodings, long_line_texts

MARKER = re.compile(r"^\[line (\d+) cut: its first ([\d,]+) characters left out\] …")


@given(
    text=long_line_texts(),
    encoding=encodings(),
    count=st.integers(min_value=1, max_value=8),
    budget=st.integers(min_value=140, max_value=700),  # the marker keeps 128 bytes
)
def test_a_tail_is_the_end_of_the_file_within_the_budget_whether_streamed_or_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, encoding: Encoding, count: int, budget: int
) -> None:
    monkeypatch.setattr(ranges, "CHUNK", 8)  # chunk boundaries everywhere after the first 64 KiB
    data = encoding.encode(text)
    path = tmp_path / "t.txt"
    path.write_bytes(data)
    lines = split_lines(text)
    with open(path, "rb") as file:
        lay = layout(file.fileno(), len(data), path)
        known = survey(lay, hashed=True).fingerprint
        assert known is not None
        base = ReadFileResult(content="", path=str(path), total_lines=known.line_count)
        counted = streamed_tail(
            layout(file.fileno(), len(data), path, known), base, count, known, budget, budget, "t.txt"
        )
        uncounted = streamed_tail(lay, ReadFileResult(content=""), count, None, budget, budget, "t.txt")
    whole = text_tail(base, decode(data).text, len(lines), count, budget, budget)
    assert counted.content == uncounted.content == whole.content
    assert (counted.start_line, counted.end_line) == (whole.start_line, whole.end_line)
    assert utf8_size(whole.content) <= budget
    found = MARKER.match(whole.content)
    if found:  # the end of the last line, too long for the budget whole
        shown = whole.content[found.end() :]
        assert (int(found[1]), int(found[2].replace(",", ""))) == (len(lines), len(lines[-1]) - len(shown))
        assert shown
        assert lines[-1].endswith(shown)
    else:  # the most of the last lines that fit, whole
        kept = len(split_lines(whole.content))
        assert whole.content == "".join(lines[len(lines) - kept :])
        assert kept == min(count, len(lines)) or utf8_size("".join(lines[-kept - 1 :])) > budget
        assert kept > 0 or not text
