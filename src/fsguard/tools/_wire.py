"""Results made safe to serialise: every lone surrogate of a name that is not UTF-8 shown as U+FFFD (see
:mod:`fsguard.models.wire`); one file named so in a listed directory stopped the whole stdio server.
"""

from __future__ import annotations

import marshal
import re
from typing import TypeVar

from mcp.types import CallToolResult, TextContent

from fsguard.models.wire import wire_text

# marshal writes strings as UTF-8 and lets a lone surrogate through as ED A0..BF xx, which valid UTF-8 never
# holds: a pass in C tells a clean value from one to scrub, four times faster than walking it in Python.
_LONE_SURROGATE_BYTES = re.compile(rb"\xed[\xa0-\xbf]")
Value = TypeVar("Value")


def wire_value(value: Value) -> Value:
    """``value`` (JSON-shaped: dicts, lists, strings, numbers) with :func:`wire_text` applied to every string,
    keys too; the same object when none needed it, so a clean result is never copied."""
    try:
        raw = marshal.dumps(value)  # type: ignore[arg-type]
    except ValueError:  # a type marshal does not know: look at every string
        return _scrubbed(value)
    # memchr first: most results hold no 0xED byte at all. A hit may also be a binary number's bytes (or a
    # Hangul syllable's first byte): then the pattern decides, and a false alarm only walks the value.
    if b"\xed" in raw and _LONE_SURROGATE_BYTES.search(raw) is not None:
        return _scrubbed(value)
    return value


def _scrubbed(value: Value) -> Value:
    """``value`` with every string made safe; the same object where nothing changed (a false alarm of the byte
    search, a number whose bytes look like a surrogate's, copies nothing)."""
    if isinstance(value, str):
        return wire_text(value)  # type: ignore[return-value]
    if isinstance(value, dict):
        pairs = [(_scrubbed(key), _scrubbed(item)) for key, item in value.items()]
        kept = zip(pairs, value.items(), strict=True)
        if all(key is old_key and item is old_item for (key, item), (old_key, old_item) in kept):
            return value
        return dict(pairs)  # type: ignore[return-value]
    if isinstance(value, list | tuple):
        items = [_scrubbed(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return items  # type: ignore[return-value]
    return value


def wire_result(result: CallToolResult) -> CallToolResult:
    """``result`` with every text block, the structured content and ``_meta`` (an error's fields name paths too)
    safe to serialise; itself when it was."""
    content = [
        block.model_copy(update={"text": text})
        if isinstance(block, TextContent) and (text := wire_text(block.text)) is not block.text
        else block
        for block in result.content
    ]
    structured = wire_value(result.structured_content)
    meta = wire_value(result.meta)
    if (
        structured is result.structured_content
        and meta is result.meta
        and all(new is old for new, old in zip(content, result.content, strict=True))
    ):
        return result
    return result.model_copy(update={"content": content, "structured_content": structured, "meta": meta})
