"""The size of a change analyze_operation rates: what lies between the common start and end of the two texts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.analysis import _span


def span_char_by_char(before: str, after: str) -> int:
    limit = min(len(before), len(after))
    start = 0
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return max(len(before), len(after)) - start - end


@given(
    before=st.text(alphabet="ab\n", max_size=40),
    after=st.text(alphabet="ab\n", max_size=40),
    repeat=st.sampled_from([1, 20_000]),
)
def test_the_changed_span_is_what_lies_between_the_texts_common_start_and_end(
    before: str, after: str, repeat: int
) -> None:
    # Repeated past the comparison's chunk, the common ends span several chunks.
    shared = "x" * repeat
    assert _span(shared + before + shared, shared + after + shared) == span_char_by_char(before, after)
    assert _span(before, after) == span_char_by_char(before, after)
