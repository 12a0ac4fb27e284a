"""The places an exact old_text is found at, held compactly.

Two spaces of indentation match millions of times in a big file: a ``(start, end, replacement)`` tuple per place
took about 120 bytes each (+279 MiB for a 5.6 MB file) before the edit could even say it was ambiguous. The places
of one exact find share their replacement, so their offsets go in two machine-integer arrays instead (16 bytes a
place), and a place becomes a tuple only when it is looked at.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Sequence
from typing import overload

Span = tuple[int, int, str]  # start, end, replacement before line-ending adaptation


class Places(Sequence[Span]):
    """Spans that all have ``replacement``, in the order found."""

    def __init__(self, replacement: str, starts: array[int], ends: array[int]) -> None:
        """``starts`` and ``ends`` (typecode ``q``) pair up: place ``i`` is ``text[starts[i]:ends[i]]``."""
        self._replacement = replacement
        self._starts = starts
        self._ends = ends

    def __len__(self) -> int:
        return len(self._starts)

    @overload
    def __getitem__(self, index: int) -> Span: ...

    @overload
    def __getitem__(self, index: slice) -> list[Span]: ...

    def __getitem__(self, index: int | slice) -> Span | list[Span]:
        if isinstance(index, slice):
            return [
                (start, end, self._replacement)
                for start, end in zip(self._starts[index], self._ends[index], strict=True)
            ]
        return self._starts[index], self._ends[index], self._replacement

    def __iter__(self) -> Iterator[Span]:
        replacement = self._replacement
        return ((start, end, replacement) for start, end in zip(self._starts, self._ends, strict=True))
