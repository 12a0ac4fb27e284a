"""Content search with ripgrep holds about one file's lines at a time, however many files and matches it shows,
and decodes no more of a line's matches than it can show."""

from __future__ import annotations

import dataclasses
import itertools
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.ignore import WalkOptions
from fsguard.core.rgprocess import first_submatches
from fsguard.core.search import ContentRequest, ContentSearch, ripgrep_path, search_content
from tests.strategies import ripgrep_outputs

LINE_BYTES = 256 * 1024


@pytest.fixture(autouse=True)
def _ripgrep() -> None:
    if ripgrep_path() is None:
        pytest.skip("ripgrep is not installed")


def peak_of(search: Callable[[], ContentSearch]) -> tuple[ContentSearch, int]:
    """The search's result and the most Python memory it held at once."""
    tracemalloc.start()
    try:
        found = search()
        return found, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_search_of_many_files_with_a_long_matching_line_holds_one_files_line_at_a_time(tmp_path: Path) -> None:
    for number in range(40):  # 10 MiB of lines in all, each file's match at the end of its one line
        (tmp_path / f"bundle{number:02}.js").write_bytes(b"x" * LINE_BYTES + b" needle\n")
    request = ContentRequest(pattern="needle", context_lines=1, engine="ripgrep")
    found, peak = peak_of(lambda: search_content(tmp_path, request, WalkOptions()))
    assert (found.total_matches, len(found.matches)) == (40, 40)
    assert {match.line_content_offset for match in found.matches} == {LINE_BYTES - 489}
    assert all(match.line_content.endswith("x needle") for match in found.matches)
    assert peak < 24 * LINE_BYTES  # the 40 lines held at once took over 50 of them


def test_a_line_matching_everywhere_decodes_only_the_matches_a_search_can_show(tmp_path: Path) -> None:
    (tmp_path / "dense.txt").write_bytes(b"ab " * (LINE_BYTES // 3) + b"\nlast ab\n")  # 87,381 matches on line 1
    request = ContentRequest(pattern="ab", max_results=5, engine="ripgrep")
    found, peak = peak_of(lambda: search_content(tmp_path / "dense.txt", request, WalkOptions()))
    assert (found.total_matches, found.truncated) == (LINE_BYTES // 3 + 1, True)
    assert [(match.line_number, match.match_start) for match in found.matches] == [(1, 3 * k) for k in range(5)]
    assert peak < 16 * LINE_BYTES  # every submatch decoded took about 100 of them


def test_lines_matching_everywhere_past_what_can_be_shown_are_read_without_their_submatches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 480 submatches a line: such lines, read for a few hundred matches and their context, took seconds to decode.
    (tmp_path / "dense.txt").write_bytes((b"m" * 480 + b"\n") * 200)
    decoded: list[int] = []
    real_loads = json.loads

    def loads(raw: str | bytes | bytearray) -> Any:
        message = real_loads(raw)
        decoded.append(len(message["data"].get("submatches", ())))
        return message

    monkeypatch.setattr(json, "loads", loads)  # as rgprocess calls it
    request = ContentRequest(pattern="m", context_lines=2, max_results=600, engine="ripgrep")
    found = search_content(tmp_path, request, WalkOptions())
    monkeypatch.undo()
    assert sum(decoded) == 600
    assert (found.total_matches, len(found.matches)) == (96_000, 600)
    python = search_content(tmp_path, dataclasses.replace(request, engine="python"), WalkOptions())
    assert found.matches == python.matches


@given(messages=ripgrep_outputs(), quotas=st.lists(st.integers(min_value=0, max_value=7), min_size=1), data=st.data())
def test_rg_messages_read_in_any_chunks_keep_the_first_submatches_asked_for_each(
    messages: list[dict[str, Any]], quotas: list[int], data: st.DataObject
) -> None:
    output = b"".join(json.dumps(m, separators=(",", ":"), ensure_ascii=False).encode() + b"\n" for m in messages)
    cuts = sorted(data.draw(st.sets(st.integers(min_value=1, max_value=max(len(output) - 1, 1)), max_size=12)))
    chunks = [output[start:end] for start, end in itertools.pairwise([0, *cuts, len(output)])]
    asked: list[int] = []

    def most() -> int:
        asked.append(quotas[len(asked) % len(quotas)])
        return asked[-1]

    lines = [json.loads(line) for line in first_submatches(iter(chunks), most)]
    expected = [
        {**m, "data": {**m["data"], "submatches": m["data"]["submatches"][:quota]}} if m["type"] == "match" else m
        for m, quota in zip(messages, asked, strict=False)
    ]
    assert lines == expected
