"""One tree of typed errors, each with a stable ``code`` the protocol layer sends in ``_meta``.

    FsguardError
    ├── InvalidParamsError        invalid_params
    │   ├── UnknownParamError     unknown_param
    │   └── HookConfigError       invalid_params (the same code: a bad --hooks-config file)
    ├── AccessDeniedError         access_denied
    ├── NotFoundError             not_found
    ├── IsDirectoryError          is_directory
    ├── NotDirectoryError         not_a_directory
    ├── AlreadyExistsError        already_exists
    ├── TooLargeError             too_large
    ├── BinaryFileError           binary_file
    ├── EncodingError             encoding_error
    ├── ReadOnlyError             read_only
    ├── ReadOnlyFilesystemError   read_only_filesystem
    ├── DiskFullError             disk_full
    ├── NameTooLongError          name_too_long
    ├── StaleEditError            stale_edit
    ├── ExternalChangeError       external_change
    ├── NoMatchError              no_match
    ├── AmbiguousMatchError       ambiguous_match
    ├── RewriteBlockedError       rewrite_blocked
    ├── NothingToUndoError        nothing_to_undo
    ├── UndoConflictError         undo_conflict
    ├── RiskBlockedError          risk_blocked
    ├── HookDeniedError           hook_denied
    └── BackupCorruptError        backup_corrupt

``FsguardError`` itself answers ``error``, the fallback for an I/O failure with no code of its own. One
class has one code; an error that must carry another class's code is raised as that class
(:func:`error_for_code`).

Messages are written for the model: what failed, the evidence, and the next action.
:func:`from_os_error` turns an expected ``OSError`` into one of these; each environment failure
(permissions, a full disk or quota, a read-only mount, a name too long) has its own code.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import ClassVar

NAME_MAX_BYTES = 255
"""The longest file or directory name, in bytes, that Linux, macOS and Windows filesystems all accept."""
PATH_MAX_BYTES = 4096
"""The longest whole path, in bytes, a Linux system call accepts."""
_SHOWN_CHARS = 160


class FsguardError(Exception):
    """Base of every error the core raises on purpose."""

    code: ClassVar[str] = "error"

    def __init__(self, message: str, **fields: object) -> None:
        super().__init__(message)
        self.message = message
        self.fields = {key: value for key, value in fields.items() if value is not None}


class InvalidParamsError(FsguardError):
    """An argument is missing, malformed or contradicts another."""

    code = "invalid_params"


class UnknownParamError(InvalidParamsError):
    """An argument name the tool does not take."""

    code = "unknown_param"


class AccessDeniedError(FsguardError):
    """A path outside the roots, or one the path policy refuses."""

    code = "access_denied"


class NotFoundError(FsguardError):
    """The path does not exist."""

    code = "not_found"


class IsDirectoryError(FsguardError):
    """A file was expected and the path is a directory."""

    code = "is_directory"


class NotDirectoryError(FsguardError):
    """A directory was expected and the path is something else."""

    code = "not_a_directory"


class AlreadyExistsError(FsguardError):
    """The operation would replace something that exists."""

    code = "already_exists"


class TooLargeError(FsguardError):
    """The file is above a configured size limit."""

    code = "too_large"


class BinaryFileError(FsguardError):
    """The file holds binary data and cannot be handled as text."""

    code = "binary_file"


class EncodingError(FsguardError):
    """The bytes cannot be decoded in any supported encoding."""

    code = "encoding_error"


class ReadOnlyError(FsguardError):
    """The server runs with --read-only."""

    code = "read_only"


class ReadOnlyFilesystemError(FsguardError):
    """The filesystem holding the path is mounted read-only (EROFS)."""

    code = "read_only_filesystem"


class DiskFullError(FsguardError):
    """No space (ENOSPC) or no quota (EDQUOT) left on the filesystem holding the path."""

    code = "disk_full"

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        needed_bytes: int | None = None,
        free_bytes: int | None = None,
    ) -> None:
        super().__init__(message, path=path, needed_bytes=needed_bytes, free_bytes=free_bytes)
        self.needed_bytes = needed_bytes
        self.free_bytes = free_bytes


class NameTooLongError(FsguardError):
    """A name in the path, or the whole path, is longer than filesystems allow (ENAMETOOLONG)."""

    code = "name_too_long"


class StaleEditError(FsguardError):
    """expected_hash does not match the file on disk."""

    code = "stale_edit"


class ExternalChangeError(FsguardError):
    """The file changed on disk since this session last saw it (--auto-occ block)."""

    code = "external_change"


class NoMatchError(FsguardError):
    """The text to replace is not in the file."""

    code = "no_match"


class AmbiguousMatchError(FsguardError):
    """The text to replace occurs more than once."""

    code = "ambiguous_match"


class RewriteBlockedError(FsguardError):
    """An edit that looks like an accidental full-file rewrite."""

    code = "rewrite_blocked"


class NothingToUndoError(FsguardError):
    """No operation on this file is left to undo."""

    code = "nothing_to_undo"


class UndoConflictError(FsguardError):
    """The file changed after the operation being undone."""

    code = "undo_conflict"


class RiskBlockedError(FsguardError):
    """A change too large to make without force."""

    code = "risk_blocked"


class HookConfigError(InvalidParamsError):
    """The hooks config file is missing, not JSON, or not in the documented shape."""


class HookDeniedError(FsguardError):
    """A pre-hook refused the operation; nothing was changed."""

    code = "hook_denied"


class BackupCorruptError(FsguardError):
    """A saved blob is missing or does not match its address."""

    code = "backup_corrupt"


def error_for_code(code: str | None) -> type[FsguardError]:
    """The class whose code is ``code`` (the first class in the tree that has it), else the base."""
    pending: list[type[FsguardError]] = [FsguardError]
    while pending:
        cls = pending.pop(0)
        if cls.code == code:
            return cls
        pending.extend(cls.__subclasses__())
    return FsguardError


def from_os_error(exc: OSError, path: object, *, needed: int | None = None) -> FsguardError:
    """The typed error for an expected OS failure at ``path``; callers raise it ``from exc``.

    ``needed`` is how many bytes the failed operation meant to write, when known: a full disk's
    message then names how much space to free.
    """
    shown = shorten(path)
    reason = exc.strerror or type(exc).__name__
    if isinstance(exc, FileNotFoundError):
        return NotFoundError(f"{shown} does not exist. Check the path with list_directory.", path=shown)
    if isinstance(exc, IsADirectoryError):
        return IsDirectoryError(f"{shown} is a directory, not a file. Use list_directory for directories.", path=shown)
    if isinstance(exc, NotADirectoryError):
        return NotDirectoryError(f"a component of {shown} is not a directory.", path=shown)
    if isinstance(exc, FileExistsError):
        return AlreadyExistsError(f"{shown} already exists.", path=shown)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return _disk_full(exc.errno, path, needed)
    if exc.errno == errno.EROFS:
        mount = _mount_point(path)
        where = f"the read-only filesystem mounted at {shorten(mount)}" if mount else "a read-only filesystem"
        return ReadOnlyFilesystemError(
            f"{shown} is on {where}: nothing can be written there. "
            "Write under a root on a writable filesystem instead, or have it remounted read-write.",
            path=shown,
        )
    if exc.errno == errno.ENAMETOOLONG:
        return name_length_error(str(path)) or NameTooLongError(
            f"the filesystem refused a name in {shown} as too long ({reason}); it may allow fewer than "
            f"{NAME_MAX_BYTES} bytes per name. Use a shorter name, then retry.",
            path=shown,
        )
    if isinstance(exc, PermissionError) or exc.errno in (errno.ELOOP, errno.EACCES, errno.EPERM):
        return AccessDeniedError(
            f"the operating system refused access to {shown}: {reason}. Check its permissions with "
            "get_file_info, or use another path.",
            path=shown,
            reason=reason,
        )
    return FsguardError(f"I/O error on {shown}: {reason}.", path=shown)


def name_length_error(path: str) -> NameTooLongError | None:
    """The error for a path with a name over ``NAME_MAX_BYTES`` or a length over ``PATH_MAX_BYTES``, else None."""
    shown = shorten(path)
    for name in Path(path).parts:
        size = _byte_length(name)
        if size > NAME_MAX_BYTES:
            return NameTooLongError(
                f"a name in {shown} is {size:,} bytes long ({shorten(name, 40, count=False)!r}); filesystems "
                f"allow at most {NAME_MAX_BYTES} bytes per file or directory name. Use a shorter name.",
                path=shown,
                name_bytes=size,
                limit_bytes=NAME_MAX_BYTES,
            )
    size = _byte_length(path)
    if size > PATH_MAX_BYTES:
        return NameTooLongError(
            f"the path {shown} is {size:,} bytes long; the whole path may be at most {PATH_MAX_BYTES:,} bytes. "
            "Use fewer or shorter directory names.",
            path=shown,
            path_bytes=size,
            limit_bytes=PATH_MAX_BYTES,
        )
    return None


def shorten(path: object, limit: int = _SHOWN_CHARS, *, count: bool = True) -> str:
    """``path`` as text for a message: a very long one keeps its start and end (and, with ``count``, its length)."""
    text = str(path)
    if len(text) <= limit:
        return text
    keep = limit // 2
    cut = f"{text[:keep]}…{text[-keep // 2 :]}"
    return f"{cut} ({len(text):,} characters)" if count else cut


def _byte_length(text: str) -> int:
    # surrogatepass: a lone surrogate from JSON still has a length (the OS would refuse it anyway)
    return len(text.encode("utf-8", "surrogatepass"))


def _disk_full(code: int | None, path: object, needed: int | None) -> DiskFullError:
    """ENOSPC or EDQUOT, with the free space of the nearest existing directory (statvfs, as an unprivileged user)."""
    shown = shorten(path)
    directory = _existing_directory(path)
    where = f"the filesystem holding {shorten(directory)}" if directory else "its filesystem"
    free: int | None = None
    no_inodes = False
    if directory is not None:
        try:
            usage = os.statvfs(directory)
        except OSError:
            pass
        else:
            free = usage.f_bavail * usage.f_frsize
            no_inodes = usage.f_files > 0 and usage.f_favail == 0
    if code == errno.EDQUOT:
        problem = f"your disk quota on {where} is used up"
        action = (
            f"Free at least {needed:,} bytes within your quota"
            if needed is not None
            else "Free space within your quota"
        )
    elif no_inodes:
        problem, action = f"{where} has no free inodes (too many files)", "Delete files there"
    else:
        problem = f"no space left on {where}"
        if needed is not None and free is not None:
            problem += f" ({needed:,} bytes needed, {free:,} free)"
        elif free is not None:
            problem += f" ({free:,} bytes free)"
        if needed is not None:
            shortfall = needed - free if free is not None and needed > free else needed
            action = f"Free at least {shortfall:,} bytes there"
        else:
            action = "Free some space there"
    return DiskFullError(f"{shown}: {problem}. {action}, then retry.", path=shown, needed_bytes=needed, free_bytes=free)


def _existing_directory(path: object) -> Path | None:
    """The nearest directory at or above ``path`` that exists."""
    start = Path(str(path)).absolute()
    return next((candidate for candidate in (start, *start.parents) if _is_dir(candidate)), None)


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except (OSError, ValueError):  # ENAMETOOLONG, EACCES, an embedded NUL: not a usable directory
        return False


def _mount_point(path: object) -> Path | None:
    """The mount point of the filesystem holding ``path`` (of its nearest existing directory)."""
    directory = _existing_directory(path)
    if directory is None:
        return None
    return next((candidate for candidate in (directory, *directory.parents) if candidate.is_mount()), None)
