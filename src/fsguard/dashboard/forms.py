"""The POST handlers behind the buttons; the gate has already refused cross-site requests.

Each reads its form, lets :class:`fsguard.dashboard.actions.Actions` act through the engine (ids checked against
their format, paths confined to the roots), and redirects to the page that shows the result (303, so a reload
does not repeat the act).
"""

from __future__ import annotations

from urllib.parse import urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from fsguard.core.errors import InvalidParamsError, UndoOvertakenError
from fsguard.core.undo import RestoreReport
from fsguard.dashboard import names
from fsguard.dashboard.site import dashboard_of


async def _field(request: Request, name: str, *, required: bool = True) -> str:
    form = await request.form()
    value = form.get(name)
    if value is None or not isinstance(value, str):
        if required:
            raise InvalidParamsError(f"the form lacks {name}; use the buttons on the dashboard's pages.")
        return ""
    return value


def _to(target: str, **query: str) -> RedirectResponse:
    # surrogateescape: a name that is not UTF-8 goes into the link as its own bytes (names.query_value reads them)
    return RedirectResponse(f"{target}?{urlencode(query, encoding='utf-8', errors='surrogateescape')}", status_code=303)


async def _path(request: Request) -> str:
    """The form's file: its byte-exact token when the page gave one, else the path as typed."""
    exact = await _field(request, "path_token", required=False)
    return names.from_token(exact) if exact else await _field(request, "path")


async def undo(request: Request) -> Response:
    """Undo the newest operation on ``path``, if it is still the one the page showed as ``newest``; ``force`` also
    when the file changed since."""
    user_path = await _path(request)
    force = await _field(request, "force", required=False) == "yes"
    newest = await _field(request, "newest", required=False) or None
    actions = dashboard_of(request).actions
    try:
        report = await run_in_threadpool(lambda: actions.undo(user_path, force=force, only=newest))
    except UndoOvertakenError as exc:  # an agent's step came after the page was shown: the person has not seen it
        return _to("/files", path=str(exc.fields["path"]), done="overtaken")
    return _to("/files", path=str(report.path), done=_outcome("undo", report))


async def restore(request: Request) -> Response:
    """Put the version ``backup_id`` back into ``path``."""
    backup_id = await _field(request, "backup_id")
    user_path = await _path(request)
    actions = dashboard_of(request).actions
    report = await run_in_threadpool(actions.restore, backup_id, user_path)
    return _to("/files", path=str(report.path), done=_outcome("restore", report))


def _outcome(act: str, report: RestoreReport) -> str:
    """The notice the Files page shows: it may speak of a safety backup only when one was taken."""
    if report.already_there:
        return f"{act}_nothing_written"
    return act if report.safety_backup is not None else f"{act}_created"


async def restore_trash(request: Request) -> Response:
    """Move the entry back to its original path (refused if anything is there now)."""
    actions = dashboard_of(request).actions
    entry = await run_in_threadpool(actions.restore_trash, request.path_params["sd_id"])
    if entry.kind == "file":
        return _to("/files", path=entry.original_path, done="trash_restored")
    return _to("/trash", done="trash_restored")


async def purge(request: Request) -> Response:
    """Delete the entry for good; the form's confirmation box must be ticked."""
    confirmed = await _field(request, "confirm", required=False) == "yes"
    actions = dashboard_of(request).actions
    sd_id = request.path_params["sd_id"]
    await run_in_threadpool(lambda: actions.purge(sd_id, confirmed=confirmed))
    return _to("/trash", done="purged")
