"""Parsing a pipeline request: every problem of a ``pipeline_json`` found and refused at once, before any step runs.

:func:`parse_pipeline` checks the name, the number of steps, step ids (shape, uniqueness), actions and their
params (unknown names get a did-you-mean), references to earlier steps (``input_from``, ``input_from_all``,
``condition.step_ref``: never the step itself or a later one), conditions, and literal regexes; it raises one
:class:`InvalidParamsError` listing each problem on its own line, naming the step's index and id and the field.
Params written beside ``action`` instead of inside ``params`` are taken as params; the edit aliases
``old_str``/``old_string``/``new_str``/``new_string`` are accepted.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fsguard.core.confirmation import plural
from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.patterns import compile_re2
from fsguard.core.pipeline import (
    ACTIONS,
    ALIASES,
    CONDITIONS,
    FILE_PARAMS,
    MAX_STEPS,
    PARAMS,
    Condition,
    PipelineRequest,
    Step,
)
from fsguard.core.shortlist import problem_rows

_REQUIRED: dict[str, tuple[tuple[str, str], ...]] = {
    "search": (("pattern", "the text to find"),),
    "edit": (("old_text", "the text to replace"), ("new_text", 'the replacement ("" deletes)')),
    "multi_edit": (("edits", 'a list of {"old_text", "new_text"}'),),
    "count_occurrences": (("pattern", "the text to count"),),
    "copy": (("destination", "the directory to copy into"),),
    "rename": (("destination", "the directory to move into"),),
}
_REQUEST_KEYS = ("name", "steps", "stop_on_error", "dry_run", "create_backup", "force", "verbose", "parallel")
_STEP_KEYS = ("id", "action", "type", "input_from", "input_from_all", "params", "condition")
_CONDITION_KEYS = ("type", "step_ref", "value", "path")
_DEFAULTS = {
    "stop_on_error": True,
    "dry_run": False,
    "create_backup": True,
    "force": False,
    "verbose": False,
    "parallel": False,
}
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_TRUE, _FALSE = {"true", "1", "yes"}, {"false", "0", "no"}


def parse_pipeline(raw: object) -> PipelineRequest:
    """The pipeline ``raw`` describes (a JSON object already decoded).

    Raises:
        InvalidParamsError: every problem found, one a line, each naming the step (index and id) and the field.
    """
    if not isinstance(raw, dict):
        raise InvalidParamsError(
            'pipeline_json must be an object: {"name": ..., "steps": [{"id": ..., "action": ..., "params": {...}}]}.'
        )
    problems: list[str] = []
    _unknown_keys(raw, _REQUEST_KEYS, "pipeline_json", problems)
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append('name: pipeline name is required; give the pipeline a short name, e.g. "rename-api".')
    flags: dict[str, Any] = {key: _flag(raw.get(key), default, key, problems) for key, default in _DEFAULTS.items()}
    steps: list[Step] = []
    listed = raw.get("steps")
    if not isinstance(listed, list) or not listed:
        problems.append("steps: missing or empty: at least one step is required; pass 1 to 20 steps.")
    elif len(listed) > MAX_STEPS:
        problems.append(f"steps: too many steps (max {MAX_STEPS}, got {len(listed)}); split it into smaller pipelines.")
    else:
        ids = _Ids()
        for number, item in enumerate(listed, 1):
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                ids.declared.setdefault(item["id"], number)
        for number, item in enumerate(listed, 1):
            step = _step(number, item, ids, problems)
            if step is not None:
                steps.append(step)
    if problems:
        raise InvalidParamsError(
            f"pipeline_json has {plural(len(problems), 'problem')}; nothing ran:\n"
            + "\n".join(problem_rows(problems, field="problems", bullet="•"))
            + "\nFix them and send the pipeline again (dry_run=true shows what it would do).",
            problems=problems,
        )
    assert isinstance(name, str)
    return PipelineRequest(name=name.strip(), steps=tuple(steps), **flags)


@dataclass
class _Ids:
    """Step ids: those seen so far (the steps a reference may name) and every id the request declares."""

    declared: dict[str, int] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)


def _step(number: int, item: object, ids: _Ids, problems: list[str]) -> Step | None:
    if not isinstance(item, dict):
        problems.append(f'step {number}: must be an object with an action, e.g. {{"action": "search", ...}}.')
        return None
    raw_id = item.get("id")
    # The seed's normalizer names a step without an id by its 0-based index ("step-0" is the first), and seed
    # pipelines refer to those names in input_from and templates.
    step_id = f"step-{number - 1}" if raw_id in (None, "") else raw_id
    where = f"step {number} '{step_id}'"
    if not isinstance(step_id, str) or not _ID.fullmatch(step_id):
        problems.append(f"{where}: invalid step ID: an id must be 1-64 letters, digits, '_' or '-'.")
    elif step_id in ids.seen:
        problems.append(f"{where}: duplicate step ID: already used by step {ids.seen[step_id]}; ids must be unique.")
    else:
        ids.seen[step_id] = number
    action = _action(item, where, problems)
    params = _params(item, action, where, problems)
    input_from = _reference(item.get("input_from"), "input_from", where, step_id, ids, problems)
    raw_all = item.get("input_from_all") or []
    if not isinstance(raw_all, list):
        problems.append(f"{where}: input_from_all must be a list of step ids.")
        raw_all = []
    input_all = [_reference(ref, "input_from_all", where, step_id, ids, problems) for ref in raw_all]
    sources = tuple(ref for ref in input_all if ref)
    condition = _condition(item.get("condition"), where, step_id, ids, problems, input_from)
    if action is not None and params is not None:
        _check_params(action, params, bool(input_from or sources), where, problems)
    if action is None or params is None or not isinstance(step_id, str):
        return None
    return Step(number, step_id, action, params, input_from, sources, condition)


def _action(item: dict[str, Any], where: str, problems: list[str]) -> str | None:
    _unknown_keys(item, (*_STEP_KEYS, *PARAMS.get(str(item.get("action") or item.get("type")), ())), where, problems)
    action = item.get("action") or item.get("type")
    if not isinstance(action, str) or not action:
        problems.append(f"{where}: action is missing; one of {', '.join(ACTIONS)}.")
        return None
    if action not in ACTIONS:
        problems.append(
            f"{where}: unsupported action {action!r}{_suggest(action, ACTIONS)}; one of {', '.join(ACTIONS)}."
        )
        return None
    return action


def _params(item: dict[str, Any], action: str | None, where: str, problems: list[str]) -> dict[str, Any] | None:
    """The step's params, aliases resolved; params written beside ``action`` instead of inside params count too."""
    raw = item.get("params") or {}
    if not isinstance(raw, dict):
        problems.append(f"{where}: params must be an object.")
        return None
    flat = {k: v for k, v in item.items() if action and k in PARAMS[action] and k not in _STEP_KEYS}
    params: dict[str, Any] = {}
    for key, value in {**flat, **raw}.items():
        canonical = ALIASES.get(key, key)
        if canonical not in params or key == canonical:
            params[canonical] = value
    return params


def _reference(ref: object, what: str, where: str, step_id: object, ids: _Ids, problems: list[str]) -> str | None:
    """A reference to an earlier step, or None (and a problem) when it names no earlier step."""
    if ref in (None, ""):
        return None
    if not isinstance(ref, str):
        problems.append(f"{where}: {what} must be a step id (a string).")
        return None
    if ref == step_id:
        problems.append(f"{where}: {what} refers to the step itself; a step can only use earlier steps.")
    elif ref in ids.declared and ref not in ids.seen:
        problems.append(
            f"{where}: {what} has forward reference to step {ref!r} (step {ids.declared[ref]}, which comes later); "
            "a step can only use the steps before it."
        )
    elif ref not in ids.seen:
        problems.append(
            f"{where}: {what} {ref!r} is a non-existent step{_suggest(ref, list(ids.seen))}; "
            "a step can only use the steps before it."
        )
    else:
        return ref
    return None


def _condition(
    raw: object, where: str, step_id: object, ids: _Ids, problems: list[str], input_from: str | None
) -> Condition | None:
    if raw is None:
        return None
    if not isinstance(raw, dict):
        problems.append(f'{where}: condition must be an object, e.g. {{"type": "has_matches", "step_ref": "find"}}.')
        return None
    _unknown_keys(raw, _CONDITION_KEYS, f"{where} condition", problems)
    kind = raw.get("type")
    if kind not in CONDITIONS:
        problems.append(
            f"{where}: condition type {kind!r} is unknown{_suggest(str(kind), CONDITIONS)}; one of "
            f"{', '.join(CONDITIONS)}."
        )
        return None
    if kind in ("file_exists", "file_not_exists"):
        path = raw.get("path")
        if not isinstance(path, str) or not path:
            problems.append(f"{where}: condition {kind} needs path (the file to look for).")
            return None
        return Condition(kind, path=path)
    ref = _reference(raw.get("step_ref") or input_from, "condition.step_ref", where, step_id, ids, problems)
    if ref is None and not raw.get("step_ref") and not input_from:
        problems.append(f"{where}: condition {kind} needs step_ref (the id of an earlier step).")
    value = None
    if kind.startswith("count_"):
        value = whole_number(raw.get("value"))
        if value is None:
            problems.append(f"{where}: condition {kind} needs value, an integer to compare the count with.")
    return Condition(kind, ref, value) if ref is not None else None


def _check_params(action: str, params: dict[str, Any], has_sources: bool, where: str, problems: list[str]) -> None:
    _unknown_keys(params, tuple(PARAMS[action]), f"{where} params", problems)
    for name, what in _REQUIRED.get(action, ()):
        value = params.get(name)
        if value is None or (value == "" and name != "new_text"):
            problems.append(f"{where}: {action} needs params.{name} ({what}).")
    own_files = any(params.get(key) for key in FILE_PARAMS) and action != "search"
    if action == "diff":
        own_files = own_files or bool(params.get("file_a") and params.get("file_b"))
    if action not in ("search",) and not has_sources and not own_files:
        needs = "input_from_all (the steps to combine)" if action == "merge" else "input_from (an earlier step)"
        problems.append(f"{where}: {action} has no files; pass {needs} or params.files.")
    if action == "merge" and params.get("mode", "union") not in ("union", "intersection"):
        problems.append(f"{where}: params.mode must be union or intersection.")
    try:
        _check_shapes(action, params, where, problems)
    except FsguardError as exc:  # an RE2 pattern that does not compile
        problems.append(f"{where}: {exc.message}")


def _check_shapes(action: str, params: dict[str, Any], where: str, problems: list[str]) -> None:
    """Lists of edits and patterns hold what they must; literal regexes compile (templates are checked later)."""
    if action == "multi_edit":
        edits = params.get("edits")
        if edits is not None and (not isinstance(edits, list) or not edits):
            problems.append(f'{where}: params.edits must be a non-empty list of {{"old_text", "new_text"}}.')
        for number, edit in enumerate(edits if isinstance(edits, list) else [], 1):
            keys = {ALIASES.get(k, k) for k in edit} if isinstance(edit, dict) else set()
            if not isinstance(edit, dict) or not {"old_text", "new_text"} <= keys or keys - {"old_text", "new_text"}:
                problems.append(f'{where}: params.edits[{number}] must be {{"old_text": ..., "new_text": ...}}.')
    if action == "regex_transform":
        patterns = params.get("patterns")
        if patterns is None and params.get("pattern") is None:
            problems.append(f'{where}: regex_transform needs params.patterns: [{{"pattern", "replacement"}}].')
        rules = patterns if isinstance(patterns, list) else [] if patterns is None else [None]
        for number, rule in enumerate(rules, 1):
            if not isinstance(rule, dict) or not isinstance(rule.get("pattern"), str):
                problems.append(f'{where}: params.patterns[{number}] must be {{"pattern": ..., "replacement": ...}}.')
            elif "{{" not in rule["pattern"]:
                compile_re2(rule["pattern"], what="pattern", advice=" (RE2 syntax).")
    _check_occurrence(action, params, where, problems)
    if action == "search" and _flag(params.get("regex"), False, f"{where}: params.regex", problems):
        pattern = params.get("pattern")
        if isinstance(pattern, str) and pattern and "{{" not in pattern:
            compile_re2(pattern, what="search pattern", advice=" (RE2 syntax; drop regex for a literal search).")


def _check_occurrence(action: str, params: dict[str, Any], where: str, problems: list[str]) -> None:
    """An edit's occurrence is a whole number (-1 the last) that does not meet replace_all; a template is checked
    when the step runs."""
    occurrence = params.get("occurrence")
    if action != "edit" or occurrence is None or (isinstance(occurrence, str) and "{{" in occurrence):
        return
    if whole_number(occurrence) is None:
        problems.append(f"{where}: params.occurrence must be a whole number (1 the first match, -1 the last).")
    # A replace_all that is not a flag yet (a template) meets occurrence when the step runs, in edit_file's refusal.
    elif whole_number(occurrence) and _flag(params.get("replace_all"), False, "replace_all", []):
        problems.append(
            f"{where}: params.occurrence changes one match and params.replace_all every match: pass one of them."
        )


def _unknown_keys(raw: Mapping[str, Any], known: tuple[str, ...], where: str, problems: list[str]) -> None:
    valid = ", ".join(sorted(known))
    problems.extend(
        f"{where}: unknown key {key!r}{_placed(key, known, where)}; valid: {valid}."
        for key in raw
        if key not in known and key != "description" and key not in ALIASES
    )


def _placed(key: str, known: tuple[str, ...], where: str) -> str:
    """Where ``key`` goes when it is the pipeline's own, given to a step (a risk_blocked step's advice to force it
    was followed on the step, a loop), else the key it may misspell."""
    if where != "pipeline_json" and key in _DEFAULTS:
        return f' (the pipeline\'s own: "{key}" goes at the top level of pipeline_json, beside "steps")'
    return _suggest(key, known)


def _suggest(word: str, choices: Any) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _flag(value: object, default: bool, name: str, problems: list[str]) -> bool:
    """A boolean written as JSON true/false or as the strings true/false/1/0/yes/no."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _TRUE | _FALSE:
        return value.lower() in _TRUE
    problems.append(f"{name}: expected true or false, got {value!r}.")
    return default


def whole_number(value: object) -> int | None:
    """An integer, or its text (-1 too); None for anything else, a bool among them."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    return None
