"""What one search answer may carry.

The seed capped a response at 500 KB after one 2.28 MB answer took some 570k tokens of a model's context. The cap
holds for each form of the answer a client may hand its model, the structured content and the text block alike,
counted in bytes of UTF-8 as sent: matches (their lines and context) are kept in order until the next one would
pass the budget, and the answer says it was cut and how to see the rest.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import TypeVar

from fsguard.core.search import ContentMatch

A = TypeVar("A")

SEARCH_BUDGET = 500_000  # bytes of each form of one answer: the seed's 500 KB
_FIELDS = 200  # a match's numbers and field names, as indented JSON
_SHRINK = 0.98  # a cut aims a little under the budget: the rest of the answer does not shrink with the matches


def fitting(matches: Sequence[ContentMatch], budget: int = SEARCH_BUDGET) -> int:
    """How many of ``matches``, from the first, fit in ``budget`` bytes as JSON; the first always does."""
    used = 0
    for count, match in enumerate(matches):
        used += _FIELDS + sum(map(json_size, (match.file, match.line_content)))
        used += sum(map(json_size, match.context_before)) + sum(map(json_size, match.context_after))
        if used > budget and count:
            return count
    return len(matches)


def json_size(value: object) -> int:
    """The bytes ``value`` takes as compact JSON in UTF-8, a string's quotes and escapes included."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "replace"))


def held(count: int, answer: Callable[[int], A], size: Callable[[A], int], budget: int = SEARCH_BUDGET) -> A:
    """The answer built from the most of ``count`` items, from the first, whose ``size`` is within ``budget``
    bytes; built from the first alone if even that is not. Each try measures a built answer: sizes grow with the
    items, so a few tries find it."""
    kept = count
    built = answer(kept)
    while kept > 1 and (measured := size(built)) > budget:
        kept = max(1, min(kept - 1, int(kept * budget * _SHRINK / measured)))
        built = answer(kept)
    return built
