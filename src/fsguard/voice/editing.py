"""Voices of write_file, edit_file and multi_edit (backup: :mod:`fsguard.voice.backups`)."""

from __future__ import annotations

from fsguard.core.shortlist import shown_rows
from fsguard.models import (
    EditFileResult,
    EditOutcomeFields,
    MultiEditResult,
    WriteFileResult,
)
from fsguard.voice.notes import compact_check, guard_undo
from fsguard.voice.paths import shortened, shown
from fsguard.voice.sizes import counted


def _undo_line(path: str, backup_id: str | None, parent: str | None) -> str:
    if backup_id is None:
        return ""
    chain = f" (previous step {parent})" if parent else ""
    return f'\nUndo: backup(action="undo_last", file_path="{shown(path)}") · backup {backup_id}{chain}'


def _notes(*notes: str | None) -> str:
    return "".join(f"\n{shortened(note)}" for note in notes if note)


def _diff_block(diff: str | None, compact: bool) -> str:
    if not diff:
        return ""
    if compact:
        body = diff.split("\n", 2)[2] if diff.startswith("--- ") else diff
        return f"\n{body}"
    return f"\n\n{diff}"


def write_text(result: WriteFileResult, compact: bool) -> str:
    """A whole-file write, or an append."""
    if result.appended:
        return _append_text(result, compact)
    if result.rewritten_by_hook:
        return _rewrite_text(result, compact)
    verb = "UNCHANGED" if result.unchanged else "CREATED" if result.created else "WRITTEN"
    if compact:
        undo = f" | undo:{result.backup_id}" if result.backup_id else ""
        head = f"{verb} {shown(result.path)} | {result.bytes_written}B | hash {result.content_hash}"
        return head + compact_check(result.verified) + undo + _notes(_feedback(result), result.external_change)
    if result.unchanged:
        head = (
            f"{shown(result.path)} already holds exactly this content; nothing was written "
            f"(hash {result.content_hash})."
        )
    else:
        what = "Created" if result.created else "Wrote"
        size = f"{result.bytes_written} bytes, {result.encoding}"
        head = f"{what} {shown(result.path)} ({size}), {_check(result.verified)}, hash {result.content_hash}."
    return (
        head
        + _undo_line(result.path, result.backup_id, result.parent_backup_id)
        + _notes(_feedback(result), result.external_change)
    )


def _feedback(result: WriteFileResult) -> str | None:
    """The feedback without the restore a guarded write's opens with: the undo line (or ``undo:``) names the backup
    already, and the field keeps the seed's whole words."""
    if result.feedback is None or result.backup_id is None:
        return result.feedback
    return result.feedback.removeprefix(guard_undo(result.backup_id)) or None


def _check(verified: bool) -> str:
    """Whether the bytes read back are the bytes written; a failure opens with the seed's words, which its callers
    match on."""
    if verified:
        return "verified"
    return (
        "POST-WRITE VERIFICATION FAILED: the atomic write returned success, but the file could not be read back as "
        "written. Confirm with get_file_info/read_file before continuing; do not repeat the write blindly"
    )


def _append_text(result: WriteFileResult, compact: bool) -> str:
    added = result.bytes_appended or 0
    newline = " | line break added first (the file ended with no line break)" if result.line_break_added else ""
    if compact:
        return _compact_append(result, "APPENDED", f"+{added}B -> {result.bytes_written}B{newline} | ")
    if result.unchanged:
        head = f"Nothing to append: content is empty; {shown(result.path)} is unchanged (hash {result.content_hash})."
    else:
        what = "Created" if result.created else "Appended to"
        grown = "" if result.created else f"+{added} bytes, now "
        size = f"{grown}{result.bytes_written} bytes, {result.encoding}"
        head = f"{what} {shown(result.path)} ({size}), {_check(result.verified)}, hash {result.content_hash}."
        if result.line_break_added:
            head += " Its last line had no line break, so one was added before the text."
    return (
        head
        + _undo_line(result.path, result.backup_id, result.parent_backup_id)
        + _notes(_feedback(result), result.external_change)
    )


def _compact_append(result: WriteFileResult, changed: str, middle: str) -> str:
    """The compact line of an append (``changed``: its verb when it wrote to an existing file; ``middle``: what it
    did, before the hash)."""
    verb = "UNCHANGED" if result.unchanged else "CREATED" if result.created else changed
    undo = f" | undo:{result.backup_id}" if result.backup_id else ""
    head = f"{verb} {shown(result.path)} | {middle}hash {result.content_hash}{compact_check(result.verified)}"
    return head + undo + _notes(_feedback(result), result.external_change)


def _rewrite_text(result: WriteFileResult, compact: bool) -> str:
    """An append whose pre-write hook answered the whole file: what is on disk is the hook's text, not an append."""
    path = shown(result.path)
    if compact:
        return _compact_append(result, "REWRITTEN", f"pre-write hook's text, not appended | {result.bytes_written}B | ")
    if result.unchanged:
        head = (
            f"A pre-write hook answered what {path} holds already in place of the append; nothing was written "
            f"(hash {result.content_hash})."
        )
    else:
        what = "Created" if result.created else "Rewrote"
        size = f"{result.bytes_written} bytes, {result.encoding}"
        head = (
            f"{what} {path} with a pre-write hook's modified_content in place of the append: the hook's text is the "
            f"whole file ({size}), {_check(result.verified)}, hash {result.content_hash}. "
            "read_file shows what it holds."
        )
    return (
        head
        + _undo_line(result.path, result.backup_id, result.parent_backup_id)
        + _notes(_feedback(result), result.external_change)
    )


def _outcome_notes(result: EditOutcomeFields) -> str:
    """The notes every edit carries, whichever tool made it: one list, so a tool cannot drop one (multi_edit left
    out the integrity check edit_file gave)."""
    integrity = f"integrity {result.integrity}: {result.integrity_detail}" if result.integrity else None
    return _notes(
        result.risk_warning,
        integrity,
        result.structure_warning,
        result.external_change,
        result.feedback,
        *result.notes or (),
    )


def _hash(result: EditOutcomeFields) -> str:
    """`` | hash X``, the file's hash after a written edit, as write_file's text gives it: the next expected_hash
    without a read. A dry run's hash is of the file as it is, which its text does not claim to show."""
    return "" if result.dry_run or result.content_hash is None else f" | hash {result.content_hash}"


def _unwritten(result: EditOutcomeFields) -> bool:
    """An edit that ran and wrote nothing: its new text was the file's text already (old_text == new_text, say).
    Every written edit has a backup, so its absence tells; a hash could match across different bytes."""
    return not result.dry_run and result.backup_id is None


def _no_lines(result: EditFileResult) -> bool:
    """A diff that changes no line: what the edit would write is the file's text as it is."""
    return result.lines_added == 0 and result.lines_removed == 0


def _same(result: EditOutcomeFields, counts: str = "") -> str:
    """The head of an edit that wrote nothing, in the verbose voice; ``counts``, multi_edit's, in brackets."""
    digest = f" (hash {result.content_hash})" if result.content_hash else ""
    counts = f" ({counts})" if counts else ""
    return f"{shown(result.path)} already has this content{counts}; nothing was written{digest}."


def edit_text(result: EditFileResult, compact: bool) -> str:
    """One edit (or its dry run)."""
    notes = _outcome_notes(result)
    if result.replacements == 0:  # search_replace/regex found nothing: a count of 0, not a failure
        dry = "DRY RUN, " if result.dry_run else ""
        if compact:
            return f"{dry or 'OK: '}0 replacements ({result.mode}) in {shown(result.path)} | nothing written" + notes
        return (
            f"{dry}No match in {shown(result.path)}: 0 replacements ({result.mode}), nothing was written. "
            "If the text should be there, check the pattern and case_sensitive against read_file." + notes
        )
    if compact:
        count = f"{result.replacements}@+{result.lines_added}-{result.lines_removed}"
        if result.dry_run:
            head = f"DRY RUN {shown(result.path)} | {count} | {'no change' if _no_lines(result) else 'nothing written'}"
        elif _unwritten(result):
            head = f"UNCHANGED {shown(result.path)} | {count} | nothing written{_hash(result)}"
        else:
            undo = f" | undo:{result.backup_id}" if result.backup_id else ""
            head = f"M {shown(result.path)} | {count} | {result.total_lines}L{_hash(result)}{undo}"
        return head + notes + _diff_block(result.diff, compact=True)
    plural = "" if result.replacements == 1 else "s"
    tier = f" ({result.match_tier})" if result.match_tier else ""
    counts = f"{result.replacements} replacement{plural}{tier} | +{result.lines_added} -{result.lines_removed}"
    if result.dry_run:
        # A real diff of +0 -0: the new text is the file's text already, so the edit itself would write nothing.
        same = ": the file already has this text, so the edit would write nothing"
        head = (
            f"DRY RUN, nothing written: {shown(result.path)} | {counts}{same if _no_lines(result) else ' would change'}"
        )
    elif _unwritten(result):
        head = _same(result)
    else:
        head = f"M {shown(result.path)} | {counts} | {counted(result.total_lines, 'line')}{_hash(result)}"
        head += _undo_line(result.path, result.backup_id, result.parent_backup_id)
    return head + notes + _diff_block(result.diff, compact=False)


def multi_edit_text(result: MultiEditResult, compact: bool) -> str:
    """A batch of edits on one file."""
    counts = f"{result.successful_edits}/{result.total_edits} edits | +{result.lines_added} -{result.lines_removed}"
    skipped = f" | {result.skipped_edits} already present" if result.skipped_edits else ""
    if compact:
        undo = f" | undo:{result.backup_id}" if result.backup_id else ""
        if _unwritten(result):
            head = f"UNCHANGED {shown(result.path)} | {counts}{skipped} | nothing written"
            return head + _hash(result) + _outcome_notes(result) + _diff_block(result.diff, True)
        prefix = "DRY RUN " if result.dry_run else "M "
        head = f"{prefix}{shown(result.path)} | {counts}{skipped} | {result.total_lines}L{_hash(result)}{undo}"
        return head + _outcome_notes(result) + _diff_block(result.diff, True)
    if _unwritten(result):
        head = _same(result, counts + skipped)
    else:
        head = ("DRY RUN, nothing written: " if result.dry_run else "M ") + f"{shown(result.path)} | {counts}{skipped}"
        head += _hash(result)
        head += _undo_line(result.path, result.backup_id, result.parent_backup_id)
    rows = [
        f"  edit {e.index}: {e.status.replace('_', ' ')}" + (f" ({e.match_tier}, line {e.line})" if e.line else "")
        for e in result.edits
    ]
    present = [e.status == "already_present" for e in result.edits]
    rest = "every one in the result's edits list"
    details = "\n".join(shown_rows(rows, failed=present, rest=rest, flagged="already present"))
    return f"{head}\n{details}{_outcome_notes(result)}" + _diff_block(result.diff, compact=False)
