"""move_file and copy_file: never overwrite, atomically; across filesystems by verified copy."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from fsguard.core.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    InvalidParamsError,
    NotFoundError,
    from_os_error,
)
from fsguard.core.hashing import content_hash
from fsguard.core.safeguards import Safeguards
from fsguard.core.textio import read_snapshot
from fsguard.core.transfer import fingerprint, is_special, make_parents, move_verified, rename_no_replace

# Called with (bytes copied so far, total bytes) between files; may raise to stop the copy.
Progress = Callable[[int, int], None]


@dataclass
class CopyReport:
    """What a copy did."""

    source: Path
    destination: Path
    files_copied: int = 0
    bytes_copied: int = 0
    skipped_symlinks: list[str] = field(default_factory=list)


class Mover:
    """Moves and copies entries under the path policy."""

    def __init__(self, safeguards: Safeguards) -> None:
        self._safe = safeguards

    def move(self, source_path: str, dest_path: str, *, expected_hash: str | None = None) -> tuple[Path, Path]:
        """Move or rename; the destination must not exist, and that is enforced atomically.

        Raises:
            AccessDeniedError: the source is a root.
            NotFoundError: no source.
            AlreadyExistsError: the destination exists (also when it appears during the move).
            InvalidParamsError: a directory into itself.
        """
        source, destination = self._endpoints(source_path, dest_path)
        if self._safe.policy.is_root(source):
            raise AccessDeniedError(f"{source} is a root of this server and can never be moved.", path=str(source))
        if destination == source or destination.is_relative_to(source):
            raise InvalidParamsError(f"cannot move {source} into itself ({destination}).", path=str(source))
        with self._both_locked(source, destination):
            if source.is_file() and not source.is_symlink():
                data, _ = read_snapshot(source)
                self._safe.guard.check(source, content_hash(data), expected_hash)
            elif expected_hash is not None:
                raise InvalidParamsError("expected_hash applies to files; drop it to move a directory or link.")
            move = {"tool_name": "move_file", "operation": "move_file", "file_path": str(source)}
            self._safe.hooks.fire("pre", "move", **move, source_path=str(source), dest_path=str(destination))
            make_parents(destination)
            destination = self._safe.policy.recheck(destination.parent) / destination.name
            try:
                rename_no_replace(source, destination)
            except FileExistsError as exc:
                raise _exists(destination) from exc
            except OSError as exc:
                if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
                    raise _exists(destination) from exc
                if exc.errno != errno.EXDEV:
                    raise from_os_error(exc, source) from exc
                move_verified(source, destination, fingerprint(source)[0])
        self._safe.session.forget(source)
        self._safe.hooks.fire("post", "move", **move, source_path=str(source), dest_path=str(destination))
        return source, destination

    def copy(self, source_path: str, dest_path: str, *, progress: Progress | None = None) -> CopyReport:
        """Copy a file, or a directory recursively, keeping modes; symlinks inside are skipped and listed.

        Raises:
            NotFoundError: no source.
            AlreadyExistsError: the destination exists; nothing is overwritten, not even one file inside.
        """
        source, destination = self._endpoints(source_path, dest_path)
        if source.is_symlink():
            source = self._safe.policy.resolve(source_path)  # a link given by name: copy what it points to
        if is_special(source):
            raise InvalidParamsError(f"{source} is a pipe, socket or device; only files and directories are copied.")
        if destination == source or destination.is_relative_to(source):
            raise InvalidParamsError(f"cannot copy {source} into itself ({destination}).", path=str(source))
        report = CopyReport(source, destination)
        copy = {"tool_name": "copy_file", "operation": "copy_file", "file_path": str(source)}
        self._safe.hooks.fire("pre", "copy", **copy, source_path=str(source), dest_path=str(destination))
        if source.is_dir():
            files = [p for p in sorted(source.rglob("*")) if p.is_file() and not p.is_symlink()]
            total = sum(p.stat().st_size for p in files)
            make_parents(destination)
            _mkdir_new(destination, source)
            for item in sorted(source.rglob("*")):
                target = destination / item.relative_to(source)
                if item.is_symlink() or is_special(item):
                    report.skipped_symlinks.append(str(item))
                elif item.is_dir():
                    _mkdir_new(target, item)
                else:
                    report.bytes_copied += _copy_file_new(item, target)
                    report.files_copied += 1
                    if progress is not None:
                        progress(report.bytes_copied, total)
        else:
            make_parents(destination)
            report.bytes_copied = _copy_file_new(
                source, self._safe.policy.recheck(destination.parent) / destination.name
            )
            report.files_copied = 1
        self._safe.hooks.fire("post", "copy", **copy, source_path=str(source), dest_path=str(destination))
        return report

    def _endpoints(self, source_path: str, dest_path: str) -> tuple[Path, Path]:
        source = self._safe.policy.resolve_entry(source_path)
        destination = self._safe.policy.resolve_entry(dest_path)
        if not (source.exists() or source.is_symlink()):
            with self._safe.session.watching(source):
                raise NotFoundError(f"{source} does not exist. Check the path with list_directory.", path=str(source))
        if destination.exists() or destination.is_symlink():
            raise _exists(destination)
        return source, destination

    @contextlib.contextmanager
    def _both_locked(self, first: Path, second: Path) -> Iterator[None]:
        low, high = sorted((first, second))  # one global order: two moves can never deadlock
        with self._safe.locks.hold(low), self._safe.locks.hold(high):
            yield


def _exists(destination: Path) -> AlreadyExistsError:
    return AlreadyExistsError(
        f"{destination} already exists; move_file and copy_file never overwrite. Choose another destination, "
        "or delete_file it first (it goes to the trash).",
        path=str(destination),
    )


def _mkdir_new(target: Path, like: Path) -> None:
    try:
        target.mkdir()
    except FileExistsError as exc:
        raise _exists(target) from exc
    shutil.copystat(like, target)


def _copy_file_new(source: Path, target: Path) -> int:
    """Copy bytes and mode into a file that must not exist yet (O_EXCL), fsynced."""
    try:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except FileExistsError as exc:
        raise _exists(target) from exc
    try:
        with source.open("rb") as reader, os.fdopen(os.dup(fd), "wb") as writer:
            shutil.copyfileobj(reader, writer, 1 << 20)
        os.fsync(fd)
    finally:
        os.close(fd)
    shutil.copystat(source, target)
    return target.stat().st_size
