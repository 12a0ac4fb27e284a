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
    """What a mutation may proceed with: notes for the result, never a refusal (those raise)."""

    external_change: str | None = None
    stale_read: str | None = None


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
            message = (
                f"{path} changed on disk since this session last saw it (known hash {known[0]}, now "
                f"{current_hash}): another process modified it."
            )
            if self._mode == "block":
                raise ExternalChangeError(
                    f"{message} Nothing was written. Re-read the file, or pass expected_hash={current_hash!r} "
                    "to edit the current content deliberately.",
                    path=str(path),
                    known_hash=known[0],
                    current_hash=current_hash,
                )
            return OccVerdict(external_change=message)
        if not fresh and self._session.first_hint(path):
            return OccVerdict(
                stale_read=f"STALE_READ: {path} was not read through this server in the last 10 minutes; "
                "read it (or pass expected_hash) so edits are checked against what you saw."
            )
        return OccVerdict()
