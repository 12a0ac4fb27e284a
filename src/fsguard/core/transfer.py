"""Moving bytes without ever overwriting: no-clobber renames, verified cross-filesystem moves, fingerprints."""

from __future__ import annotations

import ctypes
import errno
import functools
import hashlib
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

from fsguard.core.errors import FsguardError, NotDirectoryError, from_os_error


def fingerprint(path: Path) -> tuple[str, int, int]:
    """(SHA-256, bytes, files) of a file, or of a directory's relative paths, modes and contents."""
    if is_special(path):
        return hashlib.sha256(b"").hexdigest(), 0, 1
    if not path.is_dir() or path.is_symlink():
        data = str(path.readlink()).encode() if path.is_symlink() else path.read_bytes()
        return hashlib.sha256(data).hexdigest(), len(data), 1
    digest = hashlib.sha256()
    size = files = 0
    for item in sorted(path.rglob("*")):
        relative = item.relative_to(path).as_posix().encode()
        if item.is_symlink():
            digest.update(b"L" + relative + b"\0" + str(item.readlink()).encode() + b"\0")
        elif item.is_file() and not is_special(item):
            data = item.read_bytes()
            digest.update(b"F" + relative + b"\0" + hashlib.sha256(data).digest())
            size += len(data)
            files += 1
        else:
            digest.update(b"D" + relative + b"\0")
    return digest.hexdigest(), size, files


def move_verified(source: Path, target: Path, expected_sha256: str) -> None:
    """Rename ``source`` to ``target`` (which must not exist); across filesystems copy, verify, then remove."""
    try:
        rename_no_replace(source, target)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:  # another filesystem: copy instead
            raise from_os_error(exc, source) from exc
    if source.is_dir() and not source.is_symlink():
        shutil.copytree(source, target, symlinks=True, copy_function=copy_synced)
    else:
        copy_synced(str(source), str(target))
    if fingerprint(target)[0] != expected_sha256:
        remove(target)
        raise FsguardError(f"copy of {source} did not verify; the original was left in place.", path=str(source))
    remove(source)


def remove(path: Path) -> None:
    """Delete a file, link or whole directory."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


_AT_FDCWD = -100
_RENAME_NOREPLACE = 1


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """glibc's renameat2, which Python does not wrap; None where the C library lacks it."""
    try:
        function: Callable[..., int] = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    return function


def rename_no_replace(source: Path, target: Path) -> None:
    """rename(2) that refuses an existing target, atomically.

    renameat2(RENAME_NOREPLACE) where the kernel and filesystem have it; otherwise files move by
    link+unlink and directories into a freshly made empty directory (both refuse an existing target).
    """
    function = _renameat2()
    if function is not None:
        if function(_AT_FDCWD, os.fsencode(source), _AT_FDCWD, os.fsencode(target), _RENAME_NOREPLACE) == 0:
            return
        code = ctypes.get_errno()
        if code not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # these mean: not supported here
            raise OSError(code, os.strerror(code), str(source), None, str(target))
    if source.is_dir() and not source.is_symlink():
        target.mkdir()  # fails if it exists; rename then atomically replaces only this empty directory
        try:
            source.rename(target)
        except OSError:
            target.rmdir()
            raise
        return
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in (errno.EPERM, errno.ENOSYS, errno.EOPNOTSUPP):  # a filesystem without hard links
            raise
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)  # reserve the name, then take it
        os.close(fd)
        source.rename(target)
        return
    source.unlink()


def make_parents(path: Path) -> None:
    """Create the directories above ``path``.

    Raises:
        NotDirectoryError: a component on the way is a file.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError) as exc:
        raise NotDirectoryError(
            f"cannot create {path}: a component of {path.parent} is a file, not a directory.", path=str(path)
        ) from exc
    except OSError as exc:
        raise from_os_error(exc, path.parent) from exc


def is_special(path: Path) -> bool:
    """A FIFO, socket or device: opening one to read could block forever, so it is never read."""
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode) or stat.S_ISLNK(mode))


def copy_synced(source: str, target: str) -> str:
    if Path(source).is_symlink():
        Path(target).symlink_to(Path(source).readlink())
        return target
    shutil.copy2(source, target)
    fd = os.open(target, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return target
