"""What a stat says, as results show it: an entry's type, and its times in ISO 8601 UTC."""

from __future__ import annotations

import functools
import stat
from datetime import UTC, datetime

from fsguard.models import EntryType


def iso_time(timestamp: float) -> str:
    """A POSIX timestamp as ISO 8601 UTC with second precision, e.g. 2026-11-30T10:00:00Z."""
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@functools.lru_cache(maxsize=4096)
def iso_second(second: int) -> str:
    """``second`` as :func:`iso_time` gives it, remembered."""
    # Entries of one directory often share their modification second; formatting dominates a page without this.
    return iso_time(second)


def entry_type(mode: int) -> EntryType:
    """file, directory or other, from ``st_mode``."""
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "directory"
    return "other"
