"""batch_operations: a batch of file operations, a pipeline of steps, or a set of renames; one group id each.

The three forms share one tool (the seed's contract) and one result model; each form's parsing and running is
its own module (``_batch_request``, ``_batch_pipeline``, ``_batch_rename``).
"""

from __future__ import annotations

from typing import Annotated, Any

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.errors import InvalidParamsError
from fsguard.models.batch import BatchResult
from fsguard.tools._batch_pipeline import BatchConsent, BatchLook, run_pipeline
from fsguard.tools._batch_rename import run_rename
from fsguard.tools._batch_request import run_request
from fsguard.tools._confirm import binding, consent
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, voiced
from fsguard.voice.batch import batch_text

RequestArg = Annotated[
    dict[str, Any] | list[Any] | None,
    Field(
        description='{"operations": [{"type": "write"|"edit"|"search_and_replace"|"copy"|"move"|"delete"|'
        '"create_dir"|"extract", "path": ..., ...}], "atomic": true, "validate_only": false} (object or JSON text).'
    ),
]
PipelineArg = Annotated[
    dict[str, Any] | None,
    Field(
        description='{"name": ..., "steps": [{"id": ..., "action": ..., "params": {...}, "input_from": ..., '
        '"condition": {...}}], "dry_run", "stop_on_error", "parallel", "force"} (object or JSON text).'
    ),
]
RenameArg = Annotated[
    dict[str, Any] | None,
    Field(
        description='{"path": dir, "mode": "find_replace"|"add_prefix"|"add_suffix"|"number_files"|"regex_rename"|'
        '"change_extension"|"to_lowercase"|"to_uppercase", "find", "replace", ..., "preview"} (object or JSON text).'
    ),
]


def register(catalog: Catalog) -> None:
    """Add batch_operations to the catalog."""
    services = catalog.services

    @bridge
    def batch_operations(
        ctx: Context,
        confirmed: BatchConsent,
        looked: BatchLook,  # what the question was measured from: a yes lets the deletes take only that
        request_json: RequestArg = None,
        pipeline_json: PipelineArg = None,
        rename_json: RenameArg = None,
    ) -> Annotated[CallToolResult, BatchResult]:
        """Run operations on several files as one all-or-nothing unit; one file's edits: multi_edit.

        Pass exactly one of request_json (write/edit/copy/move/delete/… operations), pipeline_json (steps
        that feed each other: search → edit → count, with conditions and {{step.field}} templates) or
        rename_json (rename many files by a rule; any name conflict refuses the whole set). The result's
        backup_id reverts everything the call changed: backup(action="restore", backup_id=...).
        """
        given = [name for name, value in _forms(request_json, pipeline_json, rename_json) if value is not None]
        if len(given) != 1:
            raise InvalidParamsError(
                "One of request_json, pipeline_json, or rename_json is required"
                + (f", exactly one (got {', '.join(given)})." if given else ".")
                + ' Example: request_json={"operations": [{"type": "write", "path": "a.txt", "content": "hi"}]}.'
            )

        def progress(done: int, total: int) -> None:
            anyio.from_thread.check_cancelled()  # a cancelled batch stops between operations, then rolls back
            anyio.from_thread.run(ctx.report_progress, done, total)

        if request_json is not None:
            consent(confirmed, "batch_operations")  # a request has no force: its deletes run once confirmed
            result = run_request(services, request_json, progress, binding(confirmed, looked))
        elif pipeline_json is not None:
            if consent(confirmed, "batch_operations"):
                pipeline_json = {**pipeline_json, "force": True}
            result = run_pipeline(services, pipeline_json, progress, binding(confirmed, looked))
        else:
            assert rename_json is not None
            result = run_rename(services, rename_json)
        return voiced(result, batch_text, catalog.compact)

    catalog.add(
        batch_operations,
        hints("Batch Operations", read_only=False, destructive=True, idempotent=False),
        [
            (
                "write then edit, all or nothing",
                {
                    "request_json": {
                        "operations": [
                            {"type": "write", "path": "notes/todo.md", "content": "# Todo\n- ship\n"},
                            {"type": "edit", "path": "notes/todo.md", "old_text": "- ship", "new_text": "- ship it"},
                        ]
                    }
                },
            ),
            (
                "check a batch without running it",
                {
                    "request_json": {
                        "operations": [{"type": "move", "source": "a.txt", "destination": "old/a.txt"}],
                        "validate_only": True,
                    }
                },
            ),
            (
                "search, then edit what was found",
                {
                    "pipeline_json": {
                        "name": "rename-api",
                        "steps": [
                            {"id": "find", "action": "search", "params": {"pattern": "old_api", "path": "src"}},
                            {
                                "id": "fix",
                                "action": "edit",
                                "input_from": "find",
                                "params": {"old_text": "old_api", "new_text": "new_api"},
                                "condition": {"type": "has_matches", "step_ref": "find"},
                            },
                        ],
                    }
                },
            ),
            (
                "preview renaming *.jpeg to *.jpg",
                {
                    "rename_json": {
                        "path": "photos",
                        "mode": "change_extension",
                        "extension": "jpg",
                        "file_pattern": "*.jpeg",
                        "preview": True,
                    }
                },
            ),
        ],
    )


def _forms(request: object, pipeline: object, rename: object) -> list[tuple[str, object]]:
    return [("request_json", request), ("pipeline_json", pipeline), ("rename_json", rename)]
