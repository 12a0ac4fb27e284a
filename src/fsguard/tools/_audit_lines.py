"""The audit line of one tool call, read from its answer: the canonical paths it acted on and the backups it took.

A result names them at its top (``path``; a move's or copy's ``source`` and ``destination``; minify_js's
``output_path``; ``backup_id``, or a group restore's ``safety_backup_id``), or, when the call acts on several files,
only in its list of them: delete_file's ``results``, project_replace's, a multi-file read's and a WSL sync's ``files``,
undo_last's and restore's ``restored`` (the backup they take is the safety backup of the bytes they replace), a group
restore's ``reverted``, a batch's ``operations``, ``renames`` and ``steps``, git restore's ``backups`` and
restore_trash's ``trash``. The audit log bounds how many of them a line lists (:data:`fsguard.core.audit.LISTED`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from mcp.types import CallToolResult

from fsguard.core.audit import AuditEntry
from fsguard.tools._errors import ERROR_META_KEY

CANCELLED = "cancelled"
_TOP_PATHS = ("path", "source", "destination", "output_path")
_TOP_BACKUPS = ("backup_id", "safety_backup_id")
# A list of the result, the fields of its items naming paths, and the one naming the backup the call took there.
_ITEMS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("results", ("path",), "backup_id"),
    ("files", ("path", "source", "destination"), "backup_id"),
    ("restored", ("path",), "safety_backup_id"),
    ("reverted", ("path", "source"), "safety_backup_id"),
    ("operations", ("path", "destination"), "backup_id"),
    ("renames", ("source", "destination"), None),
    ("steps", ("files",), None),
    ("backups", ("path",), "backup_id"),
    ("trash", ("original_path",), None),
)
# The backup tool's lists of backups and trash entries are what it shows (list, cleanup, list_trash), not what it
# wrote; only the trash it restores or purges is acted on.
_TRASH_ACTED_ON = frozenset({"restore_trash", "purge_trash"})


def audit_entry(
    name: str, arguments: dict[str, Any], result: CallToolResult, code: str | None, seconds: float
) -> AuditEntry:
    """The audit line of one call: what was asked, how it ended, the paths it acted on, the backups it took."""
    data = result.structured_content if isinstance(result.structured_content, dict) else {}
    text = "".join(block.text for block in result.content if block.type == "text")
    refusal = (result.meta or {}).get(ERROR_META_KEY, {}) if code else {}
    given = arguments.get("path") or arguments.get("source_path") or arguments.get("file_path")
    paths = tuple(dict.fromkeys(_paths(name, data)))
    # The canonical path the call acted on (the first of several), or the one its refusal names; as typed only when
    # neither says one.
    acted = paths[0] if paths else refusal.get("path") or given
    backups = tuple(dict.fromkeys(_backups(name, data)))
    return AuditEntry(
        tool=name,
        arguments=arguments,
        duration_ms=round(seconds * 1000, 3),
        status="error" if code else "ok",
        error_code=code,
        path=str(acted) if acted else None,
        # A path from a non-UTF-8 name holds surrogates. A cancelled call sent no answer.
        bytes_out=0 if code == CANCELLED else len(text.encode("utf-8", "surrogatepass")),
        backup_id=backups[0] if backups else None,
        risk=data.get("risk_level"),
        error=text if code else None,
        paths=paths,
        backup_ids=backups,
    )


def _paths(name: str, data: dict[str, Any]) -> Iterator[str]:
    """Every canonical path the result names, its own first; the items' only when it names none at its top."""
    # git's source is the revision a restore took its files from.
    top = [value for key in _TOP_PATHS if isinstance(value := data.get(key), str) and (name, key) != ("git", "source")]
    if top:
        yield from top
        return
    for key, fields, _ in _acted_lists(name, data):
        for item in data.get(key) or ():
            if isinstance(item, dict):
                for field in fields:
                    found = item.get(field)
                    if isinstance(found, str):
                        yield found
                    elif isinstance(found, list):  # a pipeline step's files
                        yield from (path for path in found if isinstance(path, str))


def _backups(name: str, data: dict[str, Any]) -> Iterator[str]:
    """The backup the call took (a group id covers all its files), else each one its items name."""
    top = [value for key in _TOP_BACKUPS if isinstance(value := data.get(key), str)]
    if top:
        yield top[0]
        return
    for key, _, field in _acted_lists(name, data):
        if field is not None:
            for item in data.get(key) or ():
                if isinstance(item, dict) and isinstance(found := item.get(field), str):
                    yield found


def _acted_lists(name: str, data: dict[str, Any]) -> Iterator[tuple[str, tuple[str, ...], str | None]]:
    for listed in _ITEMS:
        key = listed[0]
        if name == "git" and key != "backups":  # its files and paths are what git reports, not what fsguard wrote
            continue
        if name == "backup" and (key == "backups" or (key == "trash" and data.get("action") not in _TRASH_ACTED_ON)):
            continue
        yield listed
