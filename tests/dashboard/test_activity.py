"""The Activity page and its live stream: who is marked as the dashboard, lines the page cannot read, reconnects, and
the batch a killed server left unfinished, ended by the dashboard's start."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from urllib.parse import quote

import anyio
import pytest
from starlette.testclient import TestClient
from starlette.types import ASGIApp, Message

from fsguard.config import Settings
from fsguard.core.audit import AuditEntry, AuditLog
from fsguard.core.runs import RUNS
from fsguard.core.stats import CallStats
from fsguard.dashboard.app import build_app, wrap
from tests.dashboard.conftest import as_agent
from tests.test_interrupted_runs import NAMES, NEW, OLD, killed, writes


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


def _log(settings: Settings, *tools: str) -> None:
    assert settings.log_dir is not None
    audit = AuditLog(settings.log_dir, CallStats())
    for tool in tools:
        audit.record(AuditEntry(tool, {}, 1.0, "ok"))


def _events(
    app: ASGIApp, url: str, last_event_id: str | None, entries: int, rows: list[str] | None = None
) -> list[tuple[str, str]]:
    """The (id, tool) of the live stream's first ``entries`` entry events, read off the app as a browser would; the
    text it sent goes to ``rows`` too when given."""
    path, _, query = url.partition("?")
    headers = [(b"host", b"127.0.0.1:9100")]
    if last_event_id is not None:
        headers.append((b"last-event-id", last_event_id.encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": query.encode(),
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 9100),
    }
    found: list[tuple[str, str]] = []

    async def listen() -> None:
        with anyio.fail_after(30), anyio.CancelScope() as stream:

            async def receive() -> Message:
                await anyio.sleep_forever()
                return {}

            async def send(message: Message) -> None:
                text = message.get("body", b"").decode()
                if rows is not None:
                    rows.append(text)
                blocks = re.findall(r"id: (\S+)\nevent: entry\n.*?<span class=\"tool\">([^<]*)</span>", text, re.DOTALL)
                found.extend(blocks)
                if len(found) >= entries:
                    stream.cancel()

            await app(scope, receive, send)

    anyio.run(listen)
    return found


def test_a_reconnecting_stream_goes_on_from_the_last_event_it_had(shared: Settings) -> None:
    _log(shared, "seen_on_the_page")
    app = wrap(build_app(shared), shared)
    with TestClient(app, base_url="http://127.0.0.1:9100") as client:
        page = client.get("/activity").text
    url = html.unescape(re.findall(r'data-stream="([^"]*)"', page)[0])
    _log(shared, "first", "second")
    streamed = _events(app, url, None, 2)
    assert [tool for _, tool in streamed] == ["first", "second"]
    _log(shared, "third")
    # The browser reconnects to the same URL, sending the id of the last event it had.
    assert [tool for _, tool in _events(app, url, streamed[-1][0], 1)] == ["third"]


def test_a_path_a_deny_rule_hides_shows_in_activity_as_a_hidden_path_which_no_path_filter_finds(
    shared: Settings,
) -> None:
    (shared.roots[0] / "notes.txt").write_text("n\n", encoding="utf-8")
    as_agent(shared, [("read_file", {"path": ".env"}), ("read_file", {"path": "notes.txt"})])
    app = wrap(build_app(shared), shared)
    with TestClient(app, base_url="http://127.0.0.1:9100") as client:
        page = client.get("/activity").text
        filtered = client.get("/activity", params={"path": "env"}).text
    url = html.unescape(re.findall(r'data-stream="([^"]*)"', page)[0])
    as_agent(shared, [("read_file", {"path": str(shared.roots[0] / "deploy" / ".env.production")})])
    streamed: list[str] = []
    assert [tool for _, tool in _events(app, url, None, 1, streamed)] == ["read_file"]

    assert '<span class="muted" title="a deny rule hides it">a hidden path</span>' in page
    assert ".env" not in page
    notes = html.escape(quote(str(shared.roots[0] / "notes.txt"), safe=""))
    assert re.findall(r'href="/files\?path=([^"]*)"', page) == [notes]  # the only link: the hidden row has none
    assert "No calls logged that match the filter" in filtered
    assert "a hidden path" in "".join(streamed)
    assert ".env" not in "".join(streamed)


def test_a_path_an_anchored_rule_hides_stays_hidden_in_activity_however_the_agent_spelled_it(shared: Settings) -> None:
    ruled = Settings(**{**shared.__dict__, "deny": ("/secret.txt",)})
    root = ruled.roots[0]
    (root / "secret.txt").write_text("S\n", encoding="utf-8")
    (root / "sub").mkdir()
    spellings = ["sub/../secret.txt", "./secret.txt", f"{root}/sub/../secret.txt", "sub/../sub/../secret.txt"]
    refused = as_agent(ruled, [("read_file", {"path": spelling}) for spelling in spellings])
    assert all(result.is_error for result in refused)
    with TestClient(wrap(build_app(ruled), ruled), base_url="http://127.0.0.1:9100") as client:
        page = client.get("/activity").text
        filtered = client.get("/activity", params={"path": "secret"}).text
    assert "secret" not in page
    assert page.count("a hidden path</span>") == len(spellings)
    assert "No calls logged that match the filter" in filtered
    assert (root / "secret.txt").read_bytes() == b"S\n"


def test_a_foreign_line_in_the_log_leaves_activity_and_statistics_whole(web: TestClient, shared: Settings) -> None:
    _log(shared, "before")
    assert shared.log_dir is not None
    with (shared.log_dir / "operations.jsonl").open("ab") as log:
        log.write(b'{"ts":"2026-12-01T10:00:00Z","tool":"x","duration_ms":"slow","bytes_out":1e400}\n')
    _log(shared, "after")
    activity = web.get("/activity")
    assert activity.status_code == 200
    assert re.findall(r'<span class="tool">([^<]*)</span>', activity.text) == ["after", "before"]
    assert web.get("/stats").status_code == 200


@pytest.mark.parametrize(("atomic", "after"), [(True, [OLD, OLD, OLD, OLD]), (False, [NEW, NEW, OLD, OLD])])
def test_a_batch_a_killed_server_left_unfinished_is_ended_by_the_dashboards_start_and_shown_in_activity(
    shared: Settings, atomic: bool, after: list[str]
) -> None:
    root, log_dir = shared.roots[0], shared.log_dir
    assert log_dir is not None
    for name in NAMES:
        (root / name).write_text(OLD, encoding="utf-8")
    killed(root, shared.state_dir, writes(root, atomic=atomic), "f1.txt")
    assert [(root / n).read_bytes() for n in NAMES] == [NEW.encode()] * 2 + [OLD.encode()] * 2

    with TestClient(wrap(build_app(shared), shared), base_url="http://127.0.0.1:9100") as web:
        assert [(root / n).read_bytes() for n in NAMES] == [text.encode() for text in after]
        page = web.get("/activity").text
    assert not list((shared.state_dir / RUNS).iterdir())
    lines = [json.loads(line) for line in (log_dir / "operations.jsonl").read_text(encoding="utf-8").splitlines()]
    (line,) = lines  # the dashboard's line alone: no second writer logged it
    assert (line["tool"], line["error_code"], line["via"]) == ("batch_operations", "interrupted", "dashboard")
    assert line["backup_id"] in page
    assert _badges(page) == [("", "dashboard")]
    assert not (log_dir / "metrics.json").exists()  # the servers' counters are theirs to write
