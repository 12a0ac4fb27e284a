"""Voice of batch_operations: each form has its own text (operations, pipeline, rename)."""

from __future__ import annotations

from fsguard.models.batch import BatchResult
from fsguard.voice.batch_request import operations_text
from fsguard.voice.pipeline import pipeline_text
from fsguard.voice.rename import rename_text


def batch_text(result: BatchResult, compact: bool) -> str:
    """The text of whichever form ran."""
    if result.form == "pipeline":
        return pipeline_text(result, compact)
    if result.form == "rename":
        return rename_text(result, compact)
    return operations_text(result, compact)
