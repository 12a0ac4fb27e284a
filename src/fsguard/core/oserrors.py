"""Expected operating-system failures as typed errors: :func:`from_os_error`, and name and path length limits.

Each environment failure has its own code and a message naming the next action: a full disk or quota says how
much to free (from ``statvfs``), a read-only mount names its mount point, a name too long names the limit.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

from fsguard.core.errors import (
    AccessDeniedError,
    AlreadyExistsError,
    DiskFullError,
    FsguardError,
    IsDirectoryError,
    NameTooLongError,
    NotDirectoryError,
    NotFoundError,
    ReadOnlyFilesystemError,
    SymlinkLoopError,
)
from fsguard.core.mounts import mount_point

NAME_MAX_BYTES = 255
"""The longest file or directory name, in bytes, that Linux, macOS and Windows filesystems all accept."""
PATH_MAX_BYTES = 4095
"""The longest whole path, in bytes, a Linux system call accepts: PATH_MAX (4,096) counts the closing NUL."""
_SHOWN_CHARS = 160


def os_reason(exc: OSError) -> str:
    """Why the OS refused, as it words it (``Device or resource busy``), else the error's kind."""
    return exc.strerror or type(exc).__name__


_READ_ONLY_ADVICE = "Write under a root on a writable filesystem instead, or have it remounted read-write."


def in_state_dir(code: object, message: str, path: object, state_dir: Path, advice: Mapping[str, str]) -> str | None:
    """The ``message`` of an error of ``code`` at ``path`` that lies in fsguard's own state directory, with the
    ``advice`` for that code in place of the general one (which sends the reader to the roots, which are fine);
    None for another code or path."""
    if not isinstance(code, str) or code not in advice or not isinstance(path, str):
        return None
    # absolute(): a --state-dir given relative names its files relative too, from the same working directory.
    if not any(
        Path(path).absolute().is_relative_to(spelling) for spelling in (state_dir.absolute(), state_dir.resolve())
    ):
        return None
    return f"{message.removesuffix(_READ_ONLY_ADVICE).rstrip()} {advice[code]}"


def from_os_error(exc: OSError, path: object, *, needed: int | None = None) -> FsguardError:
    """The typed error for an expected OS failure at ``path``; callers raise it ``from exc``.

    ``needed`` is how many bytes the failed operation meant to write, when known: a full disk's
    message then names how much space to free.
    """
    shown = shorten(path)
    reason = os_reason(exc)
    if isinstance(exc, FileNotFoundError):
        return NotFoundError(f"{shown} does not exist. Check the path with list_directory.", path=field_path(path))
    if isinstance(exc, IsADirectoryError):
        return IsDirectoryError(
            f"{shown} is a directory, not a file. Use list_directory for directories.", path=field_path(path)
        )
    if isinstance(exc, NotADirectoryError):
        return NotDirectoryError(f"a component of {shown} is not a directory.", path=field_path(path))
    if isinstance(exc, FileExistsError):
        return AlreadyExistsError(f"{shown} already exists.", path=field_path(path))
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return _disk_full(exc.errno, path, needed)
    if exc.errno == errno.EROFS:
        mount = _mount_point(path)
        where = f"the read-only filesystem mounted at {shorten(mount)}" if mount else "a read-only filesystem"
        return ReadOnlyFilesystemError(
            f"{shown} is on {where}: nothing can be written there. {_READ_ONLY_ADVICE}",
            path=field_path(path),
        )
    if exc.errno == errno.ENAMETOOLONG:
        return name_length_error(str(path)) or NameTooLongError(
            f"the filesystem refused a name in {shown} as too long ({reason}); it may allow fewer than "
            f"{NAME_MAX_BYTES} bytes per name. Use a shorter name, then retry.",
            path=field_path(path),
        )
    if exc.errno == errno.EBUSY:
        # A file can be a mount point too (a bind mount of one file): nothing is inside it to work with.
        advice = (
            "Work with what is inside it, or another path."
            if isinstance(path, (str, Path)) and Path(path).is_dir()
            else "Ask the user to unmount it, or use another path."
        )
        return AccessDeniedError(
            f"the operating system refused to change {shown}: {reason} (a mount point, or in use by the system). "
            f"{advice}",
            path=field_path(path),
            reason=reason,
        )
    flag = _flag_of(path) if exc.errno == errno.EPERM else None
    if flag is not None:
        return AccessDeniedError(
            f"the operating system refused to change {shown}: it is marked {flag[0]} (lsattr shows an {flag[1]}), "
            f"which keeps even root from replacing, moving or deleting it. Ask the user to clear that (chattr "
            f"-{flag[1]}) if it should change, or use another path.",
            path=field_path(path),
            reason=reason,
        )
    if isinstance(exc, PermissionError) or exc.errno in (errno.ELOOP, errno.EACCES, errno.EPERM):
        return AccessDeniedError(
            f"the operating system refused access to {shown}: {reason}. Check its permissions with "
            "get_file_info, or use another path.",
            path=field_path(path),
            reason=reason,
        )
    if exc.errno == errno.EMFILE:  # the process's limit, not the file's fault: say whose limit and how to raise it
        return FsguardError(
            f"I/O error on {shown}: {reason}: the server has reached its limit of {_open_file_limit()} open files. "
            "Retry once its other calls have finished; if it persists, ask the user to raise the limit (ulimit -n, "
            "or LimitNOFILE= for a service) and restart fsguard.",
            path=field_path(path),
        )
    return FsguardError(f"I/O error on {shown}: {reason}.", path=field_path(path))


_FS_IOC_GETFLAGS = 0x80086601  # Linux, <linux/fs.h>
_FLAGS = ((0x10, ("immutable", "i")), (0x20, ("append-only", "a")))  # FS_IMMUTABLE_FL, FS_APPEND_FL


def _flag_of(path: object, *, follow: bool = False) -> tuple[str, str] | None:
    """The flag (its name, its lsattr letter) that makes the regular file or directory at ``path`` (with ``follow``,
    where it leads) refuse a change with EPERM, which the mode cannot show: "Check its permissions" sent the agent
    to bits that allowed it. None where there is none, or it cannot be told (not Linux, the file gone, not
    readable)."""
    if not isinstance(path, (str, Path)) or not Path(path).is_absolute():
        return None
    try:
        found = Path(path).stat(follow_symlinks=follow)
        if not (stat.S_ISREG(found.st_mode) or stat.S_ISDIR(found.st_mode)):
            return None  # a device or a pipe is never opened to be asked
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW))
        try:
            flags = int.from_bytes(fcntl.ioctl(fd, _FS_IOC_GETFLAGS, bytes(8))[:4], "little")
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    return next((named for bit, named in _FLAGS if flags & bit), None)


def _open_file_limit() -> str:
    import resource  # here: POSIX only, and needed only when the limit is hit

    return f"{resource.getrlimit(resource.RLIMIT_NOFILE)[0]:,}"


def unwritable_directory_error(exc: OSError, path: Path, directory: int) -> AccessDeniedError | None:
    """The refusal of a change to ``path`` that changes its ``directory`` (open, ``path``'s parent): a temp made
    beside it, a rename, an unlink. Those need the directory's write permission, not the file's, so where this user
    may not write the directory, it is named with its mode: the file's own, which get_file_info showed, were fine.
    None for another failure."""
    if exc.errno not in (errno.EACCES, errno.EPERM):
        return None
    try:
        if os.access(f"/proc/self/fd/{directory}", os.W_OK | os.X_OK, effective_ids=True):
            return None
        mode = stat.filemode(os.fstat(directory).st_mode)
    except OSError:
        return None  # cannot tell: the caller's error
    shown, parent = shorten(path), shorten(path.parent)
    flag = _flag_of(f"/proc/self/fd/{directory}", follow=True)
    if flag is not None:  # root passes the bits: "chmod u+w" would change nothing
        return AccessDeniedError(
            f"the operating system refused to change {shown}: its directory {parent} is marked {flag[0]} (lsattr -d "
            f"shows an {flag[1]}), which keeps even root from changing what it holds. Ask the user to clear that "
            f"(chattr -{flag[1]} {parent}) if it should change, or use another path.",
            path=shown,
            directory=parent,
            reason=os_reason(exc),
        )
    return AccessDeniedError(
        f"the operating system refused to change {shown}: its directory {parent} is not writable by the server's "
        f"user (mode {mode}), and a file there is made, replaced, moved or deleted only by changing it. Ask the user "
        f"to make {parent} writable (chmod u+w) if it should change, or use another path.",
        path=shown,
        directory=parent,
        reason=os_reason(exc),
    )


def unsearchable_error(path: Path) -> AccessDeniedError:
    """The refusal of ``path`` when the directory holding it may not be searched: get_file_info on the path would be
    refused too, so the advice names the directory, whose permissions it can show."""
    shown, parent = shorten(path), shorten(path.parent)
    return AccessDeniedError(
        f"the operating system refused access to {shown}: Permission denied, as its directory {parent} may not be "
        f"searched. Check the permissions of {parent} with get_file_info, or use another path.",
        path=field_path(path),
        reason="Permission denied",
    )


def followed_os_error(exc: OSError, path: object) -> FsguardError:
    """:func:`from_os_error` for a call that followed ``path``'s symbolic links (``stat``, an open without
    ``O_NOFOLLOW``): ELOOP there is a loop of links, not a link refused in the place of a file."""
    return link_loop_error(path) if exc.errno == errno.ELOOP else from_os_error(exc, path)


def leads_through_loop(path: Path, *, follow: bool = False) -> bool:
    """Whether ``path`` is out of reach because a directory on its way is a loop of symbolic links; with ``follow``,
    or the path itself (without, a link that loops exists: delete_file removes it)."""
    try:
        path.stat(follow_symlinks=follow)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def link_loop_error(path: object) -> SymlinkLoopError:
    """The error for a path whose lookup meets a loop of symbolic links (ELOOP when followed, or more links than
    the kernel follows): no permission is at fault, so it names the links, not get_file_info."""
    shown = shorten(path)
    return SymlinkLoopError(
        f"{shown} leads through a loop of symbolic links (a link that leads back to itself, directly or through "
        "others), so it names no file or directory. Use the path the link was meant to reach, or remove the link "
        "with delete_file.",
        path=field_path(path),
    )


def name_length_error(path: str) -> NameTooLongError | None:
    """The error for a path with a name over ``NAME_MAX_BYTES`` or a length over ``PATH_MAX_BYTES``, else None."""
    # A character is at most 4 UTF-8 bytes: a path of short names (every call's) needs no encoding at all.
    if len(path) * 4 <= PATH_MAX_BYTES and max(map(len, path.split("/"))) * 4 <= NAME_MAX_BYTES:
        return None
    shown = shorten(path)
    for name in Path(path).parts:
        size = _byte_length(name)
        if size > NAME_MAX_BYTES:
            return NameTooLongError(
                f"a name in {shown} is {size:,} bytes long ({shorten(name, 40, count=False)!r}); filesystems "
                f"allow at most {NAME_MAX_BYTES} bytes per file or directory name. Use a shorter name.",
                path=field_path(path),
                name_bytes=size,
                limit_bytes=NAME_MAX_BYTES,
            )
    size = _byte_length(path)
    if size > PATH_MAX_BYTES:
        return NameTooLongError(
            f"the path {shown} is {size:,} bytes long; the whole path may be at most {PATH_MAX_BYTES:,} bytes. "
            "Use fewer or shorter directory names.",
            path=field_path(path),
            path_bytes=size,
            limit_bytes=PATH_MAX_BYTES,
        )
    return None


def field_path(path: object) -> str:
    """``path`` for an error's fields (``_meta``), whole as every path there is: only a message shortens it. One
    longer than any path the OS takes (``PATH_MAX_BYTES`` characters) names no file, and is shortened there too
    rather than echoed (200,000 characters sent, 200,000 back)."""
    text = str(path)
    return text if len(text) <= PATH_MAX_BYTES else shorten(text)


def shorten(path: object, limit: int = _SHOWN_CHARS, *, count: bool = True) -> str:
    """``path`` as text for a message: a very long one keeps its start and end (and, with ``count``, its length)."""
    text = str(path)
    if len(text) <= limit:
        return text
    keep = limit // 2
    cut = f"{text[:keep]}…{text[-keep // 2 :]}"
    return f"{cut} ({len(text):,} characters)" if count else cut


def lone_surrogate(char: str) -> str:
    """Why text holding ``char``, a lone UTF-16 surrogate, is refused, and what to send instead: JSON can spell half
    a pair (``"\\ud800"``), and U+DC80-U+DCFF is how Python spells a byte that is not UTF-8 (a file name's)."""
    if "\udc80" <= char <= "\udcff":
        return f"holds U+{ord(char):04X}, a raw byte (how a name that is not UTF-8 is spelled), which no text holds."
    return (
        f"holds U+{ord(char):04X}, half of a UTF-16 surrogate pair, which is no character. "
        "Send valid Unicode: both halves of the pair, or the character itself."
    )


def quoted(text: str, *, double: bool = False) -> str:
    """``text`` quoted as ``repr`` does (or, ``double``, in JSON's double quotes, as the seed quoted), a very long
    one by its ends with its length after the quotes."""
    cut = shorten(text, count=False)
    return (json.dumps(cut, ensure_ascii=False) if double else repr(cut)) + (
        "" if cut == text else f" ({len(text):,} characters)"
    )


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
    elif needed is not None and free is not None and free >= needed:
        # Measured once the partial copy is gone: the bytes are back, so "free N bytes" asked for what was there.
        # What ran out is what a cleanup gives back too, inodes (a tmpfs or quota with few), or another process's
        # bytes meanwhile.
        problem = (
            f"no space left on {where} for {needed:,} bytes, though {free:,} are free now: "
            "it ran out of inodes (one per file and directory) or another process filled it meanwhile"
        )
        action = "Delete files there (or fewer files in one copy)"
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
    return DiskFullError(
        f"{shown}: {problem}. {action}, then retry.", path=field_path(path), needed_bytes=needed, free_bytes=free
    )


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
    try:
        found = mount_point(Path(os.path.realpath(directory)))
    except (OSError, ValueError):
        found = None
    if found is not None:
        return found
    # No mount table (not Linux): the device test, blind to bind mounts but right for every other mount.
    return next((candidate for candidate in (directory, *directory.parents) if candidate.is_mount()), None)


def check_readable(path: Path) -> None:
    """Refuse a file the server's user may not read, asked for by name: a walk skips such a file (and names it), but
    a search or replace of that one file would otherwise answer "no match" for a file it never read.

    Raises:
        AccessDeniedError: ``path`` may not be read (``access(2)`` with the effective ids, ACLs included).
    """
    if not os.access(path, os.R_OK, effective_ids=True):
        raise from_os_error(PermissionError(errno.EACCES, os.strerror(errno.EACCES)), path)
