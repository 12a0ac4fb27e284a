"""The pages (GET): Activity and its live stream, Files, Trash, Statistics. None of them changes anything."""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from fsguard.core.errors import AccessDeniedError, InvalidParamsError
from fsguard.core.inventory import list_trash
from fsguard.core.paths import PathPolicy
from fsguard.core.trashentries import check_sd_id
from fsguard.dashboard import feed, names
from fsguard.dashboard.charts import backup_sizes, human_bytes, statistics
from fsguard.dashboard.history import file_history, recent_files
from fsguard.dashboard.site import dashboard_of
from fsguard.dashboard.trashbin import preview

ACTIVITY_LIMIT = 200
TRASH_LIMIT = 200
POLL_S = 0.4
_CURSOR = re.compile(r"([0-9]{1,20}):([0-9]{1,20})")
_NOTICES = {
    "undo": "Undone. The bytes it replaced are in a safety backup: Redo, on the undone step at the top, restores them.",
    "undo_created": "Undone. The file did not exist, so no bytes were replaced.",
    "undo_nothing_written": (
        "Nothing was written: the file already held the bytes from before that step (its change never reached the "
        "disk, or was undone by other means), so the step is dropped from the undo chain."
    ),
    "overtaken": (
        "Nothing was undone: another operation changed the file after the page was shown. Its step is the newest "
        "below; undo again to revert it."
    ),
    "restore": "Restored. The bytes it replaced are in a safety backup: the newest step below.",
    "restore_created": "Restored. The file did not exist, so no bytes were replaced.",
    "restore_nothing_written": "Nothing changed: the file already holds that version.",
    "trash_restored": "Restored from the trash to its original path.",
    "purged": "Deleted for good.",
}


def _render(request: Request, name: str, page: str, **context: Any) -> Response:
    notice = _NOTICES.get(request.query_params.get("done", ""), "")
    return dashboard_of(request).templates.TemplateResponse(request, name, {"page": page, "notice": notice, **context})


def _filter(request: Request) -> feed.ActivityFilter:
    params = request.query_params
    status = params.get("status", "")
    if status not in ("", "ok", "error"):
        raise InvalidParamsError(f"status must be ok or error, not {status!r}.")
    return feed.ActivityFilter(tool=params.get("tool", ""), path=params.get("path", ""), status=status)


async def activity(request: Request) -> Response:
    """The audit log, newest first, filtered; new entries arrive through :func:`activity_stream`."""
    dashboard = dashboard_of(request)
    wanted = _filter(request)
    hides = partial(_hidden, dashboard.services.policy)
    page = await run_in_threadpool(feed.feed_page, dashboard.log_dir, wanted, ACTIVITY_LIMIT, hides)
    return _render(
        request,
        "activity.html",
        "activity",
        entries=page.entries,
        total=page.total,
        tools=page.tools,
        wanted=wanted,
        cursor=f"{page.cursor[0]}:{page.cursor[1]}",
        log_dir=dashboard.log_dir,
    )


async def activity_stream(request: Request) -> Response:
    """Server-sent events: one ``entry`` event (a table row) per new audit line that the filter admits."""
    dashboard = dashboard_of(request)
    wanted = _filter(request)
    if dashboard.log_dir is None:
        raise InvalidParamsError("no audit log to follow: start the dashboard with --log-dir, as the servers run.")
    # A reconnecting EventSource sends the id of the last event it had: the URL's cursor is the page's, and going on
    # from it sent every row streamed since the page was loaded again.
    resumed = request.headers.get("last-event-id", "")
    start = _cursor(resumed) if _CURSOR.fullmatch(resumed) else _cursor(request.query_params.get("cursor"))
    tail = feed.AuditTail(dashboard.log_dir, start)
    row = dashboard.templates.get_template("_row.html")
    hides = partial(_hidden, dashboard.services.policy)

    async def events() -> AsyncIterator[str]:
        yield "retry: 1000\n\n"
        sent = tail.cursor
        while not await request.is_disconnected():
            for logged, after in await run_in_threadpool(tail.follow):
                if wanted.admits(entry := feed.screened(logged, hides)):
                    html = row.render(entry=entry)
                    data = "".join(f"data: {line}\n" for line in html.splitlines())
                    yield f"id: {after[0]}:{after[1]}\nevent: entry\n{data}\n"
                    sent = after
            if tail.cursor != sent:  # lines the filter left out: an id alone moves the browser's past them
                sent = tail.cursor
                yield f"id: {sent[0]}:{sent[1]}\n\n"
            await anyio.sleep(POLL_S)

    return StreamingResponse(events(), media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})


async def files(request: Request) -> Response:
    """A file's undo chain with each step's diff (``?path=``), or the files that have backups."""
    dashboard = dashboard_of(request)
    user_path = names.query_value(request, "path")
    if not user_path:
        recent = await run_in_threadpool(recent_files, dashboard.services)
        return _render(request, "files.html", "files", history=None, recent=recent, user_path="")
    path = dashboard.services.policy.resolve(user_path)  # outside the roots: access_denied, a 403 page
    history = await run_in_threadpool(file_history, dashboard.services, path)
    return _render(request, "files.html", "files", history=history, recent=[], user_path=str(path))


async def trash(request: Request) -> Response:
    """Trash entries, newest first, whose original path holds ``?q=``."""
    dashboard = dashboard_of(request)
    query = request.query_params.get("q", "")
    services = dashboard.services
    page = await run_in_threadpool(
        lambda: list_trash(
            services.trash, path_contains=query, older_than_days=None, limit=TRASH_LIMIT, shown=services.policy.shows
        )
    )
    return _render(request, "trash.html", "trash", entries=page.shown, total=page.total, query=query)


async def trash_entry(request: Request) -> Response:
    """One trash entry: what it was, a preview, and the Restore and Purge forms."""
    dashboard = dashboard_of(request)
    sd_id = check_sd_id(request.path_params["sd_id"])
    entry = await run_in_threadpool(dashboard.services.trash.get, sd_id)
    if not dashboard.services.policy.shows(entry.original_path):
        # The trash is shared by every server on the state directory: another one's entries are not this page's.
        raise AccessDeniedError(
            f"trash entry {sd_id} was deleted outside this dashboard's roots, or a deny rule hides its path: open it "
            "from a dashboard started with the roots that hold it."
        )
    policy, place = dashboard.services.policy, Path(entry.original_path)

    def hides(relative: str, is_dir: bool) -> bool:
        return policy.denied_by(place / relative, is_dir=is_dir) is not None

    shown = await run_in_threadpool(preview, dashboard.services.trash.root, entry, hides)
    return _render(request, "trash_entry.html", "trash", entry=entry, preview=shown)


async def stats(request: Request) -> Response:
    """Charts of the audit log and the backup store."""
    dashboard = dashboard_of(request)
    services = dashboard.services

    def compute() -> dict[str, Any]:
        entries = feed.read_all(dashboard.log_dir)
        saved = backup_sizes(services.backups.records())
        backups, store = services.backups.stats()
        trashed = services.trash.entries()
        errors = sum(entry.status == "error" for entry in entries)
        totals = {
            "operations": f"{len(entries):,}",
            "errors": f"{errors:,}" + (f" ({errors / len(entries):.1%})" if entries else ""),
            "backups kept": f"{backups:,}",
            "backup store": human_bytes(store),
            "in the trash": f"{len(trashed):,} ({human_bytes(sum(e.size for e in trashed))})",
        }
        drawn = statistics(entries, saved, totals)
        chart_data = {
            "labels": drawn.labels,
            "perTool": [{"label": series.label, "values": series.values} for series in drawn.per_tool],
            "bytesWritten": drawn.bytes_written,
            "errorsByCode": drawn.errors_by_code,
            "storeLabels": drawn.store_labels,
            "storeBytes": drawn.store_bytes,
        }
        return {"stats": drawn, "chart_data": chart_data}

    context = await run_in_threadpool(compute)
    return _render(request, "stats.html", "stats", log_dir=dashboard.log_dir, **context)


def _hidden(policy: PathPolicy, path: str) -> bool:
    """Whether a deny rule hides an audit line's path; judged as a file and as a directory, as the line does not say
    which it named (the rule ``secrets/`` hides the directory's own name too).

    A refused call's line holds the path as the agent typed it (``sub/../secret.txt``): it is judged as logged and
    where the server took it, relative to the first root with ``..`` collapsed, which an anchored rule
    (``/secret.txt``) names; as logged alone, it named the file the rule hides and a path filter found it.
    """
    logged = Path(path)
    served = Path(os.path.normpath(policy.roots[0] / logged if policy.roots else logged))
    views = (logged, served)
    return any(policy.denied_by(seen, is_dir=is_dir) is not None for seen in views for is_dir in (False, True))


def _cursor(text: str | None) -> feed.Cursor | None:
    if not text:
        return None
    # ASCII digits, at most 20 (a 64-bit number): str.isdigit also takes "²", which int() refuses,
    # and int() refuses more than 4,300 digits; either was a 500.
    found = _CURSOR.fullmatch(text)
    if found is None:
        raise InvalidParamsError(f"cursor must be <inode>:<offset>, two whole numbers, not {text[:60]!r}.")
    return int(found[1]), int(found[2])
