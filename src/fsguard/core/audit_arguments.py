"""What an audit line says of a call's arguments: a summary bounded whatever the call sends, and the bytes of
content they carry (``content_bytes``)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from itertools import islice

SUMMARY_LIMIT = 100
# A summary keeps the first ITEMS_LIMIT items of a list (keys of an object), DEPTH_LIMIT levels deep, and counts the
# rest; one argument whose summary is still longer than VALUE_LIMIT characters is logged by its size, and arguments
# past ARGS_LIMIT characters in all are counted only: whatever an agent sends (50,000 lines under a misspelled key),
# a line holds no file's text (and the audit log bounds the whole line: core.audit.LINE_LIMIT).
ITEMS_LIMIT = 10
DEPTH_LIMIT = 3
VALUE_LIMIT = 1_000
ARGS_LIMIT = 4_000
# Arguments that carry file content or edit payloads: logged by size only.
# Whatever may carry a file's text (a batch's or pipeline's request carries its writes' contents, as the seed summarised
# them), never logged whole.
BULKY_KEYS = frozenset(
    {
        "content",
        "content_base64",
        "edits_json",
        "edits",
        "patterns_json",
        "new_text",
        "old_text",
        "new_str",
        "new_string",
        "old_str",
        "old_string",
        "request_json",
        "pipeline_json",
        "rename_json",
        "operations",
        "find",
        "replace",
        "replacement",
    }
)

# Arguments whose value is the content a call writes: their size in bytes is logged as a number (content_bytes), as
# the summary keeps only a long one's length in characters. Found in a batch's, a pipeline's and multi_edit's
# requests and in regex rules too, JSON text or not; new_text under the spellings the tools take for it as well.
CONTENT_KEYS = ("content", "new_text", "new_str", "new_string", "replacement", "replace")
_REQUEST_KEYS = frozenset(
    {"edits_json", "edits", "patterns_json", "patterns", "request_json", "pipeline_json", "operations"}
)
_REQUEST_DEPTH = 8  # a request nests a step's params in its steps: a few levels; deeper is no request of a tool


def summarise_arguments(arguments: dict[str, object], limit: int = ARGS_LIMIT) -> dict[str, object]:
    """A copy of ``arguments`` small enough to log, however large they are.

    Bulky values (``BULKY_KEYS``) longer than 100 characters become ``"(N chars)"`` (``"(N items)"`` for a list or
    dict, measured as JSON). Any other string, key or value, also nested, is cut at 100 characters with ``…``; a list
    or dict keeps its first :data:`ITEMS_LIMIT` items, ``"… +N more"`` (a dict: key ``"…"``) counting the others, and
    becomes ``"(N items)"`` below :data:`DEPTH_LIMIT` levels or when its summary still passes :data:`VALUE_LIMIT`
    characters. Arguments past ``limit`` characters in all are counted under ``"…"``.

    Args:
        arguments: The call's arguments as received.
        limit: Characters of summary the arguments share; the audit line lowers it when it would pass its bound.

    Returns:
        The summarised arguments; small values are unchanged.
    """
    summary: dict[str, object] = {}
    used = 0
    for index, (key, value) in enumerate(arguments.items()):
        kept = _summarised(key, value)
        used += len(key) + len(json.dumps(kept, ensure_ascii=False, default=str))
        if used > limit:
            summary["…"] = f"+{len(arguments) - index} more"
            break
        summary[clipped(key, SUMMARY_LIMIT)] = kept
    return summary


def _summarised(key: str, value: object) -> object:
    if key in BULKY_KEYS:
        if isinstance(value, str) and len(value) > SUMMARY_LIMIT:
            return f"({len(value)} chars)"
        if isinstance(value, list | dict) and len(json.dumps(value, default=str)) > SUMMARY_LIMIT:
            return f"({len(value)} items)"
    kept = _cut(value)
    if len(json.dumps(kept, ensure_ascii=False, default=str)) <= VALUE_LIMIT:
        return kept
    return f"({len(value)} items)" if isinstance(value, list | dict) else f"({len(str(value))} chars)"


def content_bytes(arguments: dict[str, object]) -> int | None:
    """The bytes of content the call carries (UTF-8, or ``content_base64`` decoded), also in the writes and edits
    of its request (multi_edit's edits, a batch's operations, a pipeline's steps); None when it carries none."""
    sizes = list(_content_sizes(arguments, _REQUEST_DEPTH))
    return sum(sizes) if sizes else None


def _content_sizes(arguments: dict[str, object], depth: int) -> Iterator[int]:
    for key, value in arguments.items():
        if key in CONTENT_KEYS and isinstance(value, str):
            yield len(value.encode("utf-8", "surrogatepass"))
        elif key == "content_base64" and isinstance(value, str):
            packed = "".join(value.split())
            yield len(packed) * 3 // 4 - packed[-2:].count("=")
        elif depth and (key in _REQUEST_KEYS or key in ("steps", "params")):
            for found in _requested(value):
                yield from _content_sizes(found, depth - 1)


def _requested(value: object) -> list[dict[str, object]]:
    """The objects a request holds: itself, or its items; sent as JSON text, parsed first."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            return []
    items = value if isinstance(value, list) else [value]
    return [item for item in items if isinstance(item, dict)]


def _cut(value: object, depth: int = 1) -> object:
    if isinstance(value, str):
        return clipped(value, SUMMARY_LIMIT)
    if not isinstance(value, list | dict):
        return value
    if depth >= DEPTH_LIMIT:
        return f"({len(value)} items)"
    more = len(value) - ITEMS_LIMIT
    if isinstance(value, list):
        items = [_cut(item, depth + 1) for item in value[:ITEMS_LIMIT]]
        return [*items, f"… +{more} more"] if more > 0 else items
    kept = {clipped(str(key), SUMMARY_LIMIT): _cut(item, depth + 1) for key, item in islice(value.items(), ITEMS_LIMIT)}
    if more > 0:
        kept["…"] = f"+{more} more"
    return kept


def clipped(text: str, limit: int) -> str:
    """``text``, cut at ``limit`` characters with ``…``."""
    return text if len(text) <= limit else text[:limit] + "…"
