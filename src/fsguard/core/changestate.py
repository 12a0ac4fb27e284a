"""What is at a change group's paths now, as a revert judges it: a file's content hash, whether a copy or a move
left there has changed since (its fingerprint), whether anything is there at all."""

from __future__ import annotations

import stat
from pathlib import Path

from fsguard.core.beneath import lstat_at
from fsguard.core.disk import read_at
from fsguard.core.errors import FsguardError
from fsguard.core.groups import Change
from fsguard.core.hashing import content_hash
from fsguard.core.safeguards import Safeguards
from fsguard.core.trees import fingerprint


def file_state(safe: Safeguards, path: Path) -> str | None:
    """The content hash of the regular file at ``path``; None when nothing (or no regular file) is there."""
    try:
        with safe.beneath.entry(path, follow=False) as entry:
            found = lstat_at(entry)
            if found is None or not stat.S_ISREG(found.st_mode):
                return None
            return content_hash(read_at(entry)[0])
    except FsguardError:
        return None


def changed_since(safe: Safeguards, change: Change) -> bool:
    """Whether what a copy or move left at its path (a file, link or tree) has changed since: its fingerprint differs
    from the one recorded. Not when none was recorded (a group of an earlier version) or nothing is there now."""
    if change.after_hash is None:
        return False
    try:
        with safe.beneath.entry(Path(change.path), follow=False) as entry:
            return lstat_at(entry) is not None and fingerprint(entry)[0] != change.after_hash
    except FsguardError:
        return False


def exists(path: Path) -> bool:
    """Whether anything is at ``path``, a dangling link included."""
    return path.exists() or path.is_symlink()
