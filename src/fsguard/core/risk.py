"""How much an edit changes a file, and the guards that stop accidental rewrites, truncations and inflations.

- :func:`assess_risk` grades an edit LOW to CRITICAL from the share of the file it changes and how many places it
  touches; ``voice.notes.risk_note`` turns that into one calm, informational line for the tool result.
- :func:`check_integrity` looks at the bytes written after a large change: empty or tiny files are flagged.
- :func:`rewrite_guard` refuses an ``edit_file`` replacement that looks like a whole file pasted over its head.
- :func:`write_guard` flags a ``write_file`` that shrinks a file below half or blows it up past three times.

The refusal of :func:`rewrite_guard` is worded here, where it is raised; the notes of a result that went
through are worded in :mod:`fsguard.voice.notes`.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

CRITICAL_PCT = 90.0
NOTE_VERIFY_PCT = 40.0
"""From this share of the file on, the note calls the edit large and suggests reading the file's end back."""
NOTE_VERY_LARGE_PCT = 80.0
"""From this share of the file on, the note calls the edit very large."""
SMALL_FILE_LINES = 10
SMALL_FILE_CHARS = 200
"""An edit of fewer characters than this in a file of fewer lines than that is noted as an edit on a small file, not
by its share: five bytes of a two-line file are 40 % of it, and no large edit."""

INTEGRITY_EMPTY_PCT = 30.0
INTEGRITY_SMALL_PCT = 50.0
INTEGRITY_SMALL_BYTES = 100

REWRITE_MIN_FILE = 1024
REWRITE_MIN_NEW = 500
INFLATION_MIN_EXISTING = 10 * 1024
INFLATION_FACTOR = 3


class RiskLevel(StrEnum):
    """How much of a file an edit touches, from LOW to CRITICAL."""

    LOW = "LOW"
    MEDIUM = "MEDIUM"
    HIGH = "HIGH"
    CRITICAL = "CRITICAL"


# StrEnum members compare as strings ("HIGH" < "LOW"), so severity needs its own order.
_SEVERITY = (RiskLevel.LOW, RiskLevel.MEDIUM, RiskLevel.HIGH, RiskLevel.CRITICAL)


@dataclass(frozen=True)
class RiskPolicy:
    """Thresholds of :func:`assess_risk`; CRITICAL is fixed at :data:`CRITICAL_PCT`."""

    medium_pct: float = 20.0
    high_pct: float = 75.0
    occurrences_medium: int = 50
    occurrences_high: int = 100


@dataclass(frozen=True)
class RiskAssessment:
    """The grade of one edit and the facts behind it."""

    level: RiskLevel
    change_pct: float
    chars_changed: int
    occurrences: int
    factors: tuple[str, ...]


def assess_risk(
    policy: RiskPolicy, *, file_chars: int, chars_changed: int, occurrences: int, deletes: bool = False
) -> RiskAssessment:
    """Grade an edit by the share of the file it changes and the number of places it changes.

    Args:
        policy: The thresholds.
        file_chars: Characters in the file before the edit.
        chars_changed: Characters the edit removes or rewrites.
        occurrences: Places the edit changes (replacements made).
        deletes: Whether the edit removes text; listed as a factor, it does not raise the level.

    Returns:
        The level: LOW below ``medium_pct``, MEDIUM from it, HIGH from ``high_pct``, CRITICAL from 90 %; at least
        MEDIUM from ``occurrences_medium`` occurrences and at least HIGH from ``occurrences_high``. The percentage
        is clamped to 0..100, and is 100 for any change to an empty file.
    """
    if file_chars > 0:
        pct = min(max(chars_changed / file_chars * 100.0, 0.0), 100.0)
    else:
        pct = 100.0 if chars_changed > 0 else 0.0
    if pct >= CRITICAL_PCT:
        level = RiskLevel.CRITICAL
    elif pct >= policy.high_pct:
        level = RiskLevel.HIGH
    elif pct >= policy.medium_pct:
        level = RiskLevel.MEDIUM
    else:
        level = RiskLevel.LOW
    if occurrences >= policy.occurrences_high:
        level = _at_least(level, RiskLevel.HIGH)
    elif occurrences >= policy.occurrences_medium:
        level = _at_least(level, RiskLevel.MEDIUM)

    factors: list[str] = []
    if pct >= policy.medium_pct:
        factors.append(f"{pct:.0f}% of the file changes")
    if occurrences >= policy.occurrences_medium:
        factors.append(f"{occurrences:,} occurrences")
    if deletes:
        factors.append("deletes text")
    return RiskAssessment(level, pct, chars_changed, occurrences, tuple(factors))


@dataclass(frozen=True)
class Integrity:
    """A sanity check of the bytes written after an edit."""

    status: Literal["OK", "WARNING", "ERROR"]
    crc32: str
    lines: int
    size: int
    change_pct: float  # of the edit checked, clamped to 0..100


def check_integrity(data: bytes, *, lines: int, change_pct: float) -> Integrity:
    """Flag a file that came out empty or tiny after a large change.

    Args:
        data: The file's bytes after the edit.
        lines: Its line count, reported back as is.
        change_pct: The share of the file the edit changed.

    Returns:
        ERROR when the file is empty after a change above 30 %, WARNING when it is under 100 bytes after a change
        above 50 %, else OK. ``crc32`` is always 8 lowercase hex digits, zero padded.
    """
    size = len(data)
    crc = f"{zlib.crc32(data):08x}"
    pct = min(max(change_pct, 0.0), 100.0)
    if size == 0 and pct > INTEGRITY_EMPTY_PCT:
        return Integrity("ERROR", crc, lines, size, pct)
    if size < INTEGRITY_SMALL_BYTES and pct > INTEGRITY_SMALL_PCT:
        return Integrity("WARNING", crc, lines, size, pct)
    return Integrity("OK", crc, lines, size, pct)


def rewrite_guard(*, file_size: int, old_len: int, new_len: int) -> str | None:
    """Refuse an ``edit_file`` replacement that looks like a whole file written over a small block.

    Args:
        file_size: Size of the file being edited.
        old_len: Length of ``old_text``, the block being replaced.
        new_len: Length of ``new_text``.

    Returns:
        None when the edit is allowed, else the refusal for the model. It is refused when all hold: the file has
        at least 1 KiB, ``new_text`` is at least twice ``old_text``, at least 500 long and at least half the file,
        and at least half the file lies outside ``old_text`` (and would stay).
    """
    if not (
        file_size >= REWRITE_MIN_FILE
        and new_len >= 2 * old_len
        and new_len >= REWRITE_MIN_NEW
        and new_len >= file_size / 2
        and file_size - old_len >= file_size / 2
    ):
        return None
    old_pct, new_pct = old_len / file_size * 100, new_len / file_size * 100
    rest = file_size - old_len
    return (
        "edit_file blocked: looks like an accidental full-file rewrite. "
        f"old_text is {old_len:,} characters ({old_pct:.0f}% of the {file_size:,}-character file) but new_text is "
        f"{new_len:,} characters ({new_pct:.0f}% of the file). edit_file only swaps the matched block, so the rest "
        f"of the file (~{rest:,} characters) would remain around new_text, usually below it, duplicating much of it. "
        "To replace the whole file, use write_file; if you really mean to swap just this block, "
        "call edit_file again with allow_rewrite=true."
    )


@dataclass(frozen=True)
class WriteGuard:
    """Why a whole-file write looks accidental."""

    kind: Literal["truncation", "inflation"]
    existing_size: int
    new_size: int

    @property
    def message(self) -> str:
        """The guard with both sizes, in the seed's words, which its callers match on (analyze_operation lists it
        as a risk factor)."""
        new, existing = self.new_size, self.existing_size
        if self.kind == "truncation":
            return (
                f"new content ({new} B) is less than 50% of existing file ({existing} B). "
                "Looks like accidental truncation."
            )
        return (
            f"new content ({new} B) is {new / existing:.1f}x the existing file ({existing} B). Looks like an inflation "
            "loop (content = read + append repeated), e.g. content pasted twice."
        )


def write_guard(*, existing_size: int, new_size: int) -> WriteGuard | None:
    """Flag a ``write_file`` that would shrink a file below half or grow a large one past three times.

    Args:
        existing_size: Bytes in the file now; 0 for a new or empty file.
        new_size: Bytes about to be written.

    Returns:
        ``truncation`` when an existing non-empty file would drop below half its size (empty content included),
        ``inflation`` when a file over 10 KiB would grow past three times its size, else None.
    """
    if existing_size > 0 and new_size < existing_size / 2:
        return WriteGuard("truncation", existing_size, new_size)
    if existing_size > INFLATION_MIN_EXISTING and new_size > INFLATION_FACTOR * existing_size:
        return WriteGuard("inflation", existing_size, new_size)
    return None


def _at_least(level: RiskLevel, floor: RiskLevel) -> RiskLevel:
    return max(level, floor, key=_SEVERITY.index)


# The seed's scales for changes across files: (files, amount) from which a change is CRITICAL, HIGH, MEDIUM.
Scale = tuple[tuple[int, int | None, RiskLevel], ...]
FILES_SCALE: Scale = ((80, None, RiskLevel.CRITICAL), (50, None, RiskLevel.HIGH), (30, None, RiskLevel.MEDIUM))
EDIT_SCALE: Scale = ((80, 1000, RiskLevel.CRITICAL), (50, 500, RiskLevel.HIGH), (30, 100, RiskLevel.MEDIUM))
"""Files changed and occurrences replaced: a project_replace, a pipeline's edit step."""
MULTI_EDIT_SCALE: Scale = ((80, 100, RiskLevel.CRITICAL), (50, 50, RiskLevel.HIGH), (30, 20, RiskLevel.MEDIUM))
PIPELINE_SCALE: Scale = ((80, 1000, RiskLevel.CRITICAL), (50, 500, RiskLevel.HIGH), (30, 100, RiskLevel.MEDIUM))
"""The whole pipeline's risk: files affected and total edits (never lower than its riskiest step)."""


def graded(scale: Scale, files: int, amount: int = 0) -> RiskLevel:
    """The level ``files`` files and ``amount`` edits reach on ``scale``."""
    for min_files, min_amount, level in scale:
        if files >= min_files or (min_amount is not None and amount >= min_amount):
            return level
    return RiskLevel.LOW
