"""One file's copy: its bytes, owner, extended attributes, mode and times, into a new file made for it."""

from __future__ import annotations

import errno
import os
import stat

from fsguard.core.attributes import carry, xattrs_of
from fsguard.core.trees import CHUNK, READ_FILE


def copy_file(src_dir: int, src_name: str, dst_dir: int, dst_name: str) -> int:
    """Bytes, owner, extended attributes, mode and times into a new file (O_EXCL), fsynced; returns the bytes
    copied."""
    reader = os.open(src_name, READ_FILE, dir_fd=src_dir)
    try:
        found = os.fstat(reader)
        if not stat.S_ISREG(found.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", src_name)
        writer = os.open(
            dst_name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dst_dir
        )
        try:
            size = _pump(reader, writer, found.st_size)
            carry(writer, found, xattrs_of(reader))
            os.fsync(writer)
        finally:
            os.close(writer)
    finally:
        os.close(reader)
    return size


def _pump(reader: int, writer: int, size: int) -> int:
    """Copy the ``size`` bytes the source had when it was opened, in the kernel where it can (copy_file_range),
    else through a buffer. Not to its end: a log a process kept writing was chased for 6.5 GB (a minute)."""
    total = 0
    try:
        while total < size and (sent := os.copy_file_range(reader, writer, min(CHUNK, size - total))):
            total += sent
        return total
    except AttributeError:
        pass  # not Linux
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP) or total:
            raise
    while total < size and (chunk := os.read(reader, min(CHUNK, size - total))):
        view = memoryview(chunk)
        while view:
            view = view[os.write(writer, view) :]
        total += len(chunk)
    return total
