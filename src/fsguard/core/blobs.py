"""The blob store of older versions: backups' bytes kept as content-addressed files, ``<aa>/<sha256>``.

Backups now keep their bytes in their file's journal (:mod:`fsguard.core.journal`); blobs are only read, and
removed once no live backup refers to them.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

_GC_GRACE_S = 3_600.0  # a blob this young may belong to a backup an older fsguard sharing the store still records


class OldBlobs:
    """The blobs of one store's ``blobs`` directory."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)

    def read(self, blob: str) -> bytes | None:
        """The bytes stored as ``blob`` (a sha256), or None when they are missing or damaged."""
        try:
            data = (self.directory / blob[:2] / blob).read_bytes()
        except FileNotFoundError:
            return None
        return data if hashlib.sha256(data).hexdigest() == blob else None

    def collect(self, live: set[str]) -> int:
        """Delete the blobs not in ``live`` (older than an hour); returns the bytes they held."""
        freed = 0
        cutoff = time.time() - _GC_GRACE_S  # blob mtimes are real time, whatever clock records use
        for blob in self.directory.glob("*/*"):
            found = blob.stat()
            if blob.name not in live and found.st_mtime < cutoff:
                blob.unlink(missing_ok=True)
                freed += found.st_size
        return freed

    def size(self) -> int:
        """The bytes of every blob."""
        return sum(blob.stat().st_size for blob in self.directory.glob("*/*"))
