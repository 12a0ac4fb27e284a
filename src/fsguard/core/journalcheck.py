"""What a journal record must hold to be replayed, and where whole records go on after damage in a journal's middle.

A record is one JSON line; a backup's saved bytes follow its line (``"inline": N``, then a newline), so a line
alone cannot say where a record starts: inside saved bytes there may be anything, lines shaped like records too.
After a record whose bytes are not where its line says (bytes lost or added in the middle, a bad sector), the
replay goes on at the first line that proves itself a record of this journal:

- a backup whose saved bytes end in their newline and hash to its ``content_hash`` (one from the old blob store,
  or a copy of bytes this journal holds, by its shape);
- an ``undo``, ``drop`` or ``head`` naming a backup the replay already holds.

Everything after it is read as usual. Bytes that hold no such line up to the end are a torn tail (a crash
mid-append): the next append cuts them off. A backup kept only in the damaged bytes is lost, whatever follows.
"""

from __future__ import annotations

import json
import os
from dataclasses import fields
from types import NoneType
from typing import IO, TYPE_CHECKING, Any

from fsguard.core.payloads import unpacked

if TYPE_CHECKING:
    from fsguard.core.journal import Replay

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
# The times a record may carry: those a date can be written for (years 1 to 9999). NaN, Infinity or 1e300 parse
# as JSON numbers but no listing, undo or restore answer can show them.
_TIMES = (-62_135_596_800.0, 253_402_300_799.0)
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
        return (
            all(isinstance(event.get(name), types) for name, types in _BACKUP_FIELDS.items())
            and all(isinstance(event[name], types) for name, types in _OPTIONAL.items() if name in event)
            and _TIMES[0] <= event["time"] <= _TIMES[1]  # False for NaN too
        )
    if kind in _NAMING:
        return "id" in event and isinstance(event["id"], _NAMING[kind])
    return isinstance(kind, str)


def record_fields(event: dict[str, Any]) -> dict[str, Any]:
    """The BackupRecord fields of a well-formed backup event (fields a newer fsguard added are left out)."""
    from fsguard.core.journal import BackupRecord

    return {field.name: event.get(field.name, "") for field in fields(BackupRecord)}


def ends_at(handle: IO[bytes], end: int) -> bool:
    """True when the newline that ends a backup's bytes is at ``end``."""
    handle.seek(end)
    return handle.read(1) == b"\n"


def journal_name(handle: IO[bytes]) -> str:
    return str(getattr(handle, "name", "?"))


def next_record(handle: IO[bytes], replay: Replay, start: int) -> int | None:
    """Where the first record that proves itself (see the module's doc) starts, at a line start from ``start`` on;
    None when there is none up to the end."""
    at = start
    end = os.fstat(handle.fileno()).st_size
    while at < end:
        handle.seek(at)
        line = handle.readline()
        if not line.endswith(b"\n"):
            return None
        event = parsed(line) if line.startswith(b"{") else None
        if event and well_formed(event) and _proven(handle, replay, event, at + len(line), end):
            return at
        at += len(line)
    return None


def _proven(handle: IO[bytes], replay: Replay, event: dict[str, Any], offset: int, end: int) -> bool:
    """True when ``event``, read from a line ending at ``offset``, can only be a record of this journal."""
    kind = event["e"]
    if kind in _NAMING:
        return event["id"] in replay.records
    if kind != "backup":
        return False
    known = next(iter(replay.records.values()), None)
    if known is not None and event["path"] != known.path:
        return False  # every record of a journal is of its one file
    size = event.get("inline")
    if size is None:
        return bool(event.get("blob")) or event.get("dup") in replay.payloads
    if offset + size >= end:
        return False
    handle.seek(offset)
    stored = handle.read(size + 1)
    if stored[-1:] != b"\n":
        return False
    data = unpacked(stored[:-1], event.get("codec", ""), event["size"])
    from fsguard.core.hashing import content_hash  # as backups.py: not needed by a start that reads no damage

    return data is not None and len(data) == event["size"] and content_hash(data) == event["content_hash"]
