"""Many paths pinned in turn (:class:`Pins`): a project_replace reads hundreds of files in a few directories, and
the walk to each directory is made once while the next path shares it."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path

from fsguard.core.beneath import Beneath, Pinned


class Pins:
    """Pinned entries of many paths asked for in turn (walk order), the walk to a parent directory made once while
    the next path shares it: a project_replace reads hundreds of files in a few directories. The last component
    is only ever named, never followed (the caller opens it without following); each entry holds until the next
    is asked for, or the pins close.
    """

    def __init__(self, beneath: Beneath) -> None:
        self._beneath = beneath
        self._parent: Path | None = None
        self._held = ExitStack()
        self._fd = -1

    def __enter__(self) -> Pins:
        return self

    def __exit__(self, *_exc: object) -> None:
        self._held.close()

    def entry(self, path: Path) -> Pinned:
        """``path`` as its parent directory's fd and its name.

        Raises:
            AccessDeniedError, NotFoundError, NotDirectoryError: as :meth:`Beneath.directory` for the parent.
        """
        if path.parent != self._parent:
            self._held.close()
            self._parent = None  # a failed walk is walked again for the next path
            self._fd = self._held.enter_context(self._beneath.directory(path.parent, listed=False))
            self._parent = path.parent
        return Pinned(self._fd, path.name, path)
