"""git's object store: the bytes of every file a repository ever committed, hidden ones too (a ``.env`` committed
before a rule hid it, or pushed into a bare repository the agent made). Its files are the same bytes compressed, or
not at all (``core.looseCompression=0``; git-lfs keeps whole copies), so a file tool that read them would hand over
what the deny rules hide. No tool reads or lists it by path, and no content search reads or names a file in it (a
name search over a bare repository still lists its objects' names: object ids); the git tool shows a file at a
revision by its path, which the rules judge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fsguard.core.errors import AccessDeniedError
from fsguard.core.pathforms import is_dot_git

_STORES = ("objects", "lfs")  # loose objects and packs; git-lfs's copies of large files


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
    """Whether the absolute ``path`` (a file a search walked or rg found) lies in a repository's object store: a
    search never reads it, nor names it as holding a match (a bare repository's objects may be stored
    uncompressed)."""
    return _may_be_in_store(path) and _store_of(Path(path), None) is not None


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
    return is_dot_git(directory.name) or ((directory / "HEAD").is_file() and (directory / "refs").is_dir())
