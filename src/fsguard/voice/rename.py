"""Voice of batch_operations' rename form: the renames as ``old → new`` lines, then any conflicts."""

from __future__ import annotations

import os
from pathlib import PurePath

from fsguard.core.pathforms import escaped
from fsguard.core.shortlist import shortlist
from fsguard.models.batch import BatchResult, RenameConflict, RenameEntry
from fsguard.voice.paths import shown
from fsguard.voice.sizes import counted

SHOWN = 50  # rename lines in the verbose voice; the structured result lists every one
SHOWN_COMPACT = 5


def rename_text(result: BatchResult, compact: bool) -> str:
    """What was renamed, or would be (preview), and what blocks the set."""
    entries = result.renames or []
    conflicts = result.conflicts or []
    if not entries:
        return "Nothing to rename: the rule changes no selected file's name (check path, file_pattern, recursive)."
    base = os.path.commonpath([str(PurePath(entry.source).parent) for entry in entries])
    if compact:
        return _compact(result, entries, conflicts, base)
    return _verbose(result, entries, conflicts, base, preview=result.status == "preview")


def _verbose(
    result: BatchResult, entries: list[RenameEntry], conflicts: list[RenameConflict], base: str, *, preview: bool
) -> str:
    count = f"{len(entries)} file{'s' if len(entries) != 1 else ''}"
    if preview:
        lines = [f"Batch rename preview (nothing renamed): {count} in {shown(base)}"]
    else:
        lines = [f"Renamed {count} in {shown(base)}"]
    for entry in entries[:SHOWN]:
        mark = "  ⚠ " if entry.status == "conflict" else "  "
        lines.append(f"{mark}{_relative(entry.source, base)} → {_relative(entry.destination, base)}")
    if len(entries) > SHOWN:
        lines.append(f"  … and {len(entries) - SHOWN} more (the structured result lists every rename)")
    if conflicts:
        lines.append(f"Conflicts ({len(conflicts)}): the set cannot run until each is resolved")
        lines += [f"  {_conflict(conflict, base)}" for conflict in conflicts[:SHOWN]]
        if len(conflicts) > SHOWN:
            lines.append(f"  … and {len(conflicts) - SHOWN} more (the structured result lists every conflict)")
        lines.append("Change the rule or narrow file_pattern, then preview again.")
    elif preview:
        lines.append("No conflicts. Run it again without preview to rename.")
    if result.backup_id:
        lines.append(f'Undo all: backup(action="restore", backup_id="{result.backup_id}")')
    return "\n".join(lines)


def _compact(result: BatchResult, entries: list[RenameEntry], conflicts: list[RenameConflict], base: str) -> str:
    names = ", ".join(f"{PurePath(e.source).name}→{PurePath(e.destination).name}" for e in entries[:SHOWN_COMPACT])
    more = f", +{len(entries) - SHOWN_COMPACT}" if len(entries) > SHOWN_COMPACT else ""
    head = "PREVIEW (nothing renamed)" if result.status == "preview" else "RENAMED"
    parts = [f"{head} {len(entries)} file{'s' if len(entries) != 1 else ''} in {shown(base)}", names + more]
    if conflicts:
        parts.append(f"{counted(len(conflicts), 'conflict')}: " + "; ".join(_conflict(c, base) for c in conflicts[:3]))
    if result.backup_id:
        parts.append(f"backup_id {result.backup_id}")
    return " | ".join(parts)


def _conflict(conflict: RenameConflict, base: str) -> str:
    sources = shortlist(
        (_relative(source, base) for source in conflict.sources), rest="all in the result's conflicts list"
    )
    return f"{_relative(conflict.destination, base)} ← {sources}: {conflict.reason}"


def _relative(path: str, base: str) -> str:
    return escaped(path[len(base) + 1 :] if path.startswith(base + "/") else path)
