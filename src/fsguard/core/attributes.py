"""What an entry holds besides its bytes (owner, extended attributes, mode, times), carried to its copy or to the
file that replaces it.

A copy made by root came out owned by root with the source's mode: another user's setuid program became a setuid-root
one. An edit's new file lost the old one's POSIX ACL (kept in an extended attribute), which gave its group the
ACL's mask instead of its own bits. So the owner goes first (a change of owner clears the setuid and setgid bits and
file capabilities, even done by root), then the extended attributes (the ACL among them), then the mode; and a
setuid or setgid bit is dropped where the copy cannot have the owner or group it was set for, as ``cp -p`` does.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path

from fsguard.core.beneath import Beneath, Pinned, lstat_at
from fsguard.core.errors import AccessDeniedError, FsguardError
from fsguard.core.oserrors import from_os_error

Xattrs = Mapping[str, bytes]

# A filesystem or namespace that keeps no such attribute, or that this user may not set (trusted.*, another
# process's label): the copy goes without it, as ``cp -a`` goes on with a warning.
_UNKEPT = {errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM, errno.EACCES, errno.EINVAL, errno.ENODATA, errno.E2BIG}
_SET_ID = stat.S_ISUID | stat.S_ISGID
_BOUND_TO_BYTES = frozenset({"security.capability", "security.ima", "security.evm"})
_CAP_DAC_OVERRIDE = 1


def xattrs_of(where: int | str) -> dict[str, bytes]:
    """The extended attributes of an open fd or a path (its last component not followed); none where the filesystem
    keeps none or lets this user read none."""
    try:
        names = os.listxattr(where, follow_symlinks=False) if isinstance(where, str) else os.listxattr(where)
    except OSError as exc:
        if exc.errno in _UNKEPT or exc.errno == errno.ENOENT:
            return {}
        raise
    found = {}
    for name in names:
        try:
            found[name] = (
                os.getxattr(where, name, follow_symlinks=False) if isinstance(where, str) else os.getxattr(where, name)
            )
        except OSError as exc:
            if exc.errno not in _UNKEPT:
                raise
    return found


def xattrs_at(directory: int, name: str) -> dict[str, bytes]:
    """:func:`xattrs_of` the entry ``name`` in the open ``directory`` (not followed), without opening it: a file
    this user may not read still has its ACL carried over. (Without /proc: none, as ENOENT gives.)"""
    return xattrs_of(f"/proc/self/fd/{directory}/{name}")


def for_new_bytes(xattrs: Xattrs) -> dict[str, bytes]:
    """``xattrs`` a file's new contents keep: not those that vouch for its old bytes (file capabilities, which the
    kernel drops on any write, root's included; IMA and EVM measurements). Kept, an edit of a program granted
    ``cap_net_raw`` handed the capability to whatever bytes were written."""
    return {name: value for name, value in xattrs.items() if name not in _BOUND_TO_BYTES}


def carry(fd: int, like: os.stat_result, xattrs: Xattrs, *, times: bool = True) -> None:
    """Give the new entry open at ``fd`` what ``like`` (its source, or the file it replaces) has besides its bytes:
    owner (all of it as root, else the group when this user is in it), ``xattrs``, mode, and with ``times`` the
    access and modification times.

    Raises:
        OSError: the filesystem refused for want of space (ENOSPC, EDQUOT) or failed (EIO); nothing else.
    """
    now = _owned_like(fd, like)
    for name, value in xattrs.items():
        try:
            os.setxattr(fd, name, value)
        except OSError as exc:
            if exc.errno not in _UNKEPT:
                raise
    os.fchmod(fd, kept_mode(like, now))
    if times:
        os.utime(fd, ns=(like.st_atime_ns, like.st_mtime_ns))


def chown_like(directory: int, name: str, like: os.stat_result) -> None:
    """The owner of ``like`` for the link or pipe ``name`` in ``directory`` (made by this process), as far as this
    user may give it."""
    uid = like.st_uid if os.geteuid() == 0 else -1
    try:
        os.chown(name, uid, like.st_gid, dir_fd=directory, follow_symlinks=False)
    except OSError as exc:
        if exc.errno not in _UNKEPT:
            raise


def check_writable(entry: Pinned, existing: os.stat_result) -> None:
    """Refuse to replace a file whose permissions keep this user from writing it: the rename needs only the
    directory's, so a 0444 file, or another user's 0644 one, was replaced where ``echo >> file`` is refused.

    Raises:
        AccessDeniedError: the file may not be written by this user; nothing was written.
        ReadOnlyFilesystemError: it is on a read-only mount, worded as the temp's creation there would be.
    """
    try:
        allowed = os.access(entry.name, os.W_OK, dir_fd=entry.parent, effective_ids=True, follow_symlinks=False)
        read_only = not allowed and bool(os.statvfs(f"/proc/self/fd/{entry.parent}").f_flag & os.ST_RDONLY)
    except (NotImplementedError, OSError):
        return  # cannot tell: the OS has the last word at the rename
    if read_only:
        # Said here, not left to the temp's creation: a plan, or a run of several writes, must refuse before it
        # promises or writes anything.
        raise from_os_error(OSError(errno.EROFS, os.strerror(errno.EROFS)), entry.path)
    if allowed:
        return
    if _bits_allow_writing(existing):  # root, or bits that let this user: a flag the permission bits do not show
        raise AccessDeniedError(
            f"{entry.path} may not be written although its mode allows it: it is marked immutable or append-only "
            "(lsattr shows an i or an a), or an ACL refuses the server's user (getfacl): nothing was written. Ask the "
            "user to clear that (chattr -i or -a, setfacl) if it should be changed, or write a copy under another "
            "name.",
            path=str(entry.path),
        )
    raise AccessDeniedError(
        f"{entry.path} is not writable by the server's user (mode {stat.filemode(existing.st_mode)}, owner uid "
        f"{existing.st_uid}): nothing was written. Ask the user to make it writable (chmod u+w) if it should be "
        "changed, or write a copy under another name.",
        path=str(entry.path),
    )


def check_replaceable(beneath: Beneath, path: Path) -> None:
    """:func:`check_writable` for the file at ``path`` (canonical), pinned, not followed: what a plan or a run of
    several writes asks of each file it would replace before it writes any. Nothing there, not a regular file, or
    not reached as asked passes: the write itself reports that.

    Raises:
        AccessDeniedError, ReadOnlyFilesystemError: as :func:`check_writable`.
    """
    with ExitStack() as stack:
        try:
            entry = stack.enter_context(beneath.entry(path, follow=False))
        except FsguardError:
            return
        found = lstat_at(entry)
        if found is not None and stat.S_ISREG(found.st_mode):
            check_writable(entry, found)


def _bits_allow_writing(existing: os.stat_result) -> bool:
    """Whether the permission bits alone let this process write ``existing`` (root passes them all, while it holds
    CAP_DAC_OVERRIDE)."""
    uid = os.geteuid()
    if uid == 0 and _overrides_permission_bits():
        return True
    if uid == existing.st_uid:
        return bool(existing.st_mode & stat.S_IWUSR)
    if existing.st_gid == os.getegid() or existing.st_gid in os.getgroups():
        return bool(existing.st_mode & stat.S_IWGRP)
    return bool(existing.st_mode & stat.S_IWOTH)


@functools.cache
def _overrides_permission_bits() -> bool:
    """Whether this process holds CAP_DAC_OVERRIDE (bit 1 of CapEff): root run without it (a container's, or under
    ``capsh --drop``) is held to the permission bits as any user; true where /proc does not tell (not Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) & 1 << _CAP_DAC_OVERRIDE)
    except (OSError, ValueError, IndexError):
        pass
    return True


def kept_mode(like: os.stat_result, now: os.stat_result) -> int:
    """``like``'s permission bits for an entry now owned as ``now`` says: a file's setuid bit only with the same
    owner, its setgid bit only with the same group (a directory's setgid bit grants nothing, and is kept)."""
    mode = stat.S_IMODE(like.st_mode)
    if stat.S_ISDIR(like.st_mode) or not mode & _SET_ID:
        return mode
    if now.st_uid != like.st_uid:
        mode &= ~stat.S_ISUID
    if now.st_gid != like.st_gid:
        mode &= ~stat.S_ISGID
    return mode


def without_set_id(mode: int) -> int:
    """``mode`` for a file recreated by this user from its bytes and mode alone (its owner not known): without the
    setuid and setgid bits, which were set for an owner it may not have."""
    return mode & ~_SET_ID


def _owned_like(fd: int, like: os.stat_result) -> os.stat_result:
    now = os.fstat(fd)
    if (now.st_uid, now.st_gid) == (like.st_uid, like.st_gid):
        return now
    uid = like.st_uid if os.geteuid() == 0 else -1  # only root gives a file away; a user may change its group
    try:
        os.fchown(fd, uid, like.st_gid)
    except OSError as exc:
        if exc.errno not in _UNKEPT:  # EPERM: not in that group; EINVAL: an id this namespace cannot map
            raise
        return now
    return os.fstat(fd)


def other_links_note(path: Path, others: int) -> str:
    """What an agent is told after replacing a file that had other hard links: the write made a new file at its
    name, so those names keep the old bytes (an editor writing in place would have changed them too)."""
    if others == 1:
        return (
            f"{path.name} had another hard link: that name keeps the old bytes (the write made a new file at this "
            "name). Write the same change there if it should match."
        )
    return (
        f"{path.name} had {others} other hard links: those names keep the old bytes (the write made a new file at "
        "this name). Write the same change there if they should match."
    )
