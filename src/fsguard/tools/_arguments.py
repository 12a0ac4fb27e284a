"""Argument hygiene before the SDK validates: unknown names, aliases, JSON strings, ignored keys, blank choices.

The tool's own input schema is the only list of valid names, so this cannot drift from it.

An empty string sent for an optional choice (diff_format, mode, position, output_format, action …) or for an
optional number, boolean or list (what forms send for a blank field), or for an optional path, encoding, hash or
backup id (:data:`BLANK_MEANS_ABSENT`), is taken as absent, so the parameter's default
applies: the seed read "" as "not given" everywhere (catalog §1.3, §2.16).
Any other value outside the choices is still refused: the seed's "any other mode falls into replace" would turn
a typo such as mode="regx" into a literal replace of the wrong text.

null sent for an optional parameter whose schema has no null (``max_depth``, ``append``, ``mode`` …) is taken as
absent too, and so is the text "null" where the parameter takes no text (the SDK reads it as JSON there): clients
that fill every field of a form send null for the ones left blank, and the seed read a JSON null as the
parameter's zero value, its default. A required parameter sent as null is still refused. Both rules
apply inside the items of a list of objects too (multi_edit's ``edits``, edit_file's ``patterns_json``).

Likewise 0 sent for an optional number that must be at least 1 (start_line, end_line, max_depth, limit,
max_results, max_lines …) is taken as absent: the seed read 0 as "not given" (a range read starts only at
start_line > 0, limits of 0 fall back to their defaults), and harnesses fill unset numbers with 0. Negative
numbers are still refused, and so are true and false sent for a number (Python would read them as 1 and 0), as the
seed refused them (catalog §0.1).
"""

from __future__ import annotations

import json
import re
from typing import Any

from fsguard.core.errors import InvalidParamsError, UnknownParamError
from fsguard.core.oserrors import lone_surrogate, shorten
from fsguard.core.shortlist import first_few
from fsguard.core.spelling import meant_name

# Accepted on every tool and dropped: many harnesses add it to every call.
IGNORED = frozenset({"description"})
# Optional text parameters for which "" can only mean "not given": a path, an encoding, a hash or an id is never
# empty (content, new_text or a replacement may well be).
BLANK_MEANS_ABSENT = frozenset(
    {"path", "file_path", "filter_path", "output_path", "wsl_path", "windows_path"}
    | {"encoding", "expected_hash", "backup_id", "sd_id"}
)
ALIASES = {"old_str": "old_text", "old_string": "old_text", "new_str": "new_text", "new_string": "new_text"}
# Aliases of one tool only: git has a real ``output`` parameter of its own.
TOOL_ALIASES = {
    "search_files": {"output": "output_format"},
    "list_directory": {"output": "output_format"},
}


def normalize(tool: str, arguments: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments ready for validation, or an UnknownParamError naming the closest valid name.

    Raises:
        UnknownParamError: a name the tool does not take.
        InvalidParamsError: a JSON-string list or object that does not parse.
    """
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    result: dict[str, Any] = {}
    implied: dict[str, Any] = {}  # what a value sent means for other parameters, unless they are sent too
    unknown: list[str] = []
    aliases = {**ALIASES, **TOOL_ALIASES.get(tool, {})}
    for name, value in arguments.items():
        if name in IGNORED and name not in properties:
            continue
        target = aliases.get(name, name) if name not in properties else name
        if target not in properties:
            unknown.append(name)
            continue
        if target != name and (target in arguments or target in result):
            continue  # the canonical name wins over its alias, whatever the order, then the first alias (the seed's)
        if _blank_field(target, value, properties, required):
            continue
        if _is_zero(value) and target not in required and _zero_is_not_given(properties[target]):
            continue
        prop = properties[target]
        if isinstance(value, str) and (means := IMPLIED_BY_VALUE.get((tool, name), {}).get(value)) is not None:
            implied.update(means)
            continue
        if target != name:
            _check_alias_choice(tool, name, target, value, prop)
        if _takes_structure(prop):
            value = _without_blank_fields(_decode_json_string(name, value, _lists_strings(prop), tool, prop), prop)
            _check_item_numbers(value, prop)
        _check_number(name, value, prop)
        _check_characters(name, value)
        result[target] = value
    if unknown:
        raise UnknownParamError(_unknown_message(tool, unknown, sorted(properties)), param=unknown[0])
    return {**implied, **result}


# Values of a parameter (by the name sent) that mean other parameters, unless the call sends those too: ripgrep's
# and Claude Code's output modes sent as search_files' ``output`` (the seed's usage doc listed them, its code took
# any value for a content search, catalog §1.7) run the search they name.
IMPLIED_BY_VALUE: dict[tuple[str, str], dict[str, dict[str, bool]]] = {
    ("search_files", "output"): {
        "content": {"include_content": True},
        "files_with_matches": {"include_content": True, "count_only": True},
        "count": {"include_content": True, "count_only": True},
    }
}


def _check_alias_choice(tool: str, name: str, target: str, value: Any, prop: dict[str, Any]) -> None:
    """Refuse a value outside the choices of the parameter an alias stands for, by the name the caller sent: the
    SDK's refusal would name a parameter the caller never wrote.

    Raises:
        InvalidParamsError: naming both names and the choices.
    """
    choices = [choice for option in _non_null(prop) for choice in option.get("enum", ())]
    if not choices or not isinstance(value, str) or value in choices:
        return
    raise InvalidParamsError(
        f"parameter {json.dumps(name)} ({target}): {json.dumps(shorten(value))} is not one of {', '.join(choices)}. "
        f"Pass one of them, or leave {name} out for the default.",
        param=name,
    )


def _check_number(name: str, value: Any, prop: dict[str, Any]) -> None:
    """Refuse true or false where the parameter takes only numbers: Python reads them as 1 and 0, so
    ``occurrence: true`` became "the first one" without a word. The seed refused them (catalog §0.1).

    Raises:
        InvalidParamsError: naming the parameter.
    """
    if isinstance(value, bool) and _takes_only_numbers(prop):
        raise InvalidParamsError(
            f"parameter {json.dumps(name)}: expected number, got boolean {json.dumps(value)}. Send a number such as 1, "
            "or leave the parameter out for its default.",
            param=name,
        )


def _check_item_numbers(value: Any, prop: dict[str, Any]) -> None:
    """:func:`_check_number` for the fields of each item of a list of objects (edit_file's ``patterns_json``)."""
    fields = _item_schema(prop).get("properties", {})
    if not isinstance(value, list) or not fields:
        return
    for entry in value:
        for key, field in entry.items() if isinstance(entry, dict) else ():
            if key in fields:
                _check_number(key, field, fields[key])


def _takes_only_numbers(prop: dict[str, Any]) -> bool:
    options = _non_null(prop)
    return bool(options) and all(option.get("type") in ("integer", "number") for option in options)


# Half a UTF-16 surrogate pair, which JSON can spell ("\\ud800") and no text or file name holds. U+DC80-U+DCFF are
# kept: they stand for the bytes of a name that is not UTF-8, as Python reads one (surrogateescape).
_LONE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _check_characters(name: str, value: Any) -> None:
    """Refuse a value holding a lone surrogate, in any string of it: no encoding stores one, and deep in a tool
    (a path turned to bytes, a text encoded) it failed as internal_error.

    Raises:
        InvalidParamsError: naming the parameter and the surrogate.
    """
    if isinstance(value, str):
        found = None if value.isascii() else _LONE_SURROGATE.search(value)
        if found is not None:
            raise InvalidParamsError(f"{name} {lone_surrogate(found.group())}", param=name)
    elif isinstance(value, list):
        for item in value:
            _check_characters(name, item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_characters(name, key)
            _check_characters(name, item)


# Names other file tools give a parameter, too far from fsguard's for an edit distance to find: suggested only (an
# alias would silently take a name the model may have meant otherwise), and only where the tool has the parameter.
_MEANT: dict[str, tuple[str, ...]] = {
    "file_path": ("path", "source_path"),
    "filepath": ("path", "source_path"),
    "filename": ("path",),
    "file": ("path",),
    "dir": ("path",),
    "directory": ("path",),
    "source": ("source_path",),
    "src": ("source_path",),
    "destination": ("dest_path",),
    "dest": ("dest_path",),
    "dst": ("dest_path",),
    "target": ("dest_path",),
    "query": ("pattern", "find"),
    "search": ("pattern", "find"),
    "dry_run": ("preview",),
    "preview": ("dry_run",),
    "repo": ("path",),
    "repository": ("path",),
    "cwd": ("path",),
    "page": ("offset",),
    "skip": ("offset",),
    "start": ("offset", "start_line"),
    "page_size": ("limit", "max_results"),
    "count": ("limit", "max_results", "max_lines"),
}


def _unknown_message(tool: str, unknown: list[str], valid: list[str]) -> str:
    # Double quotes, as the seed words it ('unknown parameter "include>" (did you mean "include"?)', catalog §0.1/§4):
    # prompts and tests written for the seed look for that text.
    parts = []
    listed = first_few(unknown)
    for name in listed:
        # Another tool's name for the parameter first: "repo" is two edits from git's "rev", which means otherwise.
        meant = (m for m in _MEANT.get(name.lower(), ()) if m in valid)
        suggestion = next(meant, None) or meant_name(name, valid, ALIASES)
        hint = f" (did you mean {json.dumps(suggestion)}?)" if suggestion else ""
        parts.append(f"unknown parameter {json.dumps(shorten(name))}{hint}")
    if len(listed) < len(unknown):
        parts.append(f"and {len(unknown) - len(listed):,} more unknown parameters")
    return f"{tool}: " + "; ".join(parts) + f". Valid parameters: {', '.join(valid)}."


def _options(prop: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas a parameter takes: each branch of an ``anyOf`` (``int | None``), or the one it has."""
    options: list[dict[str, Any]] = prop.get("anyOf", [prop])
    return options


def _non_null(prop: dict[str, Any]) -> list[dict[str, Any]]:
    """:func:`_options` without the null branch an optional parameter's schema has."""
    return [option for option in _options(prop) if option.get("type") != "null"]


def _blank_is_absent(prop: dict[str, Any]) -> bool:
    """True when no value the parameter takes is the empty string: a choice of strings none of which is empty (a
    schema enum), or a number, boolean, list or object (what a form sends for a field left blank)."""
    return _never_takes(prop, "")


def _never_takes(prop: dict[str, Any], text: str) -> bool:
    """True when ``text`` is no value of the parameter: it takes numbers, booleans, lists, objects or choices."""
    options = _non_null(prop)
    return bool(options) and all(
        option.get("type") != "string" or text not in option.get("enum", [text]) for option in options
    )


def _blank_field(name: str, value: Any, properties: dict[str, Any], required: set[str]) -> bool:
    """True for null or "" sent for an optional parameter that reads it as absent (see the module's docstring)."""
    if name not in properties or name in required:
        return False
    # The text "null" too where the parameter takes no text: the SDK reads it as JSON, so it is null there.
    if value is None or (value == "null" and _never_takes(properties[name], "null")):
        return not _admits_null(properties[name])
    return value == "" and (name in BLANK_MEANS_ABSENT or _blank_is_absent(properties[name]))


def _without_blank_fields(value: Any, prop: dict[str, Any]) -> Any:
    """The items of a list of objects (multi_edit's edits, edit_file's patterns_json) without their blank optional
    fields: clients that send null for every optional field do so inside the items too."""
    item = _item_schema(prop)
    if not isinstance(value, list) or not item:
        return value
    properties, required = item.get("properties", {}), set(item.get("required", ()))
    return [
        {key: field for key, field in entry.items() if not _blank_field(key, field, properties, required)}
        if isinstance(entry, dict)
        else entry
        for entry in value
    ]


def _item_schema(prop: dict[str, Any]) -> dict[str, Any]:
    """The schema of the items of a list of objects the parameter takes, or {} if it takes none."""
    items = next((option.get("items") for option in _options(prop) if option.get("type") == "array"), None)
    return items if isinstance(items, dict) and "properties" in items else {}


def _admits_null(prop: dict[str, Any]) -> bool:
    """True when the parameter's schema takes null itself (then null is passed on, not read as absent)."""
    return any(option.get("type") == "null" for option in _options(prop))


def _is_zero(value: Any) -> bool:
    # bool is an int in Python: false must stay a boolean, not become "absent".
    return type(value) in (int, float) and value == 0


def _zero_is_not_given(prop: dict[str, Any]) -> bool:
    """True when the parameter is a number whose smallest valid value is above 0 (so 0 can only mean "unset")."""
    options = _non_null(prop)

    def above_zero(option: dict[str, Any]) -> bool:
        minimum, exclusive = option.get("minimum"), option.get("exclusiveMinimum")
        return (minimum is not None and minimum > 0) or (exclusive is not None and exclusive >= 0)

    return bool(options) and all(
        option.get("type") in ("integer", "number") and above_zero(option) for option in options
    )


def _takes_structure(prop: dict[str, Any]) -> bool:
    """True when the parameter's schema admits an array or object (and not a string)."""
    types = {option.get("type") for option in _options(prop)}
    return bool(types & {"array", "object"}) and "string" not in types


def _lists_strings(prop: dict[str, Any]) -> bool:
    """True when the parameter takes an array of strings (``paths``)."""
    return any(
        option.get("type") == "array" and option.get("items", {}).get("type") == "string" for option in _options(prop)
    )


_SEED_JSON_REFUSALS = {"patterns_json": "Failed to parse patterns JSON"}  # the others: "Invalid <name> JSON"


def _decode_json_string(name: str, value: Any, lists_strings: bool, tool: str, prop: dict[str, Any]) -> Any:
    """A list or object sent as JSON text, tolerating trailing commas and raw newlines in strings.

    For a list of strings, one plain string that is not JSON text (``paths="src/a.py"``, as models often send a
    single path) is that one item: nothing else could be meant. Text that starts like JSON still has to parse.
    """
    if not isinstance(value, str):
        return value
    if lists_strings and value.strip()[:1] not in ("[", "{", '"'):
        return [value]
    try:
        decoded = _lenient_json(value)
    except json.JSONDecodeError as exc:
        # the seed's words first, which its callers match on: "Invalid request JSON: …", "Invalid paths JSON: …"
        seed = _SEED_JSON_REFUSALS.get(name, f"Invalid {name.removesuffix('_json')} JSON")
        raise InvalidParamsError(
            f"{seed}: parameter {json.dumps(name)} is not valid JSON ({exc.msg} at position {exc.pos}). "
            + _json_advice(tool, prop),
            param=name,
        ) from exc
    except RecursionError as exc:  # json nests by recursion: thousands of open brackets exhaust the stack
        raise InvalidParamsError(
            f"parameter {json.dumps(name)} nests arrays or objects too deeply to read (hundreds of levels). "
            "Send a flat list or object, as help(tool=...) shows.",
            param=name,
        ) from exc
    return [decoded] if lists_strings and isinstance(decoded, str) else decoded


def _json_advice(tool: str, prop: dict[str, Any]) -> str:
    """How to send the parameter, with an example of its own shape: a list of paths is not what an edit list or a
    batch request looks like."""
    for option in _options(prop):
        items = option.get("items", {}) if option.get("type") == "array" else {}
        if items.get("type") == "string":
            return 'Pass a native array, or JSON text such as ["a.txt", "b.txt"].'
        fields = items.get("properties", {})
        keys = [*items.get("required", ()), *(key for key in fields if key not in items.get("required", ()))][:2]
        if keys:
            return "Pass a native array, or JSON text such as [{" + ", ".join(f'"{key}": "..."' for key in keys) + "}]."
    return f"Pass a native object, or JSON text of the shape help(tool={tool!r}) shows."


def _lenient_json(text: str) -> Any:
    """``text`` read as JSON, raw newlines in strings allowed, and trailing commas when it does not read without them
    dropped: valid JSON holds none, and dropping them walks the text in Python (1 s for a batch of 5 MB)."""
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        return json.loads(strip_trailing_commas(text), strict=False)


def strip_trailing_commas(text: str) -> str:
    """Remove commas that directly precede ``]`` or ``}`` (ignoring whitespace), outside strings."""
    out: list[str] = []
    in_string = escaped = False
    pending_comma: int | None = None
    for char in text:
        if in_string:
            out.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            continue
        if char in "]}" and pending_comma is not None:
            out[pending_comma] = ""
        if char == ",":
            pending_comma = len(out)
        elif not char.isspace():
            pending_comma = None
        if char == '"':
            in_string = True
        out.append(char)
    return "".join(out)
