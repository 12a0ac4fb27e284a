"""Results of search_files and project_replace."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from fsguard.models.base import Result
from fsguard.models.wire import PATH_KEYS


class SearchMatch(Result):
    """One match of a content search."""

    file: str = Field(description="Absolute path.")
    line_number: int = Field(description="1-based line.")
    column: int = Field(description="1-based column, in characters.")
    match_start: int = Field(
        description="0-based character offset of the match in the line (and in line_content, unless "
        "line_content_offset is set)."
    )
    match_end: int
    line_content: str = Field(
        description="The line, without its line ending; past 500 characters cut, with ' …' at the cut. A match "
        "beyond the first 500 characters is shown in a window of the line around it, between '… ' and ' …'."
    )
    context_before: list[str] = Field(default_factory=list)
    context_after: list[str] = Field(default_factory=list)
    line_content_offset: int | None = Field(
        None,
        description="Set when line_content is a window of a long line: the line's characters before the window's "
        "text (which follows the leading '… '); the match is at match_start - line_content_offset + 2 in it.",
    )


class SearchResult(Result):
    """What search_files returns."""

    mode: Literal["filename", "content", "count"]
    pattern: str
    path: str = Field(description="Absolute canonical path searched.")
    total_matches: int = Field(description="Matches found (files, for a filename search).")
    returned_matches: int
    truncated: bool = Field(description="True when more were found than max_results, or than fit the answer.")
    budget_cut: bool | None = Field(
        None,
        description="True when matches (by name or count: files) were left out to keep the answer within 500 KB; "
        "a content search's count_only=true counts them all without their lines.",
    )
    max_search_results: int | None = Field(
        None,
        description="Set when the server's cap (--max-search-results, its value here) left matches out: a larger "
        "max_results is cut to it, so narrow the path, pattern or file_types instead.",
    )
    matches: list[SearchMatch] = Field(default_factory=list, description="content mode.")
    files: list[str] = Field(
        default_factory=list, description="Matching paths (content and count modes: those with matches, as counts)."
    )
    counts: Annotated[dict[str, int], PATH_KEYS] = Field(
        default_factory=dict, description="Matches per file, in path order; at most max_results files."
    )
    files_with_matches: int | None = Field(None, description="Files with a match, all of them (content, count).")
    lines: Annotated[dict[str, list[int]], PATH_KEYS] | None = Field(
        None, description="count mode with return_lines: the line numbers of the first max_results matches."
    )
    lines_cut: int | None = Field(
        None,
        description="count mode with return_lines: how many of the files counted, the last ones, max_results left "
        "without all their line numbers (the first may list some): raise max_results, or search one by its path.",
    )
    engine: str | None = Field(None, description="ripgrep or python.")
    excluded_by_gitignore: bool | None = Field(
        None,
        description="True when path itself is gitignored: nothing under it is searched unless respect_gitignore=false.",
    )
    default_skipped: int | None = Field(
        None,
        description="Left out by default (include_dependencies=true searches them): dependency, cache and build "
        "directories such as node_modules, .venv, target (each counted once) and, for content, minified files "
        "(*.min.*, *.map).",
    )
    default_skipped_paths: list[str] | None = Field(
        None, description="The first 10 of them, relative to path; a directory ends in /."
    )
    skipped_too_large: int | None = Field(
        None, description="content: files not searched for being above --max-file-size (the server's setting)."
    )
    skipped_too_large_paths: list[str] | None = Field(None, description="The first 10 of them, relative to path.")
    skipped_binary: int | None = Field(
        None, description="content: binary files (a NUL byte) whose bytes hold the pattern; not searched as text."
    )
    skipped_binary_paths: list[str] | None = Field(None, description="The first 10 of them, relative to path.")
    skipped_unreadable: int | None = Field(
        None,
        description="Directories the server's user may not list or enter and, for content, files it may not read "
        "(permission denied): not searched.",
    )
    skipped_unreadable_paths: list[str] | None = Field(
        None, description="The first 10 of them, relative to path; a directory ends in /."
    )
    skipped_by_hook: int | None = Field(
        None,
        description="Files found that a pre-search (or, for content, pre-read) hook given by a path glob denied: "
        "left out of the results.",
    )
    skipped_by_hook_paths: list[str] | None = Field(None, description="The first 10 of them, relative to path.")
    did_you_mean: list[str] | None = Field(
        None, description="filename mode, nothing found for a plain name: files whose name it likely misspells."
    )


class ReplacedFile(Result):
    """One file of project_replace."""

    path: str
    replacements: int
    backup_id: str | None = Field(None, description="Undo this file with backup(action='undo_last', file_path=...).")
    skipped: str | None = None
    external_change: str | None = Field(None, description="The file changed on disk since this session saw it.")
    notes: list[str] | None = Field(
        None, description="What the write and the hooks said (another hard link keeping the old bytes)."
    )


class ProjectReplaceResult(Result):
    """What project_replace returns."""

    status: Literal["applied", "preview"]
    files_changed: int
    total_replacements: int
    risk_level: Literal["LOW", "MEDIUM", "HIGH", "CRITICAL"]
    backup_id: str | None = Field(
        None, description="Group id: backup(action='restore', backup_id=...) restores every changed file."
    )
    files: list[ReplacedFile]
    files_scanned: int
    default_skipped: int | None = Field(
        None,
        description="Left out by default (include_dependencies=true includes them): dependency, cache and build "
        "directories such as node_modules, .venv, target (each counted once) and minified files (*.min.*, *.map).",
    )
    default_skipped_paths: list[str] | None = Field(
        None, description="The first 10 of them, relative to path; a directory ends in /."
    )
    skipped_too_large: int | None = Field(
        None, description="Files left alone for being above --max-file-size (the server's setting)."
    )
    skipped_too_large_paths: list[str] | None = Field(None, description="The first 10 of them, relative to path.")
    skipped_binary: int | None = Field(None, description="Files left alone as binary (a NUL byte) or undecodable.")
    skipped_binary_paths: list[str] | None = Field(None, description="The first 10 of them, relative to path.")
    skipped_unreadable: int | None = Field(
        None,
        description="Directories the server's user may not list or enter and files it may not read "
        "(permission denied): left alone.",
    )
    skipped_unreadable_paths: list[str] | None = Field(
        None, description="The first 10 of them, relative to path; a directory ends in /."
    )
    line_endings_kept: int | None = Field(
        None,
        description="Files holding find where replace differs from it in line breaks alone: each line keeps its "
        "ending, so they are left as they are.",
    )
    line_endings_kept_paths: list[str] | None = Field(None, description="The first 10 of them, relative to path.")
    excluded_by_gitignore: bool | None = Field(
        None,
        description="True when path itself is gitignored: nothing under it changes unless respect_gitignore=false.",
    )
    max_files_reached: bool | None = Field(
        None,
        description="True when more files than max_files hold the find text: those past it were left alone "
        "(and not counted by a preview).",
    )
    note: str | None = Field(None, description="How a seed flag was honoured (create_backup=false).")
    message: str = Field(description="Same text as the text block.")
