"""Which lines of a file a read returns: a range (start_line/end_line, start_column) or a window (max_lines with a
mode), never both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from fsguard.core.errors import InvalidParamsError

ReadMode = Literal["all", "head", "tail"]


@dataclass(frozen=True)
class LineSelection:
    """Which lines of a file to return; all fields optional, validated by :meth:`check`."""

    start_line: int | None = None
    end_line: int | None = None
    max_lines: int | None = None
    mode: ReadMode = "all"
    start_column: int | None = None

    @property
    def is_range(self) -> bool:
        return self.start_line is not None or self.end_line is not None or self.start_column is not None

    @property
    def is_window(self) -> bool:
        return bool(self.max_lines) or self.mode != "all"

    def check(self) -> None:
        """Refuse contradictory selections instead of guessing which one was meant."""
        if self.is_range and self.is_window:
            raise InvalidParamsError(
                "start_line/end_line and max_lines/mode both select lines. "
                "Pass a range, or max_lines with mode, not both."
            )
        if self.start_line is not None and self.end_line is not None and self.end_line < self.start_line:
            raise InvalidParamsError(
                f"end_line ({self.end_line}) must be >= start_line ({self.start_line}).",
                start_line=self.start_line,
                end_line=self.end_line,
            )
