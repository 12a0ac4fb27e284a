"""The Files page after its own acts: what each notice promises is on the page, an undo can be redone from it, and
the Undo button reverts only the step the page showed. Each act asserts the bytes on disk."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from fsguard.config import Settings
from fsguard.dashboard.app import build_app, wrap
from fsguard.services import Services


@pytest.fixture
def engine(shared: Settings) -> Services:
    return Services.create(shared)


@pytest.fixture
def web(shared: Settings) -> Iterator[TestClient]:
    app = wrap(build_app(shared), shared)
    with TestClient(app, base_url="http://127.0.0.1:9100", follow_redirects=False) as client:
        yield client


def _edited(engine: Services, name: str, *versions: str) -> Path:
    for version in versions:
        engine.writer.write(name, version)
    return engine.settings.roots[0] / name


def _notice(page: str) -> str:
    found = re.search(r'class="notice"[^>]*>([^<]*)', page)
    assert found is not None, "the page shows no notice"
    return found[1]


def _ids(page: str, button: str) -> list[str]:
    """The backup ids of the forms whose button reads ``button``, top to bottom."""
    forms = re.findall(r'name="backup_id" value="([^"]+)">\s*<button[^>]*>([^<]+)</button>', page)
    return [backup_id for backup_id, label in forms if label == button]


def test_after_an_undo_the_page_offers_a_redo_that_puts_the_undone_bytes_back(
    web: TestClient, engine: Services
) -> None:
    target = _edited(engine, "a.txt", "v1\n", "v2\n", "v3\n")
    answer = web.post("/files/undo", data={"path": "a.txt"})
    assert target.read_bytes() == b"v2\n"
    page = web.get(answer.headers["location"]).text
    assert "Redo" in _notice(page)
    safety = [record for record in engine.backups.records() if record.operation == "pre_undo"]
    assert _ids(page, "Redo") == [safety[0].backup_id]
    web.post("/files/restore", data={"path": "a.txt", "backup_id": safety[0].backup_id})
    assert target.read_bytes() == b"v3\n"


def test_two_undos_stay_redoable_one_after_the_other(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "b.txt", "v1\n", "v2\n", "v3\n")
    web.post("/files/undo", data={"path": "b.txt"})
    web.post("/files/undo", data={"path": "b.txt"})
    assert target.read_bytes() == b"v1\n"
    redo_v2, redo_v3 = _ids(web.get("/files", params={"path": "b.txt"}).text, "Redo")
    web.post("/files/restore", data={"path": "b.txt", "backup_id": redo_v2})
    assert target.read_bytes() == b"v2\n"
    assert _ids(web.get("/files", params={"path": "b.txt"}).text, "Redo") == [redo_v2, redo_v3]
    web.post("/files/restore", data={"path": "b.txt", "backup_id": redo_v3})
    assert target.read_bytes() == b"v3\n"


def test_a_new_operation_after_an_undo_ends_its_redo(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "c.txt", "v1\n", "v2\n")
    web.post("/files/undo", data={"path": "c.txt"})
    assert len(_ids(web.get("/files", params={"path": "c.txt"}).text, "Redo")) == 1
    _edited(engine, "c.txt", "v9\n")
    assert _ids(web.get("/files", params={"path": "c.txt"}).text, "Redo") == []
    assert target.read_bytes() == b"v9\n"


def test_a_restore_of_the_version_the_file_holds_says_nothing_changed(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "d.txt", "v1\n", "v2\n")
    target.write_bytes(b"v1\n")  # by hand: the file holds the backed-up bytes already
    steps = len(engine.backups.chain(target))
    (backup_id,) = _ids(web.get("/files", params={"path": "d.txt"}).text, "Restore version before this")
    answer = web.post("/files/restore", data={"path": "d.txt", "backup_id": backup_id})
    notice = _notice(web.get(answer.headers["location"]).text)
    assert notice == "Nothing changed: the file already holds that version."
    assert target.read_bytes() == b"v1\n"
    assert len(engine.backups.chain(target)) == steps


def test_undo_reverts_only_the_step_the_page_showed_as_newest(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "e.txt", "v1\n", "v2\n")
    shown = re.search(r'name="newest" value="([^"]+)"', web.get("/files", params={"path": "e.txt"}).text)
    assert shown is not None
    _edited(engine, "e.txt", "v3 by an agent\n")  # after the page was shown
    answer = web.post("/files/undo", data={"path": "e.txt", "newest": shown[1]})
    assert target.read_bytes() == b"v3 by an agent\n"
    page = web.get(answer.headers["location"]).text
    assert _notice(page).startswith("Nothing was undone: another operation changed the file")
    newest = re.search(r'name="newest" value="([^"]+)"', page)
    assert newest is not None
    assert newest[1] == engine.backups.head(target).backup_id != shown[1]  # type: ignore[union-attr]
    web.post("/files/undo", data={"path": "e.txt", "newest": newest[1]})
    assert target.read_bytes() == b"v2\n"
