"""batch_operations, request form: the client's JSON as a frozen request, every problem in it reported at once.

Operations are numbered from 0, as in the result's ``operations`` list. Each type takes its own fields and
refuses the others (a stray ``content`` on a delete is a mistake worth hearing about); ``description`` and
the seed's unused ``options`` are accepted anywhere and ignored. The seed's aliases are kept: ``search``,
``find`` and ``pattern`` for old_text, ``replace`` and ``replacement`` for new_text (the canonical name wins
when both are given), plus ``old_str``/``new_str``, ``action``/``op`` for type, ``dest``/``dest_path`` for
destination and ``source_path`` for source. copy, move and extract take ``source`` or ``path``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

from fsguard.core.confirmation import Entry, plural
from fsguard.core.errors import InvalidParamsError
from fsguard.core.pathforms import escaped
from fsguard.core.shortlist import problem_rows
from fsguard.core.spelling import meant_name

OperationType = Literal["write", "edit", "search_and_replace", "copy", "move", "delete", "create_dir", "extract"]
TYPES: tuple[str, ...] = get_args(OperationType)
_TYPE_ALIASES = {"create_directory": "create_dir", "search_replace": "search_and_replace", "rename": "move"}
# Other tools' words for a type, too far from it for spelling to find (``remove`` is two edits from ``move``):
# suggested only, as taking them would run what the caller may not have meant.
_TYPE_MEANT = {"remove": "delete", "rm": "delete", "unlink": "delete", "mkdir": "create_dir", "replace": "edit"}

_ALIASES = {
    "action": "type",
    "op": "type",
    "source_path": "source",
    "dest": "destination",
    "dest_path": "destination",
    "search": "old_text",
    "find": "old_text",
    "pattern": "old_text",
    "old_str": "old_text",
    "old_string": "old_text",
    "replace": "new_text",
    "replacement": "new_text",
    "new_str": "new_text",
    "new_string": "new_text",
}
_IGNORED = frozenset({"description", "options"})
_TEXT = frozenset({"content", "old_text", "new_text"})  # "" is a value here (an empty file, a deletion)
_INT = frozenset({"start_line", "end_line", "occurrence"})
_BOOL = frozenset({"append", "replace_all", "recursive", "permanent", "allow_rewrite"})
_REQUIRED: dict[str, tuple[str, ...]] = {
    "write": ("path", "content"),
    "edit": ("path", "old_text", "new_text"),
    "search_and_replace": ("path", "old_text", "new_text"),
    "copy": ("source", "destination"),
    "move": ("source", "destination"),
    "delete": ("path",),
    "create_dir": ("path",),
    "extract": ("source", "destination", "start_line", "end_line"),
}
_OPTIONAL: dict[str, tuple[str, ...]] = {
    "write": ("append", "expected_hash"),
    "edit": ("replace_all", "occurrence", "expected_hash", "allow_rewrite"),
    "search_and_replace": ("expected_hash",),
    "copy": (),
    "move": ("expected_hash",),
    "delete": ("recursive", "permanent", "expected_hash"),
    "create_dir": (),
    "extract": ("append", "expected_hash"),
}
_MEANING = {
    "path": "the file or directory",
    "source": "what to copy, move or extract from (or path)",
    "destination": "where it goes",
    "content": 'the text to write ("" for an empty file)',
    "old_text": "the exact text to replace",
    "new_text": 'its replacement ("" deletes old_text)',
    "start_line": "the first line to extract, from 1",
    "end_line": "the last line to extract, inclusive",
}
_TOP_LEVEL = ("operations", "atomic", "create_backup", "validate_only", "force", "description")
_TRUE = frozenset({"true", "1", "yes"})
_FALSE = frozenset({"false", "0", "no"})
_EXAMPLE = '{"operations": [{"type": "write", "path": "a.txt", "content": "hi"}]}'


@dataclass(frozen=True, kw_only=True)
class BatchOperation:
    """One operation; ``path`` is the source of a copy, move or extract."""

    index: int
    type: OperationType
    path: str
    destination: str | None = None
    content: str | None = None
    old_text: str | None = None
    new_text: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    append: bool = False
    expected_hash: str | None = None
    replace_all: bool = False
    occurrence: int | None = None  # as edit_file's: 1 the first match, -1 the last; 0 or absent, none named
    recursive: bool = False
    permanent: bool = False
    allow_rewrite: bool = False
    # A delete's, set by the tool once the user confirmed the batch: the entries (st_dev, st_ino) its question
    # measured, the only ones it may delete permanently or with a non-empty directory's contents; None: not asked.
    confirmed: frozenset[Entry] | None = None

    @property
    def label(self) -> str:
        """How messages name it: ``operation 2 (move a.txt → b.txt)``."""
        target = escaped(self.path) + (f" → {escaped(self.destination)}" if self.destination is not None else "")
        return f"operation {self.index} ({self.type} {target})"


@dataclass(frozen=True, kw_only=True)
class BatchRequest:
    """A whole request_json.

    ``create_backup`` and ``force`` are accepted for the seed's clients and change nothing: backups are
    always taken, and no guard of a batch is skipped by force (an edit that looks like a whole-file
    rewrite takes the operation's own ``allow_rewrite``, as in edit_file).

    ``problems`` are what parsing found; the validation pass reports them with its own, so one answer lists
    everything. ``operations`` then lacks the ones that did not parse (each keeps its ``index``).
    """

    operations: tuple[BatchOperation, ...]
    problems: tuple[str, ...] = ()
    atomic: bool = True
    validate_only: bool = False
    create_backup: bool = True
    force: bool = False


def refuse(problems: list[str], header: str) -> InvalidParamsError:
    """One error listing the problems, one per line (the first few of a long list), every one in its errors field."""
    listed = "\n".join(problem_rows(problems, field="errors"))
    return InvalidParamsError(
        f"{header} ({plural(len(problems), 'problem')}; operations are numbered from 0). Nothing was run.\n{listed}\n"
        "Fix them all, then send the batch again (validate_only: true checks it without running it).",
        errors=problems,
    )


def parse_request(raw: Any) -> BatchRequest:
    """The request in ``raw`` (an object, or a bare list of operations), with the problems found in it.

    Raises:
        InvalidParamsError: there is no operations array to parse; ``errors`` lists every problem.
    """
    if isinstance(raw, list):
        raw = {"operations": raw}
    if not isinstance(raw, dict):
        raise InvalidParamsError(f"request_json must be an object like {_EXAMPLE} (or an array of operations).")
    problems = [
        f"request_json: unknown field {key!r}{_suggest(key, _TOP_LEVEL)}" for key in raw if key not in _TOP_LEVEL
    ]
    flags = {
        name: _boolean(raw.get(name), default, f"request_json.{name}", problems)
        for name, default in (("atomic", True), ("validate_only", False), ("create_backup", True), ("force", False))
    }
    listed = raw.get("operations")
    if not isinstance(listed, list) or not listed:
        given = listed is not None and not isinstance(listed, list)  # "operations": "write a.txt" is not missing
        shape = f"must be an array, not {type(listed).__name__}" if given else "array is required and cannot be empty"
        problems.append(f"operations {shape}, e.g. {_EXAMPLE}")
        raise refuse(problems, "request_json is invalid")
    operations = [_operation(index, item, problems) for index, item in enumerate(listed)]
    parsed = tuple(op for op in operations if op is not None)
    return BatchRequest(operations=parsed, problems=tuple(problems), **flags)


def _operation(index: int, item: Any, problems: list[str]) -> BatchOperation | None:
    where = f"operation {index}"
    if not isinstance(item, dict):
        problems.append(f'{where}: must be an object like {{"type": "write", "path": ..., "content": ...}}')
        return None
    unknown: list[str] = []
    fields, found = _canonical(item, unknown)
    kind = _type(fields.get("type"), where, problems)
    if kind is None:
        problems.extend(f"{where}: {problem}" for problem in unknown)
        return None
    if kind in ("copy", "move", "extract") and "path" in fields:
        if "source" in fields and fields["source"] != fields["path"]:
            unknown.append("source and path differ; give the source once")
        fields.setdefault("source", fields.pop("path"))
    where = f"{where} ({kind} {fields.get('source', fields.get('path', '?'))})"
    problems.extend(f"{where}: {problem}" for problem in unknown)
    values = _values(kind, fields, found, where, problems)
    problems.extend(f"{where}: {problem}" for problem in _consistency(kind, values, fields))
    if any(values.get(name) is None for name in _REQUIRED[kind]):
        return None
    path = values.pop("source", None) or values.pop("path")
    return BatchOperation(index=index, type=kind, path=path, **values)


def _values(
    kind: str, fields: dict[str, Any], found: dict[str, str], where: str, problems: list[str]
) -> dict[str, Any]:
    """The fields this type takes, typed; a field it does not take is a problem, not silently dropped, unless it
    is blank (null or ""): clients that fill every field of every operation type send the others empty."""
    allowed = (*_REQUIRED[kind], *_OPTIONAL[kind])
    values: dict[str, Any] = {}
    for name, value in fields.items():
        if name == "type" or (name not in allowed and value in (None, "")):
            continue
        if name not in allowed:
            given = found.get(name, name)
            problems.append(f"{where}: {kind} does not take {given!r}; its fields are {', '.join(allowed)}")
            continue
        values[name] = _value(name, value, f"{where}: {name}", problems)
    return values


def _consistency(kind: str, values: dict[str, Any], given: dict[str, Any]) -> list[str]:
    # Missing only when not given at all: a given one that is wrong (a number, "") has its own problem already.
    problems = [f"missing {name} ({_MEANING[name]})" for name in _REQUIRED[kind] if given.get(name) is None]
    if kind in ("edit", "search_and_replace") and values.get("old_text") == "":
        problems.append("old_text is empty; give the exact text to replace")
    if values.get("occurrence") and values.get("replace_all"):
        problems.append("occurrence changes one match and replace_all every match: pass one of them")
    start, end = values.get("start_line"), values.get("end_line")
    if isinstance(start, int) and isinstance(end, int) and not 1 <= start <= end:
        problems.append(f"start_line ({start}) and end_line ({end}) must satisfy 1 <= start_line <= end_line")
    return problems


def _canonical(item: dict[str, Any], problems: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The fields under their canonical names (the canonical spelling wins), and which name each came from."""
    known = {*_TEXT, *_INT, *_BOOL, "type", "path", "source", "destination", "expected_hash"}
    fields: dict[str, Any] = {}
    found: dict[str, str] = {}
    for name, value in item.items():
        if name in _IGNORED:
            continue
        target = _ALIASES.get(name, name)
        if target not in known:
            problems.append(f"unknown field {name!r}{_suggest(name, sorted(known | set(_ALIASES)))}")
            continue
        if target in fields and (name != target or found[target] == target):
            continue  # the canonical name wins over an alias; among aliases, the first one given
        fields[target] = value
        found[target] = name
    return fields, found


def _type(value: Any, where: str, problems: list[str]) -> OperationType | None:
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{where}: missing type (one of {', '.join(TYPES)})")
        return None
    name = value.strip().lower().replace("-", "_")
    name = _TYPE_ALIASES.get(name, name)
    if name not in TYPES:
        meant = _TYPE_MEANT.get(name)
        hint = f" (did you mean {meant!r}?)" if meant else _suggest(name, TYPES)
        problems.append(f"{where}: unknown operation type {value!r}{hint}; types: {', '.join(TYPES)}")
        return None
    return cast(OperationType, name)


def _value(name: str, value: Any, where: str, problems: list[str]) -> Any:
    if value is None:
        return None
    if name in _BOOL:
        return _boolean(value, False, where, problems)
    if name in _INT:
        return _integer(value, where, problems)
    if not isinstance(value, str):
        problems.append(f"{where} must be a string, not {type(value).__name__}")
        return None
    if name not in _TEXT and not value.strip():
        problems.append(f"{where} is empty")
        return None
    return value


def _boolean(value: Any, default: bool, where: str, problems: list[str]) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    problems.append(f"{where} must be true or false, not {value!r}")
    return default


def _integer(value: Any, where: str, problems: list[str]) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().removeprefix("-").isdigit():  # occurrence -1: the last match
        return int(value)
    problems.append(f"{where} must be a whole number, not {value!r}")
    return None


def _suggest(name: str, candidates: tuple[str, ...] | list[str]) -> str:
    # Within two edits, as every other suggestion: difflib's ratio offered far-off names ('source' for 'occurrence').
    meant = meant_name(name, [c for c in candidates if c not in _ALIASES], _ALIASES)
    return f" (did you mean {meant!r}?)" if meant else ""
