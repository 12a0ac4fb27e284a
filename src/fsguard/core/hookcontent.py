"""Refusals of the content a pre-hook substituted (its ``modified_content``), told as the hook's, not the agent's.

A pre-write or pre-edit hook may answer the whole new file. When that text cannot be stored (the file's encoding has
no byte for a character of it, or it is above --max-file-size), the refusal the write raises speaks of "the new
content" and tells the agent to send smaller or other text: the agent's text was fine, and the same call meets the
same hook again. Only the operator can fix the hook.
"""

from __future__ import annotations

import re
from pathlib import Path

from fsguard.core.errors import EncodingError, TooLargeError
from fsguard.core.oserrors import shorten

_FACT_END = re.compile(r"[.;] nothing was written\.", re.IGNORECASE)
_LABEL_CHARS = 120  # a hook's command as a message names it


def blamed_on_hook(exc: EncodingError | TooLargeError, hook: str, path: Path) -> EncodingError | TooLargeError:
    """``exc``, raised while the content pre-hook ``hook`` (its label) substituted was stored, said as that hook's
    doing, with the next action: the operator's, not a retry."""
    fact = _FACT_END.split(exc.message, maxsplit=1)[0].rstrip(".")
    return type(exc)(
        f"The pre-hook {shorten(hook, _LABEL_CHARS)} put its own content in place of yours (its modified_content), "
        f"and that was refused: {fact}. Nothing was written to {path.name}. Retrying meets the same hook: ask the "
        "operator to fix it, or to exclude this file from it in the hooks config.",
        **exc.fields,
    )
