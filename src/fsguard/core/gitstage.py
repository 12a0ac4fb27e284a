"""git add, and a commit with paths, staged from bytes fsguard reads itself.

git stages a file by reading it by its path after checking the directories on the way: another process that swaps
one for a link to outside the roots between that check and the read made ``git add`` stage (and a commit with paths
commit) the bytes of a file outside. So git only says which files to stage; fsguard opens each through its pinned
walk, which never follows such a link, and hands git the open file (``hash-object --stdin --path``: the
repository's filters and attributes apply as in ``git add``) or the link's target, then sets the index entries
itself (``update-index --index-info``). A directory git names (a submodule, or a repository inside this one) holds
no bytes to read: git adds it as it would, recording the commit it is at.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from fsguard.core.beneath import lstat_at
from fsguard.core.disk import open_pinned
from fsguard.core.errors import AccessDeniedError, BinaryFileError, NotFoundError
from fsguard.core.gitparse import text
from fsguard.core.gitprocess import Scratch
from fsguard.core.gitrepo import GitCall
from fsguard.core.trees import changed_kind_error

_LINK, _EXECUTABLE, _FILE, _REMOVED = "120000", "100755", "100644", "0"
_NULL_ID_LENGTH = {"sha1": 40, "sha256": 64}
_CONVERTING = ("text", "eol", "crlf", "filter", "ident", "working-tree-encoding")
_BATCH = 200  # files held open for one hash-object run: well under the usual limit of 1,024 descriptors


def stage(
    call: GitCall, names: list[bytes], scratch: Scratch | None = None, unreadable: list[bytes] | None = None
) -> list[bytes]:
    """Put the working-tree content of each of ``names`` (repo-relative, as git prints them) in the index (or
    ``scratch``'s, its objects there too); the names that are directories (submodules). ``unreadable``: see
    :func:`entries`."""
    lines, directories = entries(call, names, scratch, unreadable)
    if directories:  # submodules: git records the commit each is at, reading no file
        call.repo.git("add", "--", *map(os.fsdecode, directories), scratch=scratch)
    if lines:
        call.repo.git("update-index", "-z", "--index-info", stdin=lines, scratch=scratch)
    return directories


def entries(
    call: GitCall, names: list[bytes], scratch: Scratch | None = None, unreadable: list[bytes] | None = None
) -> tuple[bytes, list[bytes]]:
    """The ``update-index --index-info`` input setting each name to what the working tree holds (a removed file
    removed), and the names that are directories; the objects go where ``scratch`` says (else the repository).
    Given ``unreadable``, a file the server's user may not read (permission denied) is put there, and no line.

    Raises:
        AccessDeniedError: a directory on the way became a link (the pinned walk refuses it), or the user may not
            read a file (without ``unreadable``).
        BinaryFileError: a name is a pipe, socket or device, which git cannot stage either.
    """
    mode_of = _file_modes(call)
    converted = _converted(call, names)
    lines = bytearray()
    directories: list[bytes] = []
    null = ""
    for start in range(0, len(names), _BATCH):
        rows: list[tuple[bytes, str, str]] = []  # name, mode, object id ("" until the batch is hashed)
        held: dict[bytes, int] = {}  # files git reads as they are, through descriptors handed to one run
        try:
            for name in names[start : start + _BATCH]:
                try:
                    row = _entry(call, name, scratch, converted, held)
                except AccessDeniedError as exc:
                    # The OS's permission bits, not a link the walk refused (ELOOP): the file's bytes are unknown
                    if unreadable is None or not isinstance(exc.__cause__, PermissionError):
                        raise
                    unreadable.append(name)
                    continue
                if row is None:
                    directories.append(name)
                    continue
                kind, object_id = row
                rows.append((name, mode_of(name, kind) if isinstance(kind, int) else kind, object_id))
            hashed = _hash_held(call, held, scratch)
        finally:
            for fd in held.values():
                os.close(fd)
        for name, mode, object_id in rows:
            if mode == _REMOVED:
                null = null or null_id(call)
            lines += f"{mode} {object_id or hashed.get(name) or null}\t".encode() + name + b"\0"
    return bytes(lines), directories


def _entry(
    call: GitCall, name: bytes, scratch: Scratch | None, converted: set[bytes], held: dict[bytes, int]
) -> tuple[int | str, str] | None:
    """What the working tree holds at ``name``: a removal (:data:`_REMOVED`, no id), a link (its mode and id), or a
    file (its ``st_mode``, and its id, or none while it is held open for the batch); None for a directory."""
    path = Path(call.repo.absolute(os.fsdecode(name.rstrip(b"/"))))
    with ExitStack() as pinned:
        try:
            entry = pinned.enter_context(call.safe.beneath.entry(path, follow=False))
        except NotFoundError:  # a folder on the way is gone, and the file with it: git add stages the removal
            return _REMOVED, ""
        found = lstat_at(entry)
        if found is None:
            return _REMOVED, ""
        if stat.S_ISDIR(found.st_mode):
            return None
        if stat.S_ISLNK(found.st_mode):
            try:
                target = os.readlink(os.fsencode(entry.name), dir_fd=entry.parent)
            except OSError as exc:  # EINVAL: the link was swapped for a file since the lstat, a race to retry
                raise changed_kind_error(exc, path) from exc
            return _LINK, _hash(call, target, scratch=scratch)
        if not stat.S_ISREG(found.st_mode):
            raise _not_a_file(path)
        fd = open_pinned(entry)
        try:
            opened = os.fstat(fd)
            if not stat.S_ISREG(opened.st_mode):
                raise _not_a_file(path)
            if name not in converted:
                held[name] = fd
                return opened.st_mode, ""
            return opened.st_mode, _hash(call, fd, path=name, scratch=scratch)
        finally:
            if held.get(name) != fd:
                os.close(fd)


def _hash_held(call: GitCall, held: dict[bytes, int], scratch: Scratch | None) -> dict[bytes, str]:
    """The object ids of the files ``held`` open, from one git run reading each through its descriptor (no filter
    applies to them: :func:`_converted`)."""
    if not held:
        return {}
    listed = "".join(f"/proc/self/fd/{fd}\n" for fd in held.values()).encode()
    out = call.repo.git(
        "hash-object", "-w", "--no-filters", "--stdin-paths", stdin=listed, scratch=scratch, pass_fds=held.values()
    )
    return dict(zip(held, text(out.stdout).split(), strict=True))


def _converted(call: GitCall, names: list[bytes]) -> set[bytes]:
    """The names git add passes through a filter or a line-ending conversion: every one when core.autocrlf asks
    for it, else those an attribute (text, eol, crlf, filter, ident, working-tree-encoding) applies to."""
    if not names or not Path("/proc/self/fd").is_dir():
        return set(names)
    autocrlf = text(call.repo.git("config", "--get", "core.autocrlf", check=False).stdout).strip().lower()
    if autocrlf not in ("", "false", "no", "off", "0"):
        return set(names)
    listed = b"".join(name.rstrip(b"/") + b"\0" for name in names)
    out = call.repo.git("check-attr", "-z", "--stdin", *_CONVERTING, stdin=listed).stdout.split(b"\0")
    return {
        name
        for name, _attribute, value in zip(out[0::3], out[1::3], out[2::3], strict=False)
        if value not in (b"unspecified", b"unset")
    }


def _hash(call: GitCall, content: int | bytes, *, path: bytes | None = None, scratch: Scratch | None = None) -> str:
    """The object id of ``content`` (an open file, or bytes), written to the repository (or ``scratch``'s objects);
    with ``path``, through the filters git add would apply to a file there."""
    named = [f"--path={os.fsdecode(path)}"] if path is not None else []
    out = call.repo.git("hash-object", "-w", "--stdin", *named, stdin=content, scratch=scratch)
    return text(out.stdout).strip()


def null_id(call: GitCall) -> str:
    """The all-zero object id, which removes a name from the index, in the repository's hash's length."""
    said = text(call.repo.git("rev-parse", "--show-object-format").stdout).strip()
    return "0" * _NULL_ID_LENGTH.get(said, 40)


def _file_modes(call: GitCall) -> Callable[[bytes, int], str]:
    """git add's mode for a regular file: executable when its owner may run it; where the repository does not
    trust the executable bit (core.fileMode false), the mode the index holds (new files: not executable)."""
    said = call.repo.git("config", "--bool", "core.fileMode", check=False)
    if text(said.stdout).strip() != "false":
        return lambda _name, st_mode: _EXECUTABLE if st_mode & stat.S_IXUSR else _FILE
    listed = call.repo.git("ls-files", "-s", "-z", "--", *call.scope).stdout  # the paths asked for, not each file
    indexed: dict[bytes, str] = {}
    for record in filter(None, listed.split(b"\0")):
        fields, _, name = record.partition(b"\t")
        indexed[name] = text(fields).split(" ", 1)[0]
    return lambda name, _st_mode: _EXECUTABLE if indexed.get(name) == _EXECUTABLE else _FILE


def _not_a_file(path: Path) -> BinaryFileError:
    return BinaryFileError(
        f"{path} is not a regular file or a link (a pipe, socket or device): git cannot stage it. Nothing was "
        "staged. Leave it out of paths.",
        path=str(path),
    )
