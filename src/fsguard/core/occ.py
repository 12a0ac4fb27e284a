"""Optimistic concurrency: expected_hash on every mutation, and the auto-OCC memory behind it.

``expected_hash`` is the contract: a mismatch refuses the mutation before anything is written or
backed up. Without it, the hash this session last returned or wrote for the file (fresh for ten
minutes) stands in: ``--auto-occ warn`` proceeds and reports the external change, ``block`` refuses,
``off`` ignores it. A file the session has not seen gets a one-time STALE_READ hint instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.errors import ExternalChangeError, StaleEditError
from fsguard.core.session import Session

AutoOccMode = Literal["off", "warn", "block"]
FRESHNESS_S = 600.0


@dataclass(frozen=True)
class OccVerdict:
    """What a mutation may proceed with, as facts for the result's notes (``voice.notes`` words them).

    ``known_hash`` is set when the file changed on disk since this session saw it (then ``current_hash`` is
    what it holds now); ``stale_read`` when the session has not seen the file lately. Refusals raise instead.
    """

    path: Path | None = None
    known_hash: str | None = None
    current_hash: str | None = None
    stale_read: bool = False


class ConcurrencyGuard:
    """Checks a file's current hash against what the caller or this session expects."""

    def __init__(self, session: Session, mode: AutoOccMode = "warn") -> None:
        self._session = session
        self._mode = mode

    def check(self, path: Path, current_hash: str, expected_hash: str | None) -> OccVerdict:
        """Refuse a stale mutation, or describe what the caller should know.

        Raises:
            StaleEditError: ``expected_hash`` differs from ``current_hash``.
            ExternalChangeError: auto-OCC is ``block`` and the file changed since this session saw it.
        """
        if expected_hash is not None:
            if expected_hash.strip().lower() != current_hash:
                raise StaleEditError(
                    f"stale edit: {path} changed since it was read (expected hash {expected_hash}, current "
                    f"{current_hash}). Nothing was written. Re-read the file, or retry with "
                    f"expected_hash={current_hash!r} if your change still applies to the current content.",
                    path=str(path),
                    expected_hash=expected_hash,
                    current_hash=current_hash,
                )
            return OccVerdict()
        known = self._session.known_hash(path)
        fresh = known is not None and time.monotonic() - known[1] < FRESHNESS_S
        if known is not None and fresh and known[0] != current_hash and self._mode != "off":
            if self._mode == "block":
                raise ExternalChangeError(
                    f"{path} changed on disk since this session last saw it (known hash {known[0]}, now "
                    f"{current_hash}): another process modified it. Nothing was written. Re-read the file, or "
                    f"pass expected_hash={current_hash!r} to edit the current content deliberately.",
                    path=str(path),
                    known_hash=known[0],
                    current_hash=current_hash,
                )
            return OccVerdict(path, known_hash=known[0], current_hash=current_hash)
        if not fresh and self._session.first_hint(path):
            return OccVerdict(path, stale_read=True)
        return OccVerdict()
