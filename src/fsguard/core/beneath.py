"""Paths pinned by file descriptor: every act on a user path happens relative to a directory fd.

Each root is opened once at start-up. A canonical path (already checked by :class:`PathPolicy`) is
walked from its root's fd one component at a time with ``O_NOFOLLOW``, so the kernel never follows a
link for us: a symlink met on the way is read and spliced into the walk, and the walk goes on only
while the target stays inside a root (restarting from that root's fd). The result is a
:class:`Pinned` entry, the fd of its parent directory plus one name, and the final system call is
made relative to that fd with a call that does not follow the last component. A directory swapped
for a symlink after the walk cannot redirect a call on an fd we already hold.

This needs ``dir_fd`` and ``O_NOFOLLOW`` (Linux, macOS, the BSDs); the README says what a Windows
port could and could not promise.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.clientroots import current_scope
from fsguard.core.errors import AccessDeniedError, NotFoundError
from fsguard.core.oserrors import from_os_error, link_loop_error, shorten
from fsguard.core.pathforms import names_below, within
from fsguard.core.rootfds import DIR_FLAGS as _DIR_FLAGS
from fsguard.core.rootfds import RootFds
from fsguard.core.walksteps import (
    SWAP_LOOKS,
    NotADirectoryStep,
    file_in_the_way,
    kept_changing,
    link_target,
    make_dir,
    not_a_directory_now,
    open_dir,
    swapping_now,
)

_READ_DIR = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_NOFOLLOW", 0) | os.O_CLOEXEC
_MAX_HOPS = 40  # the kernel's own limit on symlinks in one lookup


# Told of each directory a walk made itself: a run record notes it at once (core/runs.py), for a start after a kill.
dir_made: ContextVar[Callable[[Path], None] | None] = ContextVar("dir_made", default=None)


@dataclass(frozen=True)
class Pinned:
    """A directory entry reached beneath a root: ``name`` inside the directory open as ``parent``.

    ``name`` is one component (``"."`` for a root itself); ``path`` is the canonical path, a label
    for messages, locks and backups that is never opened again by name.
    """

    parent: int
    name: str
    path: Path


class Beneath:
    """The roots' directory fds and the walk that pins a path beneath one of them."""

    def __init__(self, roots: tuple[Path, ...], screen: Callable[[Path, Path, bool], None] | None = None) -> None:
        # Without roots (--unrestricted) the walk starts at "/": links are still never followed blindly. ``screen``
        # (path asked, where a link leads, whether the entry is only read) raises for a place the path as judged
        # could not reach: a link swapped in after the policy judged the path never takes the call there.
        self._screen = screen
        self._roots = tuple(sorted(roots or (Path("/"),), key=lambda root: len(root.parts), reverse=True))
        self._made = threading.local()  # .paths: the directories this thread's walks made, while made_here runs
        # A walk starts on its root's own fd, not a copy (an open and a close fewer on every call): the walk and
        # entry() close only the fds they opened.
        self._roots_open = RootFds(self._roots)

    def close(self) -> None:
        """Release the root fds now."""
        self._roots_open.close()

    @contextmanager
    def entry(
        self, path: Path, *, follow: bool = True, make_parents: bool = False, reading: bool = False
    ) -> Iterator[Pinned]:
        """Pin ``path``: its parent directory open, its last component as a name.

        With ``follow`` a final symlink is followed (while it stays inside a root); without it the entry
        is the link itself. With ``make_parents`` missing directories on the way are created. ``reading``: the
        entry is only read (a copy's source, a link of the user's own), so a link into a place guarded from
        change (a read-only root, a ``.git``) is followed; one to a place hidden from reading never is.

        Raises:
            AccessDeniedError: the path leaves the roots through a symlink, or loops.
            NotFoundError, NotDirectoryError: a component on the way is missing or not a directory.
        """
        parent, name, canonical = self._walk(path, follow=follow, make_parents=make_parents, reading=reading)
        try:
            yield Pinned(parent, name, canonical)
        finally:
            if parent not in self._roots_open.held:
                os.close(parent)

    @contextmanager
    def made_here(self) -> Iterator[list[Path]]:
        """The directories this thread's walks create (``make_parents``) during the block, outermost first.

        Only those a mkdir of this thread made: one found missing before the block may be made meanwhile by another
        process (while this call waits for its lock), and a rollback that removed it would undo that process's change.
        """
        outer = getattr(self._made, "paths", None)
        made: list[Path] = []
        self._made.paths = made
        try:
            yield made
        finally:
            self._made.paths = outer
            if outer is not None:
                outer.extend(made)

    def note_made(self, path: Path) -> None:
        """Count ``path``, a directory this thread has just made itself, as made in the current :meth:`made_here`."""
        made: list[Path] | None = getattr(self._made, "paths", None)
        if made is not None:
            made.append(path)
        noted = dir_made.get()
        if noted is not None:
            noted(path)

    @contextmanager
    def directory(self, path: Path, *, listed: bool = True) -> Iterator[int]:
        """The directory ``path`` itself, open for reading (listing, fsync), reached by the pinned walk; with
        ``listed=False`` open only as the directory of ``*at`` calls, which a directory its user may search but
        not list (mode -wx) allows too.

        Raises:
            NotDirectoryError: ``path`` is something else.
        """
        with self.entry(path) as pinned:
            try:
                fd = os.open(pinned.name, _READ_DIR if listed else _DIR_FLAGS, dir_fd=pinned.parent)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise not_a_directory_now(pinned.parent, pinned.name, path) from exc
                raise from_os_error(exc, path) from exc
        try:
            yield fd
        finally:
            os.close(fd)

    def _root_of(self, path: Path | str) -> Path | None:
        """The deepest root holding the normalised absolute ``path``."""
        return next((root for root in self._roots if within(path, root)), None)

    def _walk(self, path: Path, *, follow: bool, make_parents: bool, reading: bool) -> tuple[int, str, Path]:
        # Canonical paths have no "..": should one arrive anyway, it is resolved here, never by the kernel
        # (a ".." opened from a root's fd would name the directory above the root). Paths are strings until the
        # end: every call walks, and pathlib made up half of a walk's time.
        text = os.path.normpath(path)
        root = self._root_of(text)
        if root is None:
            raise _outside(path, path)
        todo = names_below(text, root)[::-1]
        current, here = self._roots_open.of(root), str(root)
        hops = 0
        try:
            while todo:
                name = todo.pop()
                label = _joined(here, name)
                if not todo:  # the last component is never opened here, only read if it is a link
                    target = link_target(current, name, label) if follow else None
                    if target is None:  # the path as asked when no link bent it, keeping its parsed parts
                        return current, name, path if hops == 0 and label == str(path) else Path(label)
                else:
                    try:
                        step = self._descend(current, name, label, make_parents=make_parents)
                    except NotFoundError as exc:  # a directory on the way: the refusal also names the whole path
                        exc.fields.setdefault("full_path", shorten(Path(label, *reversed(todo))))
                        raise
                    if step is None:  # just made: open it (or what another process made meanwhile)
                        todo.append(name)
                        continue
                    if isinstance(step, int):
                        self._release_walked(current)
                        current, here = step, label
                        continue
                    target = step
                hops += 1
                if hops > _MAX_HOPS:
                    raise link_loop_error(path)
                # A link is spliced lexically against the real directory it sits in, then walked again
                # from the root holding the result, so ".." never climbs out through the kernel.
                spliced = os.path.normpath(Path(here, target, *reversed(todo)))  # a link: rare, pathlib is fine
                root = self._root_of(spliced)
                if root is None or not _in_scope(Path(spliced)):
                    raise _outside(path, Path(label), target)
                if self._screen is not None:
                    self._screen(path, Path(spliced), reading)
                self._release_walked(current)
                current, here = self._roots_open.of(root), str(root)
                todo = names_below(spliced, root)[::-1]
            return current, ".", Path(here)
        except BaseException:
            self._release_walked(current)
            raise

    def _release_walked(self, fd: int) -> None:
        """Close a directory the walk opened; a root's fd stays open."""
        if fd not in self._roots_open.held:
            os.close(fd)

    def _descend(self, current: int, name: str, label: str, *, make_parents: bool) -> int | str | None:
        """One directory on the way: its fd, or the target of the link in its place, or None once it was made.

        Raises:
            NotDirectoryError: a file is in the way.
            NotFoundError: it is missing and ``make_parents`` is off.
            AccessDeniedError: it kept turning into a link and back (core/walksteps.py).
        """
        try:
            for _ in range(SWAP_LOOKS):
                try:
                    return open_dir(current, name, label)
                except NotADirectoryStep:
                    target = link_target(current, name, label)
                    if target is not None:
                        return target
                    if not swapping_now(current, name, label):  # a file used as a directory
                        raise file_in_the_way(label) from None
                    # a link when opened, no link when read: another process swaps it; look again
            raise kept_changing(label)
        except NotFoundError:
            if not make_parents:
                raise
            if make_dir(current, name, label):
                self.note_made(Path(label))
            return None


def _joined(directory: str, name: str) -> str:
    """``name`` in ``directory`` (a root may be "/")."""
    return directory + name if directory.endswith("/") else f"{directory}/{name}"


def _in_scope(path: Path) -> bool:
    """Whether ``path`` lies in the roots the client of the call named (all of the server's when it named none):
    a link is followed only inside them, as a path is resolved only inside them."""
    scope = current_scope()
    return scope is None or any(within(path, root) for root in scope.paths)


def rename_no_replace(source: Pinned, target: Pinned) -> None:
    """Rename ``source`` to ``target``, which must not exist, atomically; neither name is followed.

    renameat2(RENAME_NOREPLACE) where the kernel and filesystem have it; otherwise a file moves by
    link + unlink and a directory onto a freshly made empty directory (both refuse an existing target).

    Raises:
        OSError: EEXIST when the target exists, EXDEV across filesystems, or what the OS said.
    """
    function = _renameat2()
    names = (os.fsencode(source.name), os.fsencode(target.name))
    if function is not None:
        if function(source.parent, names[0], target.parent, names[1], _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # these mean: not supported here
            raise OSError(code, os.strerror(code), str(source.path), None, str(target.path))
    kind = os.stat(source.name, dir_fd=source.parent, follow_symlinks=False)
    if stat.S_ISDIR(kind.st_mode):
        os.mkdir(target.name, 0o700, dir_fd=target.parent)  # EEXIST if taken; the rename replaces only this one
        try:
            os.rename(source.name, target.name, src_dir_fd=source.parent, dst_dir_fd=target.parent)
        except OSError:
            os.rmdir(target.name, dir_fd=target.parent)
            raise
        return
    try:
        os.link(source.name, target.name, src_dir_fd=source.parent, dst_dir_fd=target.parent, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOSYS, errno.EOPNOTSUPP):  # a filesystem without hard links
            raise
        # Reserve the name, then take it: only our own empty placeholder can be replaced.
        os.close(
            os.open(target.name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600, dir_fd=target.parent)
        )
        os.rename(source.name, target.name, src_dir_fd=source.parent, dst_dir_fd=target.parent)
        return
    _drop_source_of_link(source, target)


def _drop_source_of_link(source: Pinned, target: Pinned) -> None:
    """The second half of a link + unlink move: unlink the source only while it still is the linked file.

    Between the two calls another mover may take the source (then this link would be a second copy of
    it: it is removed, and the move answers not found), or another program may put a new file at the
    source name (then that file stays: only the old one was moved).
    """
    linked = os.stat(target.name, dir_fd=target.parent, follow_symlinks=False)
    try:
        now = os.stat(source.name, dir_fd=source.parent, follow_symlinks=False)
    except FileNotFoundError:
        os.unlink(target.name, dir_fd=target.parent)
        raise
    if (now.st_dev, now.st_ino) == (linked.st_dev, linked.st_ino):
        os.unlink(source.name, dir_fd=source.parent)


_RENAME_NOREPLACE = 1
_RENAME_EXCHANGE = 2


def exchange(first: Pinned, second: Pinned) -> bool:
    """Swap two entries in one step (renameat2 RENAME_EXCHANGE), neither name followed; False, nothing moved, where
    the C library, kernel or filesystem lacks it.

    Raises:
        OSError: what the OS said (FileNotFoundError: one of the names holds nothing).
    """
    function = _renameat2()
    if function is None:
        return False
    if function(first.parent, os.fsencode(first.name), second.parent, os.fsencode(second.name), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # these mean: not supported here
        return False
    raise OSError(code, os.strerror(code), str(first.path), None, str(second.path))


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """glibc's renameat2, which Python does not wrap; None where the C library lacks it."""
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    return function


def lstat_at(entry: Pinned) -> os.stat_result | None:
    """The entry's own stat (a link is not followed); None when nothing is there."""
    try:
        return os.stat(entry.name, dir_fd=entry.parent, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise from_os_error(exc, entry.path) from exc


def fsync_directory(directory: int) -> None:
    """Make a directory's entries durable; ``directory`` may be an O_PATH fd, which cannot be fsynced itself."""
    try:
        fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=directory)
    except PermissionError:
        # A directory its user may write and search but not list (mode -wx) cannot be opened to be fsynced, and
        # the change in it is already made: refusing now would report a done change as not done
        os.sync()
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _outside(path: Path, link: Path, target: str | None = None) -> AccessDeniedError:
    via = f" through the symlink {link} -> {target}" if target is not None else ""
    return AccessDeniedError(
        f"access denied: {path} leads outside the allowed roots{via}. Use a path whose links stay under a root.",
        path=str(path),
    )
