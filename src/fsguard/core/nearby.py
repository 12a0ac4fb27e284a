"""The existing paths a missing one is likely a misspelling of, for a not_found refusal to name.

A path is respelt one component at a time from the deepest directory on its way that exists: a component that
exists is kept, one that does not is replaced by the names :func:`~fsguard.core.spelling.near_names` finds beside
it (``Src/mian.py`` → ``src/main.py``). Directories are listed through the pinned walk, only inside the roots, and
a name a deny rule hides is never offered. It runs only after a call has failed, within fixed bounds: a few
listings of at most ``_SCANNED`` names each.
"""

from __future__ import annotations

import os
from itertools import islice
from pathlib import Path

from fsguard.core.beneath import Beneath
from fsguard.core.errors import FsguardError
from fsguard.core.paths import PathPolicy
from fsguard.core.spelling import near_names

LIMIT = 3  # paths offered
_SCANNED = 10_000  # names of one directory compared, at most
_RESPELT = 2  # components replaced in one path, at most
_LISTINGS = 12  # directories listed for one missing path, at most


class NearPaths:
    """Finds the existing paths inside the roots that a missing path likely meant."""

    def __init__(self, policy: PathPolicy, beneath: Beneath) -> None:
        self._policy = policy
        self._beneath = beneath

    def near(self, missing: Path) -> list[Path]:
        """Up to :data:`LIMIT` existing paths ``missing`` (absolute, canonical) is likely a misspelling of, likeliest
        first; none when it lies outside the roots or nothing is close."""
        missing = Path(os.path.normpath(missing))
        if not missing.is_absolute() or not self._policy.contains(missing):
            return []
        listings = [_LISTINGS]
        for base in missing.parents:
            if not self._policy.contains(base) or self._policy.denied_by(base, is_dir=True) is not None:
                return []
            entries = self._entries(base, listings)
            if entries is not None:
                found = self._respell(base, entries, missing.relative_to(base).parts, 0, listings)
                return [path for path in found if path != missing]
        return []

    def _respell(
        self, directory: Path, entries: dict[str, bool], parts: tuple[str, ...], respelt: int, listings: list[int]
    ) -> list[Path]:
        """The paths below ``directory`` (whose names and kinds are ``entries``) spelling ``parts`` with at most
        :data:`_RESPELT` components replaced in all."""
        head, rest = parts[0], parts[1:]
        if head in entries:
            choices = [head]
        elif respelt < _RESPELT:
            choices, respelt = near_names(head, entries, LIMIT), respelt + 1
        else:
            return []
        found: list[Path] = []
        for choice in choices:
            path, is_dir = directory / choice, entries[choice]
            if (rest and not is_dir) or self._policy.denied_by(path, is_dir=is_dir) is not None:
                continue
            if not rest:
                found.append(path)
                continue
            below = self._entries(path, listings)
            if below is not None:
                found += self._respell(path, below, rest, respelt, listings)
            if len(found) >= LIMIT:
                break
        return found[:LIMIT]

    def _entries(self, directory: Path, listings: list[int]) -> dict[str, bool] | None:
        """The first names in ``directory`` and whether each is a directory (a link is not), None when it cannot
        be listed or the listings are spent."""
        if listings[0] <= 0:
            return None
        try:
            with self._beneath.directory(directory) as fd, os.scandir(fd) as scan:
                entries = {entry.name: entry.is_dir(follow_symlinks=False) for entry in islice(scan, _SCANNED)}
        except (FsguardError, OSError):
            return None
        listings[0] -= 1
        return entries
