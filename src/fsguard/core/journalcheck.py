"""What a journal record must hold to be replayed: a line without the fields its event needs (written by hand, or
damaged into other JSON) is skipped, never taken into the replay, where a missing field stopped every start."""

from __future__ import annotations

import json
from dataclasses import fields
from types import NoneType
from typing import Any

_TEXT = (str,)
_MAYBE_TEXT = (str, NoneType)
# The fields a backup line must carry, and their JSON types (bool is an int to isinstance: "chained" is checked
# as one, and a size of true would be read as 1, harmlessly: its bytes then fail their hash).
_BACKUP_FIELDS: dict[str, tuple[type, ...]] = {
    "backup_id": _TEXT,
    "path": _TEXT,
    "time": (int, float),
    "operation": _TEXT,
    "size": (int,),
    "content_hash": _TEXT,
    "mode": (int,),
    "after_hash": _MAYBE_TEXT,
    "parent_backup_id": _MAYBE_TEXT,
    "chained": (bool,),
}
_OPTIONAL: dict[str, tuple[type, ...]] = {"blob": _TEXT, "dup": _TEXT, "codec": _TEXT, "inline": (int,)}
_NAMING = {"undo": _TEXT, "drop": _TEXT, "head": _MAYBE_TEXT}  # the events that name a backup by "id"


def parsed(line: bytes) -> dict[str, Any] | None:
    """The event ``line`` holds, or None when it is not one whose extent is known: not JSON (a damaged line),
    or a line whose ``inline`` is not a count of bytes (where the record ends is then unknown)."""
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict):
        return {}  # JSON, whole, but no event: a line to skip, not damage to look past
    size = event.get("inline")
    if size is not None and (type(size) is not int or size < 0):
        return None
    return event


def well_formed(event: dict[str, Any]) -> bool:
    """True when ``event`` has every field its kind needs, of the right type (an unknown kind is one a newer
    fsguard wrote: well formed, and ignored by the replay)."""
    kind = event.get("e")
    if kind == "backup":
        return all(isinstance(event.get(name), types) for name, types in _BACKUP_FIELDS.items()) and all(
            isinstance(event[name], types) for name, types in _OPTIONAL.items() if name in event
        )
    if kind in _NAMING:
        return "id" in event and isinstance(event["id"], _NAMING[kind])
    return isinstance(kind, str)


def record_fields(event: dict[str, Any]) -> dict[str, Any]:
    """The BackupRecord fields of a well-formed backup event (fields a newer fsguard added are left out)."""
    from fsguard.core.journal import BackupRecord

    return {field.name: event.get(field.name, "") for field in fields(BackupRecord)}
