"""search_files and project_replace."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.ignore import WalkOptions, excluded_by_gitignore, normalise_globs
from fsguard.core.replacing import ReplaceRequest
from fsguard.core.search import ContentMatch, ContentRequest, present, search_content, search_names
from fsguard.models import ProjectReplaceResult, ReplacedFile, SearchMatch, SearchResult
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, respond, voiced
from fsguard.voice import replace_text, search_text

GlobsArg = Annotated[list[str] | None, Field(description='Extensions or globs: ["py", ".ts", "*.md", "src/**/*.go"].')]


def register(catalog: Catalog) -> None:
    """Add search_files and project_replace to the catalog."""
    services = catalog.services
    settings = services.settings

    @bridge
    def search_files(
        pattern: Annotated[str, Field(description="Content: a regex (RE2/ripgrep syntax). Names: a glob, or regex.")],
        ctx: Context,
        path: Annotated[str, Field(description="Directory to search; default: the first root.")] = ".",
        include_content: Annotated[bool, Field(description="Search inside files (default: file names).")] = False,
        file_types: GlobsArg = None,
        include: GlobsArg = None,
        case_sensitive: Annotated[bool, Field(description="Match case (default: case-insensitive).")] = False,
        whole_word: Annotated[bool, Field(description="Match whole words only.")] = False,
        literal: Annotated[bool, Field(description="Take pattern literally, not as a regex.")] = False,
        regex: Annotated[bool, Field(description="Names: pattern is a regex, not a glob.")] = False,
        include_context: Annotated[bool, Field(description="Content: add lines around each match.")] = False,
        context_lines: Annotated[int, Field(ge=0, le=20, description="Lines of context (with include_context).")] = 2,
        count_only: Annotated[bool, Field(description="Content: only the number of matches per file.")] = False,
        max_results: Annotated[
            int | None, Field(ge=1, description="At most this many (default --max-search-results).")
        ] = None,
        return_lines: Annotated[bool, Field(description="count_only: also list the lines of the matches.")] = False,
        output_format: Annotated[
            Literal["text", "json"] | None,
            Field(description="Text block: text (with headers), json (the result as JSON); default: server voice."),
        ] = None,
        respect_gitignore: Annotated[bool, Field(description="Skip what .gitignore files exclude.")] = True,
        include_hidden: Annotated[bool, Field(description="Search names starting with '.'.")] = False,
    ) -> Annotated[CallToolResult, SearchResult]:
        """Find files by name, or text inside files (on ripgrep), under a directory; results in path and line order.

        .gitignore is honoured, hidden files, VCS directories, binary and huge files are skipped. Content
        matches carry line, column and optional context; count_only gives counts per file.
        """
        root = services.policy.resolve(path)
        limit = min(max_results or settings.max_search_results, settings.max_search_results)
        options = WalkOptions(
            respect_gitignore=respect_gitignore,
            include_hidden=include_hidden,
            globs=normalise_globs([*(file_types or []), *(include or [])]),
            max_file_size=settings.max_file_size,
            rules_from=services.policy.root_of(root),
        )
        if not include_content and not count_only:
            names = search_names(root, pattern, options, regex=regex, case_sensitive=case_sensitive, max_results=limit)
            files = present(names.files, services.beneath)
            result = SearchResult(
                mode="filename",
                pattern=pattern,
                path=str(root),
                total_matches=names.total,
                returned_matches=len(files),
                truncated=names.truncated,
                files=files,
            )
        else:
            reported = 0

            def progress(files: int) -> None:
                nonlocal reported
                anyio.from_thread.check_cancelled()
                if files > reported:  # MCP progress must increase
                    reported = files
                    anyio.from_thread.run(ctx.report_progress, files, None)

            request = ContentRequest(
                pattern=pattern,
                literal=literal,
                case_sensitive=case_sensitive,
                whole_word=whole_word,
                context_lines=context_lines if include_context else 0,
                # counts alone come from ripgrep's count run, with no lines to read
                max_results=0 if count_only and not return_lines else limit,
                max_files=limit,
            )
            found = search_content(root, request, options, progress=progress, beneath=services.beneath)
            matches = [] if count_only else [_match(m) for m in found.matches]
            lines: dict[str, list[int]] = {}
            for m in found.matches if count_only and return_lines else ():
                numbers = lines.setdefault(m.file, [])
                if m.line_number not in numbers[-1:]:
                    numbers.append(m.line_number)
            result = SearchResult(
                mode="count" if count_only else "content",
                pattern=pattern,
                path=str(root),
                total_matches=found.total_matches,
                returned_matches=len(matches),
                truncated=found.files_with_matches > limit if count_only else found.truncated,
                matches=matches,
                files=list(found.counts),
                counts=found.counts,
                files_with_matches=found.files_with_matches,
                lines=lines if return_lines and count_only else None,
                engine=found.engine,
            )
        if result.total_matches == 0 and excluded_by_gitignore(root, options):
            result = result.model_copy(update={"excluded_by_gitignore": True})
        if output_format == "json":
            return respond(result, json.dumps(result.model_dump(mode="json", exclude_none=True), indent=1))
        return respond(result, search_text(result, catalog.compact and output_format != "text"))

    @bridge
    def project_replace(
        find: Annotated[str, Field(description="Text to replace (literal), or an RE2 regex with literal=false.")],
        replace: Annotated[str, Field(description="Replacement; literal unless literal=false ($1, ${name}).")],
        ctx: Context,
        path: Annotated[str, Field(description="Directory (or file) to work in; default: the first root.")] = ".",
        literal: Annotated[bool, Field(description="Treat find and replace literally ($ and \\ too).")] = True,
        case_sensitive: Annotated[bool, Field(description="Match case.")] = True,
        file_types: GlobsArg = None,
        include_paths: GlobsArg = None,
        exclude_paths: GlobsArg = None,
        preview: Annotated[bool, Field(description="Count per file and change nothing.")] = False,
        max_files: Annotated[int, Field(ge=1, le=100_000, description="Change at most this many files.")] = 1000,
        force: Annotated[bool, Field(description="Allow a HIGH or CRITICAL risk change.")] = False,
        respect_gitignore: Annotated[bool, Field(description="Skip what .gitignore files exclude.")] = True,
    ) -> Annotated[CallToolResult, ProjectReplaceResult]:
        """Replace text across many files at once; every changed file is backed up and undoable on its own.

        The result's backup_id restores every changed file at once: backup(action="restore", backup_id=...).
        Start with preview=true. VCS directories, gitignored paths and binary files are skipped. A large
        change (many files or occurrences) is refused with risk_blocked unless force=true.
        """

        def progress(done: int, total: int) -> None:
            anyio.from_thread.check_cancelled()  # cancelling stops between files: each is old or new
            anyio.from_thread.run(ctx.report_progress, done, total)

        request = ReplaceRequest(
            path=path,
            find=find,
            replace=replace,
            literal=literal,
            case_sensitive=case_sensitive,
            file_types=tuple(file_types or ()),
            include_paths=tuple(include_paths or ()),
            exclude_paths=tuple(exclude_paths or ()),
            preview=preview,
            max_files=max_files,
            force=force,
            respect_gitignore=respect_gitignore,
        )
        report = services.replacer.run(request, progress)
        files = [
            ReplacedFile(path=str(c.path), replacements=c.replacements, backup_id=c.backup_id, skipped=c.skipped)
            for c in report.files
        ]
        result = ProjectReplaceResult(
            status="preview" if report.status == "preview" else "applied",
            files_changed=sum(1 for c in report.files if c.replacements and not c.skipped),
            total_replacements=report.total_replacements,
            risk_level=report.risk_level.value,
            backup_id=report.group_id,
            files=files,
            files_scanned=report.files_scanned,
            message="",
        )
        return voiced(result, replace_text, catalog.compact)

    catalog.add(
        search_files,
        hints("Search Files", read_only=True),
        [
            ("files by name", {"pattern": "*.py", "path": "src"}),
            ("text in files", {"pattern": "def main", "include_content": True, "file_types": ["py"]}),
            ("count per file", {"pattern": "TODO", "count_only": True}),
        ],
    )
    catalog.add(
        project_replace,
        hints("Project Replace", read_only=False, destructive=True, idempotent=False),
        [
            ("preview", {"find": "old_name", "replace": "new_name", "preview": True}),
            ("only Python files", {"find": "old_name", "replace": "new_name", "file_types": ["py"]}),
        ],
    )


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
    )
