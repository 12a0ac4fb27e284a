"""Copying between the WSL and Windows sides: one file, or a tree whose files differ, never losing a byte.

Each destination file goes through the one write sequence (:mod:`fsguard.core.mutation`): a new file is
created exclusively, an existing one whose bytes differ is backed up first and replaced atomically (so
``backup(action="undo_last")`` brings it back), an identical one is left alone. Sources are read through
pinned fds without following links; symlinks, pipes and devices are skipped and listed. A tree walk is
bounded by :data:`MAX_SYNC_ENTRIES`. Each file of a tree is a step of its own (:meth:`PathLocks.step`): a sync cancelled
while it waits for a target's lock stops before that file; the files synced before stay (backed up when replaced).
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Literal

from fsguard.core.beneath import lstat_at
from fsguard.core.disk import new_file_mode, read_at
from fsguard.core.errors import FsguardError, InvalidParamsError, NotDirectoryError, NotFoundError
from fsguard.core.gitstore import held_in_store
from fsguard.core.mutation import HookCall, mutation
from fsguard.core.oserrors import from_os_error
from fsguard.core.safeguards import Safeguards

MAX_SYNC_ENTRIES = 10_000
FileStatus = Literal["created", "updated", "unchanged", "would_create", "would_update"]
_READ_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class SyncOptions:
    """How a sync behaves: parent folders made on the way, which file names, and whether anything is written."""

    create_dirs: bool = True
    filter_pattern: str | None = None
    dry_run: bool = False


@dataclass(frozen=True)
class SyncedFile:
    """One file copied (or that would be, in a dry run); ``backup_id`` saves what an update replaced."""

    source: Path
    destination: Path
    size: int
    status: FileStatus
    backup_id: str | None = None


@dataclass(frozen=True)
class SyncProblem:
    """A file that could not be synced; the rest of the sync went on."""

    path: str
    error: str
    code: str


@dataclass
class SyncReport:
    """What one sync did: files changed, files already equal, what was skipped and why, per-file errors."""

    dry_run: bool
    files: list[SyncedFile] = field(default_factory=list)
    unchanged: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    denied: int = 0  # files a deny rule hides: counted, never named (a secret's name can tell as much as its contents)
    errors: list[SyncProblem] = field(default_factory=list)
    truncated: bool = False

    @property
    def files_synced(self) -> int:
        return len(self.files)

    def add(self, done: SyncedFile) -> None:
        if done.status == "unchanged":
            self.unchanged += 1
        else:
            self.files.append(done)


class WslSync:
    """Copies files and trees between two canonical paths inside the roots."""

    def __init__(self, safeguards: Safeguards) -> None:
        self._safe = safeguards
        self._active = threading.local()

    @property
    def active(self) -> bool:
        """True while this thread is syncing: autosync must not echo the sync's own writes."""
        return bool(getattr(self._active, "depth", 0))

    @contextmanager
    def running(self) -> Iterator[None]:
        self._active.depth = getattr(self._active, "depth", 0) + 1
        try:
            yield
        finally:
            self._active.depth -= 1

    def sync(self, source: Path, destination: Path, options: SyncOptions, report: SyncReport) -> None:
        """Sync a file, or every file of a tree whose bytes differ, from ``source`` to ``destination``.

        A single file's failure is raised; in a tree each failure is recorded in ``report`` and the rest goes on.

        Raises:
            NotFoundError: ``source`` does not exist.
            InvalidParamsError: the two paths overlap (one is the other or inside it).
        """
        if _overlap(source, destination):
            raise InvalidParamsError(
                f"{source} and {destination} overlap (one is the other or inside it, links followed); a sync needs "
                "two separate places. Check both paths with get_file_info."
            )
        with self._safe.beneath.entry(source, follow=False) as pinned:
            found = lstat_at(pinned)
        if found is None:
            raise NotFoundError(f"{source} does not exist. Check the path with list_directory.", path=str(source))
        if stat.S_ISDIR(found.st_mode):
            self._sync_tree(source, destination, options, report)
        elif not stat.S_ISREG(found.st_mode):
            report.skipped.append((str(source), _kind(found.st_mode)))
        elif options.filter_pattern and not fnmatchcase(source.name, options.filter_pattern):
            report.skipped.append((str(source), f"name does not match {options.filter_pattern}"))
        else:
            report.add(self.copy_file(source, destination, options))

    def copy_file(
        self,
        source: Path,
        destination: Path,
        options: SyncOptions,
        *,
        below: Path | None = None,
        tree: Path | None = None,
    ) -> SyncedFile:
        """Make ``destination`` hold the bytes of the regular file ``source``; see the module docstring.

        No link below ``below`` (by default the destination's folder) is followed: a destination that is a link, or
        lies through one, is refused, and so is one in the source ``tree`` (its real path).

        Raises:
            InvalidParamsError: the destination is or lies through a link, or lands in the source tree.
            FsguardError: the source could not be read (a link, too large, gone) or the destination written.
        """
        # Autosync and a tree's files come here unjudged: a deny rule's file, git's object store and lists of the
        # tracked files are never read, so never copied where they could be.
        self._safe.policy.check_not_denied(source)
        with self.running(), self._safe.beneath.entry(source, follow=False) as pinned:
            found = lstat_at(pinned)
            if found is not None and stat.S_ISLNK(found.st_mode):
                raise InvalidParamsError(f"{source} is a symlink; syncs skip links.", path=str(source))
            data, _ = read_at(pinned, self._safe.max_file_size)
            # A new file takes the source's mode as the umask allows: drvfs reports every Windows file 0777, and a
            # copy must not come out world-writable (or setuid). An existing destination keeps its own mode.
            mode = found.st_mode & new_file_mode(executable=True) if found is not None else None
        target = self._check_unlinked(destination, destination.parent if below is None else below, tree)
        hook = HookCall("write", "wsl", "wsl_sync", {"source_path": str(source)})
        # A dry run opens the destination as the copy would (read-only root, missing folder, a directory in the
        # way): what it plans is what the real sync does, refusals included.
        changing = not options.dry_run
        with self.running(), mutation(self._safe, target, may_be_missing=True, changing=changing) as change:
            if change.entry is None and not options.create_dirs:
                raise NotDirectoryError(
                    f"{target.parent} does not exist. Pass create_dirs=true, or create it with create_directory.",
                    path=str(target.parent),
                )
            if change.current == data:
                return SyncedFile(source, target, len(data), "unchanged")
            if options.dry_run:
                status: FileStatus = "would_create" if change.current is None else "would_update"
                return SyncedFile(source, target, len(data), status)
            change.check(None)
            # A pre-write hook may deny; content it substitutes is ignored: a sync copies bytes, not text.
            change.fire_pre(hook, source_path=str(source), dest_path=str(target))
            done = change.commit(data, hook, mode=mode, make_parents=options.create_dirs)
        made: FileStatus = "updated" if done.backup is not None else "created"
        return SyncedFile(source, target, done.size, made, done.backup.backup_id if done.backup else None)

    def _check_unlinked(self, destination: Path, below: Path, tree: Path | None) -> Path:
        """The canonical ``destination``, which must be where it is spelled below ``below``'s real path: a link on
        the destination side (one to ~/.bashrc, one back to the source) would have the sync write to its target.
        The write then walks the path pinned, refusing a link swapped in since (:func:`mutation`)."""
        policy = self._safe.policy
        target = policy.resolve(str(destination), exact=True)
        spelled = policy.resolve(str(below), exact=True) / destination.relative_to(below)
        if target != spelled:
            raise InvalidParamsError(
                f"{destination} is a symbolic link, or lies through one, to {target}; a sync never writes through "
                "links. Remove the link on the destination side, or sync to another folder.",
                path=str(destination),
            )
        if tree is not None and target.is_relative_to(tree):
            raise InvalidParamsError(
                f"{destination} lands in the source folder {tree}; a sync never writes into its own source. Sync to "
                "another folder.",
                path=str(destination),
            )
        return target

    def _sync_tree(self, source: Path, destination: Path, options: SyncOptions, report: SyncReport) -> None:
        # The destination folder named is taken where it leads; below it, each file's path is followed through no link.
        top = self._safe.policy.resolve(str(destination), exact=True)
        tree = Path(os.path.realpath(source))
        for relative, mode in self._walk(source, report):
            path = source / relative
            if self._hidden(path):
                report.denied += 1  # never read, never copied; a git object store counts once, never entered
            elif not stat.S_ISREG(mode):
                report.skipped.append((str(path), _kind(mode)))
            elif options.filter_pattern and not fnmatchcase(path.name, options.filter_pattern):
                continue  # a filter narrows the sync: files it leaves out are not worth listing
            else:
                try:
                    with self._safe.locks.step():  # cancelled while it waits for this target's lock: stops before it
                        synced = self.copy_file(path, top / relative, options, below=top, tree=tree)
                    report.add(synced)
                except FsguardError as exc:
                    report.errors.append(SyncProblem(str(path), exc.message, exc.code))

    def _hidden(self, path: Path) -> bool:
        """Whether a deny rule hides ``path``, or it is (in) git's object store or one of its lists of tracked files."""
        policy = self._safe.policy
        return policy.denied_by(path) is not None or held_in_store(path, policy.root_of)

    def _walk(self, source: Path, report: SyncReport) -> list[tuple[str, int]]:
        """(relative path, mode) of every entry below ``source`` but directories, parents first, names sorted; a
        directory git's stores hold is listed itself, never entered (its thousands of objects would use the budget).

        Listed through fds opened without following links, so a link is reported, never entered.
        """
        found: list[tuple[str, int]] = []
        budget = [MAX_SYNC_ENTRIES]

        def sealed(relative: str) -> bool:
            return held_in_store(source / relative, self._safe.policy.root_of)

        with self._safe.beneath.directory(source) as fd:
            try:
                _collect(fd, "", found, budget, sealed)
            except OSError as exc:
                raise from_os_error(exc, source) from exc
        report.truncated = report.truncated or budget[0] < 0
        return found


def _collect(
    fd: int, prefix: str, found: list[tuple[str, int]], budget: list[int], sealed: Callable[[str], bool]
) -> None:
    for name in sorted(os.listdir(fd)):
        budget[0] -= 1
        if budget[0] < 0:
            return
        mode = os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
        if not stat.S_ISDIR(mode) or sealed(prefix + name):
            found.append((prefix + name, mode))
            continue
        inner = os.open(name, _READ_DIR, dir_fd=fd)
        try:
            _collect(inner, f"{prefix}{name}/", found, budget, sealed)
        finally:
            os.close(inner)


def _overlap(source: Path, destination: Path) -> bool:
    """Whether the two trees overlap as the copy reaches them: the sides are entries (a final link unresolved),
    but each file is written through the link, so a Windows side linked into the Linux tree is that tree."""
    resolved = (Path(os.path.realpath(source)), Path(os.path.realpath(destination)))
    return any(a == b or a.is_relative_to(b) or b.is_relative_to(a) for a, b in ((source, destination), resolved))


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink (links are never synced)"
    return "not a regular file (pipe, socket or device)"
