"""batch_operations, request form: parse request_json, run it in the core, build the BatchResult.

Parsing and validation errors are ``invalid_params`` listing every problem; a failed atomic batch is
``batch_failed`` (raised by the core after its rollback); a non-atomic batch none of whose operations succeeded
is an error with the first failure's code; everything else is a result.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from fsguard.core.batch import BatchReport, Progress
from fsguard.core.batchops import OperationOutcome
from fsguard.core.batchplan import parse_request
from fsguard.core.confirmation import Binding
from fsguard.models.batch import BatchResult, OperationResult
from fsguard.services import Services
from fsguard.voice.notes import external_change_note


def run_request(
    services: Services, raw: Any, progress: Progress | None = None, confirmed: Binding | None = None
) -> BatchResult:
    """Run the request form: ``raw`` is the decoded request_json (an object, or a bare list of operations);
    ``confirmed``: what the user's yes lets its deletes take (None: nobody was asked)."""
    request = parse_request(raw)
    if confirmed is not None:
        bound = [replace(op, confirmed=confirmed.entries) if op.type == "delete" else op for op in request.operations]
        request = replace(request, operations=tuple(bound))
    report = services.batch.run(request, progress)
    return _result(report)


def _result(report: BatchReport) -> BatchResult:
    operations = [_operation(outcome) for outcome in report.operations]
    return BatchResult(
        form="operations",
        status=report.status,
        message="",
        backup_id=report.group_id,
        completed=sum(op.status in ("ok", "valid") for op in operations),
        failed=report.failed,
        operations=operations,
    )


def _operation(outcome: OperationOutcome) -> OperationResult:
    return OperationResult(
        index=outcome.index,
        type=outcome.type,
        path=outcome.path,
        destination=outcome.destination,
        status=outcome.status,
        bytes_affected=outcome.bytes_affected,
        replacements=outcome.replacements,
        backup_id=outcome.backup_id,
        sd_id=outcome.sd_id,
        content_hash=outcome.content_hash,
        external_change=external_change_note(outcome.verdict) if outcome.verdict is not None else None,
        notes=list(outcome.notes) or None,
        denied=outcome.denied,
        error=outcome.error,
        error_code=outcome.error_code,
    )
