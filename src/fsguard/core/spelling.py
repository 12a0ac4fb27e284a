"""Names close to a misspelt one: a parameter or tool name (:func:`closest`), a file name (:func:`near_names`).

Agents mistype names the way people do: a letter dropped, doubled or swapped, the wrong case, the wrong extension
(``config.yml`` for ``config.yaml``, ``main.js`` for ``main.ts``). Naming the likely one in the refusal saves the
call that would look for it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

NEAR_LIMIT = 3  # names offered for one that does not exist
_SHORTEST_FUZZY = 4  # a stem shorter than this is matched only by case: "a.py" is no typo of "b.py", "app" of "api"
_SHORTEST_STEM = 3  # for a match on everything but the extension
# What a name copied from elsewhere carries around it: an @-mention (Claude Code, Cursor), angle brackets (Markdown
# autolinks), a line and column (compilers, grep, fsguard's own search lines: "a.py:12:5"), a GitHub anchor ("#L12").
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # where camelCase starts a word: startLine -> start_Line
_DECORATED = re.compile(r"@?<?(?P<name>.+?)>?(?::\d+(?::\d+)?:?|#L\d+(?:-L?\d+)?)?")


def closest(name: str, candidates: list[str], max_distance: int = 2) -> str | None:
    """The candidate within ``max_distance`` edits of ``name`` (case-insensitive), nearest first.

    A candidate whose length differs by more than ``max_distance`` is never within it, and is not scored: the name
    is the caller's (a tool or parameter name), and scoring 50,000 characters against each tool took seconds."""
    folded = name.lower()
    scored = sorted(
        (edit_distance(folded, other, swaps=True), c)  # paht is one slip from path, not two
        for c in candidates
        if abs(len(other := c.lower()) - len(folded)) <= max_distance
    )
    if scored and scored[0][0] <= max_distance:
        return scored[0][1]
    return None


def meant_name(name: str, candidates: list[str], aliases: dict[str, str] | None = None) -> str | None:
    """The candidate a mistyped parameter or field ``name`` most likely stands for, tried in turn: its snake_case
    spelling (``startLine``, ``oldString`` as camelCase clients send them), directly or through one of ``aliases``
    (taken names mapped to the candidate they stand for); the longest candidate it is a word of
    (``destination_path``, ``write_file``, ``is_recursive``); the only one it begins (``del``); the :func:`closest`
    candidate (within one edit of a name shorter than five letters, two of a longer one), or alias of five letters or
    more (two edits turn a shorter one into anything: ``text`` is not ``dest``).
    """
    aliases = aliases or {}
    snake = _CAMEL_HUMP.sub("_", name).lower()
    for spelled in (snake, name.lower()):
        if spelled in candidates:
            return spelled
        if aliases.get(spelled) in candidates:
            return aliases[spelled]
    worded = [c for c in candidates if len(c) >= 3 and (snake.startswith(c + "_") or snake.endswith("_" + c))]
    if worded:
        return max(worded, key=len)
    begun = [c for c in candidates if len(snake) >= 3 and c.startswith(snake)]
    if len(begun) == 1:
        return begun[0]
    spelled_alike = [*candidates, *(a for a, meant in aliases.items() if meant in candidates and len(a) >= 5)]
    # Two edits turn a short name into another word (page, path; repo, rev): one, below five letters.
    reach = 2 if len(name) >= 5 else 1
    near = closest(name, spelled_alike, reach) or closest(snake, candidates, reach)
    return aliases.get(near, near) if near is not None else None


def edit_distance(a: str, b: str, *, swaps: bool = False) -> int:
    """Levenshtein distance between ``a`` and ``b``; with ``swaps`` two neighbours swapped count as one edit
    (the optimal string alignment distance), the typo a fast typist makes most."""
    return _capped_distance(a, b, max(len(a), len(b)), swaps)


def within_edits(a: str, b: str, limit: int, *, swaps: bool = False) -> int | None:
    """:func:`edit_distance` of ``a`` and ``b`` when it is at most ``limit``, else None.

    Only the cells within ``limit`` of the diagonal are worked out (any other is further than that), and it stops
    at the second row in a row whose every cell is past ``limit``: a file name that matched nothing is held against
    tens of thousands, and nearly all of them are far off within a few letters.
    """
    if abs(len(a) - len(b)) > limit:
        return None
    distance = _capped_distance(a, b, limit, swaps)
    return distance if distance <= limit else None


def _capped_distance(a: str, b: str, limit: int, swaps: bool) -> int:
    """The edit distance of ``a`` and ``b``, or ``limit + 1`` when it is more: each cell is capped there, so a cell
    off the band around the diagonal (further than ``limit``) is never worked out."""
    past = limit + 1
    before: list[int] = []
    previous = [min(j, past) for j in range(len(b) + 1)]
    previous_least = 0
    for i, char_a in enumerate(a, 1):
        current = [min(i, past)] + [past] * len(b)
        least = current[0]
        for j in range(max(1, i - limit), min(len(b), i + limit) + 1):
            char_b = b[j - 1]
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (char_a != char_b))
            if swaps and i > 1 and j > 1 and char_a == b[j - 2] and a[i - 2] == char_b:
                best = min(best, before[j - 2] + 1)
            current[j] = best = min(best, past)
            least = min(least, best)
        # A swap reaches back two rows, so one row past the limit is not yet proof.
        if least > limit and previous_least > limit:
            return past
        before, previous, previous_least = previous, current, least
    return previous[-1]


def near_names(name: str, names: Iterable[str], limit: int = NEAR_LIMIT) -> list[str]:
    """Up to ``limit`` of ``names`` that ``name`` is likely a misspelling of, likeliest first: the name without what
    was copied around it (``@a.py``, ``a.py:12``, ``a.py#L12``), the same name in another case, one within an edit
    or two (by the length of its stem, the part before its extensions), then one differing only in its extension."""
    folded = name.casefold()
    stem = _stem(folded)
    allowed = 0 if len(stem) < _SHORTEST_FUZZY else 1 if len(stem) < 8 else 2  # typos, by the stem's length
    likeness = functools.partial(_likeness, folded, undecorated(name), stem, allowed)
    scored = sorted((rank, candidate) for candidate in names if (rank := likeness(candidate)) is not None)
    return [candidate for _, candidate in scored[:limit]]


def _likeness(folded: str, bare: str | None, stem: str, allowed: int, candidate: str) -> tuple[int, int] | None:
    """How likely ``candidate`` is what a name meant (``folded`` in case, ``bare`` of decorations, ``stem`` its name
    without extensions, ``allowed`` the typos it may hold), lowest first; None when it is not likely at all."""
    other = candidate.casefold()
    if candidate == bare:
        return (0, 0)
    if other == folded:
        return (1, 0)
    if allowed and (distance := within_edits(folded, other, allowed, swaps=True)) is not None:
        return (2, distance)
    if len(stem) >= _SHORTEST_STEM and _stem(other) == stem:
        return (3, 0)
    return None


def undecorated(name: str) -> str | None:
    """``name`` without an @-mention, angle brackets, a line and column or a line anchor; None when it has none."""
    match = _DECORATED.fullmatch(name)
    bare = match.group("name") if match else name
    return bare if bare != name else None


def _stem(name: str) -> str:
    """A name without its extensions; a dotfile's leading dot starts no extension (``.gitignore``)."""
    return name[0] + name[1:].split(".", 1)[0] if name else name
