"""git: status, diff, log, show, add, commit, push, restore, branch and init, with typed results."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.server.mcpserver import Context, Resolve
from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.errors import InvalidParamsError
from fsguard.core.gitrepo import GitRequest
from fsguard.core.gitviews import MOST_COMMITS
from fsguard.core.preflight import pushing, restoring
from fsguard.models import GitActionName, GitResult
from fsguard.tools._confirm import NOT_ASKED, Consent, Question, ask, consent
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, voiced
from fsguard.voice import git_text
from fsguard.voice.git import COMPACT_PATCH_CHARS

Text = str | None


async def ask_git(
    action: GitActionName,
    path: Text,
    paths: list[str] | None,
    rev: Text,
    staged: bool,
    name: Text,
    remote: Text,
    force: bool,
    ctx: Context,
) -> Question:
    """A working-tree restore, or a push the remote would reject, asks the user instead of needing force."""
    if force:
        return NOT_ASKED
    if action == "push":
        pushed = GitRequest(action="push", path=path, name=name, remote=remote)
        return await ask(ctx, lambda s: pushing(s.git, pushed))
    if action != "restore" or staged or not paths:
        return NOT_ASKED
    request = GitRequest(action="restore", path=path, paths=tuple(paths), rev=rev)
    return await ask(ctx, lambda s: restoring(s.git, request, s.beneath))


GitConsent = Annotated[Consent, Resolve(ask_git)]


def register(catalog: Catalog) -> None:
    """Add git to the catalog."""
    services = catalog.services

    @bridge
    def git(
        action: Annotated[GitActionName, Field(description="The git action.")],
        confirmed: GitConsent,
        path: Annotated[
            Text,
            Field(
                description="A directory or file inside the repository (default: the first root). A file limits "
                "status/diff/log to it. init: the directory to create the repository in."
            ),
        ] = None,
        paths: Annotated[
            list[str] | None,
            Field(
                description="add/restore (required), commit, diff, status, log, show: the files, relative to the "
                'repository (or absolute), e.g. ["src/a.py"].'
            ),
        ] = None,
        output: Annotated[
            Literal["stat", "name-only", "full", "oneline"] | None,
            Field(
                description="diff/show: stat (default), name-only or full (the patch); status: list files; "
                "log: oneline (default) or full (each commit's whole message)."
            ),
        ] = None,
        max_lines: Annotated[
            int, Field(ge=1, le=100_000, description="Patch lines (and list entries) returned at most.")
        ] = 200,
        limit: Annotated[int, Field(ge=1, le=MOST_COMMITS, description="log: how many commits.")] = 10,
        rev: Annotated[
            Text,
            Field(
                description='diff: a commit or range ("HEAD~3", "main..feature"); log: where to start; show: the '
                'commit, or "HEAD:file"; restore: the source; branch: the start of a new branch.'
            ),
        ] = None,
        staged: Annotated[
            bool, Field(description="diff: the staged changes; restore: only unstage (the working tree is kept).")
        ] = False,
        message: Annotated[Text, Field(description="commit: the commit message (required).")] = None,
        name: Annotated[
            Text, Field(description="branch: the branch to create, switch to or delete; push: the branch to push.")
        ] = None,
        remote: Annotated[Text, Field(description='push: the remote (default "origin").')] = None,
        checkout: Annotated[bool, Field(description="branch: switch to the branch (creating it if new).")] = False,
        force: Annotated[
            bool,
            Field(
                description="restore: confirm discarding working-tree changes (files are backed up first); "
                "push: --force-with-lease; branch: delete even if not merged."
            ),
        ] = False,
    ) -> Annotated[CallToolResult, GitResult]:
        """Run git in a repository under the roots (status, diff, log, commit, push…) with typed results.

        Typed results (status lists, commits, per-file line counts, commit stats and risk). git runs without a
        shell; values starting with "-" are refused. add/restore need explicit paths. restore discards edits
        only with force=true and backs each file up first (backup undo_last brings it back); staged=true only
        unstages. push force=true uses --force-with-lease. Patches are cut at max_lines with a note.
        """
        force = consent(confirmed, "git", force=force)
        if output == "oneline":  # the seed's log listing (catalog §1.18): log's commits are one line each anyway
            if action != "log":
                raise InvalidParamsError(f"output='oneline' is for log; {action} takes stat, name-only or full.")
            output = None
        request = GitRequest(
            action=action,
            path=path,
            paths=tuple(paths) if paths is not None else None,
            output=output,
            max_lines=max_lines,
            limit=limit,
            rev=rev,
            staged=staged,
            message=message,
            name=name,
            remote=remote,
            checkout=checkout,
            force=force,
            patch_bytes=services.settings.max_response_bytes,
            patch_chars=COMPACT_PATCH_CHARS if catalog.compact else None,
        )
        return voiced(services.git.run(request), git_text, catalog.compact)

    catalog.add(
        git,
        hints("Git Version Control", read_only=False, destructive=True, idempotent=False),
        [
            ("what changed", {"action": "status"}),
            ("one file's patch", {"action": "diff", "paths": ["src/app.py"], "output": "full"}),
            ("recent commits", {"action": "log", "limit": 5}),
            ("a commit's changes", {"action": "show", "rev": "HEAD~1"}),
            ("stage files", {"action": "add", "paths": ["src/app.py", "tests/test_app.py"]}),
            ("commit the staged files", {"action": "commit", "message": "Fix the date parser"}),
            ("push a new branch", {"action": "push", "remote": "origin", "name": "fix/date-parser"}),
            ("create a branch and switch to it", {"action": "branch", "name": "fix/date-parser", "checkout": True}),
            ("discard a file's edits (backed up)", {"action": "restore", "paths": ["src/app.py"], "force": True}),
        ],
    )
