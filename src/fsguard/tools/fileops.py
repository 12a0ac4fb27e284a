"""delete_file, move_file, copy_file and analyze_operation."""

from __future__ import annotations

from typing import Annotated, Literal

import anyio.from_thread
from mcp.server.mcpserver import Context, Resolve
from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.confirmation import Confirmation
from fsguard.core.deletion import Deletion
from fsguard.core.errors import FsguardError, InvalidParamsError, error_for_code
from fsguard.core.pathforms import absolute_or_given
from fsguard.core.preflight import deleting
from fsguard.models import AnalyzeResult, CopyResult, DeletedPath, DeleteResult, MoveResult
from fsguard.services import Services
from fsguard.tools._confirm import NOT_ASKED, Consent, Question, ask, consent
from fsguard.tools._errors import bridge, missing_path
from fsguard.tools._params import Catalog, ExpectedHash, PathArg, PathsArg, hints, voiced
from fsguard.voice import analyze_text, copy_text, delete_text, move_text

SourceArg = Annotated[str, Field(description="What to move or copy (absolute, or relative to the first root).")]
DestArg = Annotated[str, Field(description="Where it goes; must not exist yet (nothing is ever overwritten).")]


async def ask_delete(
    path: str | None,
    paths: list[str] | None,
    permanent: bool,
    recursive: bool,
    expected_hash: str | None,
    ctx: Context,
) -> Question:
    """A permanent delete, or a recursive one of a non-empty directory, asks the user first; a call refused whatever
    the answer (path and paths both, a stale expected_hash) asks nothing."""
    if not (permanent or recursive) or (paths is not None and (path is not None or expected_hash is not None)):
        return NOT_ASKED
    given = paths if paths is not None else [path] if path is not None else []

    def preflight(s: Services) -> Confirmation | None:
        if path is not None and expected_hash is not None:
            s.deleter.check_expected(path, expected_hash)  # raised: the body refuses it alike, nobody is asked
        return deleting(
            s.policy, s.beneath, given, permanent=permanent, recursive=recursive, max_file_size=s.settings.max_file_size
        )

    return await ask(ctx, preflight)


DeleteConsent = Annotated[Consent, Resolve(ask_delete)]


def register(catalog: Catalog) -> None:
    """Add the file operation tools to the catalog."""
    services = catalog.services
    compact = catalog.compact

    @bridge
    def delete_file(
        confirmed: DeleteConsent,
        path: Annotated[str | None, Field(description="File, link or directory to delete.")] = None,
        paths: PathsArg = None,
        permanent: Annotated[bool, Field(description="Remove for good instead of moving to the trash.")] = False,
        recursive: Annotated[bool, Field(description="Required to delete a non-empty directory.")] = False,
        expected_hash: ExpectedHash = None,
    ) -> Annotated[CallToolResult, DeleteResult]:
        """Remove files or directories, to the trash by default (restorable for days).

        Restore with backup(action="restore_trash", sd_id=...). permanent=true removes them (every
        file, in a directory too, is still backed up first). Roots can never be deleted. `paths`
        deletes several, reporting each.
        """
        consent(confirmed, "delete_file")
        if paths is not None:
            if path is not None or expected_hash is not None:
                raise InvalidParamsError("pass path (with expected_hash) or paths, not both.")
            outcomes = services.deleter.delete_many(paths, permanent=permanent, recursive=recursive)
        elif path is None:
            raise missing_path("delete_file", 'delete_file(path="old.log")')
        else:
            outcomes = [
                (
                    path,
                    services.deleter.delete(
                        path, permanent=permanent, recursive=recursive, expected_hash=expected_hash
                    ),
                )
            ]
        if all(isinstance(outcome, FsguardError) for _, outcome in outcomes):
            raise _nothing_deleted(outcomes)
        results = [_deleted(absolute_or_given(services.policy.resolve, given), outcome) for given, outcome in outcomes]
        failed = sum(r.status == "failed" for r in results)
        result = DeleteResult(results=results, succeeded=len(results) - failed, failed=failed, message="")
        return voiced(result, delete_text, compact)

    @bridge
    def move_file(
        source_path: SourceArg, dest_path: DestArg, expected_hash: ExpectedHash = None
    ) -> Annotated[CallToolResult, MoveResult]:
        """Move or rename a file or directory, never overwriting; to keep the source use copy_file.

        The no-overwrite check is atomic, works across filesystems (copy, verify, remove), and a root can
        never be moved. A symlink moves as itself, not what it points at.
        """
        source, destination, link, _ = services.mover.move(source_path, dest_path, expected_hash=expected_hash)
        result = MoveResult(source=str(source), destination=str(destination), message="")
        if link is not None:
            result.symlink_target, result.link_dangles = link.target, link.dangles
            result.link_now_points_to = None if link.now_points_to is None else str(link.now_points_to)
        return voiced(result, move_text, compact)

    @bridge
    def copy_file(source_path: SourceArg, dest_path: DestArg, ctx: Context) -> Annotated[CallToolResult, CopyResult]:
        """Copy a file or directory tree, never overwriting; to relocate instead use move_file.

        Symlinks, pipes, sockets and devices inside a directory are skipped and listed. Large copies report progress.
        """

        reported = [0]

        def progress(done: int, total: int) -> None:
            anyio.from_thread.check_cancelled()  # a cancelled call stops between whole files
            if done - reported[0] >= max(total // 100, 1 << 20) or done == total:
                reported[0] = done
                anyio.from_thread.run(ctx.report_progress, done, total)

        report = services.mover.copy(source_path, dest_path, progress=progress)
        result = CopyResult(
            source=str(report.source),
            destination=str(report.destination),
            files_copied=report.files_copied,
            bytes_copied=report.bytes_copied,
            skipped_symlinks=report.skipped_symlinks,
            skipped_special=report.skipped_special,
            denied=report.denied,
            message="",
        )
        return voiced(result, copy_text, compact)

    @bridge
    def analyze_operation(
        operation: Annotated[
            Literal["file", "optimize", "write", "edit", "delete"], Field(description="The operation to plan.")
        ],
        path: PathArg,
        content: Annotated[str | None, Field(description="write: the new content.")] = None,
        old_text: Annotated[str | None, Field(description="edit: the text to replace.")] = None,
        new_text: Annotated[str | None, Field(description="edit: its replacement.")] = None,
    ) -> Annotated[CallToolResult, AnalyzeResult]:
        """Check a write, edit or delete before making it: risk, diff and advice, nothing changed.

        Returns the risk level and its factors, the diff a write or edit would make, and advice.
        """
        result = services.analyzer.analyze(operation, path, content=content, old_text=old_text, new_text=new_text)
        return voiced(result, analyze_text, compact)

    catalog.add(
        delete_file,
        hints("Delete File", read_only=False, destructive=True, idempotent=False),
        [
            ("to the trash", {"path": "build/old.log"}),
            ("a directory", {"path": "tmp/cache", "recursive": True}),
            ("several", {"paths": ["a.tmp", "b.tmp"]}),
        ],
    )
    catalog.add(
        move_file,
        hints("Move / Rename", read_only=False, destructive=True, idempotent=False),
        [("rename", {"source_path": "notes.txt", "dest_path": "docs/notes.md"})],
    )
    catalog.add(
        copy_file,
        hints("Copy File", read_only=False, destructive=False, idempotent=True),
        [
            ("a file", {"source_path": "a.txt", "dest_path": "a.bak"}),
            ("a tree", {"source_path": "src", "dest_path": "src.copy"}),
        ],
    )
    catalog.add(
        analyze_operation,
        hints("Analyze Operation", read_only=True),
        [
            ("plan an edit", {"operation": "edit", "path": "a.py", "old_text": "x = 1", "new_text": "x = 2"}),
            ("plan a delete", {"operation": "delete", "path": ".env"}),
        ],
    )


def _nothing_deleted(outcomes: list[tuple[str, Deletion | FsguardError]]) -> FsguardError:
    """The error of a delete of ``paths`` none of which was deleted, with the first failure's code: an answer of
    success there ("0/2 succeeded") read as done to an agent that checked only isError."""
    failures = [(given, outcome) for given, outcome in outcomes if isinstance(outcome, FsguardError)]
    if len(failures) == 1:
        return failures[0][1]
    listed = "; ".join(f"{given}: {error.message}" for given, error in failures[:_LISTED])
    more = f"; and {len(failures) - _LISTED} more" if len(failures) > _LISTED else ""
    return error_for_code(failures[0][1].code)(
        f"None of the {len(failures)} paths was deleted: {listed}{more}",
        path=failures[0][0],
        failed=[given for given, _ in failures],
        failed_codes=[error.code for _, error in failures],
    )


_LISTED = 5


def _deleted(given: str, outcome: Deletion | FsguardError) -> DeletedPath:
    if isinstance(outcome, FsguardError):
        return DeletedPath(path=given, status="failed", error=outcome.message, error_code=outcome.code)
    return DeletedPath(
        path=str(outcome.path),
        status="trashed" if outcome.status == "trashed" else "deleted",
        sd_id=outcome.trash.sd_id if outcome.trash else None,
        backup_id=outcome.group.group_id if outcome.group else outcome.backup.backup_id if outcome.backup else None,
        files_backed_up=outcome.files_backed_up,
    )
