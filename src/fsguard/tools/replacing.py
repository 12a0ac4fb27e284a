"""project_replace."""

from __future__ import annotations

from typing import Annotated

import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from fsguard.models import ProjectReplaceResult, ReplacedFile
from fsguard.tools._confirm import consent
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, voiced
from fsguard.tools._replacement import ReplaceConsent, replace_request
from fsguard.tools.search import SAMPLE, DependenciesArg, GlobsArg, PathGlobsArg
from fsguard.voice import replace_text
from fsguard.voice.notes import external_change_note

NO_BACKUP_NOTE = (
    "create_backup=false is not needed: every changed file is backed up all the same (backup_id restores them all)."
)


def register(catalog: Catalog) -> None:
    """Add project_replace to the catalog."""
    services = catalog.services

    @bridge
    def project_replace(
        find: Annotated[str, Field(description="Text to replace (literal), or an RE2 regex with literal=false.")],
        replace: Annotated[str, Field(description="Replacement; literal unless literal=false ($1, ${name}).")],
        ctx: Context,
        confirmed: ReplaceConsent,
        path: Annotated[str, Field(description="Directory (or file) to work in; default: the first root.")] = ".",
        literal: Annotated[bool, Field(description="Treat find and replace literally ($ and \\ too).")] = True,
        case_sensitive: Annotated[bool, Field(description="Match case.")] = True,
        file_types: GlobsArg = None,
        include_paths: PathGlobsArg = None,
        exclude_paths: PathGlobsArg = None,
        preview: Annotated[bool, Field(description="Count per file and change nothing.")] = False,
        max_files: Annotated[int, Field(ge=1, le=100_000, description="Change at most this many files.")] = 1000,
        force: Annotated[bool, Field(description="Allow a HIGH or CRITICAL risk change.")] = False,
        respect_gitignore: Annotated[bool, Field(description="Skip what .gitignore files exclude.")] = True,
        include_dependencies: DependenciesArg = False,
        create_backup: Annotated[
            bool, Field(description="Accepted as the seed takes it; every changed file is backed up either way.")
        ] = True,
        parallel: Annotated[
            bool,
            Field(description="Accepted as the seed takes it; files change one at a time in path order either way."),
        ] = True,
    ) -> Annotated[CallToolResult, ProjectReplaceResult]:
        """Replace the same text in many files at once, each undoable; for one file use edit_file.

        The result's backup_id restores every changed file at once: backup(action="restore", backup_id=...).
        Start with preview=true. VCS, dependency and cache directories, gitignored paths, minified and binary
        files are skipped. A large change (many files or occurrences) is refused with risk_blocked unless
        force=true. Files change one at a time, so a cancelled run leaves each file whole, old or new.
        """

        def progress(done: int, total: int) -> None:
            anyio.from_thread.check_cancelled()  # cancelling stops between files: each is old or new
            anyio.from_thread.run(ctx.report_progress, done, total)

        force = consent(confirmed, "project_replace", force=force)
        request = replace_request(
            find, replace, path, literal, case_sensitive, file_types, include_paths, exclude_paths, preview, max_files,
            force, respect_gitignore, include_dependencies,
        )  # fmt: skip
        report = services.replacer.run(request, progress, waiting=anyio.from_thread.check_cancelled)
        files = [
            ReplacedFile(
                path=str(c.path),
                replacements=c.replacements,
                backup_id=c.backup_id,
                skipped=c.skipped,
                external_change=external_change_note(c.verdict) if c.verdict else None,
                notes=list(c.notes) or None,
            )
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
            default_skipped=len(report.skipped) or None,
            default_skipped_paths=list(report.skipped[:SAMPLE]) or None,
            skipped_too_large=len(report.too_large) or None,
            skipped_too_large_paths=list(report.too_large[:SAMPLE]) or None,
            skipped_binary=len(report.binary) or None,
            skipped_binary_paths=list(report.binary[:SAMPLE]) or None,
            skipped_unreadable=len(report.unreadable) or None,
            skipped_unreadable_paths=list(report.unreadable[:SAMPLE]) or None,
            line_endings_kept=len(report.endings_kept) or None,
            line_endings_kept_paths=list(report.endings_kept[:SAMPLE]) or None,
            excluded_by_gitignore=report.excluded_by_gitignore or None,
            max_files_reached=report.more_files or None,
            note=None if create_backup else NO_BACKUP_NOTE,
            message="",
        )
        return voiced(result, replace_text, catalog.compact)

    catalog.add(
        project_replace,
        hints("Project Replace", read_only=False, destructive=True, idempotent=False),
        [
            ("preview", {"find": "old_name", "replace": "new_name", "preview": True}),
            ("only Python files", {"find": "old_name", "replace": "new_name", "file_types": ".py"}),
        ],
    )
