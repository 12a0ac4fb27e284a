"""Other names of a root's directory, told apart by (device, inode) instead of by spelling.

Roots are compared as strings, and a directory can have more than one name: on a case-insensitive mount (macOS's
default volume, WSL's /mnt/c) ``proj/VENDOR`` is ``proj/vendor``, a name an agent can spell alone, and a bind mount
is another. A read-only root reached so is still read-only, and a directory holding a root under another name still
holds it.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from pathlib import Path

from fsguard.core.mounts import bind_source

Identity = tuple[int, int]  # (st_dev, st_ino)


def identity(path: Path) -> Identity | None:
    """``path``'s own (device, inode), a link not followed; None when nothing is there."""
    with suppress(OSError):
        found = path.lstat()
        return found.st_dev, found.st_ino
    return None


def identities(roots: Iterable[Path]) -> dict[Identity, Path]:
    """Each root by its identity now (a root gone since start-up is left to its name)."""
    return {ident: root for root in roots if (ident := identity(root)) is not None}


def aliased_root(canonical: Path, below: Path, known: dict[Identity, Path]) -> Path | None:
    """The root of ``known`` that ``canonical``, or a directory on its way up to ``below`` (the root it lies in,
    itself another name of one, say), is under another name, or that a bind mount holding it shows a part of; None
    when there is none."""
    for step in (canonical, *canonical.parents[: max(len(canonical.parts) - len(below.parts), 0)]):
        if (ident := identity(step)) is not None and (root := known.get(ident)) is not None:
            return root
    # A bind of a directory inside a known root (vendor/sub mounted at proj/sub) has that directory's identity, not
    # the root's: the mount table says where it lies.
    source = bind_source(canonical)
    if source is not None:
        return next((root for root in known.values() if source == root or root in source.parents), None)
    return None


def held_roots(canonical: Path, roots: Iterable[Path]) -> set[Path]:
    """The ``roots`` at or below the directory ``canonical`` names, whatever their spelling."""
    ident = identity(canonical)
    if ident is None:
        return set()
    return {root for root in roots if any(identity(step) == ident for step in (root, *root.parents))}
