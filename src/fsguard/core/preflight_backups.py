"""The check before backup(action="cleanup", dry_run=false): undo backups removed for good, as a purge's entries are.

Kept apart from :mod:`fsguard.core.preflight` only for its length; it answers in the same way (see there).
"""

from __future__ import annotations

from collections.abc import Callable

from fsguard.core.backups import BackupStore
from fsguard.core.confirmation import Confirmation, confirmation, plural
from fsguard.core.inventory import clean_backups


def cleaning(store: BackupStore, *, older_than_days: float, shown: Callable[[str], bool]) -> Confirmation | None:
    """backup(action="cleanup", dry_run=false): the backups it would drop (those ``shown`` lets it name), counted
    by what they hold, never by time or id, so that the same store asks the same question again."""
    sweep = clean_backups(store, older_than_days, dry_run=True, limit=1_000_000, shown=shown)
    if not sweep.removed:
        return None
    paths = sorted({record.path for record in sweep.shown})
    held = sum(record.size for record in sweep.shown)
    return confirmation(
        "backup",
        f"Remove {plural(sweep.removed, 'undo backup')} of {plural(len(paths), 'file')} for good",
        names=paths,
        factors=[f"{plural(held, 'byte')} of saved versions go, and with them undo_last and restore of those edits"],
        reversible=False,
        undo="removed backups are not kept anywhere else.",
        reason="remove undo backups",
    )
