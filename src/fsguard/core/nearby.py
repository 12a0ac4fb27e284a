"""The existing paths a missing one is likely a misspelling of, for a not_found refusal to name.

With several roots a relative path resolves under the first: the same path under another root is offered first, as
is one whose first component names another root (``other/lib/a.py``). Then the path is respelt one component at a
time from the deepest directory on its way that exists: a component that exists is kept, one that does not is
replaced by the names :func:`~fsguard.core.spelling.near_names` finds beside it (``Src/mian.py`` → ``src/main.py``).
Directories are listed through the pinned walk, only inside the roots, and a name a deny rule hides is never offered.
It runs only after a call has failed, within fixed bounds: a few listings of at most ``_SCANNED`` names each.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from itertools import islice
from pathlib import Path

from fsguard.core.beneath import Beneath, lstat_at
from fsguard.core.errors import FsguardError
from fsguard.core.pathforms import typeable, within
from fsguard.core.paths import PathPolicy
from fsguard.core.spelling import NEAR_LIMIT, near_names

_SCANNED = 10_000  # names of one directory compared, at most
_RESPELT = 2  # components replaced in one path, at most
_LISTINGS = 12  # directories listed for one missing path, at most
_LOOK = " Check the path with list_directory."


class NearPaths:
    """Finds the existing paths inside the roots that a missing path likely meant."""

    def __init__(self, policy: PathPolicy, beneath: Beneath) -> None:
        self._policy = policy
        self._beneath = beneath

    def refusal(self, error: FsguardError) -> tuple[str, list[str] | None]:
        """An error's message for an entry of a list (one of several paths), naming the paths a not_found one likely
        meant, and those paths (None when there are none)."""
        if error.code != "not_found":
            return error.message, None
        message, found = self.hint(error.message, error.fields)
        return message, [str(path) for path in found] or None

    def hint(self, message: str, fields: Mapping[str, object]) -> tuple[str, list[Path]]:
        """The ``message`` of a not_found refusal (its ``fields`` naming the path) with the paths it likely meant
        named in it, and those paths; the message as it is and no paths when none is close."""
        missing = fields.get("full_path") or fields.get("path")
        found = self.near(Path(missing)) if isinstance(missing, str) else []
        if not found:
            return self._not_utf8(message, Path(missing)) if isinstance(missing, str) else message, []
        named = f"Did you mean {' or '.join(str(path) for path in found)}?"
        if _LOOK not in message:
            return f"{message} {named}", found
        return message.replace(_LOOK, f" {named} Otherwise check the path with list_directory.", 1), found

    def _not_utf8(self, message: str, missing: Path) -> str:
        """``message`` saying why ``missing`` cannot be reached by name when its first missing component is how a
        name that is not UTF-8 is shown (``caf�``, U+FFFD for each byte): copied from a listing, it names no file, and
        no request can spell the real one. Else ``message`` as it is."""
        if "\ufffd" not in str(missing):
            return message
        gone = next((path for path in (*reversed(missing.parents), missing) if not os.path.lexists(path)), None)
        if gone is None or "\ufffd" not in gone.name or not self._policy.contains(gone.parent):
            return message
        from fsguard.models.wire import wire_text  # here: a start imports no model (tests/test_published.py)

        entries = self._entries(gone.parent, [1]) or {}
        if not any(name != gone.name and wire_text(name) == gone.name for name in entries):
            return message
        return (
            f"{message.replace(_LOOK, '').rstrip()} {gone.name} is how a name that is not UTF-8 is shown (each � a "
            "byte that is not), and no request can spell the real name. Tools that walk its directory still reach "
            f"it: search_files and project_replace in {gone.parent}, or copy_file of the whole directory. To use it "
            "by name, ask the user to rename it to UTF-8."
        )

    def near(self, missing: Path) -> list[Path]:
        """Up to :data:`~fsguard.core.spelling.NEAR_LIMIT` existing paths ``missing`` (absolute, canonical) is likely
        a misspelling of, likeliest first; none when it lies outside the roots or nothing is close."""
        missing = Path(os.path.normpath(missing))
        if not missing.is_absolute() or not self._policy.contains(missing):
            return []
        found = self._elsewhere(missing)
        listings = [_LISTINGS]
        for base in missing.parents:
            if not self._policy.contains(base) or self._policy.denied_by(base, is_dir=True) is not None:
                break
            entries = self._entries(base, listings)
            if entries is not None:
                found += self._respell(base, entries, missing.relative_to(base).parts, 0, listings)
                break
        return list(dict.fromkeys(path for path in found if path != missing))[:NEAR_LIMIT]

    def _elsewhere(self, missing: Path) -> list[Path]:
        """``missing`` below its root, found below another root: as it is, or with that root's name first."""
        roots = self._policy.active_roots()
        home = max((root for root in roots if within(missing, root)), key=lambda root: len(root.parts), default=None)
        if home is None:
            return []
        below = missing.relative_to(home).parts
        spelled = [root.joinpath(*below) for root in roots if root != home]
        if below:
            spelled += [root.joinpath(*below[1:]) for root in roots if root != home and root.name == below[0]]
        return [path for path in spelled if self._visible(path)]

    def _visible(self, path: Path) -> bool:
        """Whether ``path`` exists inside the roots, reached by the pinned walk, and no deny rule hides it."""
        try:
            with self._beneath.entry(path, follow=False) as pinned:
                found = lstat_at(pinned)
        except FsguardError:
            return False
        return found is not None and self._policy.denied_by(path, is_dir=stat.S_ISDIR(found.st_mode)) is None

    def _respell(
        self, directory: Path, entries: dict[str, bool], parts: tuple[str, ...], respelt: int, listings: list[int]
    ) -> list[Path]:
        """The paths below ``directory`` (whose names and kinds are ``entries``) spelling ``parts`` with at most
        :data:`_RESPELT` components replaced in all."""
        head, rest = parts[0], parts[1:]
        if head in entries:
            choices = [head]
        elif respelt < _RESPELT:
            choices, respelt = near_names(head, entries, NEAR_LIMIT), respelt + 1
        else:
            return []
        found: list[Path] = []
        for choice in choices:
            path, is_dir = directory / choice, entries[choice]
            if (rest and not is_dir) or not typeable(choice) or self._policy.denied_by(path, is_dir=is_dir):
                continue
            if not rest:
                found.append(path)
                continue
            below = self._entries(path, listings)
            if below is not None:
                found += self._respell(path, below, rest, respelt, listings)
            if len(found) >= NEAR_LIMIT:
                break
        return found[:NEAR_LIMIT]

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
