"""Voice of batch_operations' request form: a summary, then one line per operation.

Verbose::

    Batch applied: 4/4 operations ok | backup_id: 20260818-101010-… (backup(action="restore", backup_id=...)
    reverts the whole batch)
      [OK] [0] write: /root/notes/a.txt (11 B)
      [OK] [1] edit: /root/b.txt (1 replacement, 120 B)

Compact: ``OK: 4/4 operations | backup:<id>``.
"""

from __future__ import annotations

from fsguard.core.shortlist import first_few, shown_rows
from fsguard.models.batch import BatchResult, OperationResult
from fsguard.voice.notes import changed_on_disk_line
from fsguard.voice.paths import shortened_error, shown
from fsguard.voice.sizes import human_size

_MARK = {"ok": "OK", "failed": "FAILED", "skipped": "SKIPPED", "valid": "VALID"}


def operations_text(result: BatchResult, compact: bool) -> str:
    """The batch's outcome: compact in one line, verbose with a line per operation."""
    operations = result.operations or []
    total = len(operations)
    changed = changed_on_disk_line([op.path for op in operations if op.external_change and op.path])
    changed += "".join(f"\n{note}" for op in operations for note in op.notes or ())
    changed = changed.strip("\n")
    if compact:
        return _compact(result, operations, total) + (f"\n{changed}" if changed else "")
    if result.status == "validated":
        every = "the operation is" if total == 1 else f"all {total:,} operations are"
        head = f"Batch validated: {every} valid; nothing was written. Send it again without validate_only to run it."
    elif result.status == "partial":
        head = (
            f"Batch partly applied (atomic: false): {result.completed}/{total} operations ok, "
            f"{result.failed} failed; the others' changes stay."
        )
    else:
        head = f"Batch applied: {result.completed}/{total} operations ok."
    if result.backup_id:
        head += f' backup_id: {result.backup_id} (backup(action="restore", backup_id=...) reverts the whole batch)'
    elif result.status == "partial":  # "nothing needed changing" read as nothing left to do, failures and all
        head += " The operations that succeeded changed nothing, so no backup group was recorded."
    elif result.status != "validated":
        head += " Nothing needed changing, so no backup group was recorded."
    rows = [f"  {_line(op)}" for op in operations]
    failed = [op.status == "failed" for op in operations]
    rows = shown_rows(rows, failed=failed, rest="every one in the result's operations list")
    return "\n".join([head, *rows, *([changed] if changed else [])])


def _compact(result: BatchResult, operations: list[OperationResult], total: int) -> str:
    if result.status == "validated":
        return f"VALID: {total}/{total} operations (nothing written)"
    label = "PARTIAL" if result.status == "partial" else "OK"
    text = f"{label}: {result.completed}/{total} operations"
    failed = [op for op in operations if op.status == "failed"]
    if failed:
        listed = first_few(failed)
        text += " | failed: " + "; ".join(f"[{op.index}] {op.type} {op.error_code}" for op in listed)
        text += f"; +{len(failed) - len(listed):,} more in operations" if len(listed) < len(failed) else ""
    if denied := sum(op.denied or 0 for op in operations):
        text += f" | {denied} hidden by deny rules, not copied"
    return text + (f" | backup:{result.backup_id}" if result.backup_id else "")


def _line(op: OperationResult) -> str:
    target = shown(op.path)
    if op.destination:
        target += f" → {shown(op.destination)}"
    line = f"[{_MARK[op.status]}] [{op.index}] {op.type}: {target}"
    details = []
    if op.replacements is not None:
        details.append(f"{op.replacements} replacement{'s' if op.replacements != 1 else ''}")
    if op.bytes_affected is not None:
        details.append(human_size(op.bytes_affected))
    if op.denied:
        details.append(f"{op.denied} hidden by deny rules, not copied")
    if op.sd_id:
        details.append(f"in the trash as {op.sd_id}")
    if details:
        line += f" ({', '.join(details)})"
    if op.error:
        first, *_rest = op.error.splitlines()
        line += f" — {op.error_code}: {shortened_error(first)}"
    return line
