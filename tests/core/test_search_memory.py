"""Content search with ripgrep holds about one file's lines at a time, however many files and matches it shows."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest

from fsguard.core.ignore import WalkOptions
from fsguard.core.search import ContentRequest, ContentSearch, ripgrep_path, search_content

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
