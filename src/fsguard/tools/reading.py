"""read_file."""

from __future__ import annotations

import base64
from typing import Annotated, Literal

from mcp.types import AudioContent, CallToolResult, ContentBlock, ImageContent, ResourceLink, TextContent
from pydantic import Field

from fsguard.core.errors import InvalidParamsError
from fsguard.core.media import MediaRead
from fsguard.core.medialimits import MediaLimits
from fsguard.core.multiread import read_many
from fsguard.core.selection import LineSelection
from fsguard.core.steady import unsteady_note
from fsguard.models import ReadFileResult
from fsguard.tools._errors import bridge, missing_path
from fsguard.tools._params import Catalog, PathsArg, hints, respond
from fsguard.tools._weights import file_weigher
from fsguard.voice import read_text
from fsguard.voice.sizes import human_size


def register(catalog: Catalog) -> None:
    """Add read_file to the catalog."""
    services = catalog.services

    @bridge
    def read_file(
        path: Annotated[
            str | None, Field(description="File to read (absolute, or relative to the first root).")
        ] = None,
        paths: PathsArg = None,
        start_line: Annotated[int | None, Field(ge=1, description="First line to return, 1-based.")] = None,
        end_line: Annotated[int | None, Field(ge=1, description="Last line to return, inclusive.")] = None,
        max_lines: Annotated[
            int | None,
            Field(
                ge=0,
                description="Lines to return with mode head/tail/all; 0 or absent: 100 (head/tail), whole file (all).",
            ),
        ] = None,
        mode: Annotated[
            Literal["all", "head", "tail"], Field(description="With max_lines: head, tail, or head+tail (all).")
        ] = "all",
        start_column: Annotated[
            int | None,
            Field(
                ge=1,
                description="First character of start_line to return (1-based), to read on in a line cut at the "
                "response budget, e.g. a minified file or a one-line log.",
            ),
        ] = None,
        encoding: Annotated[
            str | None,
            Field(
                description="base64: return the raw bytes base64-encoded as text (any file, images too). Any other "
                "value (utf-8, text …) is a normal read: the file's encoding is detected and reported."
            ),
        ] = None,
    ) -> Annotated[CallToolResult, ReadFileResult]:
        """Read a file's text, whole or a line range, with its content_hash; to find text use search_files.

        An image (png, jpeg, gif, webp) or audio file (mp3, wav, ogg, flac), recognised by its bytes, comes back as
        an image/audio block you can see or hear, with mime_type, size and width/height; above --max-media-bytes
        as a resource_link instead.

        Files over 300 lines return the first 300 and a hint for the next range; pick lines with
        start_line/end_line, or max_lines with mode head/tail (any file size: ranges stream). A response holds at
        most --max-response-bytes of text: a longer line is cut with a marker; read on with start_column.
        `paths` reads several whole files at once, sharing that budget.
        Binary files are refused unless encoding="base64". Encoding and line endings are detected and reported.
        """
        selection = LineSelection(start_line, end_line, max_lines, mode, start_column)
        # The seed only ever acted on "base64"; every other value it was sent ("utf-8", "text", "") read normally.
        as_base64 = (encoding or "").strip().lower() == "base64"
        if paths is not None and path is not None and selection.is_range:
            paths = None  # the seed's rule: a range names one file, so path wins over paths
        elif paths is not None and path is not None and (not path or path in paths):
            path = None  # the seed read paths then (catalog §1.1); a path that adds nothing is not a conflict
        if paths is not None:
            if path is not None or selection.is_range or selection.is_window or as_base64:
                given = ["path"] * (path is not None) + [selection.named] * bool(selection.named)
                given += ["encoding"] * as_base64
                raise InvalidParamsError(
                    f"paths reads whole files; drop {' and '.join(given)}, or read one file with path."
                )
            result = read_many(services.reader, paths)
        elif path is None:
            raise missing_path("read_file", 'read_file(path="src/app.py")')
        elif as_base64:
            if selection.is_range or selection.is_window:
                raise InvalidParamsError(f"encoding='base64' returns the whole file; drop {selection.named}.")
            result = services.reader.read_base64(path)
        else:
            found = services.reader.read_one(path, selection)
            if isinstance(found, MediaRead):
                return _media_answer(found, services.reader.media_limits, catalog.compact)
            result = found
        return respond(result, read_text(result, catalog.compact))

    catalog.add(
        read_file,
        hints("Read File", read_only=True),
        [
            ("whole file", {"path": "src/app.py"}),
            ("lines 120-180", {"path": "src/app.py", "start_line": 120, "end_line": 180}),
            ("last 50 lines", {"path": "logs/server.log", "max_lines": 50, "mode": "tail"}),
            ("read on in a cut line", {"path": "dist/app.min.js", "start_line": 1, "start_column": 262145}),
            ("two files at once", {"paths": ["README.md", "pyproject.toml"]}),
            ("see an image", {"path": "assets/logo.png"}),
            ("raw bytes", {"path": "assets/logo.png", "encoding": "base64"}),
        ],
        on_loop="read",
        weigh=file_weigher(services.policy, loaded_below=services.settings.max_file_size),
    )


def _media_answer(found: MediaRead, limits: MediaLimits, compact: bool) -> CallToolResult:
    """The text, then the image or audio block (or a resource_link above the budget), and the structured result."""
    media = found.media
    linked = found.data is None
    hint = None
    if linked:
        hint = (
            f"{found.path.name} ({human_size(found.size)}) is above {limits.inline_limit}, so it is linked, not inlined"
        )
        if found.size > limits.max_file_size:  # a base64 read is refused too, and a media file has no line ranges
            if limits.max_file_size >= limits.media_budget:
                hint += f", and above the {limits.max_file_size:,}-byte limit (--max-file-size)"
            hint += (
                ": no read loads it whole. To read its bytes, ask the user to restart fsguard with a larger "
                "--max-file-size"
            )
        elif limits.base64_fits(found.size):
            hint += ". encoding='base64' returns its bytes as text"
        if found.content_hash is None and found.size <= limits.max_file_size:  # not its size: it was being written
            hint += f". {unsteady_note(found.path.name)}"
    result = ReadFileResult(
        content="",
        content_hash=found.content_hash,
        path=str(found.path),
        size=found.size,
        hint=hint,
        media=media.kind,
        mime_type=media.mime_type,
        width=media.width,
        height=media.height,
        uri=found.uri if linked else None,
    )
    block: ContentBlock
    if found.data is None:
        block = ResourceLink(
            type="resource_link", uri=found.uri, name=found.path.name, mime_type=media.mime_type, size=found.size
        )
    else:
        data = base64.b64encode(found.data).decode("ascii")
        if media.kind == "image":
            block = ImageContent(type="image", data=data, mime_type=media.mime_type)
        else:
            block = AudioContent(type="audio", data=data, mime_type=media.mime_type)
    return CallToolResult(
        content=[TextContent(type="text", text=read_text(result, compact)), block],
        structured_content=result.model_dump(mode="json", exclude_none=True),
    )
