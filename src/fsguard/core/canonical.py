"""Canonical paths: the roots made canonical at start-up, and a user's path resolved against them.

Resolution is only the check; every act is pinned by fd afterwards (:mod:`fsguard.core.beneath`), walked from the
root directories opened at start-up. So the directories above a root are not looked at again on every call: a path
below a canonical root is resolved from that root down, one ``lstat`` per name below it, and only a path whose
names hold a link, ``.`` or ``..`` goes through ``os.path.realpath`` whole.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from fsguard.core.errors import AccessDeniedError, InvalidParamsError
from fsguard.core.oserrors import from_os_error
from fsguard.core.pathforms import names_below, within

_RETRIES = 8


def canonical_roots(roots: Iterable[Path], flag: str = "") -> tuple[Path, ...]:
    """``roots`` with their links resolved, each once; a missing or non-directory root is a configuration error,
    naming ``flag`` when the roots came with one (``--read-only-root``), else as a root."""
    canonical: list[Path] = []
    for root in roots:
        real = Path(os.path.realpath(root))
        if not real.is_dir():
            named = f"{flag} {root}" if flag else f"root {root}"
            raise InvalidParamsError(f"{named} is not an existing directory", path=str(root))
        if real not in canonical:
            canonical.append(real)
    return tuple(canonical)


def canonical_path(candidate: Path, user_path: str, roots: tuple[Path, ...]) -> Path:
    """``os.path.realpath(candidate)`` (a missing part kept as spelled), where ``roots`` are canonical; a path that
    resolves to itself is given back as it came: a remembered candidate keeps its parsed parts and hash.

    Raises:
        AccessDeniedError: the path kept changing (a link swapped for a directory and back) while it was resolved.
    """
    below = _below_a_root(str(candidate), roots)
    if below is not None:
        return candidate if below == str(candidate) else Path(below)
    for _attempt in range(_RETRIES):
        try:
            real = os.path.realpath(candidate)
            return candidate if real == str(candidate) else Path(real)
        except OSError as exc:  # realpath races: a link that turns into a directory between lstat and readlink
            if exc.errno != errno.EINVAL:
                raise from_os_error(exc, user_path) from exc
    raise AccessDeniedError(
        f"{user_path} kept changing while it was resolved (a link swapped for a directory and back). "
        "Retry once the path is stable.",
        path=user_path,
    )


def _below_a_root(text: str, roots: tuple[Path, ...]) -> str | None:
    """What realpath gives for ``text``, worked out from the deepest canonical root holding it, or None when a name
    below that root is a link, ``.`` or ``..`` (realpath decides those)."""
    root = max((root for root in roots if within(text, root)), key=lambda root: len(str(root)), default=None)
    if root is None:
        return None
    names = names_below(text, root)
    if "." in names or ".." in names or "" in names:
        return None
    path = str(root)
    for name in names:
        path = path + name if path.endswith("/") else f"{path}/{name}"
        try:
            mode = os.lstat(path).st_mode
        except OSError:  # nothing there (or not searchable): realpath keeps the rest as spelled, as here
            return text
        if stat.S_ISLNK(mode):
            return None
    return path
