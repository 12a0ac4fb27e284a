"""Excerpts of streamed text: runs of whole LF lines are taken at once, with the very result of line by line."""

from __future__ import annotations

import itertools
import re
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import ranges
from fsguard.core.hashing import content_hash
from fsguard.core.ranges import Excerpt, excerpt
from fsguard.core.textio import LINE_BREAK, decode, split_lines
from tests.strategies import Encoding, break_mixed_texts, encodings, lf_texts, texts_with_line_endings


def _chunks(text: str, cuts: list[int]) -> list[str]:
    """``text`` cut at ``cuts``, never inside a CRLF (streamed chunks never split one)."""
    points = sorted({cut % (len(text) + 1) for cut in cuts})
    points = [point for point in points if not (0 < point < len(text) and text[point - 1 : point + 1] == "\r\n")]
    edges = [0, *points, len(text)]
    return [text[start:end] for start, end in itertools.pairwise(edges)]


def _line_by_line(chunks: list[str], max_lines: int, budget: int, skip_columns: int) -> Excerpt:
    with mock.patch.object(ranges, "_lf_run", lambda _text, pos, _count, _limit: (pos, 0)):
        return excerpt(chunks, max_lines=max_lines, budget=budget, skip_columns=skip_columns)


@given(
    text=st.one_of(lf_texts(), texts_with_line_endings(max_lines=20).map(lambda ended: ended.text)),
    cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=4),
    max_lines=st.integers(min_value=1, max_value=25),
    budget=st.integers(min_value=1, max_value=120),
    skip_columns=st.integers(min_value=0, max_value=3),
)
def test_an_excerpt_taking_lf_lines_in_runs_equals_the_excerpt_taken_line_by_line(
    text: str, cuts: list[int], max_lines: int, budget: int, skip_columns: int
) -> None:
    chunks = _chunks(text, cuts)
    taken = excerpt(chunks, max_lines=max_lines, budget=budget, skip_columns=skip_columns)
    assert taken == _line_by_line(chunks, max_lines, budget, skip_columns)


@given(
    text=st.text(st.sampled_from("ab\n\r"), max_size=80),
    pos=st.integers(min_value=0, max_value=80),
    span=st.integers(min_value=0, max_value=80),
    beside=st.integers(min_value=-2, max_value=2),
)
def test_a_run_of_lf_lines_ends_where_a_search_for_each_line_would_end_it(
    text: str, pos: int, span: int, beside: int
) -> None:
    pos = min(pos, len(text))
    limit = min(len(text), pos + span)
    count = max(0, text.count("\n", pos, limit) + beside)  # about as many lines as there are: the edge cases
    end, taken = pos, 0
    while taken < count and (found := text.find("\n", end, limit)) >= 0:
        end, taken = found + 1, taken + 1

    assert ranges._lf_run(text, pos, count, limit) == (end, taken)


def test_a_tail_of_log_lines_is_taken_whole_within_the_budget_and_cut_before_a_line_that_does_not_fit() -> None:
    lines = [f"line {i:03d} é\n" for i in range(1, 201)]  # 11 characters, 12 UTF-8 bytes
    log = "".join(lines)
    assert excerpt([log], max_lines=100, budget=10_000) == Excerpt("".join(lines[:100]), 100, None, False)
    # 5 lines fit in 65 bytes; the sixth is left out whole, across the chunks.
    assert excerpt([log[:700], log[700:]], max_lines=100, budget=65) == Excerpt("".join(lines[:5]), 5, None, True)


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chunk after the first (64 bytes) is 8 bytes: the breaks after the first chunk all meet a boundary. The
    encoding is judged on the first 64 bytes, as it is on the first chunk's 64 KiB in production."""
    monkeypatch.setattr(ranges, "CHUNK", 8)
    monkeypatch.setattr(ranges, "FIRST_CHUNK", 64)
    monkeypatch.setattr(ranges, "TEXT_SNIFF_BYTES", 64)


@given(text=break_mixed_texts(), encoding=encodings(), into=st.integers(min_value=0, max_value=8))
def test_a_streamed_pass_counts_the_lines_and_hashes_the_bytes_as_a_whole_read_does(
    tmp_path: Path, small_chunks: None, text: str, encoding: Encoding, into: int
) -> None:
    unit = len("\n".encode(encoding.codec))
    # The first chunk ends ``into`` characters into ``text``: "\r\r\n" and the like fall across it.
    full = "x" * (ranges.FIRST_CHUNK // unit - into) + text
    data = encoding.encode(full)
    path = tmp_path / "streamed.txt"
    path.write_bytes(data)
    lines = split_lines(full)
    with open(path, "rb") as file:
        lay = ranges.layout(file.fileno(), len(data), path)
        found = ranges.survey(lay, hashed=True).fingerprint
        tails = [_all_from(lay, ranges.tail_offset(lay, count)) for count in range(1, len(lines) + 1)]
        starts = [ranges.line_offset(lay, line) for line in range(1, len(lines) + 1)]
        heads = [_all_from(lay, start) if start is not None else None for start in starts]
    assert found is not None
    assert (found.content_hash, found.line_count) == (content_hash(data), decode(data).line_count)
    assert tails == ["".join(lines[-count:]) for count in range(1, len(lines) + 1)]
    assert heads == ["".join(lines[line:]) for line in range(len(lines))]


def test_the_streamed_hash_of_a_utf16_file_ending_in_half_a_character_is_the_whole_file_hash(tmp_path: Path) -> None:
    data = b"\xff\xfe" + "zeile 1\nzeile 2\n".encode("utf-16-le") + b"A"
    path = tmp_path / "odd.txt"
    path.write_bytes(data)
    with open(path, "rb") as file:
        found = ranges.survey(ranges.layout(file.fileno(), len(data), path), hashed=True).fingerprint
    assert found is not None
    assert found.content_hash == content_hash(data)


def _all_from(lay: ranges.Layout, offset: int) -> str:
    return "".join(ranges.texts(lay, offset))


def test_reading_on_far_into_a_long_line_leaves_the_skipped_text_to_plain_searches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scanned: list[int] = []
    pattern = LINE_BREAK

    class Spy:
        def search(self, text: str, pos: int, limit: int) -> re.Match[str] | None:
            scanned.append(limit - pos)
            return pattern.search(text, pos, limit)

    monkeypatch.setattr(ranges, "LINE_BREAK", Spy())
    line = "".join(chr(ord("a") + i % 26) for i in range(100_000))
    taken = excerpt([line[:60_000], line[60_000:] + "\nnext\n"], max_lines=1, budget=100, skip_columns=99_990)
    assert taken.content == line[99_990:] + "\n"
    assert sum(scanned) <= 200
