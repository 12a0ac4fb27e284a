"""Mount points below a directory, so that removing a tree never reaches into another filesystem.

Removing a tree that holds a mount point empties the filesystem mounted there before the OS refuses the mount
point itself: a permanent delete of ``project`` with a disk mounted at ``project/data`` would erase that disk.
On Linux the mount table says where they are in one read (``/proc/self/mountinfo``), before anything is removed;
elsewhere the removal stops at the first directory on another device (:mod:`fsguard.core.rmtree`). The same
table names the mount a read-only error happened on (:func:`mount_point`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_MOUNTINFO = Path("/proc/self/mountinfo")
_ESCAPE = re.compile(rb"\\([0-7]{3})")  # the kernel writes a space, tab, newline or backslash in a path as \ooo
_Mount = tuple[bytes, bytes, bytes]  # (major:minor, its root in its filesystem, its mount point)


def mounts_below(directory: Path) -> list[Path]:
    """The mount points strictly below ``directory`` (an absolute, resolved path), in the mount table's order;
    none where there is no table to read."""
    below = os.fsencode(directory).rstrip(b"/") + b"/"
    return [Path(os.fsdecode(point)) for point in _points() if point.startswith(below)]


def mount_point(path: Path) -> Path | None:
    """The mount point of the mount holding ``path`` (an absolute, resolved path): the deepest one at or above it in
    the mount table; None where there is no table to read.

    A bind mount (a directory mounted on itself, then remounted read-only, say) is on the same device as its
    parent, so the device test of :meth:`Path.is_mount` never sees it and named ``/`` instead: only the table knows.
    """
    found = _holding(_mounts(), os.fsencode(path))
    return Path(os.fsdecode(found[2])) if found is not None else None


def bind_source(path: Path) -> Path | None:
    """Where ``path`` (absolute, resolved) lies in its filesystem as mounted whole, when the mount holding it is a bind
    of a directory inside it (``mount --bind vendor/sub elsewhere``): that directory's own path and the rest of
    ``path``; None for a path on a filesystem's own mount, or where the table cannot tell."""
    mounts = _mounts()
    here = os.fsencode(path)
    found = _holding(mounts, here)
    if found is None or found[1] == b"/":
        return None
    device, root, point = found
    whole = next((m[2] for m in mounts if m[0] == device and m[1] == b"/"), None)
    if whole is None:
        return None
    rest = here[len(point.rstrip(b"/")) :]
    return Path(os.fsdecode(whole.rstrip(b"/") + root + rest))


def _holding(mounts: list[_Mount], here: bytes) -> _Mount | None:
    """The mount holding the path ``here``: the deepest at or above it; of equals (mounts stacked on one point) the
    last listed, the one on top."""
    holding = [m for m in mounts if here == m[2] or here.startswith(m[2].rstrip(b"/") + b"/")]
    return max(reversed(holding), key=lambda m: len(m[2])) if holding else None


def _points() -> list[bytes]:
    """Every mount point in the mount table, in its order; none where there is no table to read."""
    return [point for _device, _root, point in _mounts()]


def _mounts() -> list[_Mount]:
    """Every mount in the mount table, in its order: (major:minor, its root in its filesystem, its mount point)."""
    try:
        table = _MOUNTINFO.read_bytes()
    except OSError:
        return []
    found = []
    for line in table.splitlines():
        fields = line.split(b" ")
        if len(fields) > 4:  # id, parent, major:minor, root, mount point, …
            found.append((fields[2], _unescaped(fields[3]), _unescaped(fields[4])))
    return found


def _unescaped(field: bytes) -> bytes:
    return _ESCAPE.sub(lambda match: bytes([int(match.group(1), 8)]), field)
