"""Copying, moving and removing whole entries through pinned directory fds, never leaving a partial destination.

A copy (and a move across filesystems) is built under a journaled temp name in the destination's own
directory, fsynced, and only then put in place by a no-clobber rename: a full disk, an error or a
kill -9 leaves either nothing at the destination or the whole entry, and the temp is swept at the next
start. Nothing here follows a symlink: trees are walked by ``dir_fd`` and links are re-created or
skipped, never read through.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from fsguard.core.attributes import carry, chown_like, xattrs_of
from fsguard.core.beneath import Pinned, fsync_directory, lstat_at, rename_no_replace
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    EntryReplacedError,
    ExternalChangeError,
    FsguardError,
    InvalidParamsError,
)
from fsguard.core.fdtree import child_dir, failed_at, mark_failed_at, opened_dir
from fsguard.core.filecopies import copy_file
from fsguard.core.nesting import Below, run_through
from fsguard.core.oserrors import from_os_error, unwritable_directory_error
from fsguard.core.removal import check_no_mounts_below, check_removable_below, remove
from fsguard.core.setaside import changed_error, put_back, same_entry
from fsguard.core.trees import (
    changed_kind_error,
    files_below,
    fingerprint,
    lstat_entry,
    total_size,
)

# Called with (bytes copied so far, total bytes) between files; may raise to stop the copy.
Progress = Callable[[int, int], None]
Links = Literal["skip", "keep"]  # a copy skips links inside a tree; a move keeps them as links


@dataclass
class Copied:
    """What a copy put in place."""

    files: int = 0
    bytes: int = 0
    total: int = 0
    skipped: list[str] = field(default_factory=list)  # links a copy leaves out
    special: list[str] = field(default_factory=list)  # pipes, sockets and devices, never read
    hide: Callable[[Path], bool] | None = None  # a deny rule hides it: left out (counted in denied), never read
    denied: int = 0  # never named: a secret's name can tell as much as its contents
    # A move keeps the hard links within the tree (as mv does): the copy's top directory, its source's path, and the
    # place (relative to the top) each multiply linked file was first copied to, by (device, inode).
    top: tuple[int, Path] | None = None
    linked: dict[tuple[int, int], str] = field(default_factory=dict)


def copy_new(
    source: Pinned,
    target: Pinned,
    writer: AtomicWriter,
    *,
    links: Links = "skip",
    progress: Progress | None = None,
    hide: Callable[[Path], bool] | None = None,
) -> Copied:
    """Copy ``source`` (file or tree) to ``target``, which must not exist, all or nothing.

    Raises:
        AlreadyExistsError: ``target`` exists (also when it appears during the copy); nothing was replaced.
        DiskFullError and the other typed OS errors: no destination and no temp remain.
    """
    copied = Copied(total=total_size(source), hide=hide)
    with _staging(writer, target, copied.total) as staged:
        _copy_entry(source, staged, copied, links, progress)
        put_in_place(staged, target)
    return copied


def move_verified(
    source: Pinned,
    target: Pinned,
    writer: AtomicWriter,
    expected_sha256: str | None = None,
    *,
    checked: os.stat_result | None = None,
) -> None:
    """Rename ``source`` to ``target`` (which must not exist); across filesystems copy, verify (against
    ``expected_sha256``, else the source's fingerprint, taken only then: a rename needs none), then remove.

    With ``checked`` (the stat the caller judged the source by), only that very entry is moved: one renamed that
    turns out to be another is renamed back, and across filesystems the fingerprint is read from it and the source
    removed only while it is still that entry (:mod:`fsguard.core.setaside`).

    Raises:
        AlreadyExistsError: ``target`` exists.
        EntryReplacedError: another entry than ``checked`` took the source's name; it is back there, and no copy
            remains.
        FsguardError: the copy did not verify; the original is left in place and no copy remains. Or the original
            could not be removed once part of it was gone: the error keeps its class and code, and its fields
            ``partly_moved_to`` and ``removal_failed`` (the whole copy is in place).
    """
    try:
        put_in_place(source, target)
    except FsguardError as exc:
        if not isinstance(exc.__cause__, OSError) or exc.__cause__.errno != errno.EXDEV:
            raise
    else:
        if checked is not None and not same_entry(lstat_entry(target), checked):
            refused = changed_error(source.path, "moved")
            put_back(target, source, refused)
            raise refused
        return
    found = lstat_entry(source)
    if checked is not None and not same_entry(found, checked):
        raise changed_error(source.path, "moved")
    if stat.S_ISDIR(found.st_mode):  # before the copy: its source would be removed after it
        check_no_mounts_below(source.path)
        check_removable_below(source, "moved")
    expected_sha256 = expected_sha256 or fingerprint(source, found)[0]
    with _staging(writer, target, total_size(source)) as staged:
        _copy_entry(source, staged, Copied(), "keep", None)
        if fingerprint(staged)[0] != expected_sha256:
            raise FsguardError(
                f"the copy of {source.path} to another filesystem did not verify; the original was left in place "
                "and the copy removed. Retry the move.",
                path=str(source.path),
            )
        made = lstat_entry(staged)
        put_in_place(staged, target)
    try:
        remove(source, checked=found)
    except EntryReplacedError as exc:
        remove(target, missing_ok=True, checked=made)  # a copy of what is not at the source's name any more
        raise changed_error(source.path, "moved") from exc
    except ExternalChangeError:
        raise  # it could not be put back, and says where it is: the copy stays too, whatever it was of
    except FsguardError as exc:
        # The source could not be removed (a read-only mount, say). While it is still whole, take the copy
        # back so the move fails cleanly; once part of it is gone, the verified copy is the one to keep.
        if fingerprint(source)[0] == expected_sha256:
            remove(target, missing_ok=True, checked=made)
            raise
        reason = exc.message.rstrip(".")
        left = _left(source)
        exc.message = (
            f"{source.path} was copied whole to {target.path} (verified), but removing the original failed partway "
            f"({reason}): {left} still at {source.path}. Nothing is lost, every file is at {target.path}; delete "
            "what is left once it may be removed (an immutable flag, a permission, or a program holding it)."
        )
        exc.fields.update(partly_moved_to=str(target.path), removal_failed=reason)
        raise


def _left(source: Pinned) -> str:
    """What of a tree whose removal stopped partway is still there, named for the message."""
    try:
        left = files_below(source) if stat.S_ISDIR(lstat_entry(source).st_mode) else [source.name]
    except (OSError, FsguardError):
        return "what is left of it is"
    if not left:
        return "its empty directories are"
    shown = ", ".join(left[:3]) + (f" and {len(left) - 3} more" if len(left) > 3 else "")
    return f"{shown} {'is' if len(left) == 1 else 'are'}"


@contextmanager
def _staging(writer: AtomicWriter, target: Pinned, needed: int) -> Iterator[Pinned]:
    """A journaled temp name beside ``target`` to build it under; whatever was built is removed on failure.

    A full or read-only destination is reported once the temp is gone, so the free space it names is real.
    """
    with writer.temp_name(target) as temp:
        staged = Pinned(target.parent, temp, target.path.parent / temp)
        try:
            yield staged
        except OSError as exc:
            remove(staged, missing_ok=True)
            raise from_os_error(exc, target.path.parent, needed=needed or None) from exc
        except BaseException:
            remove(staged, missing_ok=True)
            raise


def put_in_place(source: Pinned, target: Pinned) -> None:
    """No-clobber rename, then make both directories' entries durable.

    Raises:
        AlreadyExistsError: the target exists.
        FsguardError: from the OS (its cause keeps the errno: EXDEV means another filesystem).
    """
    try:
        rename_no_replace(source, target)
    except OSError as exc:
        if exc.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise already_exists(target.path) from exc
        refused = _refused_side(exc, source, target)
        unwritable = unwritable_directory_error(exc, source.path, source.parent) if refused == source.path else None
        raise unwritable or from_os_error(exc, refused) from exc
    fsync_directory(target.parent)
    if source.parent != target.parent:
        fsync_directory(source.parent)


def _refused_side(exc: OSError, source: Pinned, target: Pinned) -> Path:
    """The path a refused move or copy names: the destination's directory when the user may not write there (the
    source is then not at fault, and its name would send the model to the wrong file), else the source."""
    if exc.errno in (errno.EACCES, errno.EPERM):
        try:
            writable = os.access(".", os.W_OK | os.X_OK, dir_fd=target.parent, effective_ids=True)
        except OSError:
            writable = True  # cannot tell: the source, as before
        if not writable:
            return target.path.parent
    return source.path


def already_exists(path: Path, moved: Path | None = None) -> AlreadyExistsError:
    """The destination is taken; given what would have gone there (``moved``), a directory there is offered as the
    place to put it, as ``mv a.txt dir/`` would: fsguard never moves into a directory on its own."""
    if path == moved:  # the name typed is the source's own, in another Unicode form or the same
        return AlreadyExistsError(
            f"{path} is the source itself: the destination names the same entry. Choose another destination.",
            path=str(path),
        )
    into = ""
    if moved is not None and path.is_dir() and not path.is_symlink():
        into = f' To put {moved.name} inside that directory, pass dest_path="{path / moved.name}".'
    return AlreadyExistsError(
        f"destination already exists: {path}; move_file and copy_file never overwrite. Choose another destination, "
        f"or delete_file it first (it goes to the trash).{into}",
        path=str(path),
    )


def is_special(entry: Pinned) -> bool:
    """A FIFO, socket or device: opening one to read could block forever, so it is never read."""
    found = lstat_at(entry)
    return found is not None and not (
        stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode) or stat.S_ISLNK(found.st_mode)
    )


def _copy_entry(source: Pinned, target: Pinned, copied: Copied, links: Links, progress: Progress | None) -> None:
    found = lstat_entry(source)
    if stat.S_ISLNK(found.st_mode) and links == "skip":
        # A copy's source was pinned with its links followed: a link here now was swapped in since.
        raise changed_kind_error(OSError(errno.ELOOP, "a symlink took its place"), source.path)
    try:
        if stat.S_ISDIR(found.st_mode):
            os.mkdir(target.name, 0o700, dir_fd=target.parent)
            with opened_dir(source) as src, opened_dir(target) as dst:
                copied.top = (dst, source.path)
                run_through(_copy_children(src, dst, source.path, copied, links, progress))
                carry(dst, found, xattrs_of(src))
                os.fsync(dst)
        elif stat.S_ISLNK(found.st_mode):
            os.symlink(os.readlink(source.name, dir_fd=source.parent), target.name, dir_fd=target.parent)
            chown_like(target.parent, target.name, found)
        elif stat.S_ISREG(found.st_mode):
            copied.bytes += copy_file(source.parent, source.name, target.parent, target.name)
            copied.files += 1
        elif links == "keep":
            _remade(target.parent, target.name, found, source.path)
        else:
            raise InvalidParamsError(
                f"{source.path} is a pipe, socket or device; only files and directories are copied.",
                path=str(source.path),
            )
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EROFS):
            raise  # the destination's filesystem refused: reported by _staging, after the cleanup
        # Met below a directory copied: in the source tree (the copy's own directories are this user's to write).
        refused = source.path if failed_at(exc) is not None else _refused_side(exc, source, target)
        raise changed_kind_error(exc, refused) from exc


def _copy_children(
    src: int, dst: int, label: Path, copied: Copied, links: Links, progress: Progress | None
) -> Generator[Below[None], None, None]:  # its subdirectories, copied as run_through reaches them
    try:
        names = sorted(os.listdir(src))
    except OSError as exc:
        _mark_below(exc, label, copied)
        raise
    for name in names:
        if copied.hide is not None and copied.hide(label / name):
            copied.denied += 1
            continue
        try:
            yield from _copy_child(src, dst, name, label, copied, links, progress)
        except OSError as exc:
            _mark_below(exc, label / name, copied)
            raise


def _mark_below(exc: OSError, label: Path, copied: Copied) -> None:
    """Mark ``exc`` as met at ``label`` (:func:`fsguard.core.fdtree.failed_at`): a file in the tree this user may not
    read is named, not the directory copied."""
    if copied.top is not None and label != copied.top[1]:
        mark_failed_at(exc, label.relative_to(copied.top[1]).as_posix())


def _copy_child(
    src: int, dst: int, name: str, label: Path, copied: Copied, links: Links, progress: Progress | None
) -> Generator[Below[None], None, None]:
    found = os.stat(name, dir_fd=src, follow_symlinks=False)
    mode = found.st_mode
    if stat.S_ISDIR(mode):
        os.mkdir(name, 0o700, dir_fd=dst)
        with child_dir(src, name) as inner_src, child_dir(dst, name) as inner_dst:
            yield Below(_copy_children(inner_src, inner_dst, label / name, copied, links, progress))
            carry(inner_dst, os.fstat(inner_src), xattrs_of(inner_src))
            os.fsync(inner_dst)
    elif stat.S_ISREG(mode) and links == "keep" and _linked_again(found, dst, name, label / name, copied):
        copied.files += 1
    elif stat.S_ISREG(mode):
        copied.bytes += copy_file(src, name, dst, name)
        copied.files += 1
        if progress is not None:
            progress(copied.bytes, copied.total)
    elif stat.S_ISLNK(mode) and links == "keep":
        os.symlink(os.readlink(name, dir_fd=src), name, dir_fd=dst)
        chown_like(dst, name, found)
    elif links == "keep":
        _remade(dst, name, found, label / name)
    elif stat.S_ISLNK(mode):
        copied.skipped.append(str(label / name))
    else:
        copied.special.append(str(label / name))


def _linked_again(found: os.stat_result, dst: int, name: str, label: Path, copied: Copied) -> bool:
    """Link ``name`` in ``dst`` to the copy of a file met before under another name (a hard link of the tree);
    False, having noted where this one will be copied, when it is the first of its links met."""
    if found.st_nlink < 2 or copied.top is None:
        return False
    top, top_label = copied.top
    key = (found.st_dev, found.st_ino)
    first = copied.linked.get(key)
    if first is None:
        copied.linked[key] = label.relative_to(top_label).as_posix()
        return False
    # Resolved from the copy's top through the directories this copy made (under a temp name, mode 0700 until done).
    os.link(first, name, src_dir_fd=top, dst_dir_fd=dst, follow_symlinks=False)
    return True


def _remade(directory: int, name: str, like: os.stat_result, label: Path) -> None:
    """A pipe, socket or device made anew as ``name`` in ``directory`` (a move keeps it: it holds no bytes to copy).

    Raises:
        AccessDeniedError: a device, which only root may make: nothing can carry it to another filesystem.
    """
    try:
        os.mknod(name, stat.S_IFMT(like.st_mode) | 0o600, like.st_rdev, dir_fd=directory)
    except PermissionError as exc:
        raise AccessDeniedError(
            f"{label} is a device file, which only root may make, so it cannot be carried to another filesystem (a "
            "move there, or to the trash in the state directory): nothing was changed. Move it within its own "
            "filesystem, or delete it with permanent=true.",
            path=str(label),
        ) from exc
    chown_like(directory, name, like)
    os.chmod(name, stat.S_IMODE(like.st_mode), dir_fd=directory)  # a pipe or device this process just made
