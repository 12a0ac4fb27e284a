"""The dashboard's routes without a browser (Starlette's TestClient): pages, the engine behind the buttons, the
cross-site and host checks, id formats, confinement to the roots, the token. Each act asserts the bytes on disk."""

from __future__ import annotations

import html
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from fsguard.config import Settings
from fsguard.core.audit import AuditEntry, AuditLog
from fsguard.core.backups import BackupStore
from fsguard.core.stats import CallStats
from fsguard.dashboard import command, feed
from fsguard.dashboard.app import build_app, wrap
from fsguard.services import Services

ORIGIN = "http://127.0.0.1:9100"


@pytest.fixture
def engine(shared: Settings) -> Services:
    """The engine of a server on the shared directories, to act as an agent would (without a protocol)."""
    return Services.create(shared)


@pytest.fixture
def web(shared: Settings) -> Iterator[TestClient]:
    with TestClient(wrap(build_app(shared), shared), base_url=ORIGIN, follow_redirects=False) as client:
        yield client


def _root(settings: Settings) -> Path:
    return settings.roots[0]


def _log(settings: Settings, *entries: AuditEntry) -> None:
    assert settings.log_dir is not None
    audit = AuditLog(settings.log_dir, CallStats())
    for entry in entries:
        audit.record(entry)


def _edited(engine: Services, name: str, *versions: str) -> Path:
    for version in versions:
        engine.writer.write(name, version)
    return _root(engine.settings) / name


# -- Activity ---------------------------------------------------------------------------------------------------


def test_activity_lists_the_audit_log_newest_first_and_filters_it(web: TestClient, shared: Settings) -> None:
    _log(
        shared,
        AuditEntry("write_file", {"path": "a.txt", "content": "x"}, 3.0, "ok", path="/r/a.txt"),
        AuditEntry("read_file", {"path": "b.txt"}, 1.0, "error", error_code="not_found"),
        AuditEntry("edit_file", {"path": "a.txt"}, 2.0, "ok", path="/r/a.txt", risk="MEDIUM"),
    )
    page = web.get("/activity").text
    assert page.index("edit_file</span>") < page.index("read_file</span>") < page.index("write_file</span>")
    assert "3 shown of 3 logged calls" in page
    only_errors = web.get("/activity", params={"status": "error"}).text
    assert "not_found" in only_errors
    assert "1 shown of 3" in only_errors
    by_tool_and_path = web.get("/activity", params={"tool": "write_file", "path": "A.TXT"}).text
    assert "1 shown of 3" in by_tool_and_path
    assert web.get("/activity", params={"status": "maybe"}).status_code == 400


def test_logged_text_is_escaped_in_the_page_and_in_the_live_rows(web: TestClient, shared: Settings) -> None:
    hostile = "/r/<img src=x onerror=alert(1)>.txt"
    _log(shared, AuditEntry("write_file", {"path": hostile}, 1.0, "ok", path=hostile))
    page = web.get("/activity").text
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;.txt" in page
    assert shared.log_dir is not None
    entry = feed.parse_line((shared.log_dir / "operations.jsonl").read_bytes())
    rendered = build_app(shared).state.dashboard.templates.get_template("_row.html").render(entry=entry)
    assert "<img src=x" not in rendered


def test_activity_without_a_log_dir_says_how_to_get_one(shared: Settings) -> None:
    settings = Settings(**{**shared.__dict__, "log_dir": None})
    with TestClient(wrap(build_app(settings), settings), base_url=ORIGIN) as client:
        assert "--log-dir" in client.get("/activity").text
        assert client.get("/activity/stream").status_code == 400


@pytest.mark.parametrize("cursor", ["1:x", "1:\u00b2", "1:" + "9" * 5000])
def test_the_activity_stream_refuses_a_malformed_cursor_with_a_400_page(web: TestClient, cursor: str) -> None:
    answer = web.get("/activity/stream", params={"cursor": cursor})
    assert answer.status_code == 400
    assert "cursor must be" in answer.text


def test_the_root_redirects_to_activity_and_an_unknown_page_is_a_404_page(web: TestClient) -> None:
    assert web.get("/").headers["location"] == "/activity"
    missing = web.get("/nowhere")
    assert missing.status_code == 404
    assert "<h1>" in missing.text


def test_starting_the_dashboard_drops_no_backup_a_server_keeps_longer(shared: Settings) -> None:
    long_keeper = Settings(**{**shared.__dict__, "backup_max_age_days": 365.0})
    engine = Services.create(long_keeper)
    month_old = time.time() - 30 * 86_400
    old = BackupStore(engine.backups.root, max_age_days=365, max_count=100, clock=lambda: month_old)
    target = _root(shared) / "kept.txt"
    target.write_bytes(b"now\n")
    record = old.snapshot(target, b"a month ago\n", 0o644, operation="write_file", after_hash=None)
    with TestClient(wrap(build_app(shared), shared), base_url=ORIGIN) as client:
        assert record.backup_id in client.get("/files", params={"path": "kept.txt"}).text
    assert engine.backups.get(record.backup_id) == record


# -- Files: undo chain, Undo, Restore ------------------------------------------------------------------------------


def test_files_shows_each_step_of_the_undo_chain_with_its_diff(web: TestClient, engine: Services) -> None:
    _edited(engine, "app.py", "one\n", "two\n", "three\n")
    page = web.get("/files", params={"path": "app.py"}).text
    assert page.count('class="step"') == 2
    assert '<span class="d-del">-one</span><span class="d-add">+two</span>' in page
    assert '<span class="d-del">-two</span><span class="d-add">+three</span>' in page
    assert "app.py" in web.get("/files").text  # the index of files with backups


def test_undo_restores_the_exact_bytes_and_is_logged_as_a_dashboard_act(
    web: TestClient, engine: Services, shared: Settings
) -> None:
    target = _edited(engine, "notes.txt", "caf\u00e9\r\nline\r\n", "rewritten\n")
    answer = web.post("/files/undo", data={"path": "notes.txt"})
    assert answer.status_code == 303
    assert "done=undo" in answer.headers["location"]
    assert target.read_bytes() == "caf\u00e9\r\nline\r\n".encode()
    assert shared.log_dir is not None
    logged = json.loads((shared.log_dir / "operations.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert (logged["tool"], logged["status"], logged["via"]) == ("backup", "ok", "dashboard")
    assert logged["path"] == str(target)
    assert engine.backups.get(logged["backup_id"], taken_of=target).operation == "pre_undo"  # of the bytes it replaced
    assert not (shared.log_dir / "metrics.json").exists()  # the servers' counters are theirs to write


def test_undo_of_a_file_changed_since_needs_the_force_box(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "f.txt", "v1\n", "v2\n")
    target.write_bytes(b"changed by hand\n")
    refused = web.post("/files/undo", data={"path": "f.txt"})
    assert refused.status_code == 409
    assert "undo conflict" in refused.text
    assert "undo even so" in refused.text  # the page's box, not the tool's force=true
    assert "backup(" not in refused.text
    assert target.read_bytes() == b"changed by hand\n"
    assert "undo even so" in web.get("/files", params={"path": "f.txt"}).text
    assert web.post("/files/undo", data={"path": "f.txt", "force": "yes"}).status_code == 303
    assert target.read_bytes() == b"v1\n"


def test_restore_puts_a_chosen_version_back_after_a_safety_backup(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "r.txt", "first\n", "second\n", "third\n")
    chain = engine.backups.chain(target)
    oldest = chain[-1]
    answer = web.post("/files/restore", data={"path": "r.txt", "backup_id": oldest.backup_id})
    assert answer.status_code == 303
    assert target.read_bytes() == b"first\n"
    newest = engine.backups.chain(target)[0]
    assert engine.backups.read_blob(newest) == b"third\n"  # the bytes it replaced are kept


def test_undo_with_nothing_to_undo_is_a_409_page(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "new.txt", "only\n")  # a created file: no earlier version to go back to
    answer = web.post("/files/undo", data={"path": "new.txt"})
    assert answer.status_code == 409
    assert "nothing to undo" in answer.text
    assert "Its Files page lists the versions of it still kept" in answer.text
    assert "backup(" not in answer.text  # a person on the page has no tool to call
    assert target.read_bytes() == b"only\n"


# -- ids and paths --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../../etc/passwd", "20261201-101010-XYZ", "", "20261201-101010-0123456789abcdeg"])
def test_a_malformed_backup_id_is_refused_before_any_lookup(web: TestClient, engine: Services, bad: str) -> None:
    target = _edited(engine, "x.txt", "a\n", "b\n")
    answer = web.post("/files/restore", data={"path": "x.txt", "backup_id": bad})
    assert answer.status_code == 400
    assert target.read_bytes() == b"b\n"


def test_an_unknown_backup_id_is_a_404_page(web: TestClient, engine: Services) -> None:
    _edited(engine, "x.txt", "a\n")
    answer = web.post("/files/restore", data={"path": "x.txt", "backup_id": "20261201-101010-0123456789abcdef"})
    assert answer.status_code == 404
    assert "The Files page lists each file" in answer.text
    assert "backup(" not in answer.text


def test_a_backup_whose_bytes_are_damaged_is_a_409_page_pointing_at_the_files_other_versions(
    web: TestClient, engine: Services
) -> None:
    target = _edited(engine, "d.txt", "kept one\n", "kept two\n", "now\n")
    journal = next((engine.settings.state_dir / "backups" / "journal").glob("*.jsonl"))
    journal.write_bytes(journal.read_bytes().replace(b"kept one\n", b"kept 0ne\n"))
    oldest = engine.backups.chain(target)[-1]
    answer = web.post("/files/restore", data={"path": "d.txt", "backup_id": oldest.backup_id})
    assert answer.status_code == 409
    assert "Pick another version of it on its Files page." in answer.text
    assert "backup(" not in answer.text
    assert target.read_bytes() == b"now\n"


@pytest.mark.parametrize("bad", ["not-an-id", "sd-1-2-3", "sd-20261201-101010-..%2F..%2Fx"])
def test_a_malformed_trash_id_is_refused(web: TestClient, bad: str) -> None:
    assert web.get(f"/trash/{bad}").status_code in (400, 404)
    assert web.post(f"/trash/{bad}/restore").status_code in (400, 404)
    assert web.post(f"/trash/{bad}/purge", data={"confirm": "yes"}).status_code in (400, 404)


def test_a_well_formed_but_unknown_trash_id_is_a_404_page(web: TestClient) -> None:
    assert web.get("/trash/sd-20261201-101010-0123456789abcdef").status_code == 404
    purged = web.post("/trash/sd-20261201-101010-0123456789abcdef/purge", data={"confirm": "yes"})
    assert purged.status_code == 404
    assert "The Trash page lists what it holds" in purged.text
    assert "backup(" not in purged.text


def test_paths_outside_the_roots_are_refused(web: TestClient, shared: Settings) -> None:
    outside = _root(shared).parent / "outside.txt"
    outside.write_bytes(b"not yours\n")
    assert web.get("/files", params={"path": str(outside)}).status_code == 403
    assert web.get("/files", params={"path": "../outside.txt"}).status_code == 403
    assert web.post("/files/undo", data={"path": "../outside.txt"}).status_code == 403
    assert outside.read_bytes() == b"not yours\n"


def test_a_backup_of_a_file_outside_the_roots_is_not_restored(
    web: TestClient, shared: Settings, tmp_path: Path
) -> None:
    other = tmp_path / "other-root"
    other.mkdir()
    neighbour = Services.create(Settings(roots=(other.resolve(),), state_dir=shared.state_dir))
    target = _edited(neighbour, "theirs.txt", "old\n", "new\n")
    record = neighbour.backups.chain(target)[0]
    assert "theirs.txt" not in web.get("/files").text  # another server's roots: not listed here
    answer = web.post("/files/restore", data={"path": str(target), "backup_id": record.backup_id})
    assert answer.status_code == 403
    assert target.read_bytes() == b"new\n"


def test_the_servers_path_rules_keep_the_dashboard_from_restoring_into_a_read_only_root_or_showing_a_denied_file(
    shared: Settings, engine: Services
) -> None:
    # The dashboard's command line had no --read-only-root or --deny: it restored into a root its servers may only
    # read, and showed the history of a file their rule hides once its backups predated the rule.
    target = _edited(engine, "r.txt", "one\n", "two\n")
    hidden = _edited(engine, "notes.secret", "a\n", "b\n")
    oldest = engine.backups.chain(target)[0]
    engine.writer.write("gone.txt", "trashed\n")
    engine.deleter.delete("gone.txt")
    sd_id = engine.trash.entries()[0].sd_id
    root, state = str(_root(shared)), str(shared.state_dir)
    flags = [root, "--state-dir", state, "--read-only-root", root, "--deny", "*.secret"]
    ruled = command.settings_from(command.parser().parse_args(flags))  # as `fsguard dashboard` starts it
    with TestClient(wrap(build_app(ruled), ruled), base_url=ORIGIN, follow_redirects=False) as web:
        assert web.post("/files/restore", data={"path": "r.txt", "backup_id": oldest.backup_id}).status_code == 403
        assert web.post(f"/trash/{sd_id}/restore").status_code == 403
        assert web.post("/files/undo", data={"path": "r.txt"}).status_code == 403
        assert "notes.secret" not in web.get("/files").text
        assert web.get("/files", params={"path": "notes.secret"}).status_code == 403
    assert target.read_bytes() == b"two\n"
    assert hidden.read_bytes() == b"b\n"
    assert not (_root(shared) / "gone.txt").exists()


def test_the_dashboard_denies_its_log_dir_inside_a_root_as_the_server_does_and_its_feed_still_reads_the_log(
    shared: Settings,
) -> None:
    # Its engine was built without the log dir: it showed the audit log's history and restored a backup over it.
    unlogged = Services.create(Settings(**{**shared.__dict__, "log_dir": None}))
    unlogged.writer.write("logs/operations.jsonl", '{"forged":1}\n')
    unlogged.writer.write("logs/operations.jsonl", '{"forged":2}\n')
    oldest = unlogged.backups.chain(_root(shared) / "logs" / "operations.jsonl")[0]
    log_dir = _root(shared) / "logs"
    (log_dir / "operations.jsonl").unlink()
    logged = Settings(**{**shared.__dict__, "log_dir": log_dir})
    _log(logged, AuditEntry("read_file", {"path": "a.txt"}, 1.0, "ok", path="/r/a.txt"))
    before = (log_dir / "operations.jsonl").read_bytes()
    with TestClient(wrap(build_app(logged), logged), base_url=ORIGIN, follow_redirects=False) as web:
        assert web.get("/files", params={"path": "logs/operations.jsonl"}).status_code == 403
        restore = {"path": "logs/operations.jsonl", "backup_id": oldest.backup_id}
        assert web.post("/files/restore", data=restore).status_code == 403
        assert "read_file</span>" in web.get("/activity").text
    assert (log_dir / "operations.jsonl").read_bytes().startswith(before)
    assert b"forged" not in (log_dir / "operations.jsonl").read_bytes()


def _message(page: str) -> str:
    found = re.search(r'<p class="message">([^<]*)</p>', page)
    assert found is not None, "the page shows no message"
    return html.unescape(found[1])


def test_refusals_on_the_pages_name_the_files_page_the_deny_flag_and_the_hooks_file_not_an_agents_step(
    shared: Settings, engine: Services, tmp_path: Path
) -> None:
    # They said "Use list_directory for directories.", "only the operator can change the rules" (to the operator)
    # and "ask the user to change the hooks config".
    (_root(shared) / "sub").mkdir()
    target = _edited(engine, "r.txt", "one\n", "two\n")
    oldest = engine.backups.chain(target)[0]
    hooks = tmp_path / "hooks.json"
    denying = {"type": "command", "command": "echo 'no writes today' >&2; exit 2"}
    hooks.write_text(json.dumps({"hooks": {"pre-write": [{"pattern": "*", "hooks": [denying]}]}}), encoding="utf-8")
    ruled = Settings(**{**shared.__dict__, "deny": ("*.secret",), "hooks_config": hooks})
    with TestClient(wrap(build_app(ruled), ruled), base_url=ORIGIN, follow_redirects=False) as web:
        directory = web.get("/files", params={"path": "sub"})
        default_rule = _message(web.get("/files", params={"path": ".env"}).text)
        operator_rule = _message(web.get("/files", params={"path": "notes.secret"}).text)
        hooked = web.post("/files/restore", data={"path": "r.txt", "backup_id": oldest.backup_id})
    assert directory.status_code == 400
    assert "list_directory" not in _message(directory.text)
    assert "The Files page lists the files that have kept versions." in _message(directory.text)
    assert '<a href="/files">Files</a>' in directory.text
    assert "--no-default-deny" in default_rule
    assert "It is the --deny '*.secret' rule" in operator_rule
    assert all("only the operator" not in said for said in (default_rule, operator_rule))
    assert hooked.status_code == 403
    assert f"change its entry in the hooks file {hooks} (--hooks-config)" in _message(hooked.text)
    assert "ask the user" not in _message(hooked.text)
    assert target.read_bytes() == b"two\n"


# -- Trash ----------------------------------------------------------------------------------------------------------


def _trashed(engine: Services, name: str, data: bytes) -> str:
    engine.writer.write(name, data)
    engine.deleter.delete(name)
    return engine.trash.entries()[0].sd_id


def test_trash_lists_searches_and_previews_entries(web: TestClient, engine: Services) -> None:
    sd_id = _trashed(engine, "gone.txt", b"hello from the trash\n")
    _trashed(engine, "other.bin", b"\x00\x01\x02")
    listed = web.get("/trash").text
    assert "gone.txt" in listed
    assert "other.bin" in listed
    searched = web.get("/trash", params={"q": "GONE"}).text
    assert "gone.txt" in searched
    assert "other.bin" not in searched
    assert "hello from the trash" in web.get(f"/trash/{sd_id}").text


def test_restoring_from_the_trash_puts_the_bytes_back_and_never_overwrites(web: TestClient, engine: Services) -> None:
    sd_id = _trashed(engine, "back.txt", b"precious\n")
    target = _root(engine.settings) / "back.txt"
    target.write_bytes(b"a new file took its place\n")
    refused = web.post(f"/trash/{sd_id}/restore")
    assert refused.status_code == 409
    assert target.read_bytes() == b"a new file took its place\n"
    target.unlink()
    answer = web.post(f"/trash/{sd_id}/restore")
    assert answer.status_code == 303
    assert target.read_bytes() == b"precious\n"
    assert engine.trash.entries() == []


def test_a_trash_entry_from_outside_the_roots_is_not_restored(
    web: TestClient, shared: Settings, tmp_path: Path
) -> None:
    other = tmp_path / "elsewhere"
    other.mkdir()
    neighbour = Services.create(Settings(roots=(other.resolve(),), state_dir=shared.state_dir))
    sd_id = _trashed(neighbour, "theirs.txt", b"theirs\n")
    assert web.post(f"/trash/{sd_id}/restore").status_code == 403
    assert not (other / "theirs.txt").exists()


def test_purge_needs_the_confirmation_box(web: TestClient, engine: Services) -> None:
    sd_id = _trashed(engine, "doomed.txt", b"bye\n")
    refused = web.post(f"/trash/{sd_id}/purge")
    assert refused.status_code == 400
    assert [entry.sd_id for entry in engine.trash.entries()] == [sd_id]
    assert web.post(f"/trash/{sd_id}/purge", data={"confirm": "yes"}).status_code == 303
    assert engine.trash.entries() == []
    assert not (engine.trash.root / sd_id).exists()


# -- Statistics -----------------------------------------------------------------------------------------------------


def test_statistics_embeds_the_chart_data(web: TestClient, shared: Settings, engine: Services) -> None:
    _edited(engine, "s.txt", "a\n", "b\n")
    _log(
        shared,
        AuditEntry("write_file", {"content": "x" * 2048}, 1.0, "ok"),
        AuditEntry("write_file", {"content": "abc"}, 1.0, "ok"),
        AuditEntry("read_file", {}, 1.0, "error", error_code="not_found"),
    )
    page = web.get("/stats").text
    found = re.search(r'<script type="application/json" id="stats-data">(.*?)</script>', page, re.S)
    assert found is not None
    data = json.loads(found[1])
    assert sum(data["bytesWritten"]) == 2048 + 3
    assert data["errorsByCode"] == {"not_found": 1}
    assert {series["label"] for series in data["perTool"]} == {"write_file", "read_file"}
    assert data["storeBytes"]
    assert data["storeBytes"][-1] > 0


# -- the gate: cross-site requests, Host, token ----------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://evil.test"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:9999"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": ORIGIN},
    ],
)
def test_a_cross_site_post_is_refused_and_changes_nothing(
    web: TestClient, engine: Services, headers: dict[str, str]
) -> None:
    target = _edited(engine, "victim.txt", "v1\n", "v2\n")
    answer = web.post("/files/undo", data={"path": "victim.txt"}, headers=headers)
    assert answer.status_code == 403
    assert "Nothing was changed" in answer.text
    assert target.read_bytes() == b"v2\n"


def test_a_post_from_the_dashboards_own_page_goes_through(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "mine.txt", "v1\n", "v2\n")
    headers = {"Origin": ORIGIN, "Sec-Fetch-Site": "same-origin"}
    assert web.post("/files/undo", data={"path": "mine.txt"}, headers=headers).status_code == 303
    assert target.read_bytes() == b"v1\n"


def test_changes_are_post_only(web: TestClient, engine: Services) -> None:
    target = _edited(engine, "g.txt", "v1\n", "v2\n")
    answer = web.get("/files/undo", params={"path": "g.txt"})
    assert answer.status_code == 405
    assert target.read_bytes() == b"v2\n"


def test_a_host_that_is_not_loopback_is_refused_on_a_loopback_bind(web: TestClient) -> None:
    assert web.get("/activity", headers={"Host": "rebound.example:9100"}).status_code == 421
    assert web.get("/activity", headers={"Host": "localhost:9100"}).status_code == 200


def test_pages_carry_the_security_headers(web: TestClient) -> None:
    headers = web.get("/activity").headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"


def test_off_loopback_the_token_is_required_by_header_or_cookie(shared: Settings) -> None:
    settings = Settings(**{**shared.__dict__, "host": "0.0.0.0", "auth_token": "s3cret"})
    app = wrap(build_app(settings), settings)
    with TestClient(app, base_url="http://192.0.2.1:9100", follow_redirects=False) as client:
        assert client.get("/activity").status_code == 401
        assert client.get("/activity", params={"token": "wrong"}).status_code == 401
        assert client.get("/activity", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        opened = client.get("/activity", params={"token": "s3cret", "tool": "x"})
        assert opened.status_code == 303
        assert opened.headers["location"] == "/activity?tool=x"
        cookie = opened.headers["set-cookie"]
        assert "HttpOnly" in cookie
        assert "SameSite=strict" in cookie or "samesite=strict" in cookie.lower()
        assert client.get("/activity").status_code == 200  # the cookie now


def test_a_file_whose_name_is_not_utf8_is_listed_shown_and_undone_by_its_own_bytes(
    web: TestClient, engine: Services
) -> None:
    directory = _root(engine.settings) / os.fsdecode(b"caf\xe9")  # Latin-1 bytes: "caf\udce9" in Python
    directory.mkdir()
    target = _edited(engine, f"{directory.name}/menu.txt", "soup\n", "stew\n")

    index = web.get("/files")
    link = re.search(r'href="(/files\?path=[^"]*)"', index.text)
    assert index.status_code == 200
    assert link is not None
    assert "caf%E9" in link.group(1)  # the link carries the name's own byte
    history = web.get(link.group(1).replace("&amp;", "&"))
    assert history.status_code == 200
    assert "caf\ufffd/menu.txt" in history.text  # shown as a terminal shows it
    token = re.search(r'name="path_token" value="([^"]*)"', history.text)
    assert token is not None
    for page in ("/activity", "/stats", "/trash"):
        assert web.get(page).status_code == 200

    answer = web.post("/files/undo", data={"path": "ignored when the token is there", "path_token": token.group(1)})

    assert answer.status_code == 303
    assert "caf%E9" in answer.headers["location"]
    assert target.read_bytes() == b"soup\n"
