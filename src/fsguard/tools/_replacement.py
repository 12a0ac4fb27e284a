"""project_replace's request, built the same way for the call and for the question put to the user before it."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context, Resolve

from fsguard.core.confirmation import Confirmation
from fsguard.core.globs import expand_globs, split_globs
from fsguard.core.preflight import replacing
from fsguard.core.replacing import ReplaceRequest
from fsguard.services import Services
from fsguard.tools._confirm import NOT_ASKED, Consent, Question, ask


def replace_request(
    find: str,
    replace: str,
    path: str,
    literal: bool,
    case_sensitive: bool,
    file_types: str | list[str] | None,
    include_paths: str | list[str] | None,
    exclude_paths: str | list[str] | None,
    preview: bool,
    max_files: int,
    force: bool,
    respect_gitignore: bool,
    include_dependencies: bool,
) -> ReplaceRequest:
    """project_replace's arguments as the core takes them (the call and its confirmation read the same)."""
    return ReplaceRequest(
        path=path,
        find=find,
        replace=replace,
        literal=literal,
        case_sensitive=case_sensitive,
        file_types=split_globs(file_types),
        include_paths=expand_globs(include_paths),
        exclude_paths=expand_globs(exclude_paths),
        preview=preview,
        max_files=max_files,
        force=force,
        respect_gitignore=respect_gitignore,
        include_dependencies=include_dependencies,
    )


async def ask_replace(
    find: str,
    replace: str,
    path: str,
    literal: bool,
    case_sensitive: bool,
    file_types: str | list[str] | None,
    include_paths: str | list[str] | None,
    exclude_paths: str | list[str] | None,
    preview: bool,
    max_files: int,
    force: bool,
    respect_gitignore: bool,
    include_dependencies: bool,
    ctx: Context,
) -> Question:
    """A HIGH or CRITICAL project_replace without force asks the user instead of being refused.

    The request is built inside the look: arguments it refuses (a glob holding a NUL) ask nothing, and the call
    itself answers the same error; raised here, before the tool runs, it was an internal_error."""
    if preview or force:
        return NOT_ASKED

    def look(services: Services) -> Confirmation | None:
        request = replace_request(
            find, replace, path, literal, case_sensitive, file_types, include_paths, exclude_paths, preview,
            max_files, force, respect_gitignore, include_dependencies,
        )  # fmt: skip
        return replacing(services.replacer, request)

    return await ask(ctx, look)


ReplaceConsent = Annotated[Consent, Resolve(ask_replace)]
