"""Swapping two names in one step, as a racing process does (Linux ``renameat2(RENAME_EXCHANGE)``)."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from pathlib import Path

from fsguard.core.beneath import Pinned, lstat_at

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_libc = ctypes.CDLL(None, use_errno=True)


def exchange(first: Path, second: Path) -> None:
    """Swap ``first`` and ``second`` atomically: at any instant each name holds one of the two entries."""
    if _libc.renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def swapped_after_the_look(link: Path, plain: Path) -> Callable[[Pinned], os.stat_result | None]:
    """An ``lstat_at`` that, once it has seen ``link`` as a symlink, swaps it with the file ``plain``: the look found a
    link, the readlink that follows finds a file."""

    def racing(entry: Pinned) -> os.stat_result | None:
        found = lstat_at(entry)
        if entry.name == link.name and link.is_symlink():
            exchange(link, plain)
        return found

    return racing
