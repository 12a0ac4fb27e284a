"""What a stat says, as results show it: an entry's type, its times in ISO 8601 UTC, a listing's entries."""

from __future__ import annotations

import functools
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

from fsguard.core.oserrors import from_os_error
from fsguard.models import DirectoryEntry, EntryType

_NS = 1_000_000_000


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


def page_entries(
    directory: Path, fd: int, names: list[str], links: dict[str, tuple[EntryType, os.stat_result]]
) -> list[DirectoryEntry]:
    """The entries named, stat'ed now; one removed since the scan is left out. (One loop, no call per entry
    but the stat: this is the whole cost of a page.)"""
    entries: list[DirectoryEntry] = []
    for name in names:
        link = links.get(name)
        if link is None:
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise from_os_error(exc, directory / name) from exc
            kind = entry_type(info.st_mode)
        else:
            kind, info = link
        # Keys in the schema's order: the page is not validated again (see DirectoryLister.page).
        modified = iso_second(info.st_mtime_ns // _NS)
        entry: DirectoryEntry
        if kind == "file":
            entry = {
                "name": name,
                "type": kind,
                "size": info.st_size,
                "modified": modified,
                "is_symlink": link is not None,
            }
        else:
            entry = {"name": name, "type": kind, "modified": modified, "is_symlink": link is not None}
        entries.append(entry)
    return entries
