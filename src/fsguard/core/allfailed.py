"""The error of a batch run on past its failures (request_json ``atomic: false``, pipeline_json ``stop_on_error:
false``) none of whose operations or steps succeeded.

Answered as a success ("partial", 0/2 operations ok), it read as done to an agent that checked only isError. As
delete_file's ``paths`` and a group restore answer a call that did none of its work, it is an error carrying the
first failure's code, each failure a line (the first few of a long list; every one in the ``errors`` field).
"""

from __future__ import annotations

from collections.abc import Sequence

from fsguard.core.batchops import OperationOutcome
from fsguard.core.batchplan import BatchOperation
from fsguard.core.errors import FsguardError, error_for_code
from fsguard.core.pipeline import StepOutcome
from fsguard.core.shortlist import problem_rows


def no_operation_succeeded(
    operations: Sequence[BatchOperation], outcomes: Sequence[OperationOutcome], group_id: str | None
) -> FsguardError:
    """The error of a non-atomic batch whose every operation failed (``outcomes``, one per operation)."""
    failures = [(operations[o.index].label, o.error_code, o.error or "failed") for o in outcomes]
    head = (
        "batch_operations: its only operation failed (atomic: false)"
        if len(outcomes) == 1
        else f"batch_operations: none of the {len(outcomes)} operations succeeded (atomic: false)"
    )
    return _error(head, failures, group_id, "send the batch again.", path=outcomes[0].path)


def no_step_succeeded(name: str, steps: Sequence[StepOutcome], group_id: str | None) -> FsguardError:
    """The error of a pipeline run with ``stop_on_error: false`` whose every step failed."""
    failures = [(f"step {s.index} '{s.id}' ({s.action})", s.error_code, s.error or "failed") for s in steps]
    head = f"pipeline {name}: none of its {len(steps)} steps succeeded (stop_on_error: false)"
    return _error(head, failures, group_id, "run the pipeline again; dry_run=true shows what each step would do.")


def _error(
    head: str, failures: list[tuple[str, str | None, str]], group_id: str | None, again: str, *, path: str | None = None
) -> FsguardError:
    # One failure is shown whole (a no_match's lines of the file); of several, each one's first line.
    whole = len(failures) == 1
    errors = [f"{label} ({code}): {message if whole else message.splitlines()[0]}" for label, code, message in failures]
    if group_id is None:
        changed = ", so nothing was changed:"
    else:  # a failed one's own changes are undone, unless something else changed those files meanwhile
        changed = (
            f"; what a failed one had changed could not all be undone and stays in group {group_id} "
            f'(backup(action="restore", backup_id="{group_id}") reverts it):'
        )
    rows = "\n".join(problem_rows(errors, field="errors"))
    return error_for_code(failures[0][1])(
        f"{head}{changed}\n{rows}\nFix {'it' if whole else 'them'}, then {again}",
        path=path,
        errors=errors,
        failed_codes=[code for _, code, _ in failures],
        backup_id=group_id,
    )
