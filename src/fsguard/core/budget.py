"""What one search answer may carry.

The seed capped a response at 500 KB after one 2.28 MB answer took some 570k tokens of a model's context. The cap
holds for the whole answer, structured content included, not only its text block: matches (their lines and
context) are kept in order until the next one would pass the budget, and the answer says it was cut and how to
see the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from fsguard.core.search import ContentMatch

SEARCH_BUDGET = 500_000  # characters of matches in one answer: the seed's 500 KB
_FIELDS = 120  # a match's numbers and field names, as JSON
_WINDOW = 60  # a window's "line_content_offset" and its two marks, each escaped as \u2026 in JSON


def fitting(matches: Sequence[ContentMatch], budget: int = SEARCH_BUDGET) -> int:
    """How many of ``matches``, from the first, fit in ``budget`` characters; the first always does."""
    used = 0
    for count, match in enumerate(matches):
        used += _FIELDS + len(match.file) + len(match.line_content)
        used += _WINDOW if match.line_content_offset is not None else 0
        used += sum(map(len, match.context_before)) + sum(map(len, match.context_after))
        if used > budget and count:
            return count
    return len(matches)
