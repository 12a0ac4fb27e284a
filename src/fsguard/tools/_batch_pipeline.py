"""batch_operations, pipeline form: parse the JSON, run it in the core, build the BatchResult.

The request's shape and every decision about it are documented in :mod:`fsguard.core.pipeline`; running it
in :mod:`fsguard.core.pipeline_runner`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated, Any

from mcp.server.mcpserver import Context, Resolve

from fsguard.core.batchplan import parse_request
from fsguard.core.confirmation import Binding
from fsguard.core.pipeline import NotSearched, PipelineReport, StepOutcome
from fsguard.core.pipeline_request import parse_pipeline
from fsguard.core.pipeline_runner import Progress
from fsguard.core.preflight import batching, pipelining
from fsguard.models.batch import BatchResult, StepResult
from fsguard.models.batch import NotSearched as NotSearchedResult
from fsguard.services import Services
from fsguard.tools._confirm import NOT_ASKED, Consent, Looked, Preflight, Question, ask, look
from fsguard.tools.search import SAMPLE
from fsguard.voice.notes import external_changes_note
from fsguard.voice.paths import shortened_error


def _preflight(
    request_json: dict[str, Any] | list[Any] | None, pipeline_json: dict[str, Any] | None
) -> Preflight | None:
    """The look before the question: a request's deletes, or a pipeline's dry run; None for a call that never asks."""
    if request_json is not None and pipeline_json is None:
        return lambda s: batching(
            s.policy, s.beneath, parse_request(request_json), max_file_size=s.settings.max_file_size
        )
    if pipeline_json is None or pipeline_json.get("dry_run") is True:
        return None
    return lambda s: pipelining(s.pipelines, parse_pipeline(pipeline_json), policy=s.policy, beneath=s.beneath)


async def look_batch(
    request_json: dict[str, Any] | list[Any] | None, pipeline_json: dict[str, Any] | None, ctx: Context
) -> Looked:
    preflight = _preflight(request_json, pipeline_json)
    return Looked(None) if preflight is None else await look(ctx, preflight)


BatchLook = Annotated[Looked, Resolve(look_batch)]


async def ask_batch(
    request_json: dict[str, Any] | list[Any] | None,
    pipeline_json: dict[str, Any] | None,
    ctx: Context,
    looked: BatchLook,
) -> Question:
    """A pipeline whose dry run blocks a step for its risk asks the user, instead of failing without force; a
    request's permanent deletes, and a request's or a pipeline's recursive ones of a non-empty directory (force
    or not), ask as delete_file's do. The body binds a yes to what the question measured (``looked``)."""
    preflight = _preflight(request_json, pipeline_json)
    return NOT_ASKED if preflight is None else await ask(ctx, preflight, looked)


BatchConsent = Annotated[Consent, Resolve(ask_batch)]


def run_pipeline(
    services: Services, raw: Any, progress: Progress | None = None, confirmed: Binding | None = None
) -> BatchResult:
    """Run the pipeline form; ``progress`` gets (steps done, steps) and may raise to cancel; ``confirmed``: what
    the user's yes lets its delete steps take (None: nobody was asked).

    Raises:
        InvalidParamsError: the pipeline is malformed (every problem listed); nothing ran.
        BatchFailedError: a step failed with stop_on_error; everything the pipeline changed was rolled back.
    """
    report = services.pipelines.run(replace(parse_pipeline(raw), confirmed=confirmed), progress)
    return pipeline_result(report)


def pipeline_result(report: PipelineReport) -> BatchResult:
    """The result model of a pipeline report (the voice fills ``message``)."""
    return BatchResult(
        form="pipeline",
        status=report.status,
        message="",
        backup_id=report.group_id,
        completed=sum(outcome.completed for outcome in report.steps),
        failed=sum(outcome.status == "failed" for outcome in report.steps),
        name=report.name,
        steps=[_step(outcome) for outcome in report.steps],
        files_affected=report.files_affected,
        total_edits=report.total_edits,
        risk_level=report.risk,
    )


def _step(outcome: StepOutcome) -> StepResult:
    return StepResult(
        index=outcome.index,
        id=outcome.id,
        action=outcome.action,
        status=outcome.status,
        skip_reason=outcome.skip_reason,
        files=list(outcome.files),
        file_counts=dict(outcome.file_counts) if outcome.file_counts is not None else None,
        count=outcome.count,
        edits=outcome.edits,
        risk_level=outcome.risk,
        content=outcome.content,
        not_searched=_not_searched(outcome.not_searched),
        unforeseen=outcome.unforeseen,
        external_change=external_changes_note(outcome.external),
        notes=list(outcome.notes) or None,
        denied=outcome.denied,
        error=shortened_error(outcome.error) if outcome.error is not None else None,  # as the run's error says
        error_code=outcome.error_code,
        duration_ms=outcome.duration_ms,
        level=outcome.level,
    )


def _not_searched(left_out: NotSearched | None) -> NotSearchedResult | None:
    if left_out is None:
        return None
    fields: dict[str, Any] = {}
    for name, paths in (
        ("default_skipped", left_out.by_default),
        ("skipped_too_large", left_out.too_large),
        ("skipped_binary", left_out.binary),
        ("skipped_unreadable", left_out.unreadable),
        ("skipped_by_hook", left_out.hooked),
    ):
        if paths:
            fields[name], fields[f"{name}_paths"] = len(paths), list(paths[:SAMPLE])
    return NotSearchedResult(**fields)
