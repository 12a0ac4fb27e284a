"""Optimistic concurrency: expected_hash on every mutation, and the auto-OCC memory behind it.

``expected_hash`` is the contract: a mismatch refuses the mutation before anything is written or
backed up. Without it, the hash this session last returned or wrote for the file (fresh for ten
minutes) stands in: ``--auto-occ warn`` proceeds and reports the external change, ``block`` refuses,
``off`` ignores it. A file the session has not seen gets a one-time STALE_READ hint instead.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.confirmation import plural
from fsguard.core.errors import ExternalChangeError, StaleEditError
from fsguard.core.session import Session

AutoOccMode = Literal["off", "warn", "block"]
FRESHNESS_S = 600.0
_SHOWN_HASH = 80  # longer than any hash a tool gives (sha256's 64 hex digits)
_LISTED = 10  # files a multi-file refusal names; the error's paths field has them all


def stale_read_head(path: object) -> str:
    """The opening of the one-time STALE_READ hint, in the seed's words, which its callers match on; an edit's
    success note and its failure each add their own advice."""
    minutes = f"{FRESHNESS_S / 60:.0f} minutes"
    return f"[STALE_READ] File was not read in the current session before editing ({path}, in the last {minutes})"


def _as_given(expected_hash: str) -> str:
    """The caller's expected_hash as a refusal repeats it: whole when it is hash-sized, else its start and length (an
    agent that passed a file's text there got it back whole, megabytes of answer)."""
    if len(expected_hash) <= _SHOWN_HASH:
        return expected_hash
    return f"{expected_hash[:16]}… ({len(expected_hash):,} characters)"


def blocked(path: Path | str, known: str, current: str, *, advice: str | None = None) -> ExternalChangeError:
    """``--auto-occ block``'s refusal; ``advice`` for a call that takes no expected_hash (a pipeline's step)."""
    advice = advice or f"Re-read the file, or pass expected_hash={current!r} to edit the current content deliberately."
    return ExternalChangeError(
        # The seed's words, which its callers match on, then what fsguard adds.
        f"blocked: file changed on disk since this session last read it: {path} (known hash {known}, on-disk "
        f"{current}) — another process may have modified it. Nothing was written. {advice}",
        path=str(path),
        known_hash=known,
        current_hash=current,
    )


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
                shown = _as_given(expected_hash)
                raise StaleEditError(
                    # The seed's words, which its callers match on, then what fsguard adds.
                    f"stale edit: file content changed since read (expected hash: {shown}, actual: "
                    f"{current_hash}). Re-read the file with read_file to get the current content_hash, then retry. "
                    f"Nothing was written to {path}; retry with expected_hash={current_hash!r} if your change still "
                    "applies to the current content.",
                    path=str(path),
                    expected_hash=shown,
                    current_hash=current_hash,
                )
            return OccVerdict()
        known = self._fresh_hash(path)
        if known is not None and known != current_hash and self._mode != "off":
            if self._mode == "block":
                raise blocked(path, known, current_hash)
            return OccVerdict(path, known_hash=known, current_hash=current_hash)
        if known is None and self._session.first_hint(path):
            return OccVerdict(path, stale_read=True)
        return OccVerdict()

    def check_all(self, files: Iterable[tuple[Path, str]]) -> dict[Path, OccVerdict]:
        """The auto-OCC check of a change to many files at once (path, current hash), before any is written.

        Only files this session saw lately count, and no STALE_READ hint is spent: a tree-wide change would
        use up the one hint of every file it looks at. Returns the files that changed on disk since (warn).

        Raises:
            ExternalChangeError: auto-OCC is ``block`` and some file changed since; it names every one.
        """
        if self._mode == "off":
            return {}
        changed = {}
        for path, current_hash in files:
            known = self._fresh_hash(path)
            if known is not None and known != current_hash:
                changed[path] = OccVerdict(path, known_hash=known, current_hash=current_hash)
        if changed and self._mode == "block":
            shown = list(changed.values())[:_LISTED]
            listed = "; ".join(f"{v.path} (known hash {v.known_hash}, now {v.current_hash})" for v in shown)
            if len(changed) > _LISTED:
                listed += f"; and {len(changed) - _LISTED} more"
            them = "it" if len(changed) == 1 else "them"
            raise ExternalChangeError(
                f"{plural(len(changed), 'file')} changed on disk since this session last saw {them} (another process "
                f"modified {them}): {listed}. Nothing was written. Re-read {them} with read_file, then run it again.",
                paths=[str(path) for path in changed],
            )
        return changed

    def _fresh_hash(self, path: Path) -> str | None:
        """The hash this session last handed out for ``path``, if that was in the last ten minutes."""
        known = self._session.known_hash(path)
        if known is None or time.monotonic() - known[1] >= FRESHNESS_S:
            return None
        return known[0]
