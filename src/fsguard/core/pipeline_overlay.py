"""What a pipeline's dry run would have changed so far: the filesystem as its later steps must see it.

A dry run writes nothing, so a step planned against the disk missed what the steps before it would do: an edit
of the text an earlier edit writes failed (``no_match``) where the real run succeeds, and an edit of the text an
earlier edit removes was planned where the real run fails and rolls back. Each writing step of a dry run records
here what it would leave (:class:`Overlay`), once it has planned all its files; every later step reads through it.

An entry is what a path would hold: :class:`Edited` (the planned text, in the file's encoding), :class:`OnDisk`
(the bytes now at another path on disk: a copy or a move, of a file or of a directory and all inside) or
:data:`GONE` (deleted, or moved away). A path without an entry is what its nearest entered ancestor makes it, and
with none, itself on disk. A real run's overlay stays empty, so it reads the disk.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from pathlib import Path

from fsguard.core.textio import DecodedText


class _Gone(Enum):
    GONE = "gone"


GONE = _Gone.GONE
"""Nothing would be at the path: deleted, or moved away."""


@dataclass(frozen=True)
class OnDisk:
    """The path would hold what is on disk now at ``path`` (itself, unless an earlier step copies or moves it)."""

    path: Path


@dataclass(frozen=True)
class Edited:
    """The path would be a file holding ``decoded.text`` (in the encoding, BOM and line ends it has now)."""

    decoded: DecodedText


Planned = OnDisk | Edited | _Gone


class Overlay:
    """The planned state of the paths a dry run's earlier steps would change (see the module docstring)."""

    def __init__(self) -> None:
        self._entries: dict[Path, Planned] = {}

    def __bool__(self) -> bool:
        return bool(self._entries)

    def at(self, path: Path) -> Planned:
        """What ``path`` would hold once the steps recorded so far had run."""
        for above in (path, *path.parents):
            found = self._entries.get(above)
            if found is None:
                continue
            if above == path or found is GONE:
                return found
            if isinstance(found, Edited):  # a path below a file: nothing is there
                return GONE
            return OnDisk(found.path / path.relative_to(above))
        return OnDisk(path)

    def exists(self, path: Path) -> bool:
        """Whether anything (a link too, even a dangling one) would be at ``path``."""
        found = self.at(path)
        return isinstance(found, Edited) or (isinstance(found, OnDisk) and _exists(found.path))

    def is_file(self, path: Path) -> bool:
        """Whether ``path`` would be a regular file (or a link to one), as :meth:`Path.is_file` answers."""
        found = self.at(path)
        return isinstance(found, Edited) or (isinstance(found, OnDisk) and found.path.is_file())

    def is_dir(self, path: Path) -> bool:
        """Whether ``path`` would be a directory (or a link to one), as :meth:`Path.is_dir` answers."""
        found = self.at(path)
        return isinstance(found, OnDisk) and found.path.is_dir()

    def holds_entries(self, path: Path) -> bool:
        """Whether ``path`` would be a directory itself (not a link to one) with anything inside."""
        found = self.at(path)
        if not isinstance(found, OnDisk) or found.path.is_symlink() or not found.path.is_dir():
            return False
        try:
            on_disk = [path / child.name for child in found.path.iterdir()]
        except OSError:  # unreadable: the real delete finds out
            on_disk = []
        inside = on_disk + [p for p in self._entries if p != path and p.is_relative_to(path)]
        return any(self.exists(p) for p in inside)

    def below(self, directory: Path) -> list[Path]:
        """The paths with an entry inside ``directory`` (itself included), gone ones too."""
        return [path for path in self._entries if path.is_relative_to(directory)]

    def edited(self, path: Path, decoded: DecodedText, text: str) -> None:
        """``path`` would hold ``text``, in the encoding of ``decoded`` (what it holds before)."""
        self._entries[path] = Edited(replace(decoded, text=text))

    def copied(self, source: Path, target: Path) -> None:
        """``target`` would hold what ``source`` holds (a directory with all inside)."""
        self._place(target, self._carried(source, target))

    def moved(self, source: Path, target: Path) -> None:
        """``target`` would hold what ``source`` holds, and nothing would be left at ``source``."""
        carried = self._carried(source, target)
        self.deleted(source)
        self._place(target, carried)

    def deleted(self, path: Path) -> None:
        """Nothing would be at ``path``, nor inside it."""
        self._drop_inside(path)
        self._entries[path] = GONE

    def _carried(self, source: Path, target: Path) -> dict[Path, Planned]:
        """The entries ``source`` and what is inside it would have at ``target``: a directory's edited files move with
        it."""
        carried: dict[Path, Planned] = {target: self.at(source)}
        for path, found in self._entries.items():
            if path != source and path.is_relative_to(source):
                carried[target / path.relative_to(source)] = found
        return carried

    def _place(self, target: Path, carried: dict[Path, Planned]) -> None:
        self._drop_inside(target)
        self._entries.update(carried)

    def _drop_inside(self, path: Path) -> None:
        for inside in [p for p in self._entries if p != path and p.is_relative_to(path)]:
            del self._entries[inside]


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()
