"""The dashboard in a real headless Chromium (Debian's ``chromium``, driven by Playwright; no browser download).

One dashboard (uvicorn on a free port) and one browser serve the whole module; agents act through in-memory MCP
clients on servers sharing its root, state and log directories. Each test asserts the bytes on disk.

Screenshots of every page are written to ``$FSGUARD_SCREENSHOTS`` (``make screenshots`` sets it to docs/), else
to a temp directory.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn

from fsguard.config import Settings
from fsguard.dashboard.app import build_app, wrap
from tests.dashboard.conftest import as_agent, site_settings

try:
    from playwright import sync_api as playwright_api
except ImportError:  # pragma: no cover - the dev extra installs it
    if os.environ.get("CI") == "true":
        raise  # under CI a missing browser driver is a failure, never a skip
    pytest.skip("playwright is not installed (pip install -e '.[dev]')", allow_module_level=True)
CHROMIUM = next((found for name in ("chromium", "chromium-browser") if (found := shutil.which(name))), None)
WAIT_MS = 10_000


def _need_browser() -> str:
    if CHROMIUM is not None:
        return CHROMIUM
    reason = "no Chromium on PATH: apt-get install chromium (Debian) to run the dashboard's browser tests"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; under CI=true this is a failure, not a skip (.ci/run installs it)")
    pytest.skip(reason)


class Site:
    """A running dashboard and the settings its servers share."""

    def __init__(self, settings: Settings, url: str, shots: Path) -> None:
        self.settings = settings
        self.url = url
        self.shots = shots

    @property
    def root(self) -> Path:
        return self.settings.roots[0]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    settings = site_settings(tmp_path_factory.mktemp("dashboard"))
    _seed(settings)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    settings = Settings(**{**settings.__dict__, "port": port})
    server = uvicorn.Server(
        uvicorn.Config(wrap(build_app(settings), settings), log_level="warning", lifespan="off", log_config=None)
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert thread.is_alive(), "the dashboard's server thread ended before it started"
        assert time.monotonic() < deadline, "the dashboard did not start within 15 s"
        time.sleep(0.02)
    shots = Path(os.environ.get("FSGUARD_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    shots.mkdir(parents=True, exist_ok=True)
    yield Site(settings, f"http://127.0.0.1:{port}", shots)
    server.should_exit = True
    thread.join(timeout=10)
    listener.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = _need_browser()
    with playwright_api.sync_playwright() as driver:
        # As root (CI) Chromium needs --no-sandbox; containers often have a tiny /dev/shm.
        launched = driver.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860}, device_scale_factor=1)
    opened = context.new_page()
    opened.set_default_timeout(WAIT_MS)
    yield opened
    context.close()


def _seed(settings: Settings) -> None:
    """A morning's work of an agent, so every page has something to show."""
    as_agent(
        settings,
        [
            ("write_file", {"path": "README.md", "content": "# Demo\n\nA small project.\n"}),
            ("write_file", {"path": "src/app.py", "content": "def main():\n    print('hello')\n"}),
            ("edit_file", {"path": "src/app.py", "old_text": "'hello'", "new_text": "'hello, world'"}),
            ("edit_file", {"path": "src/app.py", "old_text": "    print", "new_text": "    # greet\n    print"}),
            ("read_file", {"path": "src/app.py"}),
            ("read_file", {"path": "src/missing.py"}),
            ("list_directory", {"path": "."}),
            ("write_file", {"path": "notes/todo.txt", "content": "- ship the dashboard\n- write docs\n"}),
            ("edit_file", {"path": "notes/todo.txt", "old_text": "docs", "new_text": "the README"}),
            ("edit_file", {"path": "notes/todo.txt", "old_text": "nothing like this", "new_text": "x"}),
            ("write_file", {"path": "scratch.log", "content": "temporary output\n" * 40}),
            ("delete_file", {"path": "scratch.log"}),
            ("search_files", {"path": ".", "pattern": "*.py"}),
        ],
    )


def _shot(page: Any, site: Site, name: str) -> None:
    page.screenshot(path=str(site.shots / f"dashboard-{name}.png"), full_page=True)


def test_an_edit_made_through_the_mcp_server_appears_in_activity_without_a_reload(page: Any, site: Site) -> None:
    page.goto(f"{site.url}/activity")
    page.locator("#live.on").wait_for()  # the event stream is open
    page.evaluate("window.notReloaded = true")
    as_agent(site.settings, [("write_file", {"path": "live-proof.txt", "content": "seen live\n"})])
    row = page.locator("#feed tbody tr", has_text="live-proof.txt")
    row.wait_for()
    assert page.evaluate("window.notReloaded") is True
    assert "write_file" in row.inner_text()
    assert (site.root / "live-proof.txt").read_bytes() == b"seen live\n"
    _shot(page, site, "activity")


def test_activity_filters_by_tool_path_and_status(page: Any, site: Site) -> None:
    page.goto(f"{site.url}/activity")
    page.select_option("select[name=status]", "error")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**status=error**")
    statuses = page.locator("#feed tbody tr td:nth-child(4)").all_inner_texts()
    assert statuses, "the seeded errors are listed"
    assert all(text.strip() != "ok" for text in statuses)
    page.goto(f"{site.url}/activity?tool=edit_file&path=todo")
    tools = page.locator("#feed tbody tr .tool").all_inner_texts()
    assert tools
    assert set(tools) == {"edit_file"}


def test_undo_on_the_files_page_restores_the_exact_bytes_on_disk(page: Any, site: Site) -> None:
    before = "café au lait\r\nline two\r\n"
    as_agent(
        site.settings,
        [
            ("write_file", {"path": "undo-me.txt", "content": before}),
            ("edit_file", {"path": "undo-me.txt", "old_text": "line two", "new_text": "line 2, edited by an agent"}),
        ],
    )
    target = site.root / "undo-me.txt"
    original = before.encode("utf-8")
    assert target.read_bytes() != original
    page.goto(f"{site.url}/files?path=undo-me.txt")
    assert "line 2, edited by an agent" in page.locator("pre.diff").first.inner_text()
    page.click("#undo")
    page.wait_for_url("**done=undo**")
    assert target.read_bytes() == original
    assert "Undone" in page.locator(".notice").inner_text()


def test_files_page_screenshot_shows_a_chain_with_diffs(page: Any, site: Site) -> None:
    page.goto(f"{site.url}/files?path=src/app.py")
    assert page.locator("article.step").count() >= 2
    _shot(page, site, "files")
    page.goto(f"{site.url}/files")
    assert page.locator("table.grid tbody tr").count() >= 2


def test_a_trashed_file_restored_from_the_trash_page_is_back_byte_for_byte(page: Any, site: Site) -> None:
    data = "rm me? no: restore me\n\u00e9\u00e8\n"
    as_agent(
        site.settings,
        [("write_file", {"path": "keep/trashed.txt", "content": data}), ("delete_file", {"path": "keep/trashed.txt"})],
    )
    target = site.root / "keep" / "trashed.txt"
    assert not target.exists()
    page.goto(f"{site.url}/trash")
    _shot(page, site, "trash")
    page.fill("input[name=q]", "TRASHED")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**/trash?q=TRASHED*")  # loaded: counted at once, the rows of a page still loading were none
    assert page.locator("table.grid tbody tr").count() == 1
    page.click("text=trashed.txt")
    assert "restore me" in page.locator("pre.preview").inner_text()
    _shot(page, site, "trash-entry")
    page.click("#restore")
    page.wait_for_url("**done=trash_restored**")
    assert target.read_bytes() == data.encode("utf-8")


def test_a_cross_origin_post_is_refused_and_changes_nothing(page: Any, site: Site) -> None:
    as_agent(
        site.settings,
        [
            ("write_file", {"path": "victim.txt", "content": "v1\n"}),
            ("write_file", {"path": "victim.txt", "content": "v2\n"}),
        ],
    )
    attack = (
        f'<form id="f" method="post" action="{site.url}/files/undo">'
        '<input name="path" value="victim.txt"></form><script>document.getElementById("f").submit()</script>'
    )
    page.route("http://evil.test/**", lambda route: route.fulfill(status=200, content_type="text/html", body=attack))
    with page.expect_response(lambda response: response.url.endswith("/files/undo")) as answer:
        page.goto("http://evil.test/")
    assert answer.value.status == 403
    assert "cross-site request refused" in page.locator("h1").inner_text()
    assert (site.root / "victim.txt").read_bytes() == b"v2\n"


def test_a_path_outside_the_roots_is_refused(page: Any, site: Site) -> None:
    outside = site.root.parent / "outside.txt"
    outside.write_text("not yours\n", encoding="utf-8")
    response = page.goto(f"{site.url}/files?path={outside}")
    assert response is not None
    assert response.status == 403
    assert "access denied" in page.locator("h1").inner_text()
    _shot(page, site, "error")
    # The same refusal for a POST from the dashboard's own page (same origin, so only the path check stops it).
    status = page.evaluate(
        """async (path) => (await fetch('/files/undo', {method: 'POST', body: new URLSearchParams({path})})).status""",
        "../outside.txt",
    )
    assert status == 403
    assert outside.read_text(encoding="utf-8") == "not yours\n"


def test_statistics_draws_its_charts_from_the_log(page: Any, site: Site) -> None:
    page.goto(f"{site.url}/stats")
    page.wait_for_function("Object.keys(Chart.instances).length === 4")
    datasets = page.evaluate("Object.values(Chart.instances).map(c => c.data.datasets.length)")
    assert all(count >= 1 for count in datasets)
    assert page.locator(".tile").count() == 5
    _shot(page, site, "stats")


def test_purge_asks_for_confirmation_then_deletes_for_good(page: Any, site: Site) -> None:
    as_agent(
        site.settings,
        [("write_file", {"path": "purge-me.txt", "content": "bye\n"}), ("delete_file", {"path": "purge-me.txt"})],
    )
    trash_root = site.settings.state_dir / "trash"
    before = {entry.name for entry in trash_root.iterdir()}
    page.goto(f"{site.url}/trash?q=purge-me")
    page.click("text=purge-me.txt")
    entry_url = page.url
    page.click("#purge")  # the box is not ticked: the browser does not send the form
    assert page.url == entry_url
    assert {entry.name for entry in trash_root.iterdir()} == before
    page.check("#purge-confirm")
    page.click("#purge")
    page.wait_for_url("**done=purged**")
    assert entry_url.rsplit("/", 1)[1] not in {entry.name for entry in trash_root.iterdir()}
    assert not (site.root / "purge-me.txt").exists()
