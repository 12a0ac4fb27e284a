"""The hash check of a file a delete or a move takes whole: the file is loaded only when within --max-file-size.

Both checked ``expected_hash`` (and this session's memory of the file) by reading the whole file, whatever its
size: a move of a 3 GB file held 2 GB in memory for a rename, and a permanent delete saved the first 2 GiB of
it (one ``pread`` stops there) as the backup it offered to restore. Above the limit the file is never loaded.
"""

from __future__ import annotations

import os
from pathlib import Path

from fsguard.core.beneath import Pinned
from fsguard.core.disk import open_pinned, read_at
from fsguard.core.hashing import content_hash, hash_open_file
from fsguard.core.safeguards import Safeguards
from fsguard.core.steady import steady


def checked_bytes(safe: Safeguards, path: Path, entry: Pinned, size: int, expected_hash: str | None) -> bytes | None:
    """The bytes of the regular file ``entry`` (``size`` bytes by its stat), once ``expected_hash`` and the
    session's memory of it allow the change; None for a file above ``--max-file-size``, never loaded.

    Such a file's hash is streamed in constant memory, and only for an ``expected_hash``: the session never
    holds the hash of a file that size (reads and get_file_info give none), so without one nothing is checked.

    Raises:
        StaleEditError, ExternalChangeError: the file is not what the caller or the session saw.
        TooLargeError: it grew past the limit since its stat.
    """
    if size <= safe.max_file_size:
        data, _ = read_at(entry, safe.max_file_size)
        safe.guard.check(path, content_hash(data), expected_hash)
        return data
    if expected_hash is not None:
        safe.guard.check(path, _streamed_hash(entry), expected_hash)
    return None


def _streamed_hash(entry: Pinned) -> str:
    fd = open_pinned(entry)
    try:  # hashed in many reads: a file rewritten meanwhile must not pass for one never on disk (steady's doc)
        return steady(fd, os.fstat(fd), entry.path, lambda _: hash_open_file(fd))
    finally:
        os.close(fd)
