"""The dashboard's Starlette application: routes, the request gate (host, token, CSRF) and error pages.

Reads go straight to the audit log and the state directory; writes go through :class:`Actions`, i.e. through the
engine's locked write path, so the dashboard is safe to run beside servers sharing the same directories.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path

import jinja2
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates
from starlette.types import ASGIApp, Receive, Scope, Send

from fsguard.config import Settings
from fsguard.core.audit import AuditLog
from fsguard.core.errors import FsguardError
from fsguard.core.paths import PathPolicy
from fsguard.dashboard import access, forms, names, pages
from fsguard.dashboard.actions import Actions, dashboard_audit
from fsguard.dashboard.charts import human_bytes
from fsguard.dashboard.csrf import forgery_refusal, host_refusal
from fsguard.dashboard.refusals import page_link, page_message
from fsguard.dashboard.site import Dashboard, dashboard_of
from fsguard.groundwork import Groundwork
from fsguard.services import Services

HERE = Path(__file__).parent
# An error's stable code → the HTTP status of its page; anything else is the server's fault (500).
STATUS_OF_CODE = {
    "invalid_params": 400,
    "unknown_param": 400,
    "is_directory": 400,
    "not_a_directory": 400,
    "binary_file": 400,
    "name_too_long": 400,
    "access_denied": 403,
    "hook_denied": 403,
    "read_only": 403,
    "not_found": 404,
    "already_exists": 409,
    "nothing_to_undo": 409,
    "undo_conflict": 409,
    "stale_edit": 409,
    "conflict": 409,
    "backup_corrupt": 409,  # the version asked for cannot be put back as it was: the file's others can
    "too_large": 413,
}
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # no-referrer makes Chromium send Origin: null on form POSTs
    "Cache-Control": "no-store",
}


def templates() -> Jinja2Templates:
    """The page templates, autoescaped."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=jinja2.select_autoescape(default=True),
        undefined=jinja2.StrictUndefined,
    )
    env.filters["bytes"] = human_bytes
    env.filters["urlencode"] = names.urlencode
    env.filters["path_token"] = names.token
    env.filters["visible"] = names.visible
    env.filters["revealed"] = names.revealed
    env.finalize = names.shown  # a page is UTF-8: a name that is not prints with U+FFFD instead of failing it
    return Jinja2Templates(env=env)


def short_path(policy: PathPolicy, path: str | None) -> str:
    """A path inside the roots relative to its root (as diffs label it); any other path as it is."""
    if not path:
        return ""
    candidate = Path(path)
    if not candidate.is_absolute() or policy.is_root(candidate) or policy.root_of(candidate) is None:
        return path
    return policy.label(candidate)


def engine_settings(settings: Settings) -> Settings:
    """The settings the dashboard's engine is built with: the servers' own housekeeping is left to them.

    No backup retention: the dashboard does not know the servers' --backup-max-age/--backup-max-count, and dropping
    backups by its defaults could lose versions a server keeps longer. The log dir stays: the engine denies it (and
    the state dir, the hooks file) to its acts as a server with the same flags denies it to the tools.
    """
    return Settings(**{**settings.__dict__, "backup_max_age_days": math.inf, "backup_max_count": 2**62})


def engine(settings: Settings, audit: AuditLog | None) -> Services:
    """The dashboard's engine, built as a starting server's is: a batch or pipeline a killed server left unfinished
    is ended here as the server's next start would have ended it, and ``audit`` gets its line (``via: dashboard``),
    so that Activity shows what became of it. ``audit`` is the dashboard's writer: a server's kind would rewrite the
    servers' metrics.json."""
    groundwork = Groundwork.lay(engine_settings(settings), audit=audit)
    return Services.assemble(groundwork, via="dashboard")


def build_app(settings: Settings) -> Starlette:
    """The dashboard for ``settings`` (roots, state dir, log dir, host and token are used)."""
    audit = dashboard_audit(settings.log_dir)
    services = engine(settings, audit)
    dashboard = Dashboard(settings, services, Actions(services, audit), templates())
    dashboard.templates.env.filters["short"] = partial(short_path, services.policy)
    routes = [
        Route("/", lambda _request: RedirectResponse("/activity", status_code=303)),
        Route("/activity", pages.activity),
        Route("/activity/stream", pages.activity_stream),
        Route("/files", pages.files),
        Route("/files/undo", forms.undo, methods=["POST"]),
        Route("/files/restore", forms.restore, methods=["POST"]),
        Route("/trash", pages.trash),
        Route("/trash/{sd_id}", pages.trash_entry),
        Route("/trash/{sd_id}/restore", forms.restore_trash, methods=["POST"]),
        Route("/trash/{sd_id}/purge", forms.purge, methods=["POST"]),
        Route("/stats", pages.stats),
        Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={FsguardError: _fsguard_error, HTTPException: _http_error},
    )
    app.state.dashboard = dashboard
    return app


def wrap(app: Starlette, settings: Settings) -> ASGIApp:
    """The app behind its gate; what uvicorn serves."""
    return Gate(app, settings)


def error_page(
    request: Request, status: int, title: str, message: str, link: tuple[str, str] | None = None
) -> Response:
    """An error as a page, with its status code; ``link`` (href, label): the page the way on starts from."""
    dashboard = dashboard_of(request)
    context = {"status": status, "title": title, "message": message, "page": "", "link": link}
    response = dashboard.templates.TemplateResponse(request, "error.html", context, status_code=status)
    response.headers.update(SECURITY_HEADERS)
    return response


async def _fsguard_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, FsguardError)
    status = STATUS_OF_CODE.get(exc.code, 500)
    dashboard = dashboard_of(request)
    policy, hooks_file = dashboard.services.policy, dashboard.settings.hooks_config
    message = page_message(exc, policy.deny, hooks_file)
    return error_page(request, status, exc.code.replace("_", " "), message, page_link(exc))


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    titles = {400: "bad request", 404: "not found", 405: "method not allowed"}
    hint = " Changes are made with the page's buttons (POST)." if exc.status_code == 405 else ""
    detail = str(exc.detail).rstrip(".")  # Starlette's own end in one ("Field exceeded maximum size of 1024KB.")
    return error_page(request, exc.status_code, titles.get(exc.status_code, "error"), f"{detail}.{hint}")


class Gate:
    """Every request passes here first: Host (DNS rebinding), token, then the cross-site check for POSTs."""

    def __init__(self, app: Starlette, settings: Settings) -> None:
        self._app = app
        self._settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        scope["app"] = self._app  # error pages find the dashboard through request.app
        request = Request(scope, receive)
        headers = {key.lower(): value for key, value in request.headers.items()}
        response = self._refusal(request, headers)
        if response is None:
            await self._app(scope, receive, self._with_headers(send))
        else:
            await response(scope, receive, send)

    def _refusal(self, request: Request, headers: dict[str, str]) -> Response | None:
        reason = host_refusal(headers, self._settings.host)
        if reason is not None:
            return error_page(request, 421, "wrong host", reason)
        verdict = access.check(request, self._settings.auth_token)
        if verdict is access.Verdict.REFUSED:
            response = error_page(
                request, 401, "token needed", "open the dashboard as /?token=<token> (the --auth-token it runs with)"
            )
            response.headers["WWW-Authenticate"] = "Bearer"
            return response
        if verdict is access.Verdict.FROM_QUERY and self._settings.auth_token:
            return access.cookie_redirect(request, self._settings.auth_token)
        reason = forgery_refusal(request.method, headers, request.url.scheme)
        if reason is not None:
            return error_page(request, 403, "cross-site request refused", f"{reason}. Nothing was changed.")
        return None

    @staticmethod
    def _with_headers(send: Send) -> Send:
        async def sending(message: dict[str, object]) -> None:
            if message["type"] == "http.response.start":
                raw = list(message.get("headers") or [])  # type: ignore[call-overload]
                present = {name.lower() for name, _ in raw}
                for name, value in SECURITY_HEADERS.items():
                    if name.lower().encode() not in present:
                        raw.append((name.lower().encode(), value.encode()))
                message["headers"] = raw
            await send(message)

        return sending  # type: ignore[return-value]
