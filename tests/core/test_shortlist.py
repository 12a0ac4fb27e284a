"""Long lists in messages: ten items, the count and where the rest is; short ones whole."""

from __future__ import annotations

from fsguard.core.shortlist import first_few, shortlist, shown_rows
from fsguard.models.batch import BatchResult, OperationResult
from fsguard.voice.batch_request import operations_text


def test_a_long_list_shows_ten_the_count_and_where_the_rest_is() -> None:
    assert shortlist(range(1, 112), rest="search_files shows every one") == (
        "1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 101 more (search_files shows every one)"
    )


def test_a_list_a_little_over_ten_is_shown_whole_as_it_is_shorter_than_the_count() -> None:
    assert shortlist(range(12), rest="never shown") == "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11"


def test_a_total_beyond_the_items_passed_is_counted() -> None:
    assert shortlist(["a", "b"], total=5) == "a, b and 3 more"
    assert shortlist([], total=4) == "4"


def test_a_long_list_of_rows_shows_ten_failed_ones_first_and_counts_the_rest() -> None:
    rows = [f"row {number}" for number in range(100)]
    failed = [number in (50, 70) for number in range(100)]
    assert shown_rows(rows, failed=failed, rest="all in the result") == [
        *(f"row {number}" for number in range(8)),
        "row 50",
        "row 70",
        "… and 90 more (all in the result)",
    ]


def test_the_rows_left_out_say_how_many_of_them_failed() -> None:
    rows = [f"row {number}" for number in range(30)]
    assert (
        shown_rows(rows, failed=[True] * 30, rest="see errors")[-1] == "… and 20 more, 20 of them failed (see errors)"
    )


def test_a_list_of_up_to_fifteen_rows_is_shown_whole() -> None:
    rows = [f"row {number}" for number in range(15)]
    assert shown_rows(rows, failed=[False] * 15, rest="never shown") == rows


def test_a_compact_batch_of_thousands_of_failures_names_ten_and_counts_the_rest() -> None:
    failed = [
        OperationResult(index=n, type="move", path=f"/r/{n}", status="failed", error_code="not_found", error="gone")
        for n in range(2000)
    ]
    result = BatchResult(form="operations", status="partial", message="", completed=0, failed=2000, operations=failed)
    text = operations_text(result, compact=True)
    assert text.startswith("PARTIAL: 0/2000 operations | failed: [0] move not_found; [1] move not_found;")
    assert text.endswith("[9] move not_found; +1,990 more in operations")


def test_a_message_lists_a_short_list_whole_and_the_first_ten_of_a_long_one() -> None:
    assert first_few(range(15)) == list(range(15))
    assert first_few(range(16)) == list(range(10))
