"""batch_operations, rename form: parse rename_json, run it in the core, build the BatchResult.

Every problem with the object is found before anything runs and reported together, one per line, each
naming its field. ``replace`` is accepted for regex_rename's ``replacement`` (the seed's spelling).
"""

from __future__ import annotations

from typing import Any, Literal

from fsguard.core.errors import InvalidParamsError
from fsguard.core.renameconflicts import NameConflict
from fsguard.core.renaming import MODES, RenameReport, RenameRequest
from fsguard.core.shortlist import problem_rows
from fsguard.core.spelling import closest
from fsguard.models.batch import BatchResult, RenameConflict, RenameEntry
from fsguard.services import Services

_TEXTS = ("path", "mode", "find", "replace", "prefix", "suffix", "pattern", "replacement", "extension", "file_pattern")
_NUMBERS = ("start_number", "padding")
_SWITCHES = ("recursive", "preview", "case_sensitive")
_FIELDS = sorted((*_TEXTS, *_NUMBERS, *_SWITCHES))
_EXAMPLE = 'Example: rename_json={"path": "photos", "mode": "add_prefix", "prefix": "2024_", "preview": true}.'


def run_rename(services: Services, raw: Any) -> BatchResult:
    """Run the rename form."""
    return _result(services.renamer.run(parse_rename(raw)))


def parse_rename(raw: Any) -> RenameRequest:
    """The request in ``raw``, or InvalidParamsError listing every problem, one per line."""
    if not isinstance(raw, dict):
        raise InvalidParamsError(f"rename_json must be an object, not {type(raw).__name__}. {_EXAMPLE}")
    problems: list[str] = []
    values: dict[str, Any] = {}
    rejected: set[str] = set()  # a field already reported is not reported again as "required"
    for key, value in raw.items():
        if key not in _FIELDS:
            suggestion = closest(str(key), _FIELDS)
            hint = f" (did you mean {suggestion!r}?)" if suggestion else ""
            problems.append(f"rename_json.{key}: unknown field{hint}. Fields: {', '.join(_FIELDS)}.")
            continue
        checked = _checked(key, value)
        if isinstance(checked, _Problem):
            problems.append(f"rename_json.{key}: {checked.text}")
            rejected.add(key)
        elif checked is not None:
            values[key] = checked
    if values.get("mode") == "regex_rename" and "replacement" not in values and "replace" in values:
        values["replacement"] = values.pop("replace")
    for required in ("path", "mode"):
        if required not in values and required not in rejected:
            what = "the directory whose files to rename" if required == "path" else f"one of {', '.join(MODES)}"
            problems.append(f"rename_json.{required}: required: {what}.")
    has_mode = "mode" in values
    request = RenameRequest(path=values.pop("path", ""), mode=values.pop("mode", ""), **values)
    if has_mode:
        problems += [f"rename_json.{field}: {text}" for field, text in request.problems() if field not in rejected]
    if problems:
        rows = problem_rows(problems, field="problems")
        raise InvalidParamsError("rename_json is invalid:\n" + "\n".join(rows) + f"\n{_EXAMPLE}", problems=problems)
    return request


class _Problem:
    def __init__(self, text: str) -> None:
        self.text = text


def _checked(key: str, value: Any) -> object:
    """``value`` as the field's type, None for JSON null (the default), or a _Problem."""
    if value is None:
        return None
    if key in _TEXTS:
        return value if isinstance(value, str) else _Problem(f"must be text, not {type(value).__name__}.")
    if key in _NUMBERS:
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            return _Problem(f"must be a whole number, not {value!r}.")
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return value if isinstance(value, bool) else _Problem(f"must be true or false, not {value!r}.")


def _result(report: RenameReport) -> BatchResult:
    in_conflict = {source for conflict in report.conflicts for source in conflict.sources}
    done: Literal["renamed", "planned"] = "renamed" if report.status == "applied" else "planned"
    entries = [
        RenameEntry(
            source=str(plan.source),
            destination=plan.shown_target,
            status="conflict" if str(plan.source) in in_conflict else done,
        )
        for plan in report.renames
    ]
    blocked = len(in_conflict)
    return BatchResult(
        form="rename",
        status=report.status,
        message="",
        backup_id=report.group_id,
        completed=0 if report.conflicts else len(entries),
        failed=blocked,
        renames=entries,
        conflicts=[_conflict(conflict) for conflict in report.conflicts],
    )


def _conflict(conflict: NameConflict) -> RenameConflict:
    return RenameConflict(
        kind=conflict.kind, destination=conflict.destination, sources=list(conflict.sources), reason=conflict.reason
    )
