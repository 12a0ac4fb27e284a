"""write_file."""

from __future__ import annotations

import base64
from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.charsets import text_codec
from fsguard.core.errors import InvalidParamsError
from fsguard.models import WriteFileResult
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, ExpectedHash, PathArg, hints, voiced
from fsguard.voice import write_text
from fsguard.voice.notes import external_change_note, write_guard_feedback


def register(catalog: Catalog) -> None:
    """Add write_file to the catalog."""
    services = catalog.services
    compact = catalog.compact

    @bridge
    def write_file(
        path: PathArg,
        content: Annotated[str | None, Field(description="The whole new text of the file.")] = None,
        content_base64: Annotated[str | None, Field(description="The whole new content as base64 bytes.")] = None,
        encoding: Annotated[
            str | None,
            Field(description="base64 (content is base64), or a text encoding; default: the file's own, else utf-8."),
        ] = None,
        expected_hash: ExpectedHash = None,
        create_dirs: Annotated[bool, Field(description="Create missing parent directories.")] = True,
        append: Annotated[
            bool,
            Field(
                description="Add content at the end of the file instead of replacing it (created if missing), in "
                "the file's encoding and line-ending style; backed up, so undo_last takes it back. If the file's "
                "last line has no line break, one is put before content so it starts on a new line "
                "(line_break_added). Content is added as given otherwise: end it with a newline to end a line."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, WriteFileResult]:
        """Create a file or replace all of it (old one backed up); to change part of it use edit_file.

        append=true adds content at the end instead (logs, notes), with the same backup, hash check and undo.

        Keeps an existing file's encoding, BOM and CRLF line endings. To change part of a file use
        edit_file. Writing much less than the file held (or empty content) is allowed because the old
        version is backed up: the result says how to undo.
        """
        payload = _payload(content, content_base64, encoding)
        text_encoding = None if encoding in (None, "base64") else encoding
        if append:
            if not isinstance(payload, str):
                raise InvalidParamsError(
                    "append adds text: send it in content (not content_base64 or encoding='base64'). To change "
                    "bytes, write the whole file with content_base64."
                )
            report = services.writer.append(
                path, payload, encoding=text_encoding, expected_hash=expected_hash, create_dirs=create_dirs
            )
        else:
            report = services.writer.write(
                path, payload, encoding=text_encoding, expected_hash=expected_hash, create_dirs=create_dirs
            )
        feedback = None
        if report.guard is not None and report.backup is not None:
            feedback = write_guard_feedback(report.guard, report.backup.backup_id)
        feedback = "\n".join(note for note in (feedback, *report.hook_notes) if note) or None
        result = WriteFileResult(
            path=str(report.path),
            bytes_written=report.bytes_written,
            verified=report.verified,
            content_hash=report.content_hash,
            backup_id=report.backup.backup_id if report.backup else None,
            parent_backup_id=report.backup.parent_backup_id if report.backup else None,
            feedback=feedback,
            message="",
            created=report.created,
            unchanged=report.unchanged,
            previous_hash=report.previous_hash,
            encoding=report.encoding,
            external_change=external_change_note(report.verdict),
            appended=not report.rewritten if append else None,
            bytes_appended=report.appended,
            line_break_added=report.line_break_added if append and not report.rewritten else None,
            rewritten_by_hook=True if report.rewritten else None,
        )
        return voiced(result, write_text, compact)

    catalog.add(
        write_file,
        hints("Write File", read_only=False, destructive=True, idempotent=True),
        [
            ("create a file", {"path": "notes/todo.md", "content": "# TODO\n"}),
            ("replace checked against your read", {"path": "a.txt", "content": "new\n", "expected_hash": "d4d8adf9"}),
            ("bytes", {"path": "img/dot.png", "content_base64": "iVBORw0KGgo="}),
            ("add a line at the end", {"path": "notes/log.md", "content": "- deployed v2\n", "append": True}),
        ],
        on_loop="edit",
    )


def _payload(content: str | None, content_base64: str | None, encoding: str | None) -> str | bytes:
    """The text or bytes to write; a bad encoding name or bad base64 is refused before anything is touched."""
    if content and content_base64:  # an empty one is a client filling in every parameter, not a second content
        raise InvalidParamsError(
            "write_file got both content and content_base64, and would write only one. Nothing was written. Send "
            "text in content or bytes in content_base64, not both."
        )
    if content_base64 is not None or encoding == "base64":
        field = "content_base64" if content_base64 is not None else "content"
        raw = content_base64 if content_base64 is not None else content
        if raw is None:
            raise InvalidParamsError(
                'content_base64 or content with encoding:"base64" is required: the bytes to write, as base64.'
            )
        try:
            return base64.b64decode(raw, validate=True)
        except ValueError as exc:  # binascii.Error, and plain ValueError for non-ASCII text
            raise InvalidParamsError(
                f"Invalid base64: {field} is not valid base64 ({exc}). Nothing was written. Send the bytes as "
                "standard base64 "
                "(A-Z a-z 0-9 + / with = padding), or send text in content.",
                parameter=field,
            ) from exc
    if encoding is not None:
        text_codec(encoding)
    if content is None:
        raise InvalidParamsError(
            'Invalid content: required argument "content" not found. write_file needs content (text) or '
            'content_base64. Example: content="hello\\n".'
        )
    return content
