"""The Activity page and its live stream: who is marked as the dashboard, lines the page cannot read, reconnects."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from fsguard.config import Settings
from fsguard.dashboard.app import build_app, wrap
from tests.dashboard.conftest import as_agent


@pytest.fixture
def web(shared: Settings) -> Iterator[TestClient]:
    app = wrap(build_app(shared), shared)
    with TestClient(app, base_url="http://127.0.0.1:9100", follow_redirects=False) as client:
        yield client


def _badges(page: str) -> list[tuple[str, str]]:
    """Each row's action and whether it carries the dashboard badge."""
    rows = re.findall(r'<span class="tool">[^<]*</span>(?: <span class="action">([^<]*)</span>)?([^\n]*?)</td>', page)
    return [(action, "dashboard" if 'class="badge"' in rest else "") for action, rest in rows]


def test_an_agents_via_dashboard_argument_earns_no_dashboard_badge(web: TestClient, shared: Settings) -> None:
    target = shared.roots[0] / "a.txt"
    as_agent(
        shared,
        [
            ("write_file", {"path": str(target), "content": "v1\n"}),
            ("write_file", {"path": str(target), "content": "v2\n"}),
            ("backup", {"action": "undo_last", "file_path": str(target), "via": "dashboard"}),
        ],
    )
    web.post("/files/undo", data={"path": "a.txt"})
    assert target.read_bytes() == b"v1\n"  # the dashboard's undo, not the agent's refused one
    assert _badges(web.get("/activity").text) == [("undo_last", "dashboard"), ("undo_last", ""), ("", ""), ("", "")]
