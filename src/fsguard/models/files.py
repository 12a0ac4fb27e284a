"""Results of the read-side file tools: read_file, get_file_info, list_directory, create_directory."""

from __future__ import annotations

from typing import Annotated, Literal, NotRequired

from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic refuses typing.TypedDict before Python 3.12

from fsguard.models.base import Result

EntryType = Literal["file", "directory", "symlink", "other"]


class ReadFileEntry(Result):
    """One file of a multi-file read."""

    path: str = Field(description="Absolute canonical path.")
    content: str | None = Field(
        None,
        description="The file's text, as a one-file read returns it: no hint inside (absent when the read failed "
        "or the response budget was used up before this file).",
    )
    content_hash: str | None = Field(None, description="FNV-1a 32 of the whole file's bytes, 8 hex digits.")
    total_lines: int | None = Field(None, description="Lines in the file.")
    start_line: int | None = Field(None, description="First line in content, 1-based.")
    end_line: int | None = Field(None, description="Last line in content, 1-based, inclusive.")
    truncated: bool = Field(False, description="True when content holds less than the whole file, or nothing.")
    hint: str | None = Field(None, description="How to read the rest of this file, when truncated.")
    error: str | None = Field(None, description="Why this file could not be read.")
    error_code: str | None = Field(None, description="Stable code of the error, e.g. not_found.")
    did_you_mean: list[str] | None = Field(None, description="Existing paths a path that does not exist likely meant.")


class ReadFileResult(Result):
    """What read_file returns (seed schema: ``content`` required, ``content_hash`` declared)."""

    content: str = Field(
        description="The text read: the whole file, a line range, head/tail, or base64; empty for media reads."
    )
    content_hash: str | None = Field(
        None, description="FNV-1a 32 of the WHOLE file's raw bytes (8 hex); pass it as expected_hash when editing."
    )
    path: str | None = Field(None, description="Absolute canonical path (single-file reads).")
    size: int | None = Field(None, description="File size in bytes.")
    total_lines: int | None = Field(None, description="Lines in the whole file (a final newline adds no line).")
    start_line: int | None = Field(None, description="First line returned, 1-based.")
    end_line: int | None = Field(None, description="Last line returned, 1-based, inclusive.")
    truncated: bool = Field(
        False, description="True when lines of the file were left out of content (paths: of any file)."
    )
    hint: str | None = Field(None, description="How to read the rest, when truncated.")
    encoding: str | None = Field(None, description="Text encoding detected (utf-8, utf-16-le, cp1252 …) or base64.")
    line_ending: Literal["lf", "crlf", "cr", "mixed", "none"] | None = Field(
        None, description="Line-ending style of the file."
    )
    files: list[ReadFileEntry] | None = Field(
        None,
        description="Per-file results of a multi-file read (paths); the files share one response budget, and "
        "content then holds them all under === path === headings, each with its hint.",
    )
    media: Literal["image", "audio"] | None = Field(
        None, description="Set for an image or audio file: its bytes are in an image/audio block (content is empty)."
    )
    mime_type: str | None = Field(None, description="Media type sniffed from the file's bytes, e.g. image/png.")
    width: int | None = Field(None, description="Image width in pixels, from its header.")
    height: int | None = Field(None, description="Image height in pixels, from its header.")
    uri: str | None = Field(
        None, description="file:// URI of a media file above --max-media-bytes, sent as a resource_link block."
    )


class FileFacts(Result):
    """Metadata of one filesystem entry."""

    name: str | None = Field(None, description="Last path component.")
    type: EntryType | None = Field(None, description="file, directory, symlink (dangling) or other.")
    size: int | None = Field(None, description="Size in bytes.")
    mode: str | None = Field(None, description="Permission bits in octal, e.g. 0644.")
    permissions: str | None = Field(None, description="ls-style permissions, e.g. -rw-r--r--.")
    modified: str | None = Field(None, description="Last modification, ISO 8601 UTC.")
    created: str | None = Field(None, description="Creation time where the filesystem records it, ISO 8601 UTC.")
    accessed: str | None = Field(None, description="Last access, ISO 8601 UTC.")
    is_symlink: bool | None = Field(None, description="True when the path given is a symbolic link.")
    symlink_target: str | None = Field(None, description="Canonical target of the link.")
    content_hash: str | None = Field(None, description="FNV-1a 32 of a file's bytes (files only).")
    line_count: int | None = Field(None, description="Lines, for text files.")
    encoding: str | None = Field(None, description="Text encoding, or binary.")
    entries: int | None = Field(None, description="Number of entries, for directories.")
    readable: bool | None = Field(
        None,
        description="False when the server's user may not read this file or list this directory (its permissions): "
        "no hash, lines or entries are given, and reading it fails.",
    )
    note: str | None = Field(
        None, description="A symlink whose target does not exist: the link itself is described, and this says so."
    )


class FileInfo(FileFacts):
    """One file of a multi-path get_file_info."""

    path: str = Field(description="Absolute canonical path, or the path as given when it was refused.")
    error: str | None = Field(None, description="Why this path could not be inspected.")
    error_code: str | None = Field(None, description="Stable code of the error.")
    did_you_mean: list[str] | None = Field(None, description="Existing paths a path that does not exist likely meant.")


class GetFileInfoResult(FileFacts):
    """What get_file_info returns: the facts of ``path``, or ``files`` for ``paths``."""

    path: str | None = Field(None, description="Absolute canonical path (single path).")
    files: list[FileInfo] | None = Field(None, description="One entry per path, for paths.")


# A TypedDict, not a model: a page can hold tens of thousands of entries, and pydantic-core validates a list of
# dicts in one pass (20,000 entries: 12 ms) where building a model per entry takes five times as long. The
# schema is generated from it all the same, and mypy checks every dict built as one.
@with_config(ConfigDict(extra="forbid"))
class DirectoryEntry(TypedDict):
    """One entry of a directory listing."""

    name: Annotated[str, Field(description="Entry name.")]
    type: Annotated[EntryType, Field(description="file, directory, symlink (dangling or leaving the roots) or other.")]
    size: NotRequired[Annotated[int, Field(description="Size in bytes, for files.")]]
    modified: Annotated[str, Field(description="Last modification, ISO 8601 UTC.")]
    is_symlink: Annotated[bool, Field(description="True when the entry is a symbolic link.")]


class TreeNode(Result):
    """A node of a directory tree."""

    name: str = Field(description="Entry name.")
    type: EntryType = Field(description="file, directory, symlink or other.")
    size: int | None = Field(None, description="Size in bytes, for files.")
    children: list[TreeNode] | None = Field(
        None,
        description="Entries of a directory within max_depth ([] when empty); absent for one max_depth stopped at "
        "(marked … in the text): raise max_depth or list it to see inside.",
    )
    readable: bool | None = Field(
        None, description="False for a directory within max_depth the server's user may not list: no children."
    )
    cut: int | None = Field(
        None,
        description="Entries of this directory the tree left out, having reached its node cap (limit, at most "
        "--max-list-items): list the directory itself to see them.",
    )


class ListDirectoryResult(Result):
    """What list_directory returns."""

    path: str = Field(description="Absolute canonical path of the directory.")
    output_format: Literal["compact", "json", "tree"] = Field(description="Format requested.")
    entries: list[DirectoryEntry] = Field(description="Entries from offset (empty for tree).")
    total: int = Field(
        description="Entries in the directory (after hidden and .gitignore filtering), or nodes in the tree."
    )
    offset: int = Field(0, description="Index of the first entry returned.")
    ignored: int = Field(0, description="Entries left out because .gitignore excludes them (respect_gitignore).")
    hidden: int = Field(0, description="Entries left out because their names start with '.' (include_hidden=false).")
    denied: int = Field(0, description="Entries left out because a deny rule hides them (secrets, --deny).")
    truncated: bool = Field(description="True when entries were left out by limit or the item cap.")
    next_offset: int | None = Field(None, description="Pass as offset to list the next page.")
    tree: TreeNode | None = Field(None, description="The tree, for output_format=tree.")
    note: str | None = Field(
        None,
        description="A page past the first whose directory changed since your previous page of it: entries may "
        "have moved between pages.",
    )


class CreateDirectoryResult(Result):
    """What create_directory returns."""

    path: str = Field(description="Absolute canonical path of the directory.")
    created: bool = Field(description="False when the directory already existed (success all the same).")
    message: str = Field(description="Same text as the text block.")


class AnalyzeResult(Result):
    """What analyze_operation returns: a plan, nothing is changed."""

    operation: Literal["file", "optimize", "write", "edit", "delete"]
    path: str = Field(description="Absolute canonical path.")
    exists: bool
    risk_level: Literal["LOW", "MEDIUM", "HIGH", "CRITICAL"]
    risk_factors: list[str] = Field(default_factory=list)
    lines_added: int = 0
    lines_removed: int = 0
    preview_diff: str | None = Field(None, description="Diff the operation would make (write/edit).")
    refused: str | None = Field(
        None,
        description="The error code the tool would refuse the operation with (access_denied, rewrite_blocked, "
        "encoding_error …); nothing would change, and risk_factors gives the tool's reason.",
    )
    suggestions: list[str] = Field(default_factory=list)
    message: str = Field(description="Same text as the text block.")


class DeletedPath(Result):
    """One path of a delete_file call."""

    path: str
    status: Literal["trashed", "deleted", "failed"]
    sd_id: str | None = Field(None, description="Trash entry: restore with backup(action='restore_trash').")
    backup_id: str | None = Field(
        None,
        description="Permanently deleted: the file's backup, or a directory's change group (every file in it); "
        "backup(action='restore', backup_id=...) brings either back.",
    )
    files_backed_up: int | None = Field(None, description="A directory deleted for good: its files backed up.")
    error: str | None = None
    error_code: str | None = None


class DeleteResult(Result):
    """What delete_file returns."""

    results: list[DeletedPath]
    succeeded: int
    failed: int
    message: str = Field(description="Same text as the text block.")


class MoveResult(Result):
    """What move_file returns."""

    source: str
    destination: str
    symlink_target: str | None = Field(
        None,
        description="The source was a symlink: the link itself moved, not what it points at; its target as stored.",
    )
    link_now_points_to: str | None = Field(
        None,
        description="A link with a relative target moved to another directory: the path it now points at (the link "
        "is never rewritten, as mv never does).",
    )
    link_dangles: bool = Field(False, description="True when link_now_points_to is inside a root and does not exist.")
    message: str = Field(description="Same text as the text block.")


class CopyResult(Result):
    """What copy_file returns."""

    source: str
    destination: str
    files_copied: int
    bytes_copied: int
    skipped_symlinks: list[str] = Field(default_factory=list, description="Links inside a directory, not copied.")
    skipped_special: list[str] = Field(
        default_factory=list, description="Pipes, sockets and devices inside a directory: never read, not copied."
    )
    denied: int = Field(
        0,
        description="Files inside the directory a deny rule hides (secrets, --deny), and git's object stores and "
        "index: not copied, and never named.",
    )
    message: str = Field(description="Same text as the text block.")
