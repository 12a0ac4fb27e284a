"""A trash entry as its ``meta.json`` describes it: the fields, their types and times, and the entry's id, which its
directory's name gives (a description copied or edited by hand must not send a restore or purge elsewhere)."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from fsguard.core.errors import InvalidParamsError


@dataclass(frozen=True)
class TrashEntry:
    """One soft-deleted file or directory."""

    sd_id: str
    original_path: str
    kind: str  # "file" or "directory"
    size: int
    files: int
    sha256: str | None  # None: a file in it was not readable by the server's user (a rename reads nothing)
    time: float

    @property
    def time_iso(self) -> str:
        return datetime.fromtimestamp(self.time, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")

    @property
    def is_directory(self) -> bool:
        return self.kind == "directory"


def new_sd_id(now: float) -> str:
    """``sd-YYYYMMDD-HHMMSS-`` + 16 hex digits (UTC)."""
    return "sd-" + datetime.fromtimestamp(now, UTC).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(8)


def check_sd_id(sd_id: str) -> str:
    """Refuse anything that is not a trash id before it is joined to a path."""
    parts = sd_id.split("-")
    ok = len(parts) == 4 and parts[0] == "sd" and parts[1].isdigit() and parts[2].isdigit()
    if not ok or len(parts[3]) != 16 or any(c not in "0123456789abcdef" for c in parts[3]):
        raise InvalidParamsError(
            f"invalid sd_id {sd_id!r}: expected sd-YYYYMMDD-HHMMSS-<16 hex>. List entries with "
            "backup(action='list_trash').",
            sd_id=sd_id,
        )
    return sd_id


_TIMES = (-62_135_596_800.0, 253_402_300_799.0)  # the times a date can be written for (years 1 to 9999)
_FIELDS = {"sd_id": str, "original_path": str, "kind": str, "size": int, "files": int, "sha256": str, "time": float}


def entry_of(text: str, home: str) -> TrashEntry:
    """The entry a meta.json's ``text`` describes, in the entry directory named ``home``: its id is that name, whatever
    the text says (a description copied or edited by hand must not send a restore or purge to another directory).

    Raises:
        ValueError, TypeError: not JSON, or not a description: a field missing, unknown, or of another type (a time
            that is a string would fail the listing's sort, and a size the purge's sum).
    """
    fields = json.loads(text)
    entry = TrashEntry(**fields)
    for name, kind in _FIELDS.items():
        value = fields[name]
        if name == "sha256" and value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is float else kind):
            raise TypeError(f"{name} is {value!r}, not {kind.__name__}")
    if not _TIMES[0] <= entry.time <= _TIMES[1]:  # NaN, Infinity, 1e300: no date shows it (False for NaN too)
        raise ValueError(f"time {entry.time!r} is no date")
    return replace(entry, sd_id=home)


def unknown_fields(text: str) -> str:
    """The fields of a meta.json's ``text`` this version does not know, named ("field 'x'"); "" for none."""
    try:
        fields = json.loads(text)
    except ValueError:
        return ""
    unknown = [f"field {name!r}" for name in fields if name not in _FIELDS] if isinstance(fields, dict) else []
    return ", ".join(unknown)
