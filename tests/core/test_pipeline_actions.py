"""The pipeline's shortened content: how many lines it hides, in words that agree with the count."""

from __future__ import annotations

from fsguard.core.pipeline_actions import SHORT_HEAD, SHORT_TAIL, shown


def test_one_hidden_line_is_named_in_the_singular_and_more_in_the_plural() -> None:
    one = "\n".join(str(n) for n in range(SHORT_HEAD + SHORT_TAIL + 1))
    assert "[… 1 line not shown; pass verbose=true to see every line …]" in shown(one, verbose=False)
    three = "\n".join(str(n) for n in range(SHORT_HEAD + SHORT_TAIL + 3))
    assert "[… 3 lines not shown;" in shown(three, verbose=False)
    assert shown(three, verbose=True) == three
