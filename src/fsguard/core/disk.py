"""Whole files to and from disk: reads that report a change under them, and atomic, journaled writes.

A read returns the bytes with the stat they were read under, or no stat if the file changed meanwhile
(so a hash of those bytes is never taken for the file's). A write replaces a file by putting a fsynced temp
at its name (exchanged with the checked file: :func:`fsguard.core.setaside.swap_in`); the temp's name is
journaled first, so a crash leaves no stray. What the bytes mean as text is :mod:`fsguard.core.textio`'s business.
"""

from __future__ import annotations

import errno
import functools
import logging
import os
import re
import secrets
import shutil
import stat
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, suppress
from pathlib import Path

from fsguard.core.attributes import Xattrs, carry, check_writable, for_new_bytes, without_set_id, xattrs_at
from fsguard.core.beneath import Pinned, lstat_at, rename_no_replace
from fsguard.core.dirsync import sync_directory
from fsguard.core.errors import AccessDeniedError, BinaryFileError, FsguardError, IsDirectoryError, TooLargeError
from fsguard.core.inflight import HELD, dead_record, open_record
from fsguard.core.oserrors import from_os_error, unwritable_directory_error
from fsguard.core.setaside import same_file, swap_in

logger = logging.getLogger(__name__)

_TEMP_MARK = ".fsguard-tmp-"
_TEMP_NAME = re.compile(r"\.fsguard-tmp-[0-9a-f]{32}")


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is one :meth:`DurableWriter.temp_name` gives: a write's bytes on their way to its file."""
    return name.startswith(_TEMP_MARK) and _TEMP_NAME.fullmatch(name) is not None


def _read_umask() -> int:
    # os.umask can only be read by setting it; done once at import, before any worker thread exists.
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()


def read_snapshot(path: Path, max_size: int | None = None) -> tuple[bytes, os.stat_result | None]:
    """Read a whole file named by a trusted path (the state directory, tests); see :func:`read_at`."""
    try:
        # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise from_os_error(exc, path) from exc
    return _read_fd(fd, path, max_size)


def read_at(entry: Pinned, max_size: int | None = None) -> tuple[bytes, os.stat_result | None]:
    """Read a whole pinned file; the stat is returned only if the file did not change during the read.

    The last component is opened without following it: a symlink swapped in after the walk is refused.

    Raises:
        NotFoundError, IsDirectoryError, AccessDeniedError: the OS refused.
        BinaryFileError: a pipe, socket or device, which is never read.
        TooLargeError: the file is above ``max_size``.
    """
    return _read_fd(open_pinned(entry), entry.path, max_size)


def open_pinned(entry: Pinned) -> int:
    """The pinned entry open for reading its bytes, its last component never followed; the caller closes it.

    Raises:
        BinaryFileError: a socket, which cannot be opened at all (a FIFO opens, non-blocking, and is refused by
            the caller's fstat).
        NotFoundError, AccessDeniedError and the other typed OS errors: the OS refused.
    """
    flags = os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOFOLLOW
    try:
        return os.open(entry.name, flags, dir_fd=entry.parent)
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # not an I/O error: one more special file
            raise special_file(entry.path) from exc
        raise from_os_error(exc, entry.path) from exc


def special_file(path: Path) -> BinaryFileError:
    """The refusal of a pipe, socket or device, whose bytes are never read (a FIFO's read could block forever)."""
    return BinaryFileError(
        f"{path} is a pipe, socket or device, not a regular file: fsguard never reads or writes its bytes. "
        "Use a regular file instead.",
        path=str(path),
    )


def _read_fd(fd: int, path: Path, max_size: int | None) -> tuple[bytes, os.stat_result | None]:
    """Read all of ``fd`` (which this closes)."""
    try:
        return read_open(fd, path, max_size)
    finally:
        os.close(fd)


def read_open(fd: int, path: Path, max_size: int | None = None) -> tuple[bytes, os.stat_result | None]:
    """Read all of the open ``fd`` from its start; the stat is returned only if the file did not change meanwhile
    (see :func:`read_at`). The caller keeps ``fd`` open."""
    try:
        before = os.fstat(fd)
        if stat.S_ISDIR(before.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory")
        if not stat.S_ISREG(before.st_mode):
            raise special_file(path)
        if max_size is not None and before.st_size > max_size:
            raise TooLargeError(
                f"{path} is {before.st_size:,} bytes, above the {max_size:,}-byte limit (--max-file-size) for "
                "loading a whole file. A text file can still be read in ranges: read_file(start_line=..., "
                "end_line=...) or read_file(mode='tail'); to change it, ask the user to restart fsguard with a larger "
                "--max-file-size.",
                path=str(path),
            )
        data = read_all(fd, before.st_size, max_size)
        after = os.fstat(fd)
    except OSError as exc:
        raise from_os_error(exc, path) from exc
    if max_size is not None and len(data) > max_size:
        raise TooLargeError(
            f"{path} grew past the {max_size:,}-byte limit (--max-file-size) while it was read; nothing was "
            "changed. Read it in ranges (mode='tail' or start_line/end_line), or retry once it stops growing.",
            path=str(path),
        )
    unchanged = (before.st_size, before.st_mtime_ns, before.st_ctime_ns) == (
        after.st_size,
        after.st_mtime_ns,
        after.st_ctime_ns,
    ) and after.st_size == len(data)
    return data, after if unchanged else None


def new_file_mode(*, executable: bool) -> int:
    """The mode git gives a file it writes: 0666, or 0777 for an executable one, less the umask."""
    return (0o777 if executable else 0o666) & ~_UMASK


class AtomicWriter:
    """Durable replace-by-rename writes whose temp files are journaled, so a crash leaves no strays.

    Each write records its temp path under ``<state_dir>/inflight`` first; :meth:`clean_strays` removes
    the temps of writes that never finished. A reader sees the old bytes or the new ones, never a mix.
    """

    def __init__(self, state_dir: Path) -> None:
        self._journal = state_dir / "inflight"
        try:
            self._journal.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise from_os_error(exc, self._journal) from exc

    def clean_strays(self, remove: Callable[[Path], None] | None = None) -> list[Path]:
        """Remove temp files and directories left by writes interrupted by a crash; returns what was removed.

        The records of writes still running (in this process or another fsguard sharing this state directory) are
        left alone (:mod:`fsguard.core.inflight`). ``remove`` deletes one temp (by default by name,
        which is right for the state directory; the server passes one that pins user paths).
        """
        removed: list[Path] = []
        for entry in self._journal.iterdir():
            try:
                named = dead_record(entry)
            except OSError as exc:  # not a record (a directory put there, an unreadable file): no start fails on it
                logger.warning("left %s in place: not a temp record fsguard can read (%s)", entry, exc.strerror)
                continue
            if named is None:
                continue
            temp = Path(os.fsdecode(named))
            if _TEMP_MARK in temp.name and os.path.lexists(temp):
                try:
                    (remove or remove_by_name)(temp)
                    removed.append(temp)
                except (OSError, FsguardError) as exc:
                    logger.info("left %s in place: %s", temp, exc)
            entry.unlink(missing_ok=True)
        if removed:
            logger.info("removed %d temp file(s) left by an interrupted write", len(removed))
        return removed

    @contextmanager
    def temp_name(self, entry: Pinned) -> Iterator[str]:
        """A fresh temp name beside ``entry``, journaled for the duration so a crash leaves no stray.

        Not derived from the entry's name: a name near NAME_MAX must still leave room for the temp's.
        """
        token = secrets.token_hex(16)
        name = f"{_TEMP_MARK}{token}"
        record = self._journal / f"{os.getpid()}-{token}{HELD}"
        try:
            held = open_record(record, os.fsencode(entry.path.parent / name))
        except OSError as exc:
            raise from_os_error(exc, self._journal) from exc
        try:
            yield name
        finally:
            try:
                if _gone(entry.parent, name):
                    record.unlink(missing_ok=True)
                else:  # not removable now (its directory made read-only meanwhile): the next start sweeps it
                    logger.warning("left temp file %s; the next start removes it", entry.path.parent / name)
            finally:
                os.close(held)

    def write(self, path: Path, data: bytes, *, exclusive: bool = False) -> None:
        """:meth:`write_at` for a trusted path (the state directory): its parent is opened by name."""
        try:
            parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise from_os_error(exc, path.parent) from exc
        try:
            self.write_at(Pinned(parent, path.name, path), data, exclusive=exclusive)
        finally:
            os.close(parent)

    def write_at(
        self,
        entry: Pinned,
        data: bytes,
        *,
        exclusive: bool = False,
        mode: int | None = None,
        alongside: Callable[[], None] | None = None,
        unchanged: Callable[[os.stat_result | None], None] | None = None,
    ) -> None:
        """Replace ``entry`` with ``data``: temp in the same directory, fsync, rename, fsync the directory;
        ``unchanged`` checks the file replaced (see :func:`swap_in`), and nothing is replaced if it raises.

        The existing file's mode (and owner, when running as root) is kept; a new file gets ``mode``, else
        0666 less the umask. With ``exclusive`` the file must not exist: the temp is linked into place
        without replacing anything, so a file that appeared meanwhile is never clobbered unseen.

        ``alongside`` (the backup of the old bytes) runs on this thread while another writes and fsyncs the
        temp: the two fsyncs overlap, and the rename waits for both. If it raises, nothing is replaced.

        Raises:
            AlreadyExistsError: ``exclusive`` and the name is taken.
            AccessDeniedError: the name is now a symlink or directory (swapped in since it was pinned).
            DiskFullError and the other typed OS errors: nothing was replaced, and no temp remains (one that
                cannot be removed now keeps its record: the next start removes it).
        """
        existing = lstat_at(entry)
        if existing is not None and not exclusive and stat.S_ISDIR(existing.st_mode):
            raise IsDirectoryError(f"{entry.path} is a directory; only a file can be written.", path=str(entry.path))
        if existing is not None and not exclusive and not stat.S_ISREG(existing.st_mode):
            raise AccessDeniedError(
                f"{entry.path} is no longer a regular file (a link or device took its place); nothing was "
                "written. Check it with get_file_info, then retry.",
                path=str(entry.path),
            )
        if existing is not None and not exclusive:
            check_writable(entry, existing)
        if existing is None or exclusive:
            # Recreated from its bytes and mode alone (an undo of a delete), a file is this user's: a setuid bit
            # set for its old owner would make it a program running as this user.
            like: os.stat_result | None = None
            fresh = without_set_id(mode) if mode is not None else None
            xattrs: Xattrs = {}
        else:
            like, fresh = existing, 0o600
            xattrs = for_new_bytes(xattrs_at(entry.parent, entry.name))  # its ACL among them
        parent = entry.parent
        with self.temp_name(entry) as temp:
            try:
                if alongside is None:
                    _fill(parent, temp, data, fresh, like, xattrs)
                else:
                    _overlapped(alongside, _fill, parent, temp, data, fresh, like, xattrs)
                if exclusive:
                    rename_no_replace(Pinned(parent, temp, entry.path), entry)
                else:
                    check = unchanged or functools.partial(same_file, existing, entry.path)
                    swap_in(Pinned(parent, temp, entry.path.parent / temp), entry, check)
                sync_directory(parent, entry.path.parent)
            except OSError as exc:
                _unlink_quietly(parent, temp)
                refused = unwritable_directory_error(exc, entry.path, parent)
                raise refused or from_os_error(exc, entry.path, needed=len(data)) from exc
            except BaseException:
                _unlink_quietly(parent, temp)
                raise


def _fill(parent: int, temp: str, data: bytes, mode: int | None, like: os.stat_result | None, xattrs: Xattrs) -> None:
    """Create the temp ``temp`` in ``parent`` holding ``data`` durably, with the owner, ``xattrs`` and mode of the
    file it replaces (``like``), else with ``mode``; without one, 0666 as the umask or the directory's default ACL
    cuts it, as any program's new file. (Set after, 0666 less the umask overrode that ACL: a file made in a
    directory whose default ACL kept others out was readable by all, and its named users lost write.)"""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o666 if mode is None else mode, dir_fd=parent)
    try:
        _write_all(fd, data)
        if like is not None:
            carry(fd, like, xattrs, times=False)
        elif mode is not None:
            os.fchmod(fd, mode)  # not the umask's
        os.fsync(fd)
    finally:
        os.close(fd)


@functools.cache
def _fillers() -> ThreadPoolExecutor:
    """The threads that write temp files while their callers back up; made by the first overlapped write."""
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="fsguard-fill")


os.register_at_fork(after_in_child=_fillers.cache_clear)  # a forked child has none of its parent's threads


def _overlapped(first: Callable[[], None], second: Callable[..., None], *args: object) -> None:
    """``first()`` on this thread while ``second(*args)`` runs on a filler thread; returns once both have finished,
    raising ``first``'s exception if it raised, else ``second``'s. (A filler never waits for anything but the disk,
    so a caller waiting for one cannot deadlock, however many callers there are.)"""
    pending = _fillers().submit(second, *args)
    try:
        first()
    except BaseException:
        with suppress(Exception):
            pending.result()  # the temp must be closed before the caller removes it
        raise
    pending.result()


def read_all(fd: int, size_hint: int, limit: int | None = None) -> bytes:
    """Everything from offset 0 to the end, in one read when the file is the size its stat said; with ``limit``,
    reading stops once more than ``limit`` bytes are in (a file growing while it is read is not followed on)."""
    chunks: list[bytes] = []
    offset = 0
    want = size_hint + 1  # one byte more: a file that grew meanwhile is read on
    while chunk := os.pread(fd, want, offset):
        chunks.append(chunk)
        offset += len(chunk)
        # A short read is the end of the file, or Linux's cap of one read at 2 GiB - 4 KiB: short of the stat's
        # size, reading goes on (one read was taken for the whole of a 3 GB file, which came back as 2 GiB).
        if (len(chunk) < want and offset >= size_hint) or (limit is not None and offset > limit):
            break
        want = max(size_hint + 1 - offset, 1 << 20)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def _write_all(fd: int, data: bytes) -> None:
    """os.write until done, without copying ``data``."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _unlink_quietly(parent: int, name: str) -> None:
    with suppress(OSError):  # gone already, or never made (a read-only or full filesystem refused it)
        os.unlink(name, dir_fd=parent)


def _gone(parent: int, name: str) -> bool:
    """Whether the temp ``name`` is no longer in ``parent`` (renamed into place, or removed); unsure is not gone."""
    try:
        os.stat(name, dir_fd=parent, follow_symlinks=False)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


def remove_by_name(path: Path) -> None:
    """Remove a file or tree of the server's own state directory, by name (trusted: no agent can reach it)."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
