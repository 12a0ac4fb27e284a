"""The open directory of each root, where every pinned walk starts, pinned again when the root is made anew.

A root removed and made again while the server runs (``rm -rf proj && git clone …``, an unpacked tarball, a
checkout tool that swaps directories) left the server walking the deleted directory: listings were empty, every file
"did not exist", and a new file could not be written. A walk now starts from the directory at the root's path, as it
did at start-up: opened without following a link in its place, so a root swapped for a symlink leads nowhere else.
"""

from __future__ import annotations

import os
import stat
import threading
import weakref
from pathlib import Path

from fsguard.core.errors import NotFoundError
from fsguard.core.oserrors import from_os_error

# A directory held only to start walks from: never read, and never a link followed in its place.
DIR_FLAGS = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC


class RootFds:
    """One open fd per root; :meth:`of` gives the fd of the directory at the root's path now."""

    def __init__(self, roots: tuple[Path, ...]) -> None:
        self._fds: dict[Path, int] = {}
        self._retired: list[int] = []  # replaced, kept open: another thread may still walk from it
        self._lock = threading.Lock()
        # A server built in a test is dropped, not stopped: its root fds close when it is collected.
        self._release = weakref.finalize(self, _close_all, self._fds, self._retired)
        for root in roots:
            try:
                self._fds[root] = os.open(root, DIR_FLAGS)
            except OSError as exc:
                raise from_os_error(exc, root) from exc
        self.held = frozenset(self._fds.values())  # a walk closes only the fds it opened, never these

    def of(self, root: Path) -> int:
        """The fd of the directory at ``root``'s path: the pinned one while it is still that directory.

        Raises:
            NotFoundError: nothing is at the root's path any more, or no directory.
        """
        fd = self._fds[root]
        try:
            now = root.lstat()
        except FileNotFoundError:
            raise _gone(root, "was removed") from None
        except OSError:
            return fd  # cannot tell (a parent turned unsearchable): the walk from the pinned one says what it meets
        pinned = os.fstat(fd)
        if now.st_ino == pinned.st_ino and now.st_dev == pinned.st_dev:
            return fd
        if not stat.S_ISDIR(now.st_mode):
            raise _gone(root, "is no longer a directory (a link or a file took its place)")
        return self._repinned(root, fd)

    def close(self) -> None:
        """Release every fd now."""
        self._release()

    def _repinned(self, root: Path, old: int) -> int:
        with self._lock:
            if self._fds[root] != old:  # another thread pinned it again meanwhile
                return self._fds[root]
            try:
                fresh = os.open(root, DIR_FLAGS)
            except OSError as exc:
                raise from_os_error(exc, root) from exc
            self._retired.append(old)
            self._fds[root] = fresh
            self.held = frozenset((*self._fds.values(), *self._retired))
            return fresh


def _gone(root: Path, what: str) -> NotFoundError:
    return NotFoundError(
        f"the root {root} {what} since the server started: nothing under it can be reached. Ask the user to make it "
        "again (a new directory there is used at once) or to restart fsguard with another root.",
        path=str(root),
    )


def _close_all(fds: dict[Path, int], retired: list[int]) -> None:
    for fd in (*fds.values(), *retired):
        os.close(fd)
    fds.clear()
    retired.clear()
