"""Tree walks on an explicit stack instead of Python's: a directory 2,000 levels deep inside a root made every
recursive walk (search, project_replace, copy, trash, analyze) die with RecursionError past 1,000 frames.

A walk is written as one generator per directory that yields its items and, for a subdirectory, a :class:`Below`
holding that directory's generator; :func:`flattened` runs them depth first in the order written, each level
suspended where it yielded (inside its ``with`` blocks, so a directory's fd stays open while its children run).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Below(Generic[T]):
    """A nested level: what it yields comes in place of this marker."""

    level: Generator[T | Below[T], None, None]


def flattened(top: Generator[T | Below[T], None, None]) -> Iterator[T]:
    """The items of ``top`` and of every level below it, depth first, in the order they are yielded."""
    stack = [top]
    try:
        while stack:
            try:
                item = next(stack[-1])
            except StopIteration:
                stack.pop()
                continue
            if isinstance(item, Below):
                stack.append(item.level)
            else:
                yield item
    finally:
        for level in reversed(stack):  # stopped early: each level's with blocks close, deepest first
            level.close()


def run_through(top: Generator[Below[None] | None, None, None]) -> None:
    """Run a walk that is done for what it does, not what it yields."""
    for _ in flattened(top):
        pass
