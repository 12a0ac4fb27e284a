"""The voice of the backup tool: its listings, restores, change groups and trash."""

from __future__ import annotations

from fsguard.core.inventory import MOST_LISTED
from fsguard.core.shortlist import first_few, shown_rows
from fsguard.models import BackupInfo, BackupResult, GroupInfo, RestoredFile, RevertedChange
from fsguard.voice.notes import compact_check
from fsguard.voice.paths import shown
from fsguard.voice.sizes import counted, human_size


def backup_text(result: BackupResult, compact: bool) -> str:
    """Each backup action in a few lines."""
    rows = [
        f"{b.backup_id} | {b.time} | {b.operation} | {shown(b.files[0])} | {human_size(b.size)}"
        for b in result.backups or []
    ]
    if result.action == "list":
        heading = counted(result.total or 0, "backup") + _newest(len(rows), result.total)
        return heading + ("\n" + "\n".join(rows) if rows else "") + _groups_text(result)
    if result.action == "undo_chain":
        if not rows:
            return "No undo chain: no operation through fsguard is left to undo for this file."
        steps = f" of {counted(result.total, 'step')}" if result.total and result.total > len(rows) else ""
        heading = f"Undo chain{steps}, newest first (undo_last reverts the first){_newest(len(rows), result.total)}:"
        return heading + "\n" + "\n".join(rows)
    if result.action in ("list_trash", "restore_trash", "purge_trash"):
        return _trash_text(result)
    if result.action == "cleanup":
        verb = "Would remove" if result.dry_run else "Removed"
        hint = " Run with dry_run=false to remove them." if result.dry_run and result.removed else ""
        about = "about " if result.dry_run else ""
        size = f", freeing {about}{human_size(result.freed_bytes)} on disk" if result.freed_bytes else ""
        held = (
            f" About {human_size(result.held_bytes)} of theirs stays on disk: the state directory is too full to "
            "rewrite the journals holding it. Free space there (backup(action='purge_trash')), then run cleanup again."
            if result.held_bytes
            else ""
        )
        newer = _newer(result, "the store holds", "backup", "backups")
        return f"{verb} {counted(result.removed or 0, 'backup')}{size}{newer}.{held}{hint}"
    if result.group is not None:
        return group_text(result, compact)
    backup = result.backup
    assert backup is not None
    if result.action == "info":
        return (
            f"Backup {backup.backup_id} of {shown(backup.files[0])}: {backup.operation} at {backup.time}, "
            f"{human_size(backup.size)}, hash {backup.content_hash}"
            + (
                f", previous step {backup.parent_backup_id}."
                if backup.parent_backup_id
                else ", first step of its chain."
            )
        )
    if result.action == "compare":
        return f"From backup {backup.backup_id} to the file now:\n{result.diff}"
    assert result.restored
    return _restored_text(result, backup, result.restored[0], compact)


def _newest(shown: int, total: int | None) -> str:
    """After the count of a list the limit cut: how many it shows, and the limit that lists them all (there are no
    pages: a larger limit is the way)."""
    if total is None or total <= shown:
        return ""
    more = (
        f"limit={total} lists them all"
        if total <= MOST_LISTED
        else f"limit={MOST_LISTED} lists the newest {MOST_LISTED:,}"
    )
    return f", the newest {shown:,} shown ({more})"


def _groups_text(result: BackupResult) -> str:
    """The change groups of a listing, after its backups: each restores every change of one call at once."""
    if not result.groups_total:
        return ""
    rows = [
        f"{g.group_id} | {g.time} | {g.operation}{_INTERRUPTED.get(g.interrupted or '', '')} | "
        f"{counted(g.file_count, 'file')}: "
        + ", ".join(shown(path) for path in g.files)
        + (" …" if g.file_count > len(g.files) else "")
        for g in result.groups or []
    ]
    return (
        f"\n{counted(result.groups_total, 'change group')} (restore one with backup(action='restore', backup_id=...); "
        f"info lists its changes){_newest(len(rows), result.groups_total)}\n" + "\n".join(rows)
    )


def _restored_text(result: BackupResult, backup: BackupInfo, done: RestoredFile, compact: bool) -> str:
    """restore and undo_last: what was put back, what the file held before, and how to take it back."""
    if result.dry_run:
        return _restore_plan(result, backup, done) + (f"\n{result.diff}" if result.diff else "")
    if done.safety_backup_id is None and done.previous_hash == done.content_hash:
        held = f"{shown(done.path)} already holds backup {backup.backup_id}'s content; nothing was written."
        if result.action != "undo_last":
            return held
        # A crash after the backup and before the write leaves a step whose change never reached the disk.
        return (
            f"{held} That step is dropped from the undo chain: the change it was taken for never reached the disk (a "
            "call cut short) or was undone by other means. Call undo_last again to undo the change before it."
        )
    safety = done.safety_backup_id
    if result.action == "restore" and safety:
        undo = (
            f'backup(action="undo_last", file_path="{shown(done.path)}") or '
            f'backup(action="restore", backup_id="{safety}")'
        )
        redo = f"\nUndo this restore: {undo}"
    else:
        redo = f'\nRedo: backup(action="restore", backup_id="{safety}")' if safety else ""
    if compact:
        changed = f" | changed since: old bytes in {safety}" if done.changed_since and safety else ""
        check = compact_check(done.verified)
        told = "".join(f"\n{note}" for note in done.notes or ())
        return (
            f"RESTORED {shown(done.path)} <- {backup.backup_id} | hash {done.content_hash}{check}{changed}{told}{redo}"
        )
    check = "verified" if done.verified else "NOT verified: read the file back"
    head = ""
    if result.action == "undo_last":
        head = f" Next undo_last reverts {result.head_backup_id}." if result.head_backup_id else " No earlier step."
    text = f"Restored {shown(done.path)} from backup {backup.backup_id} ({check}, hash {done.content_hash}).{head}"
    if done.changed_since:
        text += "\n" + _changed_since(backup, done, planned=False)
    text += "".join(f"\n{note}" for note in done.notes or ())
    return text + redo


def _restore_plan(result: BackupResult, backup: BackupInfo, done: RestoredFile) -> str:
    """A dry run: what a real run would do, and whether the file changed after the operation it reverts."""
    if done.needs_force:
        now = "is missing" if done.previous_hash is None else f"holds hash {done.previous_hash}"
        return (
            "DRY RUN, nothing written: undo_last would be refused (undo_conflict): "
            f"{shown(done.path)} changed after the "
            f"{backup.operation} it reverts (that left hash {backup.after_hash}; the file now {now}). Compare first "
            f"with backup(action='compare', backup_id='{backup.backup_id}'), then retry with force=true to revert "
            "it anyway (its current bytes are backed up first)."
        )
    text = (
        f"DRY RUN, nothing written: {result.action} would put backup {backup.backup_id} back into {shown(done.path)}."
    )
    if done.changed_since:
        text += " " + _changed_since(backup, done, planned=True)
    return text


def _changed_since(backup: BackupInfo, done: RestoredFile, *, planned: bool) -> str:
    """The file changed after the operation being reverted: the evidence, and where its bytes go (or went)."""
    if done.previous_hash is None:
        return (
            f"{shown(done.path)} is missing, so it would be recreated."
            if planned
            else f"{shown(done.path)} was missing."
        )
    left = f" (that left hash {backup.after_hash})" if backup.after_hash else ""
    if planned:
        now = f"its bytes now (hash {done.previous_hash}) would be backed up first"
        return f"{shown(done.path)} changed after the {backup.operation}{left}; {now}."
    saved = f" are saved as backup {done.safety_backup_id}" if done.safety_backup_id else " were replaced"
    bytes_then = f"its bytes (hash {done.previous_hash}){saved}"
    return f"{shown(done.path)} had changed after the {backup.operation}{left}: {bytes_then}."


def group_text(result: BackupResult, compact: bool) -> str:
    """info, compare and restore of a group id: its changes, or what reverting them did."""
    group = result.group
    assert group is not None
    head = f"Group {group.group_id} ({group.operation}, {group.time}): {counted(len(group.changes), 'change')}"
    if group.hidden:
        head += f" shown, {group.hidden} not (outside the roots or hidden by a deny rule)"
    if result.action == "compare":
        return f"{head}; from its backups to the files now:\n{result.diff}"
    if result.reverted is None:
        return head + _interruption(group) + _changes_text(group, compact)
    outcomes = result.reverted
    undone = sum(r.status == "reverted" for r in outcomes)
    troubles = [r for r in outcomes if r.status in _TROUBLES]
    verb = "DRY RUN, nothing written: would revert" if result.dry_run else "Reverted"
    summary = f"{verb} {undone} of {counted(len(outcomes), 'change')} of group {group.group_id}"
    if group.hidden:  # a restore refuses changes outside the roots: these are the ones a deny rule hides
        summary += f" ({group.hidden} more a deny rule hides now, left as they are, not named here)"
    undo = f'\nUndo this restore: backup(action="restore", backup_id="{result.safety_backup_id}")'
    undo = undo if result.safety_backup_id else ""
    if compact:
        return (f"{summary} | kept/failed: {len(troubles)}" if troubles else summary) + undo
    rows = shown_rows(
        [_reverted_row(r) for r in outcomes],
        failed=[r.status in _TROUBLES for r in outcomes],  # by status: rows compared whole made this quadratic
        rest="every one in the result's reverted list",
        flagged="kept or failed",
    )
    return summary + ".\n" + "\n".join(rows) + undo


_TROUBLES = ("kept", "failed")


def _changes_text(group: GroupInfo, compact: bool) -> str:
    """The changes of a group's info, after its head: a row each, or one line in compact. Compact names them too:
    an interrupted group's note speaks of "the changes listed", and they are what a restore would revert."""
    rows = [f"{c.kind} {shown(c.source) + ' -> ' if c.source else ''}{shown(c.path)}" for c in group.changes]
    if not rows:
        return ""
    if not compact:
        return "\n" + "\n".join(
            shown_rows(rows, failed=[False] * len(rows), rest="every one in the result's group changes")
        )
    listed = first_few(rows)
    more = f"; +{len(rows) - len(listed):,} more in group.changes" if len(listed) < len(rows) else ""
    return "\n" + "; ".join(listed) + more


def _interruption(group: GroupInfo) -> str:
    """What became of a call the server stopped in the middle of, after its group's head line."""
    stopped = "\nInterrupted: the server stopped while this call ran;"
    if group.interrupted == "kept":
        return f"{stopped} it was not atomic, so its changes stay (restore the group to undo them)."
    if group.interrupted != "rolled_back":
        return ""
    put_back = ", ".join(shown(path) for path in group.rolled_back or []) or "nothing"
    left = " The changes listed were left as they are: their files changed since." if group.changes else ""
    return f"{stopped} the next start rolled it back (put back: {put_back}).{left}"


# A listing's mark of a call the server stopped in the middle of (GroupEntry.interrupted).
_INTERRUPTED = {"rolled_back": " (interrupted, rolled back)", "kept": " (interrupted, changes kept)"}


def _reverted_row(r: RevertedChange) -> str:
    """One change of a group restore: what became of it, and where the bytes it replaced are."""
    safety = f" (old bytes in backup {r.safety_backup_id})" if r.safety_backup_id else ""
    return (
        f"  {r.status}: {r.kind} {shown(r.path)}"
        + (f" <- {shown(r.source)}" if r.source else "")
        + (f" ({r.detail})" if r.detail else safety)
    )


def _trash_text(result: BackupResult) -> str:
    entries = result.trash or []
    rows = [f"{e.sd_id} | {e.time} | {e.kind} | {shown(e.original_path)} | {human_size(e.size)}" for e in entries]
    if result.action == "restore_trash":
        return f"Restored {shown(entries[0].original_path)} from the trash ({entries[0].sd_id})."
    if result.action == "purge_trash":
        verb = "Would purge" if result.dry_run else "Purged"
        hint = " Run with dry_run=false to purge them for good." if result.dry_run and entries else ""
        failed = "".join(
            f"\nCould not purge {failure}; what is left of it stays in the trash."
            for failure in result.not_purged or ()
        )
        return (
            f"{verb} {result.removed} trash entr{'y' if result.removed == 1 else 'ies'}, "
            + f"{human_size(result.freed_bytes or 0)}{_newer(result, 'the trash holds', 'entry', 'entries')}.{hint}"
            + ("\n" + "\n".join(rows) if rows else "")
            + failed
        )
    heading = f"{result.total} trash entr{'y' if result.total == 1 else 'ies'}" + _newest(len(rows), result.total)
    return heading + ("\n" + "\n".join(rows) if rows else "")


def _newer(result: BackupResult, where: str, noun: str, plural: str) -> str:
    """Why a cleanup or purge removed none when there are some: every one is newer than the age (7 days unless
    asked: "0 purged" right after a delete read as an empty trash)."""
    if not result.newer or result.older_than_days is None:
        return ""
    one = result.newer == 1
    return (
        f": {where} {counted(result.newer, noun, plural)}, {'' if one else 'all '}newer than "
        f"older_than_days={result.older_than_days:g}; older_than_days=0 includes {'it' if one else 'them'}"
    )
