"""The notes a successful mutation carries in its result: risk, integrity, write guards and concurrency.

The core decides (a risk level, an integrity status, a guard, an OCC verdict) and hands over the facts;
the sentences the model reads are written here, in one place, like every other success-side text.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from fsguard.core.occ import OccVerdict, stale_read_head
from fsguard.core.risk import (
    NOTE_VERIFY_PCT,
    NOTE_VERY_LARGE_PCT,
    SMALL_FILE_CHARS,
    SMALL_FILE_LINES,
    Integrity,
    RiskAssessment,
    RiskLevel,
    WriteGuard,
)
from fsguard.core.shortlist import shortlist
from fsguard.voice.paths import shown
from fsguard.voice.sizes import counted

ENDINGS_KEPT = (
    "Edits keep the line ending of each line they touch, so a replacement that changes only line breaks changes "
    "nothing."
)


def risk_note(assessment: RiskAssessment, *, path: str, backup_id: str | None, lines: int) -> str | None:
    """One informational line about a larger edit, or None for a LOW one.

    ``note: edit (~N bytes affected, K replacements, P% of file).``, then ``backup:<id>`` when a backup exists,
    then from 40 % (of a change that was written) a hint to read the file's end back. The first words scale with
    the share, as the seed's did: "edit", from 40 % "large edit", from 80 % "very large edit". A few characters of a
    file of ``lines`` < 10 lines are ``note: edit on small file (L lines, ~N bytes affected, K replacements).``, with
    no hint (catalog §2.5). Never alarming: no "RISK", no symbols.
    """
    if assessment.level is RiskLevel.LOW:
        return None
    pct = min(max(assessment.change_pct, 0.0), 100.0)
    small = lines < SMALL_FILE_LINES and assessment.chars_changed < SMALL_FILE_CHARS
    facts = [counted(lines, "line")] if small else []
    facts.append(f"~{assessment.chars_changed:,} bytes affected")
    if assessment.occurrences > 0:
        noun = "replacement" if assessment.occurrences == 1 else "replacements"
        facts.append(f"{assessment.occurrences:,} {noun}")
    if not small:
        facts.append(f"{pct:.0f}% of file")
    note = f"note: {'edit on small file' if small else _magnitude(pct)} ({', '.join(facts)})."
    if backup_id:
        note += f" backup:{backup_id}"
    if backup_id and pct >= NOTE_VERIFY_PCT and not small:  # no backup: a dry run, nothing written to read back
        note += f' — verify with read_file({json.dumps(path, ensure_ascii=False)}, mode="tail") if needed'
    return note


def _magnitude(pct: float) -> str:
    if pct >= NOTE_VERY_LARGE_PCT:
        return "very large edit"
    if pct >= NOTE_VERIFY_PCT:
        return "large edit"
    return "edit"


def integrity_problem(check: Integrity) -> str:
    """What looks wrong with the bytes written, or "" when nothing does."""
    if check.status == "ERROR":
        return f"file is empty after a {check.change_pct:.0f}% change — verify its content"
    if check.status == "WARNING":
        unit = "byte" if check.size == 1 else "bytes"
        return f"file is only {check.size} {unit} after a {check.change_pct:.0f}% change — verify its content"
    return ""


def integrity_detail(check: Integrity | None) -> str | None:
    """CRC-32, lines and bytes of the read-back check, and the problem if there is one."""
    if check is None:
        return None
    facts = f"crc32 {check.crc32}, {counted(check.lines, 'line')}, {counted(check.size, 'byte')}"
    problem = integrity_problem(check)
    return f"{facts}; {problem}" if problem else facts


def write_guard_feedback(guard: WriteGuard, backup_id: str) -> str:
    """Why the write went through anyway, in the seed's order (catalog §4: the backup, how to restore it, then the
    guard's note): the restore names this backup, so a later edit of the file does not change what it undoes."""
    return f"{guard_undo(backup_id)}{guard.message} Written anyway because the previous version was backed up first."


def guard_undo(backup_id: str) -> str:
    """The backup and restore a guarded write's feedback opens with; the text block leaves it out, as its own undo
    line names the same backup."""
    return f'Backup created: {backup_id}. To undo: backup(action="restore", backup_id="{backup_id}"). '


def external_change_note(verdict: OccVerdict) -> str | None:
    """The file changed on disk since this session saw it, with both hashes; None when it did not."""
    if verdict.known_hash is None:
        return None
    return (
        f"file changed on disk since this session last saw it (known hash {verdict.known_hash}, on-disk "
        f"{verdict.current_hash}) — another process may have modified it: {verdict.path}."
    )


def external_changes_note(verdicts: Sequence[OccVerdict]) -> str | None:
    """:func:`external_change_note` of one file; of several, how many and which; None when none changed."""
    if len(verdicts) <= 1:
        return external_change_note(verdicts[0]) if verdicts else None
    return (
        f"{len(verdicts)} files changed on disk since this session last saw them — another process may have "
        f"modified them: {shortlist(str(v.path) for v in verdicts)}."
    )


def changed_on_disk_line(paths: Sequence[str]) -> str:
    """The line a many-file result's text adds for the files another process changed since this session saw them
    (their ``external_change`` says more); empty when there are none."""
    if not paths:
        return ""
    return f"Changed on disk since this session last saw them (another process): {shortlist(map(shown, paths))}."


def stale_read_note(verdict: OccVerdict) -> str | None:
    """The one-time hint for a file this session has not read lately; None otherwise."""
    if not verdict.stale_read:
        return None
    return (
        f"{stale_read_head(verdict.path)}: read it (or pass expected_hash) so edits are checked against what you saw."
    )


def compact_check(verified: bool) -> str:
    """Compact's word for a failed read-back of a write or restore; a verified one says nothing, as the line is short
    on purpose."""
    return "" if verified else " | NOT VERIFIED: re-read before another write"
