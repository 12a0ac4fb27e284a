"""git's object store: the bytes of every file a repository ever committed, hidden ones too (a ``.env`` committed
before a rule hid it, or pushed into a bare repository the agent made). Its files are the same bytes compressed, or
not at all (``core.looseCompression=0``; git-lfs keeps whole copies), so a file tool that read them would hand over
what the deny rules hide. No tool reads or lists it by path, and no search reads or names a file in it (the
searches' filter, :class:`fsguard.core.denial.HiddenFiles`); the git tool shows a file at a revision by its path,
which the rules judge."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from fsguard.core.errors import AccessDeniedError
from fsguard.core.pathforms import is_dot_git

_STORES = ("objects", "lfs")  # loose objects and packs; git-lfs's copies of large files
_GIT_PUTS = re.compile(r"[0-9a-f]{2}|pack|info")  # what git makes in ``objects``


def check_not_in_object_store(canonical: Path, root_of: Callable[[Path], Path | None]) -> None:
    """Refuse a path in the object store of a repository at or below its root (``root_of`` it): ``objects`` or
    ``lfs`` in a ``.git``, or in a directory holding ``HEAD`` and ``refs`` (a bare repository, a submodule's).

    Raises:
        AccessDeniedError: naming the store, and how to see a committed file instead.
    """
    if not _may_be_in_store(str(canonical)):
        return  # most paths end here, on their text
    store = _store_of(canonical, root_of(canonical))
    if store is not None:
        raise AccessDeniedError(
            f"{canonical} is in git's object store {store}, which holds the bytes of every file the repository "
            "committed, hidden ones too: fsguard never reads, lists or searches in it. See a committed file with "
            'git(action="show", rev="HEAD:path/to/file").',
            path=str(canonical),
        )


def in_object_store(path: str) -> bool:
    """Whether the absolute ``path`` (a file a search walked or rg found) lies in a repository's object store."""
    return _may_be_in_store(path) and _store_of(Path(path), None) is not None


def outside_object_stores(names: list[str], under: str) -> list[str]:
    """``names`` (relative to ``under``) less those in an object store: one C-level look at them all first, as
    most searches hold none (a name search may hold tens of thousands)."""
    joined = "\0".join(names).lower()
    if "objects" not in joined and "lfs" not in joined:
        return names
    lead = under.rstrip("/") + "/"
    return [name for name in names if not in_object_store(lead + name)]


def _may_be_in_store(path: str) -> bool:
    folded = path.lower()  # case-insensitive mounts open "OBJECTS" too
    return "/objects" in folded or "/lfs" in folded


def _store_of(path: Path, root: Path | None) -> Path | None:
    parts = path.parts
    for at in range(len(root.parts) if root is not None else 1, len(parts)):
        if parts[at].lower() in _STORES and _is_repository(Path(*parts[:at])):
            return Path(*parts[: at + 1])
    return None


def _is_repository(directory: Path) -> bool:
    """A ``.git``; a directory holding ``HEAD`` and ``refs``; or one whose ``objects`` holds only what git makes
    there. That last look keeps a bare repository's objects unread after an agent took its ``HEAD`` out, and
    nothing can be added to ``objects`` or taken from it to unmake it: once recognised, it is refused."""
    if is_dot_git(directory.name) or ((directory / "HEAD").is_file() and (directory / "refs").is_dir()):
        return True
    try:
        names = [entry.name for entry in (directory / "objects").iterdir()]
    except OSError:
        return False
    return bool(names) and all(_GIT_PUTS.fullmatch(name) for name in names)
