"""Swapping two names in one step, as a racing process does (Linux ``renameat2(RENAME_EXCHANGE)``)."""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100
_libc = ctypes.CDLL(None, use_errno=True)


def exchange(first: Path, second: Path) -> None:
    """Swap ``first`` and ``second`` atomically: at any instant each name holds one of the two entries."""
    if _libc.renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
