"""The base of every result model."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Result(BaseModel):
    """Base of every result model: unknown keys are a bug, so the schema forbids them."""

    model_config = ConfigDict(extra="forbid")
