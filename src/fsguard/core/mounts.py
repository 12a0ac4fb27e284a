"""Mount points below a directory, so that removing a tree never reaches into another filesystem.

Removing a tree that holds a mount point empties the filesystem mounted there before the OS refuses the mount
point itself: a permanent delete of ``project`` with a disk mounted at ``project/data`` would erase that disk.
On Linux the mount table says where they are in one read (``/proc/self/mountinfo``), before anything is removed;
elsewhere the removal stops at the first directory on another device (:mod:`fsguard.core.rmtree`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_MOUNTINFO = Path("/proc/self/mountinfo")
_ESCAPE = re.compile(rb"\\([0-7]{3})")  # the kernel writes a space, tab, newline or backslash in a path as \ooo


def mounts_below(directory: Path) -> list[Path]:
    """The mount points strictly below ``directory`` (an absolute, resolved path), in the mount table's order;
    none where there is no table to read."""
    try:
        table = _MOUNTINFO.read_bytes()
    except OSError:
        return []
    below = os.fsencode(directory).rstrip(b"/") + b"/"
    found = []
    for line in table.splitlines():
        fields = line.split(b" ")
        if len(fields) > 4:  # id, parent, major:minor, root, mount point, …
            point = _ESCAPE.sub(lambda match: bytes([int(match.group(1), 8)]), fields[4])
            if point.startswith(below):
                found.append(Path(os.fsdecode(point)))
    return found
