"""The one bridge from core errors to the protocol: ToolError in, an isError result with a code out.

A tool body raises :class:`FsguardError`; :func:`bridge` turns it into :class:`CodedToolError` (a
``ToolError``, so the SDK keeps its text). The server's ``call_tool`` then hands every ``ToolError``
to :func:`error_result`, which strips the SDK's "Error executing tool" prefix and puts the stable code
in ``_meta["fsguard/error"]``. Errors never carry structuredContent.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.nearby import NearPaths
from fsguard.core.oserrors import from_os_error, in_state_dir

logger = logging.getLogger("fsguard")

ERROR_META_KEY = "fsguard/error"

P = ParamSpec("P")
R = TypeVar("R")


class CodedToolError(ToolError):
    """A ToolError that remembers the core error's code and fields."""

    def __init__(self, error: FsguardError) -> None:
        super().__init__(error.message)
        self.code = error.code
        self.fields = error.fields


def bridge(fn: Callable[P, R]) -> Callable[P, R]:
    """Re-raise the core's FsguardError as CodedToolError; the wrapped signature (and schema) is unchanged."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except FsguardError as exc:
            raise CodedToolError(exc) from exc
        except PermissionError as exc:
            # pathlib's exists(), is_file() and is_dir() raise EACCES where a directory on the way may not be
            # searched: a path below one is refused by the OS, whichever check met it first, not a crash
            raise CodedToolError(from_os_error(exc, exc.filename or "a path")) from exc

    return wrapper


def error_result(code: str, message: str, fields: dict[str, Any] | None = None) -> CallToolResult:
    """An isError result: one text block, the code in ``_meta``, no structuredContent."""
    return CallToolResult(
        content=[TextContent(type="text", text=message)],
        is_error=True,
        meta={ERROR_META_KEY: {"code": code, **(fields or {})}},
    )


def error_code(result: CallToolResult) -> str | None:
    """The code of an error result, None for a success."""
    return (result.meta or {}).get(ERROR_META_KEY, {}).get("code") if result.is_error else None


def result_for(exc: ToolError, tool: str) -> CallToolResult:
    """The error result for a ToolError raised while calling ``tool``."""
    cause = exc.__cause__
    if _refused_form(exc):  # the SDK's words name fsguard's own resolver: say what the client sent
        return error_result(
            "invalid_params",
            f"{tool}: the client's answer was not the form asked (one box, ticked or not: true or false), so nothing "
            "was changed. Call it again to be asked again.",
        )
    if isinstance(cause, CodedToolError):
        # Imported here: importing fsguard.voice loads every voice and result model, which a server answering
        # only tools/list (a cold start) never needs.
        from fsguard.voice.paths import shortened_error

        return error_result(cause.code, shortened_error(cause.args[0]), cause.fields)
    if isinstance(cause, ValidationError):
        return error_result("invalid_params", _describe_validation(tool, cause))
    if isinstance(exc, UnexpectedToolError):
        # The text promises the details in the log: the SDK would log the crash, but the server answers it first.
        logger.error("%s failed unexpectedly", tool, exc_info=cause or exc)
        return error_result(
            "internal_error", f"{tool} failed unexpectedly; the details are in the server log. Retry, or report it."
        )
    return error_result("invalid_params", str(exc))


# The title of the confirmation form (tools/_confirm.ConfirmForm), which its validation errors carry.
CONFIRM_FORM = "ConfirmForm"


# The SDK's words for an answer accepted with no form at all, in both eras (a ToolError naming the resolver on
# 2026-07-28, a ValueError from ctx.elicit on 2025-11-25): only a confirmation's form is ever asked for.
_NO_CONTENT = "accepted elicitation with no content"


def _refused_form(exc: BaseException) -> bool:
    """Whether ``exc`` comes of an answer to a confirmation that is not its form (a "yes" where a box was asked, or
    no content at all): the SDK raises it, wrapped, from the form's validation error, or in its own words."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ValidationError) and seen.title == CONFIRM_FORM:
            return True
        if (
            isinstance(seen, ToolError | ValueError)
            and not isinstance(seen, CodedToolError)
            and _NO_CONTENT in str(seen).lower()
        ):
            return True
        seen = seen.__cause__
    return False


def with_near_paths(result: CallToolResult, near: NearPaths) -> CallToolResult:
    """A not_found refusal naming the existing paths its path is likely a misspelling of (``did_you_mean``), when
    there are any; any other result as it is."""
    fields = dict((result.meta or {}).get(ERROR_META_KEY, {}))
    if fields.pop("code", None) != "not_found":
        return result
    sent = "".join(block.text for block in result.content if isinstance(block, TextContent))
    text, found = near.hint(sent, fields)
    if text == sent:
        return result
    from fsguard.voice.paths import shortened_error

    meant = {"did_you_mean": [str(path) for path in found]} if found else {}
    return error_result("not_found", shortened_error(text), {**fields, **meant})


def state_dir_error(result: CallToolResult, state_dir: Path) -> CallToolResult:
    """A full or read-only filesystem met in fsguard's own state directory, told as such (:func:`in_state_dir`);
    any other result as it is."""
    fields = dict((result.meta or {}).get(ERROR_META_KEY, {}))
    code = fields.pop("code", None)
    text = "".join(block.text for block in result.content if isinstance(block, TextContent))
    if code == "batch_failed":  # its first line ends with the failed operation's error, told the same way
        head, newline, rest = text.partition("\n")
        told = in_state_dir(fields.get("error_code"), head, fields.get("error_path"), state_dir, _STATE_ADVICE)
        return result if told is None else error_result(code, told + newline + rest, fields)
    told = in_state_dir(code, text, fields.get("path"), state_dir, _STATE_ADVICE)
    return result if told is None else error_result(str(code), told, fields)


_STATE_ADVICE = {
    "read_only_filesystem": "That is fsguard's state directory (its backups, trash and journal): ask the user to "
    "restart fsguard with --state-dir on a writable filesystem, or to have this one remounted read-write.",
    "disk_full": "That is fsguard's state directory: backup(action='purge_trash') and backup(action='cleanup') "
    "free what it keeps there.",
}


# Pydantic's error types for a value of the wrong JSON type, and the type the parameter takes.
_EXPECTED = {
    "int_parsing": "number",
    "int_type": "number",
    "float_parsing": "number",
    "float_type": "number",
    "bool_parsing": "boolean",
    "bool_type": "boolean",
    "string_type": "string",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
}


_CHOICE = re.compile(r"'([^']*)'")  # one choice in pydantic's "'before' or 'after'"


def _describe_validation(tool: str, error: ValidationError) -> str:
    """Pydantic's errors as one short line per parameter, without its documentation links; a value of the wrong
    type and a missing parameter are worded as the seed words them (catalog §0.1): prompts and tests look for it."""
    lines = []
    for item in error.errors(include_url=False):
        name = json.dumps(".".join(str(part) for part in item["loc"]) or "arguments")
        if item["type"] == "missing":
            lines.append(f"• missing required parameter {name}")
        elif item["type"] in _EXPECTED:
            lines.append(f"• parameter {name}: expected {_EXPECTED[item['type']]}, got {_json_type(item['input'])}")
        elif item["type"] == "literal_error":
            lines.append(_outside_choices(name, item["loc"], item["input"], item["ctx"]["expected"]))
        else:
            lines.append(f"• parameter {name}: {item['msg']}")
    return f"{tool}: invalid arguments:\n" + "\n".join(lines) + f"\nCall help(tool={tool!r}) for the parameters."


def _outside_choices(name: str, loc: tuple[int | str, ...], value: Any, expected: str) -> str:
    """A value outside a parameter's choices, in the seed's words: 'position must be "after" or "before"' for a
    pair, 'Unknown action: X. Valid: list, info, …' for more, 'invalid output "x". Valid: …' for git's output
    (catalog §1.3 F, Appendix A)."""
    choices = _CHOICE.findall(expected)
    bare = str(loc[-1]) if loc else "value"
    if len(choices) == 2:
        pair = " or ".join(json.dumps(choice) for choice in sorted(choices))
        return f"• parameter {name}: {bare} must be {pair} (got {_json_type(value)})"
    if bare == "output":  # git's own word for it (Appendix A: 'invalid output "x". Valid: stat, name-only, full')
        return f"• invalid output {json.dumps(value)}. Valid: {', '.join(choices)}"
    return f"• Unknown {bare}: {_shown(value)}. Valid: {', '.join(choices)}"


def _shown(value: Any) -> str:
    """A value as sent: a string as it is, anything else as JSON; a long one cut."""
    shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return shown if len(shown) <= 60 else f"{shown[:57]}..."


def _json_type(value: Any) -> str:
    """The JSON type of a value as sent, and the value itself where it is short."""
    kind = {bool: "boolean", int: "number", float: "number", str: "string", list: "array", dict: "object"}
    name = kind.get(type(value), "null" if value is None else type(value).__name__)
    shown = json.dumps(value, ensure_ascii=False) if isinstance(value, (bool, int, float, str)) else ""
    return f"{name} {shown}" if shown and len(shown) <= 40 else name


def missing_path(tool: str, example: str) -> InvalidParamsError:
    """The error of a call with neither path nor paths, worded as a missing ``path`` is (as the seed's validator
    words it: path is required unless paths is given), with a call to copy."""
    return InvalidParamsError(
        f'{tool}: invalid arguments:\n• missing required parameter "path" (or pass paths)\nExample: {example}.'
    )
