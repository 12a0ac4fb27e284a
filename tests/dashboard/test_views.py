"""What the Files and Trash pages show in the less common cases: changes made by hand between steps, a missing file,
a damaged backup, binary content; trashed directories, links, binary and long files."""

from __future__ import annotations

import html
import os
import re
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from starlette.testclient import TestClient

from fsguard.config import Settings
from fsguard.core.audit import AuditEntry, AuditLog
from fsguard.core.backups import BackupRecord, BackupStore
from fsguard.core.errors import BackupCorruptError
from fsguard.core.stats import CallStats
from fsguard.dashboard.app import build_app, wrap
from fsguard.dashboard.trashbin import PREVIEW_BYTES
from fsguard.services import Services


@pytest.fixture
def engine(shared: Settings) -> Services:
    return Services.create(shared)


@pytest.fixture
def web(shared: Settings) -> Iterator[TestClient]:
    with TestClient(wrap(build_app(shared), shared), base_url="http://127.0.0.1:9100") as client:
        yield client


def _root(engine: Services) -> Path:
    return engine.settings.roots[0]


def test_a_change_by_hand_between_two_steps_is_named(web: TestClient, engine: Services) -> None:
    engine.writer.write("h.txt", "v1\n")
    engine.writer.write("h.txt", "v2\n")
    (_root(engine) / "h.txt").write_bytes(b"by hand\n")
    engine.writer.write("h.txt", "v3\n")
    page = web.get("/files", params={"path": "h.txt"}).text
    assert "the file changed between this step and the next" in page
    assert '<span class="d-del">-by hand</span><span class="d-add">+v3</span>' in page


def test_a_file_deleted_after_its_last_step_shows_as_missing(web: TestClient, engine: Services) -> None:
    engine.writer.write("d.txt", "v1\n")
    engine.writer.write("d.txt", "v2\n")
    (_root(engine) / "d.txt").unlink()
    page = web.get("/files", params={"path": "d.txt"}).text
    assert "the file does not exist now" in page
    assert "(the file does not exist after this step)" in page


def test_a_damaged_backup_is_named_in_its_step(
    shared: Settings, engine: Services, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.writer.write("b.txt", "v1\n")
    engine.writer.write("b.txt", "v2\n")
    record = engine.backups.chain((_root(engine) / "b.txt").resolve())[0]
    app = build_app(shared)
    store: BackupStore = app.state.dashboard.services.backups
    intact = store.read_blob

    def damaged(wanted: BackupRecord) -> bytes:
        if wanted.backup_id == record.backup_id:
            raise BackupCorruptError(f"backup {wanted.backup_id} is damaged or missing (test)")
        return intact(wanted)

    monkeypatch.setattr(store, "read_blob", damaged)
    with TestClient(wrap(app, shared), base_url="http://127.0.0.1:9100") as client:
        page = client.get("/files", params={"path": "b.txt"}).text
    assert f"backup {record.backup_id} is damaged or missing (test)" in page


def test_binary_steps_are_summarised_not_diffed(web: TestClient, engine: Services) -> None:
    engine.writer.write("x.bin", b"\x00\x01\x02")
    engine.writer.write("x.bin", b"\x00\x01\x03")
    page = web.get("/files", params={"path": "x.bin"}).text
    assert "(binary content: 3 bytes" in page


def test_a_trashed_directory_is_previewed_by_its_names(web: TestClient, engine: Services) -> None:
    engine.writer.write("pkg/a.py", "a\n")
    engine.writer.write("pkg/sub/b.py", "b\n")
    engine.deleter.delete("pkg", recursive=True)
    entry = engine.trash.entries()[0]
    page = web.get(f"/trash/{entry.sd_id}").text
    assert "<li>a.py</li>" in page
    assert "<li>sub/</li>" in page
    assert "<li>sub/b.py</li>" in page
    assert "2 files" in web.get("/trash").text


def test_a_trashed_directorys_preview_leaves_out_and_counts_the_names_a_deny_rule_hides(
    shared: Settings, engine: Services
) -> None:
    pkg = _root(engine) / "pkg"
    for relative in ("ok.txt", "prod-signing.key", "vault/a.txt", "vault/b.txt", "sub/.env", "sub/keep.txt"):
        (pkg / relative).parent.mkdir(parents=True, exist_ok=True)
        (pkg / relative).write_bytes(b"x\n")
    engine.deleter.delete("pkg", recursive=True)
    entry = engine.trash.entries()[0]
    ruled = Settings(**{**shared.__dict__, "deny": ("vault/",)})
    with TestClient(wrap(build_app(ruled), ruled), base_url="http://127.0.0.1:9100") as client:
        page = client.get(f"/trash/{entry.sd_id}").text
    with TestClient(wrap(build_app(shared), shared), base_url="http://127.0.0.1:9100") as client:
        unruled = client.get(f"/trash/{entry.sd_id}").text

    assert re.findall(r"<li>([^<]*)</li>", page) == ["ok.txt", "sub/", "sub/keep.txt"]
    assert '<p class="note">3 hidden by deny rules</p>' in page  # the key, the .env and vault/ counted once
    assert not any(name in page for name in ("prod-signing.key", ".env", "vault"))
    assert "vault/b.txt" in unruled  # the rule hides it, not the preview
    assert (engine.trash.root / entry.sd_id / "item" / "prod-signing.key").read_bytes() == b"x\n"


def test_binary_long_and_linked_trash_entries_are_described_not_dumped(web: TestClient, engine: Services) -> None:
    engine.writer.write("blob.bin", b"\x00\xff" * 10)
    engine.deleter.delete("blob.bin")
    engine.writer.write("long.txt", "x" * (PREVIEW_BYTES + 10))
    engine.deleter.delete("long.txt")
    (_root(engine) / "link").symlink_to("long-gone-target")
    engine.deleter.delete("link")
    pages = {
        entry.original_path.rsplit("/", 1)[1]: web.get(f"/trash/{entry.sd_id}").text for entry in engine.trash.entries()
    }
    assert "binary content, 20 bytes" in pages["blob.bin"]
    assert f"the first {PREVIEW_BYTES // 1024} KiB of {PREVIEW_BYTES + 10:,} bytes" in pages["long.txt"]
    assert "a symbolic link to long-gone-target" in pages["link"]


def test_a_long_utf8_file_whose_preview_cut_splits_a_character_is_previewed_as_utf8(
    web: TestClient, engine: Services
) -> None:
    line = "\u65e5\u672c\u8a9e\u30c6\u30ad\u30b9\u30c8\n"  # 22 bytes: the cut at 64 KiB falls inside a character
    data = (line * (PREVIEW_BYTES // 22 + 10)).encode()
    assert data[:PREVIEW_BYTES].decode("utf-8", "ignore").encode() != data[:PREVIEW_BYTES]
    (_root(engine) / "jp.txt").write_bytes(data)
    engine.deleter.delete("jp.txt")
    page = web.get(f"/trash/{engine.trash.entries()[0].sd_id}").text
    shown = html.unescape(re.findall(r'<pre class="preview">(.*?)</pre>', page, re.DOTALL)[0])
    assert shown == data[:PREVIEW_BYTES].decode("utf-8", "ignore")


def test_a_trash_entry_whose_item_is_gone_is_a_404_page(web: TestClient, engine: Services) -> None:
    engine.writer.write("a.txt", "x\n")
    engine.deleter.delete("a.txt")
    sd_id = engine.trash.entries()[0].sd_id
    (engine.trash.root / sd_id / "item").unlink()  # its record left behind: a crash mid-move, or a restore under way
    page = web.get(f"/trash/{sd_id}")
    assert page.status_code == 404
    assert "holds nothing any more" in page.text
    assert not (_root(engine) / "a.txt").exists()


def test_another_servers_trash_entry_is_not_listed_previewed_or_purged_and_stays_whole(
    web: TestClient, shared: Settings, tmp_path: Path
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    neighbour = Services.create(Settings(roots=(other.resolve(),), state_dir=shared.state_dir))
    neighbour.writer.write("theirs.txt", "their private notes\n")
    neighbour.deleter.delete("theirs.txt")
    sd_id = neighbour.trash.entries()[0].sd_id

    listed = web.get("/trash")
    opened = web.get(f"/trash/{sd_id}")
    purged = web.post(f"/trash/{sd_id}/purge", data={"confirm": "yes"})

    assert "theirs.txt" not in listed.text
    assert opened.status_code == 403
    assert "their private notes" not in opened.text
    assert purged.status_code == 403
    assert (neighbour.trash.root / sd_id / "item").read_bytes() == b"their private notes\n"


def test_a_path_with_a_name_too_long_is_a_400_page_naming_it_not_a_server_fault(web: TestClient) -> None:
    answer = web.get("/files", params={"path": "a" * 300})
    assert answer.status_code == 400
    assert "name too long" in answer.text


def test_a_trashed_pipe_is_described_and_its_page_answers_without_waiting_for_a_writer(
    web: TestClient, engine: Services
) -> None:
    os.mkfifo(_root(engine) / "pipe")
    engine.deleter.delete("pipe")
    sd_id = engine.trash.entries()[0].sd_id
    item = engine.trash.root / sd_id / "item"
    answers: list[httpx2.Response] = []
    asking = threading.Thread(target=lambda: answers.append(web.get(f"/trash/{sd_id}")))
    asking.start()
    asking.join(timeout=10)
    if asking.is_alive():  # stuck opening the pipe: a writer lets the thread, and the test, end
        os.close(os.open(item, os.O_WRONLY | os.O_NONBLOCK))
        asking.join()
    assert [answer.status_code for answer in answers] == [200]
    assert "a pipe, socket or device" in answers[0].text
    assert stat.S_ISFIFO(item.lstat().st_mode)


def test_the_files_index_never_names_a_file_a_deny_rule_hides(web: TestClient, shared: Settings) -> None:
    unguarded = Services.create(Settings(**{**shared.__dict__, "default_deny": False}))
    unguarded.writer.write(".env", "TOKEN=1\n")
    unguarded.writer.write(".env", "TOKEN=2\n")
    unguarded.writer.write("notes.txt", "a\n")
    unguarded.writer.write("notes.txt", "b\n")

    index = web.get("/files").text

    assert "notes.txt" in index
    assert ".env" not in index
    assert web.get("/files", params={"path": ".env"}).status_code == 403


def test_a_form_field_over_starlettes_limit_is_a_400_page_with_one_full_stop(web: TestClient) -> None:
    answer = web.post("/files/undo", data={"path": "a" * (2 * 1024 * 1024)})
    assert answer.status_code == 400
    assert "400</span> bad request" in answer.text
    assert "Field exceeded maximum size of 1024KB.</p>" in answer.text


def test_a_name_with_a_bidi_override_is_shown_escaped_as_the_tools_show_it(
    web: TestClient, engine: Services, shared: Settings
) -> None:
    disguised = "invoice\u202efdp.exe"  # reads as "invoiceexe.pdf"
    assert shared.log_dir is not None
    AuditLog(shared.log_dir, CallStats()).record(
        AuditEntry("read_file", {"path": disguised}, 1.0, "error", error_code="invalid_params", path=disguised)
    )
    folder = _root(engine) / "mail"
    folder.mkdir()
    (folder / disguised).write_bytes(b"x")
    engine.deleter.delete("mail", recursive=True)
    sd_id = engine.trash.entries()[0].sd_id

    pages = [web.get("/activity").text, web.get(f"/trash/{sd_id}").text]

    assert all("invoice\\u202efdp.exe" in page for page in pages)
    assert not any("\u202e" in page for page in pages)
    assert (engine.trash.root / sd_id / "item" / disguised).read_bytes() == b"x"


def test_a_trashed_links_target_with_a_bidi_override_is_shown_escaped(web: TestClient, engine: Services) -> None:
    # The preview's note printed the target raw: "a symbolic link to invoice\u202efdp.exe" read as "…exe.pdf".
    (_root(engine) / "link").symlink_to("invoice\u202efdp.exe")
    engine.deleter.delete("link")
    sd_id = engine.trash.entries()[0].sd_id
    page = web.get(f"/trash/{sd_id}").text
    assert "a symbolic link to invoice\\u202efdp.exe" in page
    assert "\u202e" not in page
    assert (engine.trash.root / sd_id / "item").readlink() == Path("invoice\u202efdp.exe")


def test_content_with_a_bidi_override_is_shown_escaped_in_diffs_and_trash_previews(
    web: TestClient, engine: Services, shared: Settings
) -> None:
    # "Trojan Source": rendered raw, the line reads `if access_level != "none": # Check if admin`, the comment
    # inside the string the code compares.
    tricked = 'if access_level != "none\u202e \u2066# Check if admin\u2069 \u2066":\n\tgrant()\n'
    engine.writer.write("auth.py", "if access_level != 'none':\n\tgrant()\n")
    engine.writer.write("auth.py", tricked)
    engine.writer.write("gone.py", tricked)
    engine.deleter.delete("gone.py")
    sd_id = engine.trash.entries()[0].sd_id
    assert shared.log_dir is not None
    AuditLog(shared.log_dir, CallStats()).record(
        AuditEntry("git\u202e", {"action": "status\u202e"}, 1.0, "error", error_code="unknown_tool")
    )

    pages = [web.get("/files", params={"path": "auth.py"}).text, web.get(f"/trash/{sd_id}").text]
    pages.append(web.get("/activity").text)

    shown = [re.sub(r'value="[^"]*"', "", page) for page in pages]  # a form's values are sent, not shown
    assert all(char not in page for page in shown for char in "\u202e\u2066\u2069")
    assert all("none\\u202e \\u2066# Check if admin\\u2069" in page for page in pages[:2])
    assert "\tgrant()" in pages[0]
    assert "\tgrant()" in pages[1]
    assert "git\\u202e" in pages[2]
    assert "status\\u202e" in pages[2]
    assert (_root(engine) / "auth.py").read_text(encoding="utf-8") == tricked
