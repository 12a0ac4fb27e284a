"""get_file_info: type, size, times, permissions, and for files the content hash and line count."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import replace
from pathlib import Path

from fsguard.core.beneath import Beneath, Pinned, lstat_at
from fsguard.core.births import birth_time
from fsguard.core.errors import (
    AccessDeniedError,
    FsguardError,
    InvalidParamsError,
    NotDirectoryError,
    NotFoundError,
)
from fsguard.core.hashing import Fingerprint, FingerprintCache, hash_open_file
from fsguard.core.nearby import NearPaths
from fsguard.core.oserrors import from_os_error
from fsguard.core.pathforms import absolute_or_given
from fsguard.core.paths import PathPolicy
from fsguard.core.ranges import CHUNK, STREAM_ABOVE, Layout, layout, opened, survey
from fsguard.core.session import Session
from fsguard.core.statfacts import entry_type, iso_time
from fsguard.core.steady import steady
from fsguard.models import FileFacts, FileInfo


class MetadataReader:
    """Inspects paths under the path policy."""

    def __init__(
        self, policy: PathPolicy, beneath: Beneath, cache: FingerprintCache, session: Session, *, max_file_size: int
    ) -> None:
        self._policy = policy
        self._beneath = beneath
        self._cache = cache
        self._session = session
        self._max_file_size = max_file_size
        self._near = NearPaths(policy, beneath)  # for the paths of a multi-path call that do not exist

    def describe(self, user_path: str) -> tuple[Path, FileFacts]:
        """The canonical path and the facts of what ``user_path`` names."""
        path = self._policy.resolve(user_path)
        link = self._policy.resolve_entry(user_path)
        try:
            with self._session.watching(path), self._beneath.entry(path) as entry:
                st = lstat_at(entry)
                if st is None:
                    raise from_os_error(FileNotFoundError(errno.ENOENT, "no such file"), path)
                facts = self._facts(entry, st, link)
        except (NotFoundError, NotDirectoryError):
            dangling = self._dangling(link, path)
            if dangling is None:
                raise
            return link, dangling
        return path, facts

    def _dangling(self, link: Path, target: Path) -> FileFacts | None:
        """The facts of ``link`` itself when it is a symlink whose ``target`` is missing; None when it is not one.

        Only a target that resolve() let through gets here: one outside the roots or behind a deny rule is refused
        before, alike whether it exists or not, so this never tells whether such a target is there.
        """
        if link == target:
            return None
        with self._beneath.entry(link, follow=False) as entry:
            st = lstat_at(entry)
            if st is None or not stat.S_ISLNK(st.st_mode):
                return None
            facts = _stat_facts(link.name, st, entry)  # while its directory is open: the birth time is read there
        note = (
            f"The link's target {target} does not exist, so reading through the link fails. Create the target, "
            "or remove the link with delete_file."
        )
        # "symlink", as list_directory shows a dangling link (entry_type calls a link's own stat "other")
        return facts.model_copy(
            update={"type": "symlink", "is_symlink": True, "symlink_target": str(target), "note": note}
        )

    def describe_many(self, user_paths: list[str]) -> list[FileInfo]:
        """One entry per path; a path that fails carries its error instead of failing the call."""
        if not user_paths:
            raise InvalidParamsError('paths array is empty. Pass at least one path, e.g. paths=["a.txt"].')
        infos: list[FileInfo] = []
        for user_path in user_paths:
            try:
                path, facts = self.describe(user_path)
            except FsguardError as exc:
                message, meant = self._near.refusal(exc)
                shown = absolute_or_given(self._policy.resolve, user_path)
                infos.append(FileInfo(path=shown, error=message, error_code=exc.code, did_you_mean=meant))
                continue
            infos.append(FileInfo(path=str(path), **facts.model_dump(exclude_none=True)))
        return infos

    def _facts(self, entry: Pinned, st: os.stat_result, link: Path) -> FileFacts:
        path = entry.path
        is_link = link != path and link.is_symlink()
        facts = _stat_facts(link.name or str(path), st, entry).model_copy(
            update={"is_symlink": is_link, "symlink_target": str(path) if is_link else None}
        )
        # What the user may not open is still described, as ls -l describes it: only what reading it tells is left out.
        try:
            return self._read_facts(entry, st, facts)
        except AccessDeniedError as exc:
            if not isinstance(exc.__cause__, PermissionError):
                raise  # a refusal of fsguard's own (an entry swapped for a link meanwhile), not the OS's
            return facts.model_copy(update={"readable": False})

    def _read_facts(self, entry: Pinned, st: os.stat_result, facts: FileFacts) -> FileFacts:
        """``facts`` with what only reading the entry tells: a directory's entries, a file's hash and lines."""
        path, kind = entry.path, facts.type
        if kind == "directory":
            try:
                with self._beneath.directory(path) as fd, os.scandir(fd) as children:
                    count = sum(1 for _ in children)
            except OSError as exc:
                raise from_os_error(exc, path) from exc
            return facts.model_copy(update={"entries": count})
        if kind == "file" and st.st_size > min(STREAM_ABOVE, self._max_file_size):
            return facts.model_copy(update=self._streamed(entry, st))
        if kind == "file" and st.st_size <= self._max_file_size:
            fingerprint = self._cache.fingerprint(path, self._max_file_size, entry=entry)
            self._session.record_hash(path, fingerprint.content_hash)
            return facts.model_copy(
                update={
                    "content_hash": fingerprint.content_hash,
                    "line_count": fingerprint.line_count,
                    "encoding": fingerprint.encoding,
                }
            )
        return facts

    def _streamed(self, entry: Pinned, st: os.stat_result) -> dict[str, object]:
        """Hash (within --max-file-size) and line count of a big file, in one pass of bounded reads.

        Above --max-file-size the file cannot be edited, so it gets no content_hash (the OCC token an edit
        needs): its lines are counted (about 0.3 s a gigabyte from the page cache), its bytes are not hashed.
        """
        path = entry.path
        hashed = st.st_size <= self._max_file_size
        # Unhashed, a file's count is remembered too (with no hash): a second look at a 1 GB log is not another
        # 0.7 s. Its size is part of the identity, so no read of a file within the limit ever gets it.
        fingerprint = self._cache.lookup(path, st)
        if fingerprint is None:
            taken = self._cache.now()
            with opened(entry) as (fd, opened_st):
                if not hashed:  # a count, no OCC token: a file written to without pause is still counted
                    fingerprint = self._pass(fd, opened_st, path, hashed=False, taken=taken)
                else:  # a hash of bytes that were on disk together (see fsguard.core.steady)
                    fingerprint = steady(
                        fd, opened_st, path, lambda now: self._pass(fd, now, path, True, taken), unsteady=_unhashed
                    )
        if fingerprint is None:
            return {"encoding": "binary"}
        if not hashed or fingerprint.content_hash == _UNHASHED:  # too big, or a file that never held still
            return {"line_count": fingerprint.line_count, "encoding": fingerprint.encoding}
        self._session.record_hash(path, fingerprint.content_hash)
        return {
            "content_hash": fingerprint.content_hash,
            "line_count": fingerprint.line_count,
            "encoding": fingerprint.encoding,
        }

    def _pass(self, fd: int, st: os.stat_result, path: Path, hashed: bool, taken: int) -> Fingerprint | None:
        """The fingerprint from one pass over the open ``fd``, kept unless it changed meanwhile; None for a binary
        file not ``hashed``."""
        lay: Layout | None
        try:
            lay = layout(fd, st.st_size, path)
        except FsguardError:  # binary: its bytes are hashed, it has no lines
            if not hashed:
                return None
            lay = None
        if lay is None:
            fingerprint = Fingerprint(hash_open_file(fd, CHUNK), None, "binary")
        else:
            found = survey(lay, hashed=hashed)
            fingerprint = found.fingerprint or Fingerprint(_UNHASHED, found.line_count, found.encoding)
        self._cache.remember_read(path, fd, st, fingerprint, taken)
        return fingerprint


_UNHASHED = ""  # the cached fingerprint of a file above --max-file-size: counted, never hashed


def _unhashed(found: Fingerprint | None) -> Fingerprint | None:
    """A file written to through every pass is described without a hash (its size and count are of a moment)."""
    return None if found is None else replace(found, content_hash=_UNHASHED)


def _stat_facts(name: str, st: os.stat_result, entry: Pinned) -> FileFacts:
    """What the stat of an entry tells of it, and its creation time where the filesystem records it."""
    born = birth_time(entry.parent, entry.name, st)
    return FileFacts(
        name=name,
        type=entry_type(st.st_mode),
        size=st.st_size,
        mode=f"{stat.S_IMODE(st.st_mode):04o}",
        permissions=stat.filemode(st.st_mode),
        modified=iso_time(st.st_mtime),
        created=iso_time(born) if born is not None else None,
        accessed=iso_time(st.st_atime),
        is_symlink=False,
    )
