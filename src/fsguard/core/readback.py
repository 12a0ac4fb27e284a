"""The read-back of a write: whether a pinned file holds exactly the bytes meant for it."""

from __future__ import annotations

import os

from fsguard.core.beneath import Pinned

_VERIFY_CHUNK = 1 << 20


def on_disk_equals(entry: Pinned, data: bytes) -> bool:
    """Whether the pinned file holds exactly ``data``."""
    fd = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=entry.parent)
    try:
        offset = 0
        # Reads no larger than what is left (plus one byte to see a longer file): a read buffer much larger
        # than the data costs more than the read. bytes.startswith compares in C without slicing ``data``.
        while chunk := os.read(fd, min(len(data) - offset, _VERIFY_CHUNK) + 1):
            if not data.startswith(chunk, offset):
                return False
            offset += len(chunk)
        return offset == len(data)
    finally:
        os.close(fd)
