"""git restore of the working tree, written by fsguard rather than by git.

git writes a file by its path, after checking that no directory on the way is a symbolic link: another process that
swaps one for a link to outside the roots between that check and the write made ``git restore`` overwrite a file
outside (the race probe's swapper did on its first call). So git only says what the source holds (the index or a
revision: each file's mode and object, its bytes through the repository's filters), and fsguard writes them
through its pinned walk, which never follows such a link, as it writes any file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from fsguard.core.attributes import check_replaceable
from fsguard.core.backups import BackupRecord
from fsguard.core.beneath import Pinned, lstat_at
from fsguard.core.confirmation import plural
from fsguard.core.disk import read_at
from fsguard.core.errors import (
    FsguardError,
    InvalidParamsError,
    IsDirectoryError,
    NotDirectoryError,
    NotFoundError,
)
from fsguard.core.gitparse import text
from fsguard.core.gitrepo import GitCall
from fsguard.core.gitscreen import check_changeable
from fsguard.core.groups import UNDO_EACH_FILE
from fsguard.core.hashing import content_hash
from fsguard.core.oserrors import from_os_error
from fsguard.core.pathforms import escaped

_LINK, _SUBMODULE, _EXECUTABLE = "120000", "160000", "100755"


def discarded(call: GitCall) -> list[str]:
    """The files a working-tree restore overwrites (tracked, their bytes other than the source's), once the checks
    that refuse it before anything changes have passed: the question before a restore asks about no refused one.

    Raises:
        AccessDeniedError, ReadOnlyError: one of them is hidden by a deny rule, or lies in a read-only root.
        GitFailedError: a pathspec matches no file git knows. NotDirectoryError: a folder of the source is a file.
    """
    rev = call.request.rev
    against = [rev] if rev else []
    listed = call.repo.git("diff", "--name-only", "--no-renames", "-z", *against, "--", *call.scope).stdout
    names = [text(name) for name in listed.split(b"\0") if name]
    check_changeable(call, names)
    check_known(call)
    check_folders(call, names)
    return names


def check_known(call: GitCall) -> None:
    """Refuse, as git restore does, a path the index (or the revision) knows nothing of: nothing is restored then.

    Raises:
        GitFailedError: a pathspec matches no file git knows, with git's own message.
    """
    rev = call.request.rev
    call.repo.git("ls-files", "--error-unmatch", *(["--with-tree", rev] if rev else []), "--", *call.scope)


def check_folders(call: GitCall, names: list[str]) -> None:
    """Refuse, before anything is backed up or written, a restore where a folder the source holds is a file (or
    another non-folder) in the working tree: met at its turn it stopped the whole restore with a bare "is a file,
    not a directory", leaving unsaid that the other paths were not restored either.

    Raises:
        NotDirectoryError: naming the first such file; nothing was changed.
    """
    for name in names:
        parts = name.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            try:
                mode = os.lstat(call.repo.absolute(folder)).st_mode
            except OSError:  # missing: made as the file is written
                break
            if stat.S_ISDIR(mode) or stat.S_ISLNK(mode):  # a link is the pinned walk's to judge
                continue
            raise NotDirectoryError(
                f"{escaped(folder)} is a file where the source has a folder (holding {escaped(name)}): nothing was "
                f"restored, of the {len(names)} files to restore. Move {escaped(folder)} away first (move_file), or "
                "leave it out of paths, then restore again.",
                path=call.repo.absolute(folder),
            )


def source_entries(call: GitCall, names: list[str]) -> dict[str, tuple[str, str]]:
    """The (mode, object) the restore's source holds for each of ``names``; a name it does not hold is absent
    (restoring removes that file).

    Raises:
        InvalidParamsError: a name is unmerged in the index (a conflict), which a restore from it cannot settle.
    """
    if not names:  # no pathspec lists the whole index
        return {}
    rev = call.request.rev
    listed = (
        call.repo.git("ls-tree", "-r", "-z", rev, "--", *names)
        if rev
        else call.repo.git("ls-files", "-s", "-z", "--", *names)
    )
    entries: dict[str, tuple[str, str]] = {}
    for record in filter(None, listed.stdout.split(b"\0")):
        fields, _, name = record.partition(b"\t")
        mode, *rest = text(fields).split(" ")
        if not rev and rest[1] != "0":
            raise InvalidParamsError(
                f"{text(name)} is unmerged (a conflict): resolve it and stage the result, then restore. Nothing "
                "was changed."
            )
        entries[text(name)] = (mode, rest[-1] if rev else rest[0])
    return entries


def check_rewritable(call: GitCall, names: list[str], entries: dict[str, tuple[str, str]]) -> None:
    """Refuse the restore before any file is backed up or written when one it would rewrite may not be written (its
    mode, an immutable flag, a read-only mount): met at its turn, it stopped a restore whose earlier files were
    already overwritten, and the answer said nothing was written.

    Raises:
        AccessDeniedError, ReadOnlyFilesystemError: naming the first such file; nothing was changed.
    """
    for name in names:
        source = entries.get(name)
        if source is not None and source[0] not in (_LINK, _SUBMODULE):  # a file's bytes are written over it
            check_replaceable(call.safe.beneath, Path(call.repo.absolute(name)))


def name_restored(error: FsguardError, restored: list[Path], backups: dict[Path, str], total: int) -> None:
    """Add to ``error``, which stopped the restore partway, the files it had already put back and how to undo them
    (a file another program made unwritable since the check, say)."""
    if not restored:
        return
    names = ", ".join(path.name for path in restored[:5]) + (" …" if len(restored) > 5 else "")
    error.message += (
        f" Before this, {len(restored)} of {plural(total, 'file')} {'was' if len(restored) == 1 else 'were'} "
        f"restored and stay so ({names}); {UNDO_EACH_FILE} brings back what each held."
    )
    error.fields["changed_files"] = [str(path) for path in restored]
    error.fields["changed_backup_ids"] = [backups.get(path) for path in restored]


def put_back(call: GitCall, name: str, entry: Pinned, source: tuple[str, str] | None) -> None:
    """Make the working-tree file at ``entry`` (pinned, not followed) what ``source`` holds: its bytes through the
    repository's filters (line endings, smudge) with git's mode for it, a symbolic link, or nothing at all."""
    found = lstat_at(entry)
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise IsDirectoryError(
            f"{entry.path} is a directory where the source holds a file; nothing more was restored. Move it away, "
            "then restore again.",
            path=str(entry.path),
        )
    if source is None or source[0] == _SUBMODULE:
        if source is None and found is not None:
            _unlink(entry)
        return
    mode, object_id = source
    if mode == _LINK:
        target = call.repo.git("cat-file", "blob", object_id).stdout
        if found is not None:
            _unlink(entry)
        try:
            os.symlink(target, os.fsencode(entry.name), dir_fd=entry.parent)
        except OSError as exc:
            raise from_os_error(exc, entry.path) from exc
        return
    data = call.repo.git("cat-file", "--filters", _blob(call, name)).stdout
    if found is not None and not stat.S_ISREG(found.st_mode):
        _unlink(entry)  # a link where the file was: git replaces it with the file
    # A new file is 0666 as the umask or the directory's default ACL cuts it, as git's (a mode set after the write
    # overrode that ACL); write_at keeps an old file's own mode. Either way, git's x bit is the source's.
    call.safe.atomic.write_at(entry, data)
    _executable_as(entry, mode == _EXECUTABLE)


def settle_index(call: GitCall, restored: dict[str, tuple[str, str]]) -> None:
    """Have the index take the files just restored from what it holds as unchanged, as git restore leaves them.

    git keeps each file's size and times in the index and trusts them over its bytes: a file restored through a
    line-ending filter is longer than the one the index last saw, so status called it modified while its diff was
    empty. Setting the entry anew (same mode and object) drops those stat details, and a refresh, which only
    compares files, records the new ones.
    """
    if not restored:
        return
    listed = call.repo.git("ls-files", "-s", "-z", "--", *restored).stdout
    lines = bytearray()
    for record in filter(None, listed.split(b"\0")):
        fields, _, name = record.partition(b"\t")
        mode, object_id, stage = text(fields).split(" ")
        if stage == "0" and mode != _SUBMODULE and restored.get(text(name)) == (mode, object_id):
            lines += f"{mode} {object_id}\t".encode() + name + b"\0"
    if lines:
        call.repo.git("update-index", "-z", "--index-info", stdin=bytes(lines))
        # Exit 1 names files that differ from the index (others, or ones restored from another revision): so be it.
        call.repo.git("update-index", "-q", "--refresh", check=False)


def _executable_as(entry: Pinned, executable: bool) -> None:
    """Give the file at ``entry`` the executable bits the source records (a mode-only change is git's too), its other
    bits as they are: x where it may be read, or none."""
    try:
        fd = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=entry.parent)
    except OSError as exc:
        raise from_os_error(exc, entry.path) from exc
    try:
        now = stat.S_IMODE(os.fstat(fd).st_mode)
        wanted = now | ((now & 0o444) >> 2) if executable else now & ~0o111
        if wanted != now:
            os.fchmod(fd, wanted)
    finally:
        os.close(fd)


def back_up(call: GitCall, target: Path, name: str) -> BackupRecord | None:
    """Snapshot the regular file ``target`` before the restore overwrites it; its after-hash is what the source
    holds."""
    safe = call.safe
    try:
        with safe.beneath.entry(target, follow=False) as entry:
            found = lstat_at(entry)
            if found is None or not stat.S_ISREG(found.st_mode):
                return None  # gone (git recreates it) or a link: no bytes of a file to lose
            data, _ = read_at(entry, safe.max_file_size)
    except NotFoundError:
        return None
    checkout = call.repo.git("cat-file", "--filters", _blob(call, name), check=False)
    after = content_hash(checkout.stdout) if checkout.code == 0 else None  # None: git removes the file
    return safe.backups.snapshot(target, data, stat.S_IMODE(found.st_mode), operation="git:restore", after_hash=after)


def link_target(call: GitCall, target: Path) -> str | None:
    """What ``target`` points to when it is a symbolic link git will replace, else None."""
    try:
        with call.safe.beneath.entry(target, follow=False) as entry:
            return os.readlink(entry.name, dir_fd=entry.parent)
    except (FsguardError, OSError):
        return None  # gone, or no link (EINVAL): a file is backed up instead


def _blob(call: GitCall, name: str) -> str:
    """``name`` in the restore's source, as cat-file takes it: the revision's, or the index's (stage 0)."""
    return f"{call.request.rev}:{name}" if call.request.rev else f":0:{name}"


def _unlink(entry: Pinned) -> None:
    try:
        os.unlink(entry.name, dir_fd=entry.parent)
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise from_os_error(exc, entry.path) from exc
