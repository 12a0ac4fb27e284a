"""write_file: whole-file writes that keep the file's encoding and CRLF style, and back up what they replace."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from pathlib import Path

from fsguard.core.backups import BackupRecord
from fsguard.core.charsets import text_codec
from fsguard.core.errors import (
    EncodingError,
    FsguardError,
    NotDirectoryError,
    TooLargeError,
)
from fsguard.core.extraction import append_text
from fsguard.core.groups import ChangeLog
from fsguard.core.hashing import content_hash
from fsguard.core.mutation import HookCall, mutation
from fsguard.core.occ import OccVerdict
from fsguard.core.pathforms import check_file_spelling
from fsguard.core.risk import WriteGuard, write_guard
from fsguard.core.safeguards import Safeguards
from fsguard.core.textio import DecodedText, decode, kept_breaks, whole_file, written_bom


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
    appended: int | None = None  # bytes an append added; None for a whole-file write
    line_break_added: bool = False  # the append started the text on a new line
    hook_notes: tuple[str, ...] = ()  # what the hooks told the agent (Mutation.hook_notes)
    rewritten: bool = False  # an append's pre-write hook answered the whole file (Appended.rewritten)


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
        tool: str = "write_file",
    ) -> WriteReport:
        """Write ``payload`` (text, or raw bytes) to ``user_path``, creating or replacing the file.

        ``tool`` is the name hooks and backups see (batch_operations passes its own).

        Raises:
            FsguardError: the path, the hash, the encoding or the filesystem refused; nothing was written.
        """
        path = self._safe.policy.resolve(user_path)
        check_file_spelling(user_path, path)
        check_payload_size(path, payload, self._safe.max_file_size)
        hook = HookCall("write", tool, "write_file")
        with mutation(self._safe, path, may_be_missing=True) as change:
            existing = change.current
            if change.entry is None and not create_dirs:
                raise NotDirectoryError(
                    f"{path.parent} does not exist. Pass create_dirs=true, or create it with create_directory.",
                    path=str(path.parent),
                )
            previous_hash = change.current_hash
            verdict = change.check(expected_hash)
            substituted = change.fire_pre(hook, content=payload if isinstance(payload, str) else None)
            if substituted is not None and isinstance(payload, str):
                payload = substituted
            data, used_encoding = written_bytes(payload, encoding, decoded_or_none(existing, path), path)
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
                    hook_notes=tuple(change.hook_notes),
                )
            guard = write_guard(existing_size=len(existing), new_size=len(data)) if existing is not None else None
            done = change.commit(data, hook, make_parents=create_dirs)
        return WriteReport(
            path=path,
            created=existing is None,
            unchanged=False,
            bytes_written=done.size,
            verified=done.verified,
            content_hash=done.content_hash,
            previous_hash=previous_hash,
            backup=done.backup,
            guard=guard,
            verdict=verdict,
            encoding=used_encoding,
            hook_notes=tuple(change.hook_notes),
        )

    def append(
        self,
        user_path: str,
        text: str,
        *,
        encoding: str | None = None,
        expected_hash: str | None = None,
        create_dirs: bool = True,
    ) -> WriteReport:
        """Add ``text`` at the end of ``user_path`` (created if missing), as one undoable mutation.

        The batch's write-with-append engine (:func:`append_text`); text added to a file whose last line has no
        line break starts on a new line.

        Raises:
            FsguardError: the path, the hash, the encoding or the filesystem refused; nothing was written.
        """
        path = self._safe.policy.resolve(user_path)
        check_file_spelling(user_path, path)
        check_payload_size(path, text, self._safe.max_file_size)
        done = append_text(
            self._safe,
            path,
            text,
            expected_hash=expected_hash,
            tool="write_file",
            done=ChangeLog(),
            encoding=encoding,
            own_line=True,
            make_parents=create_dirs,
        )
        return WriteReport(
            path=path,
            created=done.created,
            unchanged=done.unchanged,
            bytes_written=done.size,
            verified=done.verified,
            content_hash=done.content_hash,
            previous_hash=done.previous_hash,
            backup=done.backup,
            guard=None,  # an append only grows the file, and its backup is taken all the same
            verdict=done.verdict,
            encoding=done.encoding,
            appended=done.added,
            line_break_added=done.line_break_added,
            hook_notes=done.hook_notes,
            rewritten=done.rewritten,
        )


def check_payload_size(path: Path, payload: str | bytes, limit: int) -> None:
    """Refuse an oversized payload before it is encoded: every codec stores a character in a byte or more.

    Raises:
        TooLargeError: ``payload`` is longer than ``limit`` (--max-file-size); nothing was written.
    """
    if len(payload) > limit:
        raise TooLargeError(
            f"the content for {path} is at least {len(payload):,} bytes, above the {limit:,}-byte limit "
            "(--max-file-size); nothing was written. Write a smaller file, or restart fsguard with a larger "
            "--max-file-size.",
            path=str(path),
            size=len(payload),
            limit=limit,
        )


def decoded_or_none(existing: bytes | None, path: Path) -> DecodedText | None:
    """The text of the file a write replaces, None for a new, binary or undecodable one (replaced as UTF-8 text)."""
    if existing is None:
        return None
    try:
        return decode(existing, path)
    except FsguardError:
        return None  # a binary or undecodable file is replaced as UTF-8 text


def written_bytes(
    payload: str | bytes, encoding: str | None, current: DecodedText | None, path: Path
) -> tuple[bytes, str]:
    """The bytes a write of ``payload`` over ``current`` stores and the encoding they are in ("binary" for raw
    bytes); analyze_operation predicts a write with this too.

    Raises:
        EncodingError: the encoding cannot store a character of ``payload``.
    """
    if isinstance(payload, bytes):
        return payload, "binary"
    text = kept_breaks(payload, current)
    if encoding is not None:
        name = text_codec(encoding)
        have = codecs.lookup(current.encoding).name if current is not None else None
        if have is not None and have.startswith(f"{name}-"):
            # utf-16/utf-32 without a byte order names the file's own: Python's codec wrote a big-endian file
            # back little-endian, where an append with the same name keeps it as it is.
            name = have
        bom = current.bom if current is not None and have == name else written_bom(name)
    elif current is not None:
        name, bom = current.encoding, current.bom
    else:
        name, bom = "utf-8", b""
    try:
        return whole_file(text, name, bom), name
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end]
        # A surrogate (U+DC80-U+DCFF passes the argument check: it spells a byte of a name) is no text at all.
        fix = (
            "It stands for a raw byte, not a character: send the bytes with content_base64."
            if "\ud800" <= bad[0] <= "\udfff"
            else "Pass encoding='utf-8' to convert the file."
        )
        raise EncodingError(
            f"{path} is written as {name}, which cannot store {bad!r}. Nothing was written. {fix}",
            path=str(path),
        ) from exc
