"""Sizes and counts for people."""

from __future__ import annotations


def human_size(size: int) -> str:
    """1234 → '1.2 KB'."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def counted(number: int, noun: str, plural: str | None = None) -> str:
    """3 → '3 files', 1 → '1 file': never 'file(s)', never '1 files'."""
    return f"{number:,} {noun if number == 1 else plural or noun + 's'}"
