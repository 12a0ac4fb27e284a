"""What every request handler of the dashboard shares, and how a handler finds it from its request."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.templating import Jinja2Templates

from fsguard.config import Settings
from fsguard.dashboard.actions import Actions
from fsguard.services import Services


@dataclass(frozen=True)
class Dashboard:
    """The settings, the engine, the write actions and the page templates of one dashboard."""

    settings: Settings
    services: Services
    actions: Actions
    templates: Jinja2Templates

    @property
    def log_dir(self) -> Path | None:
        return self.settings.log_dir


def dashboard_of(request: Request) -> Dashboard:
    """The dashboard serving ``request`` (build_app keeps it on the application's state)."""
    found = request.app.state.dashboard
    assert isinstance(found, Dashboard)
    return found
