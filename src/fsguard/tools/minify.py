"""minify_js."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.minify import MinifyReport, MinifyRequest
from fsguard.models import MinifyResult
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, ExpectedHash, hints, voiced
from fsguard.voice import minify_text
from fsguard.voice.notes import external_change_note


def register(catalog: Catalog) -> None:
    """Add minify_js to the catalog."""
    services = catalog.services
    compact = catalog.compact

    @bridge
    def minify_js(
        path: Annotated[
            str, Field(description="The JavaScript file to minify (UTF-8 text; a .py, .md, .css … file is refused).")
        ],
        output_path: Annotated[
            str | None,
            Field(
                description="Write the result to this new file instead (missing directories are created); a file "
                "that exists is never overwritten unless it is path itself. Omit to minify in place."
            ),
        ] = None,
        remove_comments: Annotated[
            bool,
            Field(
                description="true: remove every comment. false: keep /*! */ (license) comments; other comments are "
                "removed all the same (rjsmin can keep no others)."
            ),
        ] = True,
        collapse_whitespace: Annotated[
            bool, Field(description="Collapse whitespace. rjsmin always does; false is refused (invalid_params).")
        ] = True,
        single_line: Annotated[
            bool,
            Field(
                description="Join lines. rjsmin joins them all except a break that ends a statement (automatic "
                "semicolon insertion), kept so the program cannot change; false is refused (invalid_params)."
            ),
        ] = True,
        dry_run: Annotated[
            bool, Field(description="Write nothing; report the sizes and the first 500 characters of the result.")
        ] = False,
        create_backup: Annotated[
            bool,
            Field(
                description="Accepted for compatibility; has no effect. An in-place minify is always backed up "
                "first (fsguard never replaces bytes without a backup); a new output file replaces nothing."
            ),
        ] = True,
        expected_hash: ExpectedHash = None,
    ) -> Annotated[CallToolResult, MinifyResult]:
        """Shrink a JavaScript file with rjsmin, in place (undoable) or into a new file.

        Strings, template literals, regex literals and JSX text are never changed, and a line break that ends
        a statement is kept, so the program behaves the same: each literal is compared before anything is
        written, and a result that would change one (rjsmin misreads a template nested in ${...}) or not parse
        is refused (dry runs too). A #! first line and a BOM are kept.
        Undo an in-place minify with backup(action="undo_last", file_path=...).
        """
        del create_backup  # documented no-op: the backup is not optional
        report = services.minifier.minify(
            MinifyRequest(
                path=path,
                output_path=output_path,
                remove_comments=remove_comments,
                collapse_whitespace=collapse_whitespace,
                single_line=single_line,
                dry_run=dry_run,
                expected_hash=expected_hash,
            )
        )
        return voiced(_result(report), minify_text, compact)

    catalog.add(
        minify_js,
        hints("Minify JavaScript", read_only=False, destructive=True, idempotent=True),
        [
            ("in place (backed up)", {"path": "web/app.js"}),
            ("into another file", {"path": "web/app.js", "output_path": "web/app.min.js"}),
            ("dry run: sizes and a preview", {"path": "web/app.js", "dry_run": True}),
        ],
    )


def _result(report: MinifyReport) -> MinifyResult:
    before, after = report.bytes_before, report.bytes_after
    return MinifyResult(
        path=str(report.path),
        output_path=str(report.output_path),
        bytes_before=before,
        bytes_after=after,
        saved_percent=round((before - after) / before * 100, 1) if before else 0.0,
        backup_id=report.backup.backup_id if report.backup else None,
        parent_backup_id=report.backup.parent_backup_id if report.backup else None,
        dry_run=report.dry_run,
        unchanged=report.unchanged,
        preview=report.preview,
        content_hash=report.content_hash,
        previous_hash=report.previous_hash,
        kept_bang_comments=report.kept_bang_comments,
        structure_warning=report.structure_warning,
        external_change=external_change_note(report.verdict),
        notes=list(report.notes) or None,
        message="",
    )
