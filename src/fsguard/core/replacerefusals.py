"""What a project_replace run that stopped partway, or changed nothing, says about its files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fsguard.core.confirmation import plural
from fsguard.core.errors import ExternalChangeError, FsguardError, HookDeniedError
from fsguard.core.groups import UNDO_EACH_FILE, Group

if TYPE_CHECKING:
    from fsguard.core.replacing import FileChange

CHANGED_MEANWHILE = "changed on disk during the replace; left as it was"
"""Why a file was skipped that another program wrote to between the run's plan and its write."""


def name_changed(
    error: FsguardError, done: Sequence[FileChange], planned: int, group: Group | None, base: Path
) -> None:
    """Add to ``error`` which files the run had changed before it, how to take them back, and how to reach the rest
    (a file a pre-hook refuses is refused on every run: only leaving it out gets past it)."""
    again = "run project_replace again to change the rest."
    if isinstance(error, HookDeniedError):
        name = relative(Path(str(error.fields["path"])), base)
        error.message = error.message.replace("Nothing was written.", f"{name} was not written.", 1)
        again = f"run it again with exclude_paths=[{name!r}] for the rest."
    changed = [c for c in done if c.content_hash is not None]
    if not changed:
        error.message += f" No file was changed; {again}" if planned > 1 else ""
        return
    names = ", ".join(c.path.name for c in changed[:5]) + (" …" if len(changed) > 5 else "")
    undo = f"{UNDO_EACH_FILE} undoes each"
    if group is not None:
        undo = f"backup(action='restore', backup_id='{group.group_id}') undoes them"
    were = "was" if len(changed) == 1 else "were"
    error.message += (
        f" Before this, {len(changed)} of {plural(planned, 'file')} {were} changed and stay so ({names}); {undo}, "
        f"or {again}"
    )
    error.fields["changed_files"] = [str(c.path) for c in changed]
    error.fields["changed_backup_ids"] = [c.backup_id for c in changed]
    if group is not None:
        error.fields["backup_id"] = group.group_id


def relative(path: Path, base: Path) -> str:
    """``path`` as the run's answers name it: below ``base``, or by its name alone."""
    return path.relative_to(base).as_posix() if path.is_relative_to(base) and path != base else path.name


def refuse_if_none_replaced(done: Sequence[FileChange]) -> None:
    """Refuse a run that replaced nothing because another program changed its files meanwhile: answered as applied,
    "0 occurrences in 0 files", it read as a success with nothing left to do.

    Raises:
        ExternalChangeError: no file was changed, and some were skipped as changed on disk; each is left as it was.
    """
    changed = [c for c in done if c.skipped == CHANGED_MEANWHILE]
    if not changed or any(c.content_hash is not None for c in done):
        return
    names = ", ".join(c.path.name for c in changed[:5]) + (" …" if len(changed) > 5 else "")
    one = len(changed) == 1
    them, were, they = ("it", "was", "it") if one else ("them", "were", "they")
    raise ExternalChangeError(
        f"Nothing was replaced: {plural(len(changed), 'file')} holding the text changed on disk during the replace "
        f"(another program wrote to {them}) and {were} left as {they} {were} ({names}). Run project_replace again "
        f"to replace in what {they} {'holds' if one else 'hold'} now.",
        files=[str(c.path) for c in changed],
    )
