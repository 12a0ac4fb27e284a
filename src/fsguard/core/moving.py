"""move_file and copy_file: never overwrite, atomically; across filesystems by verified copy.

Both endpoints are pinned by fd (see :mod:`fsguard.core.beneath`) and locked; a copy is built under a
temp name beside its destination and renamed into place only when whole (see :mod:`fsguard.core.transfer`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.errors import FsguardError, InvalidParamsError, NotFoundError, SymlinkLoopError
from fsguard.core.gitstore import held_in_store
from fsguard.core.groups import Change, change_intended
from fsguard.core.hashing import content_hash
from fsguard.core.hooktree import fire_below
from fsguard.core.landing import check_landing
from fsguard.core.mutation import ROLLBACK_OPERATION, ROLLBACK_TOOL
from fsguard.core.oserrors import leads_through_loop, link_loop_error
from fsguard.core.pathforms import check_file_spelling, respelled
from fsguard.core.safeguards import Safeguards
from fsguard.core.setaside import changed_error
from fsguard.core.transfer import (
    Progress,
    already_exists,
    copy_new,
    is_special,
    move_verified,
)
from fsguard.core.trees import described, fingerprint
from fsguard.core.wholefiles import checked_bytes


@dataclass
class CopyReport:
    """What a copy did."""

    source: Path
    destination: Path
    files_copied: int = 0
    bytes_copied: int = 0
    skipped_symlinks: list[str] = field(default_factory=list)
    skipped_special: list[str] = field(default_factory=list)
    denied: int = 0  # files a deny rule hides, left behind: counted, never named
    fingerprint: str | None = None  # the copy's, taken under its lock when asked for (a group's revert checks it)


@dataclass(frozen=True)
class MovedLink:
    """A symlink moved as itself (never its target, never rewritten, as ``mv`` moves one)."""

    target: str  # as stored in the link
    now_points_to: Path | None  # a relative target read from the link's new directory; None where that is unchanged
    dangles: bool  # now_points_to is inside a root and nothing is there


class Moved(NamedTuple):
    """What a move did: canonical source and destination, and the link it moved, if the source was one."""

    source: Path
    destination: Path
    link: MovedLink | None = None
    fingerprint: str | None = None  # what it moved, when asked for and readable (a group's revert checks it)


class Mover:
    """Moves and copies entries under the path policy."""

    def __init__(self, safeguards: Safeguards) -> None:
        self._safe = safeguards

    def move(
        self,
        source_path: str,
        dest_path: str,
        *,
        expected_hash: str | None = None,
        tool: str = "move_file",
        stored: bool = False,
        exact: bool = False,
        rollback: bool = False,
        fingerprinted: bool = False,
    ) -> Moved:
        """Move or rename; the destination must not exist, and that is enforced atomically. A symlink moves as
        itself, whatever it points at (a path is checked only where it is read or written through).

        ``tool`` is the name hooks see (batch_operations passes its own); ``stored``: both paths are ones fsguard
        recorded (a group's move, moved back), taken as spelled (:meth:`PathPolicy.resolve`); ``exact``: both are
        paths fsguard computed (a rename set's), taken as spelled and checked as typed ones. ``rollback``: a failed
        call's move taken back, which fires no pre-hook (none may refuse it) and its post-event as a rollback's.
        ``fingerprinted``: the report holds what was moved's fingerprint (:func:`fingerprint`), taken under its lock, as
        a copy's is: a group's revert compares it, so that it never moves back an entry another call changed since.

        Raises:
            AccessDeniedError: the source is a root or holds one, either end is a ``.git`` or inside one, or the
                source is a directory holding a file that a deny rule hides where it is and no rule where it would
                land, or the other way round (:func:`check_landing`).
            NotFoundError: no source.
            AlreadyExistsError: the destination exists (also when it appears during the move).
            InvalidParamsError: a directory into itself.
        """
        source, destination = self._endpoints(source_path, dest_path, rename=True, stored=stored, exact=exact)
        self._safe.policy.check_removable(source, "moved")  # moving it out removes it where it was
        if destination == source or destination.is_relative_to(source):
            raise InvalidParamsError(
                f"cannot move {source} into itself ({destination}). Choose a destination outside it.", path=str(source)
            )
        safe = self._safe
        with safe.locks.hold_all(source, destination), safe.beneath.entry(source, follow=False) as pinned:
            found = lstat_at(pinned)
            if found is None:
                with safe.session.watching(source):
                    raise _missing(source)
            data = None
            if stat.S_ISREG(found.st_mode):
                data = checked_bytes(safe, source, pinned, found.st_size, expected_hash)
            elif expected_hash is not None:
                raise InvalidParamsError("expected_hash applies to files; drop it to move a directory or link.")
            link = _link_target(pinned) if stat.S_ISLNK(found.st_mode) else None
            walked = check_landing(safe.policy, pinned, destination, "moved") if stat.S_ISDIR(found.st_mode) else None
            move = {"tool_name": tool, "operation": "move_file", "file_path": str(source)}
            if rollback:
                move.update(tool_name=ROLLBACK_TOOL, operation=ROLLBACK_OPERATION)
            else:
                safe.hooks.fire("pre", "move", **move, source_path=str(source), dest_path=str(destination))
                if stat.S_ISDIR(found.st_mode):  # a glob naming a file inside judges it moving with its folder
                    fire_below(safe.hooks, pinned, "move", landing=destination, walked=walked, **move)
            with safe.beneath.entry(destination, follow=False, make_parents=True) as target:
                intended = None if rollback else change_intended.get()
                if intended is not None:
                    intended(Change("moved", str(destination), source=str(source)))
                move_verified(pinned, target, safe.atomic, checked=found)
                made = None if not fingerprinted else _moved_print(target, data)
        safe.session.forget(source)
        # What lands is this client's doing: a memory of the name from before (a file another process removed since)
        # must not make its next edit look like another process's change. A file's bytes are in hand: refreshed.
        landed = None if data is None else content_hash(data)
        safe.session.landed(destination, landed, tree=stat.S_ISDIR(found.st_mode))
        safe.hooks.fire("post", "move", **move, source_path=str(source), dest_path=str(destination))
        return Moved(source, destination, None if link is None else self._moved_link(link, source, destination), made)

    def _moved_link(self, target: str, source: Path, destination: Path) -> MovedLink:
        """What a link moved from ``source`` to ``destination`` points at now: a relative target is read from the
        link's directory, so one moved to another directory points elsewhere (judged missing only inside a root)."""
        if Path(target).is_absolute() or source.parent == destination.parent:
            return MovedLink(target, None, dangles=False)
        now = Path(os.path.normpath(destination.parent / target))
        return MovedLink(target, now, dangles=self._safe.policy.contains(now) and not destination.exists())

    def copy(
        self,
        source_path: str,
        dest_path: str,
        *,
        progress: Progress | None = None,
        tool: str = "copy_file",
        fingerprinted: bool = False,
    ) -> CopyReport:
        """Copy a file, or a directory recursively, keeping modes; symlinks, pipes, sockets and devices inside are
        skipped and listed.

        With ``fingerprinted``, the report holds the copy's fingerprint (:func:`fingerprint`), taken before its lock
        is let go: what a group's revert compares with, so that it never trashes a copy another call changed since.

        A link given as the source is followed (while it stays inside the roots): its target is copied, and only
        when no deny rule hides it.

        Raises:
            AccessDeniedError: a deny rule hides the source or, for a link, what it points to; or a file in a
                directory that no rule hides where it is would land where one does (:func:`check_landing`).
            NotFoundError: no source.
            AlreadyExistsError: the destination exists; nothing is overwritten, not even one file inside.
        """
        source, destination = self._endpoints(source_path, dest_path)
        safe = self._safe
        # The source's lock too, though a copy leaves it as it is: a tree copied while an edit inside is in flight
        # would also copy that edit's temp file, so the copy waits for the edits inside, as a move does.
        with safe.locks.hold_all(source, destination), safe.beneath.entry(source, reading=True) as pinned:
            source = pinned.path
            # A link's own name passed the rules, but a copy reads what it points to: judge that too.
            found = lstat_at(pinned)
            safe.policy.check_not_denied(source, source_path, is_dir=found is not None and stat.S_ISDIR(found.st_mode))
            if is_special(pinned):
                raise InvalidParamsError(
                    f"{source} is a pipe, socket or device; only files and directories are copied."
                )
            if destination == source or destination.is_relative_to(source):
                raise InvalidParamsError(
                    f"cannot copy {source} into itself ({destination}). Choose a destination outside it.",
                    path=str(source),
                )
            tree = found is not None and stat.S_ISDIR(found.st_mode)
            walked = check_landing(safe.policy, pinned, destination, "copied") if tree else None
            copy = {"tool_name": tool, "operation": "copy_file", "file_path": str(source)}
            safe.hooks.fire("pre", "copy", **copy, source_path=str(source), dest_path=str(destination))
            if tree:  # a glob naming a file inside judges it copied with its folder
                fire_below(safe.hooks, pinned, "copy", landing=destination, walked=walked, **copy)
            with safe.beneath.entry(destination, follow=False, make_parents=True) as target:
                copied = copy_new(pinned, target, safe.atomic, progress=progress, hide=self._hidden)
                made = fingerprint(target)[0] if fingerprinted else None
        safe.session.landed(destination, tree=tree)  # as a move's, without reading the copy again for its hash
        safe.hooks.fire("post", "copy", **copy, source_path=str(source), dest_path=str(destination))
        return CopyReport(
            source, destination, copied.files, copied.bytes, copied.skipped, copied.special, copied.denied, made
        )

    def _hidden(self, path: Path) -> bool:
        # A git object store or list of tracked files is left out like a hidden file: its copy could be read.
        policy = self._safe.policy
        return policy.denied_by(path) is not None or held_in_store(path, policy.root_of)

    def _endpoints(
        self, source_path: str, dest_path: str, *, rename: bool = False, stored: bool = False, exact: bool = False
    ) -> tuple[Path, Path]:
        source = self._safe.policy.resolve_entry(source_path, stored=stored, exact=exact)
        # A directory lands there: a rule for directories (vault/) hides the name, though none is there yet. Judged
        # as a file's, a tree moved in was out of every tool's reach, and could not be moved back.
        tree = source.is_dir() and not source.is_symlink()
        destination = self._safe.policy.resolve_entry(dest_path, stored=stored, directory=tree, exact=exact)
        if rename and destination == source:  # the destination typed is the source's name in another Unicode form
            destination = respelled(destination, dest_path)
        self._safe.policy.check_writable(destination)
        if not (source.exists() or source.is_symlink()):
            with self._safe.session.watching(source):
                raise _missing(source)
        if not source.is_dir():
            check_file_spelling(dest_path, destination)
        if destination.exists() or destination.is_symlink():
            raise already_exists(destination, source)
        return source, destination


def _moved_print(target: Pinned, data: bytes | None) -> str | None:
    """The fingerprint of what was just moved to ``target``: a file's from the bytes its checks read already, else read
    from the disk (a tree, a link, a file above the size limit); None where a file in it is unreadable or it changed
    while it was read. The move is done by then: a fingerprint missing only leaves its revert unchecked, as before."""
    if data is not None:
        return hashlib.sha256(data).hexdigest()  # as fingerprint() digests a file
    try:
        found = lstat_at(target)
        return None if found is None else described(target, found, "moved")[0]
    except FsguardError:
        return None


def _missing(source: Path) -> NotFoundError | SymlinkLoopError:
    if leads_through_loop(source):
        return link_loop_error(source)
    return NotFoundError(f"source does not exist: {source}. Check the path with list_directory.", path=str(source))


def _link_target(pinned: Pinned) -> str:
    """The target of the link ``pinned`` was just seen to be. Another process can put a file or directory at the
    name after that look (readlink then fails with EINVAL, or ENOENT once the name is empty): the move is refused
    as that change, which would otherwise have reached the client as an internal error."""
    try:
        return os.readlink(pinned.name, dir_fd=pinned.parent)
    except OSError as exc:
        raise changed_error(pinned.path, "moved") from exc
