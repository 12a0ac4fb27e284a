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

    @property
    def named(self) -> str:
        """The parameters passed that select lines, named for a refusal to drop them ("start_column", "max_lines
        and mode"): a refusal naming start_line/end_line left a caller who passed start_column guessing."""
        return " and ".join(name for name in (*self._ranged(), *self._windowed()))

    def _ranged(self) -> list[str]:
        given = {"start_line": self.start_line, "end_line": self.end_line, "start_column": self.start_column}
        return [name for name, value in given.items() if value is not None]

    def _windowed(self) -> list[str]:
        return [name for name, given in (("max_lines", bool(self.max_lines)), ("mode", self.mode != "all")) if given]

    def check(self) -> None:
        """Refuse contradictory selections instead of guessing which one was meant."""
        if self.is_range and self.is_window:
            # The parameters passed, named: start_column with mode=tail was told of start_line/end_line.
            range_, window = " and ".join(self._ranged()), " and ".join(self._windowed())
            raise InvalidParamsError(
                f"{range_} and {window} both select lines, as a range and as a window. Pass start_line, end_line "
                "and start_column, or max_lines with mode, not both."
            )
        if self.start_line is not None and self.end_line is not None and self.end_line < self.start_line:
            raise InvalidParamsError(
                f"end_line ({self.end_line}) must be >= start_line ({self.start_line}).",
                start_line=self.start_line,
                end_line=self.end_line,
            )
