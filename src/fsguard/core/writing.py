"""write_file: whole-file writes that keep the file's encoding and CRLF style, and back up what they replace."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.errors import (
    EncodingError,
    FsguardError,
    InvalidParamsError,
    IsDirectoryError,
    NotDirectoryError,
    NotFoundError,
    from_os_error,
)
from fsguard.core.hashing import content_hash
from fsguard.core.occ import OccVerdict
from fsguard.core.risk import WriteGuard, write_guard
from fsguard.core.safeguards import Safeguards
from fsguard.core.textio import DecodedText, decode, read_snapshot

_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True)
class WriteReport:
    """What a write did."""

    path: Path
    created: bool
    unchanged: bool
    bytes_written: int
    verified: bool
    content_hash: str
    previous_hash: str | None
    backup: BackupRecord | None
    guard: WriteGuard | None
    verdict: OccVerdict
    encoding: str


class FileWriter:
    """Writes whole files under the path policy."""

    def __init__(self, safeguards: Safeguards) -> None:
        self._safe = safeguards

    def write(
        self,
        user_path: str,
        payload: str | bytes,
        *,
        encoding: str | None = None,
        expected_hash: str | None = None,
        create_dirs: bool = True,
    ) -> WriteReport:
        """Write ``payload`` (text, or raw bytes) to ``user_path``, creating or replacing the file.

        Raises:
            FsguardError: the path, the hash, the encoding or the filesystem refused; nothing was written.
        """
        path = self._safe.policy.resolve(user_path)
        with self._safe.locks.hold(path):
            path = self._safe.policy.recheck(path)
            if path.is_dir():
                raise IsDirectoryError(f"{path} is a directory; write_file writes files.", path=str(path))
            existing, mode = self._existing(path)
            if existing is None and expected_hash is not None:
                raise NotFoundError(
                    f"expected_hash was given but {path} does not exist, so it cannot match. "
                    "Drop expected_hash to create the file, or check the path with list_directory.",
                    path=str(path),
                )
            previous_hash = content_hash(existing) if existing is not None else None
            verdict = self._safe.guard.check(path, previous_hash, expected_hash) if previous_hash else OccVerdict()
            outcome = self._safe.hooks.fire(
                "pre",
                "write",
                tool_name="write_file",
                file_path=str(path),
                operation="write_file",
                content=payload if isinstance(payload, str) else None,
            )
            if outcome.modified_content is not None and isinstance(payload, str):
                payload = outcome.modified_content
            data, used_encoding = _to_bytes(payload, encoding, _decoded_or_none(existing, path), path)
            if existing == data:
                self._safe.session.record_hash(path, content_hash(data))
                return WriteReport(
                    path,
                    False,
                    True,
                    len(data),
                    True,
                    content_hash(data),
                    previous_hash,
                    None,
                    None,
                    verdict,
                    used_encoding,
                )
            after_hash = content_hash(data)
            backup = guard = None
            if existing is not None:
                guard = write_guard(existing_size=len(existing), new_size=len(data))
                backup = self._safe.backups.snapshot(
                    path, existing, mode, operation="write_file", after_hash=after_hash
                )
            self._make_parents(path, create_dirs)
            path = self._safe.policy.recheck(path)
            # A file that appeared since the check must not be clobbered unseen: create exclusively.
            self._safe.writer.write(path, data, exclusive=existing is None)
            written, _ = read_snapshot(path)
            written_hash = content_hash(written)
            self._safe.session.record_hash(path, written_hash)
            self._safe.hooks.fire(
                "post",
                "write",
                tool_name="write_file",
                file_path=str(path),
                operation="write_file",
                metadata={"backup_id": backup.backup_id if backup else None, "content_hash": written_hash},
            )
        return WriteReport(
            path=path,
            created=existing is None,
            unchanged=False,
            bytes_written=len(written),
            verified=written_hash == after_hash,
            content_hash=written_hash,
            previous_hash=previous_hash,
            backup=backup,
            guard=guard,
            verdict=verdict,
            encoding=used_encoding,
        )

    def _existing(self, path: Path) -> tuple[bytes | None, int]:
        if not path.exists():
            return None, 0o644
        data, stat = read_snapshot(path, self._safe.max_file_size)
        return data, (stat.st_mode & 0o7777) if stat else path.stat().st_mode & 0o7777

    def _make_parents(self, path: Path, create_dirs: bool) -> None:
        parent = path.parent
        if parent.is_dir():
            return
        if not create_dirs:
            raise NotDirectoryError(
                f"{parent} does not exist. Pass create_dirs=true, or create it with create_directory.",
                path=str(parent),
            )
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise from_os_error(exc, parent) from exc


def _decoded_or_none(existing: bytes | None, path: Path) -> DecodedText | None:
    if existing is None:
        return None
    try:
        return decode(existing, path)
    except FsguardError:
        return None  # a binary or undecodable file is replaced as UTF-8 text


def _to_bytes(payload: str | bytes, encoding: str | None, current: DecodedText | None, path: Path) -> tuple[bytes, str]:
    """The bytes to write and the encoding they are in ("binary" for raw bytes)."""
    if isinstance(payload, bytes):
        return payload, "binary"
    text = payload
    if current is not None and current.line_ending == "crlf":
        text = _BREAK.sub("\r\n", text)  # a uniformly CRLF file stays CRLF whatever the agent typed
    if encoding is not None:
        try:
            name = codecs.lookup(encoding).name
        except LookupError as exc:
            raise InvalidParamsError(
                f"unknown encoding {encoding!r}. Use e.g. utf-8, utf-16-le, cp1252 or latin-1, or base64 for bytes.",
                encoding=encoding,
            ) from exc
        bom = current.bom if current is not None and codecs.lookup(current.encoding).name == name else b""
    elif current is not None:
        name, bom = current.encoding, current.bom
    else:
        name, bom = "utf-8", b""
    try:
        return bom + text.encode(name), name
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        raise EncodingError(
            f"{path} is written as {name}, which cannot store {bad!r}. Nothing was written. "
            "Pass encoding='utf-8' to convert the file.",
            path=str(path),
        ) from exc
