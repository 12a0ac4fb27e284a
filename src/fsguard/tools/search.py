"""search_files."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Annotated, Literal

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from fsguard.config import Settings
from fsguard.core.budget import fitting, held, json_size
from fsguard.core.denial import HiddenFiles
from fsguard.core.globs import anchored, normalise_globs, split_globs
from fsguard.core.hookfilter import hooked_out
from fsguard.core.ignore import WalkOptions, excluded_by_gitignore
from fsguard.core.patterns import compiles
from fsguard.core.search import ContentMatch, ContentRequest, ContentSearch, search_content, search_names, searched_file
from fsguard.core.skips import Skips
from fsguard.models import SearchMatch, SearchResult
from fsguard.services import Services
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, respond
from fsguard.voice import json_text, search_text

GlobsArg = Annotated[
    str | list[str] | None,
    Field(
        description='Extensions (any case) or globs (exact case), comma-separated or a list: ".go,.txt", "py", '
        '["*.md", "src/**/*.go"].'
    ),
]
PathGlobsArg = Annotated[
    str | list[str] | None,
    Field(description='Globs on paths relative to path, a list or comma-separated: ["src/**", "*_test.go"].'),
]
DependenciesArg = Annotated[
    bool,
    Field(
        description="Also take dependency, cache and build directories (node_modules, .venv, __pycache__, target, "
        "dist, build…) and minified files (*.min.*, *.map), left out by default."
    ),
]
SAMPLE = 10  # skipped paths named in a result
_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class _SearchCall:
    """One search_files call, as the agent wrote it."""

    pattern: str
    path: str
    include_content: bool
    globs: tuple[str, ...]
    case_sensitive: bool
    whole_word: bool
    literal: bool
    regex: bool | None
    include_context: bool | None
    context_lines: int | None
    count_only: bool
    max_results: int | None
    return_lines: bool
    output_format: str | None
    respect_gitignore: bool
    include_hidden: bool
    include_dependencies: bool

    def content(self, is_file: bool) -> bool:
        """Whether this is a content search: asked for, or implied as the seed implies it (a file path, or a
        parameter that only means something for content), unless the pattern can only be a file-name glob."""
        if self.include_content or self.count_only or is_file:
            return True
        implied = self.whole_word or bool(self.include_context) or self.context_lines is not None
        if not (implied or self.output_format is not None):
            return False
        return not (_GLOB_CHARS & set(self.pattern)) or compiles(self.pattern)

    @property
    def context(self) -> int:
        shown = self.include_context if self.include_context is not None else self.context_lines is not None
        return (3 if self.context_lines is None else self.context_lines) if shown else 0


def register(catalog: Catalog) -> None:
    """Add search_files and project_replace to the catalog."""
    services = catalog.services

    @bridge
    def search_files(
        pattern: Annotated[
            str,
            Field(
                description="Content: a regex (RE2). Names: a glob if it has * ? [ (as file_types reads one: "
                "*.{ts,tsx}, src/**/*.py), else a regex on the name."
            ),
        ],
        ctx: Context,
        path: Annotated[
            str, Field(description="Directory to search, or a file to search inside; default: the first root.")
        ] = ".",
        include_content: Annotated[bool, Field(description="Search inside files (default: file names).")] = False,
        file_types: GlobsArg = None,
        include: Annotated[str | list[str] | None, Field(description="Same as file_types.")] = None,
        case_sensitive: Annotated[bool, Field(description="Match case (default: case-insensitive).")] = False,
        whole_word: Annotated[bool, Field(description="Match whole words only (searches content).")] = False,
        literal: Annotated[bool, Field(description="Take pattern literally, not as a regex.")] = False,
        regex: Annotated[
            bool | None, Field(description="Names: true = pattern is a regex, false = a glob; default: as written.")
        ] = None,
        include_context: Annotated[
            bool | None, Field(description="Add lines around each match (searches content).")
        ] = None,
        context_lines: Annotated[
            int | None, Field(ge=0, le=20, description="Lines of context, default 3 (searches content).")
        ] = None,
        count_only: Annotated[bool, Field(description="Content: only the number of matches per file.")] = False,
        max_results: Annotated[
            int | None, Field(ge=1, description="At most this many (default --max-search-results).")
        ] = None,
        return_lines: Annotated[bool, Field(description="count_only: also list the lines of the matches.")] = False,
        output_format: Annotated[
            Literal["auto", "text", "json"] | None,
            Field(description="Text block: text (with headers), json (the result as JSON), auto (server voice)."),
        ] = None,
        respect_gitignore: Annotated[bool, Field(description="Skip what .gitignore files exclude.")] = True,
        include_hidden: Annotated[bool, Field(description="Search names starting with '.'.")] = False,
        include_dependencies: DependenciesArg = False,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Find files by name or text under a directory (ripgrep) instead of listing or reading to look.

        .gitignore is honoured; hidden files, VCS, dependency and cache directories (node_modules, .venv…),
        minified, binary and huge files are skipped (the result counts what the default skips left out).
        whole_word, include_context, context_lines or output_format imply a content search. Content matches
        carry line, column and optional context; count_only gives counts per file.
        """
        call = _SearchCall(
            pattern=pattern,
            path=path,
            include_content=include_content,
            globs=(*split_globs(file_types), *split_globs(include)),
            case_sensitive=case_sensitive,
            whole_word=whole_word,
            literal=literal,
            regex=regex,
            include_context=include_context,
            context_lines=context_lines,
            count_only=count_only,
            max_results=max_results,
            return_lines=return_lines,
            output_format=output_format,
            respect_gitignore=respect_gitignore,
            include_hidden=include_hidden,
            include_dependencies=include_dependencies,
        )
        result = _search(services, ctx, call)
        compact = catalog.compact and output_format != "text"
        render = partial(json_text if output_format == "json" else search_text, compact=compact)
        return respond(*_held(result, render))

    catalog.add(
        search_files,
        hints("Search Files", read_only=True),
        [
            ("files by name", {"pattern": "*.py", "path": "src"}),
            ("text in files", {"pattern": "def main", "include_content": True, "file_types": ".py,.pyi"}),
            ("count per file", {"pattern": "TODO", "count_only": True}),
            ("inside one file, with context", {"pattern": "TODO", "path": "src/app.py", "include_context": True}),
        ],
    )


def _search(services: Services, ctx: Context, call: _SearchCall) -> SearchResult:
    """Run one search: by name or content under a directory, or in a file; then what the defaults left out."""
    settings, root = services.settings, services.policy.resolve(call.path)
    limit = min(call.max_results or settings.max_search_results, settings.max_search_results)
    is_file = searched_file(root, settings.max_file_size)
    content = call.content(is_file)
    event = {"tool_name": "search_files", "file_path": str(root), "operation": "search_files"}
    asked = {"pattern": call.pattern, "mode": "count" if call.count_only else "content" if content else "filename"}
    services.hooks.fire("pre", "search", **event, metadata=asked)  # a denying hook stops it: nothing is searched
    found = _found(services, ctx, call, root, limit, is_file, content)  # less the files a hook's path glob denies:
    result = hooked_out(services.hooks, found, tool_name="search_files", named=is_file, metadata=asked, sample=SAMPLE)
    services.hooks.fire("post", "search", **event, metadata={**asked, "total_matches": result.total_matches})
    return result


def _found(
    services: Services, ctx: Context, call: _SearchCall, root: Path, limit: int, is_file: bool, content: bool
) -> SearchResult:
    settings = services.settings
    options = WalkOptions(
        respect_gitignore=call.respect_gitignore,
        include_hidden=call.include_hidden,
        globs=tuple(anchored(glob, str(root)) for glob in normalise_globs(call.globs)),
        max_file_size=settings.max_file_size if content else None,  # a name search lists big files too, as the seed
        rules_from=services.policy.root_of(root),
        skip_dependencies=not call.include_dependencies,
        skip_minified=content and not call.include_dependencies,  # a name search lists bundles, as the seed
    )
    hide = services.policy.hidden_files()
    skips = Skips()
    if not content:
        glob = call.regex is False or (call.regex is None and bool(_GLOB_CHARS & set(call.pattern)))
        names = search_names(
            root,
            anchored(call.pattern, str(root)) if glob else call.pattern,
            options,
            regex=call.regex,
            case_sensitive=call.case_sensitive,
            max_results=limit,
            beneath=services.beneath,
            hide=hide,
            progress=_progress(ctx),
            suggest=True,  # nothing found for a plain name: the names it may misspell, of the same walk
        )
        files = list(names.files)
        skips = Skips(list(names.skipped), unreadable=list(names.unreadable))  # confirmed by search_names
        near = list(names.near)
        result = SearchResult(
            mode="filename",
            pattern=call.pattern,
            path=str(root),
            total_matches=names.total,
            returned_matches=len(files),
            truncated=names.truncated,
            max_search_results=_capped(settings, limit, names.truncated),
            files=files,
            did_you_mean=near or None,
        )
    else:
        result = _content(services, ctx, call, root, options, limit, hide, skips)  # found by name while rg counts
        skips = skips.standing(services.beneath, root, above=options.max_file_size, hide=hide)
        if skips.too_large:
            update = {"skipped_too_large": len(skips.too_large), "skipped_too_large_paths": skips.too_large[:SAMPLE]}
            result = result.model_copy(update=update)
    if is_file:
        return result
    if result.total_matches == 0 and excluded_by_gitignore(root, options):
        result = result.model_copy(update={"excluded_by_gitignore": True})
    if skipped := skips.by_default:
        result = result.model_copy(update={"default_skipped": len(skipped), "default_skipped_paths": skipped[:SAMPLE]})
    if unreadable := skips.unreadable:
        update = {"skipped_unreadable": len(unreadable), "skipped_unreadable_paths": unreadable[:SAMPLE]}
        result = result.model_copy(update=update)
    return result


def _content(
    services: Services,
    ctx: Context,
    call: _SearchCall,
    root: Path,
    options: WalkOptions,
    limit: int,
    hide: HiddenFiles | None = None,
    skips: Skips | None = None,
) -> SearchResult:
    request = ContentRequest(
        pattern=call.pattern,
        literal=call.literal,
        case_sensitive=call.case_sensitive,
        whole_word=call.whole_word,
        context_lines=call.context,
        # counts alone come from ripgrep's count run, with no lines to read
        max_results=0 if call.count_only and not call.return_lines else limit,
        max_files=limit,
    )
    found = search_content(
        root,
        request,
        options,
        progress=_progress(ctx),
        beneath=services.beneath,
        hide=hide,
        skips=skips,
    )
    at_limit = found.files_with_matches > limit if call.count_only else found.truncated
    kept = len(found.matches) if call.count_only else fitting(found.matches)
    matches = [] if call.count_only else [_match(m) for m in found.matches[:kept]]
    lines, lines_cut = _lines(found) if call.count_only and call.return_lines else ({}, 0)
    return SearchResult(
        mode="count" if call.count_only else "content",
        pattern=call.pattern,
        path=str(root),
        total_matches=found.total_matches,
        returned_matches=len(matches),
        truncated=at_limit or lines_cut > 0 or kept < len(found.matches),
        budget_cut=kept < len(found.matches) or None,
        max_search_results=_capped(services.settings, limit, at_limit or lines_cut > 0),
        matches=matches,
        files=list(found.counts),
        counts=found.counts,
        files_with_matches=found.files_with_matches,
        lines=lines if call.return_lines and call.count_only else None,
        lines_cut=lines_cut or None,
        engine=found.engine,
        skipped_binary=len(found.binary) or None,
        skipped_binary_paths=[_below(root, file) for file in found.binary[:SAMPLE]] or None,
    )


def _lines(found: ContentSearch) -> tuple[dict[str, list[int]], int]:
    """The line numbers of the matches read (max_results of them) by file, and how many of the files counted, the
    last ones in order, did not have all theirs read."""
    lines: dict[str, list[int]] = {}
    for match in found.matches:
        numbers = lines.setdefault(match.file, [])
        if match.line_number not in numbers[-1:]:
            numbers.append(match.line_number)
    read = Counter(match.file for match in found.matches)
    return lines, sum(read[file] < count for file, count in found.counts.items())


def _capped(settings: Settings, limit: int, reached: bool) -> int | None:
    """The server's --max-search-results when a search reached it: a max_results above it was cut to it, so the
    text must not send the agent to raise max_results."""
    return limit if reached and limit == settings.max_search_results else None


def _held(result: SearchResult, render: Callable[[SearchResult], str]) -> tuple[SearchResult, str]:
    """``result`` and its text block, with as many of its matches and files as keep each of the two within the
    budget.

    The matches' first cut (:func:`fitting`) counts their own bytes; the rest of the answer (the files and their
    counts, the text block's layout) is only known once built. A name or count search's answer is its files.
    """
    count = max(len(result.matches), len(result.files))

    def answer(kept: int) -> tuple[SearchResult, str]:
        shown = result if kept == count else _first(result, kept)
        return shown, render(shown)

    def size(built: tuple[SearchResult, str]) -> int:
        shown, text = built
        return max(json_size(shown.model_dump(mode="json", exclude_none=True)), len(text.encode("utf-8", "replace")))

    return held(count, answer, size)


def _first(result: SearchResult, kept: int) -> SearchResult:
    """``result`` cut for the budget: its first ``kept`` matches and files, with those files' counts and lines."""
    files = result.files[:kept]
    matches = result.matches[:kept]
    update: dict[str, object] = {
        "matches": matches,
        "files": files,
        "returned_matches": len(files) if result.mode == "filename" else len(matches),
        "truncated": True,
        "budget_cut": True,
    }
    if result.counts:  # content and count: the files are the counted ones, in order
        update["counts"] = {file: result.counts[file] for file in files}
    if result.lines is not None:
        update["lines"] = {file: result.lines[file] for file in files if file in result.lines}
        # the files whose lines max_results cut are the last ones: those kept of them stay cut
        update["lines_cut"] = max((result.lines_cut or 0) - (len(result.files) - len(files)), 0) or None
    return result.model_copy(update=update)


def _progress(ctx: Context) -> Callable[[int], None]:
    """What a search calls with the files done so far: it reports them and stops the search once cancelled."""
    reported = 0

    def progress(files: int) -> None:
        nonlocal reported
        anyio.from_thread.check_cancelled()
        if files > reported:  # MCP progress must increase
            reported = files
            anyio.from_thread.run(ctx.report_progress, files, None)

    return progress


def _below(root: Path, file: str) -> str:
    """``file`` relative to the searched ``root`` (its name when the search was of that file alone)."""
    relative = os.path.relpath(file, root)
    return Path(file).name if relative == "." else relative


def _match(match: ContentMatch) -> SearchMatch:
    return SearchMatch(
        file=match.file,
        line_number=match.line_number,
        column=match.column,
        match_start=match.match_start,
        match_end=match.match_end,
        line_content=match.line_content,
        context_before=list(match.context_before),
        context_after=list(match.context_after),
        line_content_offset=match.line_content_offset,
    )
