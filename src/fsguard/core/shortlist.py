"""Long lists in messages, cut to about ten items with the total and where the rest is.

Every text the model reads (an error, a note, a result's text block) lists at most :data:`SHOWN` items of a
list that can grow with the tree or the file (ambiguous lines, skipped files, conflicts): the rest is a count
and the way to see it, while the structured result keeps the whole list. One function, so every list reads
the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")

SHOWN = 10
SLACK = 5  # lists of up to SHOWN + SLACK known items are shown whole


def shortlist(items: Iterable[object], *, total: int | None = None, rest: str = "", shown: int = SHOWN) -> str:
    """``a, b, c`` or ``a, …, j and 32 more (rest)``; ``total`` counts items known but not passed.

    ``rest`` says how to see the others (e.g. ``"all in the result's lines field"``); it is shown only when
    something was left out.
    """
    listed = [str(item) for item in items]
    count = max(total if total is not None else len(listed), len(listed))
    if count <= shown + SLACK and len(listed) == count:
        shown = count  # "and 3 more (how to see them)" would cost more than the three
    head = ", ".join(listed[:shown])
    hidden = count - min(len(listed), shown)
    if hidden <= 0:
        return head
    more = f" and {hidden} more" if head else f"{hidden}"
    return head + more + (f" ({rest})" if rest else "")


def first_few(items: Sequence[T]) -> list[T]:
    """What a message lists of ``items``: all of a short list, the first :data:`SHOWN` of a long one (its caller
    counts the others)."""
    return list(items) if len(items) <= SHOWN + SLACK else list(items[:SHOWN])


def problem_rows(problems: Sequence[str], *, field: str, bullet: str = "-") -> list[str]:
    """An error's problems, a row each, as :func:`shown_rows` cuts them; the error's ``field`` holds every one."""
    rows = [f"{bullet} {problem}" for problem in problems]
    return shown_rows(rows, failed=[True] * len(rows), rest=f"every one in the error's {field} field")


def shown_rows(rows: Sequence[str], *, failed: Sequence[bool], rest: str, flagged: str = "failed") -> list[str]:
    """Every row of a short list; of a long one, :data:`SHOWN` rows, failed ones first, kept in their order,
    and a last row counting the others (and how many of them failed) and saying where they are.

    For answers with a row per item asked for (operations, paths): a batch of thousands is summed up, not
    listed, and the rows that need the caller's attention are the ones shown. ``flagged`` says what the rows
    marked in ``failed`` are, when it is not a failure.
    """
    if len(rows) <= SHOWN + SLACK:
        return list(rows)
    bad = [index for index, flag in enumerate(failed) if flag]
    picked = set(bad[:SHOWN])
    fine = (index for index in range(len(rows)) if index not in picked)
    while len(picked) < SHOWN:
        picked.add(next(fine))
    hidden = len(rows) - len(picked)
    hidden_bad = len(bad) - len(picked.intersection(bad))
    failures = f", {hidden_bad:,} of them {flagged}" if hidden_bad else ""
    return [rows[index] for index in sorted(picked)] + [f"… and {hidden:,} more{failures} ({rest})"]
