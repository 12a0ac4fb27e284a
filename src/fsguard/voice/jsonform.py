"""The text block of a result asked for as JSON (``output_format="json"``): the structured content itself."""

from __future__ import annotations

import json

from pydantic import BaseModel


def json_text(result: BaseModel, compact: bool = False) -> str:
    """``result`` as JSON, indented (unindented in compact mode, which pays for no layout), each character as itself:
    a ``\\uXXXX`` escape costs a model six characters (and more tokens) for one, and made a search's answer of
    Chinese text six times its size."""
    data = result.model_dump(mode="json", exclude_none=True)
    if compact:
        return json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return json.dumps(data, indent=1, ensure_ascii=False)
