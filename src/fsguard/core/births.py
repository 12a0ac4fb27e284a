"""When a file was created, where the filesystem records it.

``os.stat`` gives a birth time only on macOS and the BSDs (``st_birthtime``); Linux has kept one since 4.11 on ext4,
XFS, Btrfs and tmpfs, read by ``statx(2)``, which Python before 3.15 does not call. It is called through glibc here,
on the pinned entry (its directory's descriptor and its name, a link not followed), as ``lstat_at`` stats it.
"""

from __future__ import annotations

import ctypes
import functools
import os
import struct
from collections.abc import Callable

_STATX_BTIME = 0x800
_AT_SYMLINK_NOFOLLOW = 0x100
_STATX_SIZE = 256  # struct statx, with its spare room
_MASK_AT, _BTIME_AT = 0, 80  # offsets of stx_mask and stx_btime (tv_sec: s64, tv_nsec: u32)

Statx = Callable[[int, bytes, int, int, ctypes.Array[ctypes.c_char]], int]


@functools.cache
def _statx() -> Statx | None:
    """glibc's statx (2.28 and later); None where there is none (another libc, another system)."""
    try:
        call = ctypes.CDLL(None, use_errno=True).statx
    except (OSError, AttributeError):
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_char_p]
    call.restype = ctypes.c_int
    found: Statx = call
    return found


def birth_time(directory: int, name: str, st: os.stat_result) -> float | None:
    """The creation time of ``name`` in the directory open as ``directory`` (``st``: its stat); None when the system
    or the filesystem does not record one."""
    birth: float | None = getattr(st, "st_birthtime", None)
    if birth is not None:
        return birth
    call = _statx()
    if call is None:
        return None
    buffer = ctypes.create_string_buffer(_STATX_SIZE)
    if call(directory, os.fsencode(name), _AT_SYMLINK_NOFOLLOW, _STATX_BTIME, buffer) != 0:
        return None
    (mask,) = struct.unpack_from("=I", buffer, _MASK_AT)
    if not mask & _STATX_BTIME:  # the filesystem keeps none (ext2/3, NFS, many FUSE ones, overlay on some)
        return None
    seconds, nanoseconds = struct.unpack_from("=qI", buffer, _BTIME_AT)
    return int(seconds) + int(nanoseconds) / 1e9
