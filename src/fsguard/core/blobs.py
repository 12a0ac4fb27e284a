"""The blob store of older versions: backups' bytes kept as content-addressed files, ``<aa>/<sha256>``.

Backups now keep their bytes in their file's journal (:mod:`fsguard.core.journal`); blobs are only read, and
removed once no live backup refers to them.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterator
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
        for blob, found in self._blobs():
            if blob.name not in live and found.st_mtime < cutoff:
                blob.unlink(missing_ok=True)
                freed += found.st_size
        return freed

    def size(self) -> int:
        """The bytes of every blob."""
        return sum(found.st_size for _, found in self._blobs())

    def _blobs(self) -> Iterator[tuple[Path, os.stat_result]]:
        """Each blob with its lstat: a regular file named by a sha256 in the directory of its first two digits.
        Nothing else is one: not a link (to a directory or file outside the store, which a collection would empty),
        not a file of another name, not what a directory of another name holds."""
        for blob in self.directory.glob("*/*"):
            try:
                shelf, found = blob.parent.lstat(), blob.lstat()
            except FileNotFoundError:
                continue
            named = len(blob.name) == 64 and blob.parent.name == blob.name[:2] and _is_hex(blob.name)
            if named and stat.S_ISDIR(shelf.st_mode) and stat.S_ISREG(found.st_mode):
                yield blob, found


def _is_hex(name: str) -> bool:
    return all(c in "0123456789abcdef" for c in name)
