"""wsl through the in-memory Client, in both eras, on plain Linux: WSL is forced on over a fake mount tree.

The layout inside the root: ``mnt/c/Users/me`` is the Windows home (``C:\\Users\\me``, the mount root being
``<root>/mnt``) and ``home/me`` the WSL home.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core import wslsync
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def win(root: Path) -> Path:
    """The Windows home, as mounted here."""
    path = root / "mnt" / "c" / "Users" / "me"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def home(root: Path) -> Path:
    path = root / "home" / "me"
    path.mkdir(parents=True)
    return path


@pytest.fixture
def wsl_settings(root: Path, home: Path, win: Path) -> dict[str, object]:
    return {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}


@pytest.fixture
async def wsl_client(connect: ClientFactory, wsl_settings: dict[str, object]) -> AsyncIterator[Client]:
    async with connect(**wsl_settings) as opened:
        yield opened


async def test_status_names_the_homes_the_drives_and_autosync(wsl_client: Client, root: Path, home: Path) -> None:
    result = await wsl_client.call_tool("wsl", {})
    status = structured(result)
    assert (status["action"], status["is_wsl"], status["windows_home"]) == ("status", True, "C:\\Users\\me")
    assert (status["wsl_home"], status["mount_root"]) == (str(home), str(root / "mnt"))
    assert status["windows_home_path"] == str(root / "mnt" / "c" / "Users" / "me")
    assert status["autosync"]["enabled"] is False
    assert "forced on" in status["detection"]
    assert "~/claude ↔ C:\\Users\\me\\claude" in text_of(result)


async def test_the_compact_status_is_one_line(connect: ClientFactory, wsl_settings: dict[str, object]) -> None:
    async with connect(compact_mode=True, **wsl_settings) as client:
        text = text_of(await client.call_tool("wsl", {"action": "status"}))
    assert "\n" not in text
    assert text.startswith("WSL: true | ")
    assert "winhome C:\\Users\\me" in text


async def test_outside_wsl_status_says_why_and_every_other_action_refuses(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path
) -> None:
    (home / "a.txt").write_text("a", encoding="utf-8")
    async with connect(**{**wsl_settings, "wsl": False}) as client:
        status = await client.call_tool("wsl", {"action": "status"})
        assert structured(status)["is_wsl"] is False
        assert "--wsl" in text_of(status)
        for arguments in (
            {"action": "sync", "wsl_path": str(home / "a.txt")},
            {"action": "autosync_config", "enabled": True},
            {"action": "autosync_status"},
        ):
            refused = await client.call_tool("wsl", arguments)
            assert error_code(refused) == "wsl_unavailable"
            assert "FSGUARD_WSL=1" in text_of(refused)
    assert not (home.parent.parent / "mnt" / "c" / "Users" / "me" / "a.txt").exists()


async def test_a_file_syncs_to_its_windows_counterpart_and_a_second_sync_changes_nothing(
    wsl_client: Client, home: Path, win: Path
) -> None:
    (home / "claude").mkdir()
    (home / "claude" / "notes.md").write_bytes(b"# notes\r\n")
    first = structured(await wsl_client.call_tool("wsl", {"action": "sync", "wsl_path": "~/claude/notes.md"}))
    assert (first["direction"], first["files_synced"], first["files_unchanged"]) == ("wsl_to_windows", 1, 0)
    assert first["files"][0]["status"] == "created"
    assert first["files"][0]["destination"] == str(win / "claude" / "notes.md")
    assert (win / "claude" / "notes.md").read_bytes() == b"# notes\r\n"
    again = structured(await wsl_client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "claude")}))
    assert (again["files_synced"], again["files_unchanged"], again["files"]) == (0, 1, [])


async def test_a_windows_path_syncs_into_wsl(wsl_client: Client, home: Path, win: Path) -> None:
    (win / "docs").mkdir()
    (win / "docs" / "plan.txt").write_bytes(b"from windows\n")
    result = structured(
        await wsl_client.call_tool("wsl", {"action": "sync", "windows_path": "c:/Users/me/docs/plan.txt"})
    )
    assert result["direction"] == "windows_to_wsl"
    assert (home / "docs" / "plan.txt").read_bytes() == b"from windows\n"


async def test_a_tree_syncs_files_that_differ_skips_links_and_honours_the_filter(
    wsl_client: Client, home: Path, win: Path
) -> None:
    src = home / "projects" / "site"
    (src / "deep" / "er").mkdir(parents=True)
    (src / "index.md").write_text("index", encoding="utf-8")
    (src / "deep" / "er" / "page.md").write_text("page", encoding="utf-8")
    (src / "deep" / "style.css").write_text("css", encoding="utf-8")
    (src / "link.md").symlink_to(src / "index.md")
    arguments = {"action": "sync", "wsl_path": str(src), "filter_pattern": "*.md"}
    result = structured(await wsl_client.call_tool("wsl", arguments))
    dest = win / "projects" / "site"
    assert result["files_synced"] == 2
    assert (dest / "index.md").read_text(encoding="utf-8") == "index"
    assert (dest / "deep" / "er" / "page.md").read_text(encoding="utf-8") == "page"
    assert not (dest / "deep" / "style.css").exists()
    assert not (dest / "link.md").exists()
    assert [s["path"] for s in result["skipped"]] == [str(src / "link.md")]
    assert "symlink" in result["skipped"][0]["reason"]


async def test_dry_run_reports_creates_and_updates_and_writes_nothing(
    wsl_client: Client, home: Path, win: Path
) -> None:
    (home / "claude").mkdir()
    (home / "claude" / "new.txt").write_text("new", encoding="utf-8")
    (home / "claude" / "changed.txt").write_text("mine", encoding="utf-8")
    (win / "claude").mkdir()
    (win / "claude" / "changed.txt").write_text("theirs", encoding="utf-8")
    arguments = {"action": "sync", "direction": "wsl_to_windows", "dry_run": True}
    result = await wsl_client.call_tool("wsl", arguments)
    planned = structured(result)
    assert planned["dry_run"] is True
    assert sorted(f["status"] for f in planned["files"]) == ["would_create", "would_update"]
    assert "DRY RUN" in text_of(result)
    assert sorted(p.name for p in (win / "claude").iterdir()) == ["changed.txt"]
    assert (win / "claude" / "changed.txt").read_text(encoding="utf-8") == "theirs"


async def test_a_dry_run_refuses_what_the_real_sync_refuses(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path, win: Path
) -> None:
    (home / "a.txt").write_text("a", encoding="utf-8")
    (home / "ro").mkdir()
    (home / "ro" / "b.txt").write_text("b", encoding="utf-8")
    (win / "ro").mkdir()
    no_dirs = {"action": "sync", "wsl_path": str(home / "a.txt"), "windows_path": str(win / "new" / "a.txt")}
    into_read_only = {"action": "sync", "wsl_path": str(home / "ro")}
    async with connect(read_only_roots=(win / "ro",), **wsl_settings) as client:
        for dry_run in (True, False):
            refused = await client.call_tool("wsl", {**no_dirs, "create_dirs": False, "dry_run": dry_run})
            assert error_code(refused) == "not_a_directory"
            planned = structured(await client.call_tool("wsl", {**into_read_only, "dry_run": dry_run}))
            assert planned["files"] == []
            assert [e["code"] for e in planned["errors"]] == ["read_only"]
    assert not (win / "new").exists()
    assert list((win / "ro").iterdir()) == []


async def test_replacing_a_different_windows_file_backs_it_up_and_undo_brings_it_back(
    wsl_client: Client, home: Path, win: Path
) -> None:
    (home / "report.txt").write_text("new version\n", encoding="utf-8")
    (win / "report.txt").write_text("edited on windows\n", encoding="utf-8")
    result = structured(await wsl_client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "report.txt")}))
    entry = result["files"][0]
    assert (entry["status"], entry["destination"]) == ("updated", str(win / "report.txt"))
    assert entry["backup_id"]
    assert (win / "report.txt").read_text(encoding="utf-8") == "new version\n"
    undo = {"action": "undo_last", "file_path": str(win / "report.txt")}
    structured(await wsl_client.call_tool("backup", undo))
    assert (win / "report.txt").read_text(encoding="utf-8") == "edited on windows\n"


async def test_a_side_outside_the_roots_is_refused_and_nothing_is_written(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "mnt"  # drives mounted outside the server's root
    (outside / "c" / "Users" / "me").mkdir(parents=True)
    (home / "a.txt").write_text("a", encoding="utf-8")
    async with connect(**{**wsl_settings, "wsl_mount_root": outside}) as client:
        derived = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "a.txt")})
        assert error_code(derived) == "access_denied"
        assert "C:\\Users\\me\\a.txt" in text_of(derived)
        explicit = {"action": "sync", "wsl_path": str(home / "a.txt"), "windows_path": "C:\\Users\\me\\b.txt"}
        assert error_code(await client.call_tool("wsl", explicit)) == "access_denied"
    assert list((outside / "c" / "Users" / "me").iterdir()) == []


async def test_standard_folders_sync_by_direction_and_missing_or_unreachable_pairs_are_skipped(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path, win: Path, tmp_path: Path
) -> None:
    (home / "claude").mkdir()
    (home / "claude" / "a.md").write_text("a", encoding="utf-8")
    async with connect(**wsl_settings) as client:
        result = structured(await client.call_tool("wsl", {"action": "sync", "direction": "wsl_to_windows"}))
    assert result["files_synced"] == 1
    assert (win / "claude" / "a.md").read_text(encoding="utf-8") == "a"
    assert [(s["path"], s["reason"]) for s in result["skipped"]] == [(str(home / "projects"), "does not exist")]
    elsewhere = tmp_path / "mnt" / "c" / "Users" / "me"  # a Windows home outside the roots: both pairs skipped
    elsewhere.mkdir(parents=True)
    outside = {"wsl_mount_root": tmp_path / "mnt", "wsl_windows_home": "C:\\Users\\me"}
    async with connect(**{**wsl_settings, **outside}) as client:
        skipped = structured(await client.call_tool("wsl", {"action": "sync", "direction": "wsl_to_windows"}))
    assert (skipped["files_synced"], skipped["errors"]) == (0, [])
    assert all("outside the allowed roots" in s["reason"] for s in skipped["skipped"])
    assert len(skipped["skipped"]) == 2
    assert list(elsewhere.iterdir()) == []


async def test_sync_needs_something_to_sync_and_refuses_shares_and_overlaps(wsl_client: Client, home: Path) -> None:
    nothing = await wsl_client.call_tool("wsl", {"action": "sync"})
    assert error_code(nothing) == "invalid_params"
    assert "direction" in text_of(nothing)
    share = await wsl_client.call_tool("wsl", {"action": "sync", "windows_path": "\\\\server\\share\\x"})
    assert error_code(share) == "invalid_params"
    (home / "d").mkdir()
    overlap = {"action": "sync", "wsl_path": str(home / "d"), "windows_path": str(home / "d" / "inner")}
    assert error_code(await wsl_client.call_tool("wsl", overlap)) == "invalid_params"
    assert not (home / "d" / "inner").exists()


async def test_a_windows_side_linked_into_the_linux_tree_is_refused_as_an_overlap(
    wsl_client: Client, home: Path, win: Path
) -> None:
    (home / "proj" / "sub").mkdir(parents=True)
    (home / "proj" / "a.txt").write_bytes(b"a\n")
    (home / "proj" / "sub" / "b.txt").write_bytes(b"b\n")
    (win / "proj").symlink_to(home / "proj" / "sub")  # C:\Users\me\proj leads into ~/proj/sub
    for dry_run in (True, False):
        refused = await wsl_client.call_tool("wsl", {"action": "sync", "wsl_path": "~/proj", "dry_run": dry_run})
        assert error_code(refused) == "invalid_params"
        assert "overlap" in text_of(refused)
    found = sorted(str(p.relative_to(home / "proj")) for p in (home / "proj").rglob("*") if p.is_file())
    assert found == ["a.txt", "sub/b.txt"]
    assert (home / "proj" / "sub" / "b.txt").read_bytes() == b"b\n"


async def test_an_unknown_windows_home_is_refused_naming_the_flag(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("USERPROFILE", raising=False)
    monkeypatch.setenv("USER", "nobody-with-a-windows-folder")
    (home / "a.txt").write_text("a", encoding="utf-8")
    async with connect(**{**wsl_settings, "wsl_windows_home": None}) as client:
        assert "Windows home: unknown" in text_of(await client.call_tool("wsl", {}))
        refused = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "a.txt")})
    assert error_code(refused) == "wsl_unavailable"
    assert "--wsl-windows-home" in text_of(refused)


async def test_with_no_windows_home_autosync_is_not_turned_on_and_a_forced_one_counts_each_copy_it_cannot_make(
    connect: ClientFactory,
    wsl_settings: dict[str, object],
    home: Path,
    state_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("USERPROFILE", raising=False)
    monkeypatch.setenv("USER", "nobody-with-a-windows-folder")
    unknown = {**wsl_settings, "wsl_windows_home": None}
    async with connect(**unknown) as client:
        refused = await client.call_tool("wsl", {"action": "autosync_config", "enabled": True})
        assert error_code(refused) == "wsl_unavailable"
        assert "--wsl-windows-home" in text_of(refused)
        assert not (state_dir / "wsl" / "autosync.json").exists()
        off = structured(await client.call_tool("wsl", {"action": "autosync_config", "enabled": False}))
        assert off["enabled"] is False
    async with connect(wsl_autosync=True, **unknown) as client:
        structured(await client.call_tool("write_file", {"path": str(home / "x.txt"), "content": "x"}))
        state = structured(await client.call_tool("wsl", {"action": "autosync_status"}))
    assert (state["enabled"], state["synced"], state["failed"]) == (True, 0, 1)
    assert "--wsl-windows-home" in state["last_error"]
    assert (home / "x.txt").read_bytes() == b"x"


async def test_autosync_copies_writes_and_edits_under_the_wsl_home_to_windows(
    wsl_client: Client, home: Path, win: Path, state_dir: Path
) -> None:
    saved = structured(await wsl_client.call_tool("wsl", {"action": "autosync_config", "enabled": True}))
    assert (saved["enabled"], saved["sync_on_write"], saved["sync_on_edit"]) == (True, True, True)
    config = json.loads((state_dir / "wsl" / "autosync.json").read_text(encoding="utf-8"))
    assert config["wsl_auto_sync"]["enabled"] is True
    assert saved["config_path"] == str(state_dir / "wsl" / "autosync.json")
    structured(await wsl_client.call_tool("write_file", {"path": str(home / "claude" / "n.md"), "content": "one\n"}))
    assert (win / "claude" / "n.md").read_text(encoding="utf-8") == "one\n"
    edit = {"path": str(home / "claude" / "n.md"), "old_text": "one", "new_text": "two"}
    structured(await wsl_client.call_tool("edit_file", edit))
    assert (win / "claude" / "n.md").read_text(encoding="utf-8") == "two\n"
    outside_home = home.parent.parent / "other.txt"
    structured(await wsl_client.call_tool("write_file", {"path": str(outside_home), "content": "x"}))
    state = structured(await wsl_client.call_tool("wsl", {"action": "autosync_status"}))
    assert (state["synced"], state["failed"]) == (2, 0)


async def test_autosync_follows_its_switches_and_survives_a_restart(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path, win: Path
) -> None:
    (home / "f.txt").write_text("v1\n", encoding="utf-8")
    async with connect(**wsl_settings) as client:
        switches = {"action": "autosync_config", "enabled": True, "sync_on_edit": False}
        structured(await client.call_tool("wsl", switches))
    async with connect(**wsl_settings) as client:  # a new server reads the saved settings
        state = structured(await client.call_tool("wsl", {"action": "autosync_status"}))
        assert (state["enabled"], state["sync_on_edit"]) == (True, False)
        structured(
            await client.call_tool("edit_file", {"path": str(home / "f.txt"), "old_text": "v1", "new_text": "v2"})
        )
        assert not (win / "f.txt").exists()
        structured(await client.call_tool("wsl", {"action": "autosync_config", "enabled": False}))
        structured(await client.call_tool("write_file", {"path": str(home / "f.txt"), "content": "v3\n"}))
    assert not (win / "f.txt").exists()


async def test_the_environment_switch_forces_autosync_on(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path, win: Path
) -> None:
    async with connect(wsl_autosync=True, **wsl_settings) as client:
        state = await client.call_tool("wsl", {"action": "autosync_status"})
        assert (structured(state)["enabled"], structured(state)["forced"]) == (True, True)
        structured(await client.call_tool("write_file", {"path": str(home / "g.txt"), "content": "g"}))
    assert (win / "g.txt").read_text(encoding="utf-8") == "g"


async def test_a_failed_autosync_never_fails_the_edit_and_is_counted(wsl_client: Client, home: Path, win: Path) -> None:
    (win / "blocked.txt").mkdir()  # a folder where the copy should go
    structured(await wsl_client.call_tool("wsl", {"action": "autosync_config", "enabled": True}))
    written = await wsl_client.call_tool("write_file", {"path": str(home / "blocked.txt"), "content": "kept\n"})
    structured(written)
    assert (home / "blocked.txt").read_text(encoding="utf-8") == "kept\n"
    assert (win / "blocked.txt").is_dir()
    state = await wsl_client.call_tool("wsl", {"action": "autosync_status"})
    assert (structured(state)["synced"], structured(state)["failed"]) == (0, 1)
    assert "blocked.txt" in structured(state)["last_error"]
    assert "Last failure" in text_of(state)


async def test_autosync_config_needs_enabled(wsl_client: Client, state_dir: Path) -> None:
    refused = await wsl_client.call_tool("wsl", {"action": "autosync_config"})
    assert error_code(refused) == "invalid_params"
    assert "enabled" in text_of(refused)
    assert not (state_dir / "wsl" / "autosync.json").exists()


async def test_without_create_dirs_a_missing_destination_folder_is_refused(
    wsl_client: Client, home: Path, win: Path
) -> None:
    (home / "a.txt").write_text("a", encoding="utf-8")
    arguments = {"action": "sync", "wsl_path": str(home / "a.txt"), "windows_path": str(win / "new" / "a.txt")}
    refused = await wsl_client.call_tool("wsl", {**arguments, "create_dirs": False})
    assert error_code(refused) == "not_a_directory"
    assert not (win / "new").exists()
    structured(await wsl_client.call_tool("wsl", arguments))
    assert (win / "new" / "a.txt").read_text(encoding="utf-8") == "a"


async def test_a_single_pipe_or_filtered_out_file_is_skipped_not_copied(
    wsl_client: Client, home: Path, win: Path
) -> None:
    os.mkfifo(home / "pipe")
    (home / "a.txt").write_text("a", encoding="utf-8")
    piped = structured(await wsl_client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "pipe")}))
    assert "not a regular file" in piped["skipped"][0]["reason"]
    arguments = {"action": "sync", "wsl_path": str(home / "a.txt"), "filter_pattern": "*.md"}
    filtered = structured(await wsl_client.call_tool("wsl", arguments))
    assert (filtered["files_synced"], len(filtered["skipped"])) == (0, 1)
    assert list(win.iterdir()) == []


async def test_a_tree_walk_stops_at_its_entry_limit_and_says_so(
    wsl_client: Client, home: Path, win: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(wslsync, "MAX_SYNC_ENTRIES", 3)
    (home / "many").mkdir()
    for n in range(6):
        (home / "many" / f"{n}.txt").write_text(str(n), encoding="utf-8")
    result = await wsl_client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "many")})
    assert (structured(result)["truncated"], structured(result)["files_synced"]) == (True, 3)
    assert "sync subfolders one at a time" in text_of(result)
    assert sorted(p.name for p in (win / "many").iterdir()) == ["0.txt", "1.txt", "2.txt"]


async def test_the_compact_sync_names_backups_and_errors_on_one_line(
    connect: ClientFactory, wsl_settings: dict[str, object], home: Path, win: Path
) -> None:
    (home / "d").mkdir()
    (home / "d" / "a.txt").write_text("new", encoding="utf-8")
    (home / "d" / "b.txt").write_text("b", encoding="utf-8")
    (win / "d" / "b.txt").mkdir(parents=True)  # a folder in the way: that file fails, the other syncs
    (win / "d" / "a.txt").write_text("old", encoding="utf-8")
    async with connect(compact_mode=True, **wsl_settings) as client:
        result = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "d")})
        autosync = text_of(await client.call_tool("wsl", {"action": "autosync_status"}))
    text = text_of(result)
    assert "\n" not in text
    assert text.startswith("OK: 1 file synced, 1 error | 0 unchanged | wsl_to_windows")
    assert f"backup {structured(result)['files'][0]['backup_id']}" in text
    assert "error home/me/d/b.txt [is_directory]" in text  # named from the root
    assert autosync.startswith("AUTOSYNC off | write:yes edit:yes | 0 synced 0 failed | ")
    assert (win / "d" / "a.txt").read_text(encoding="utf-8") == "new"


async def test_an_unreadable_autosync_file_leaves_autosync_off_until_saved_again(
    connect: ClientFactory, wsl_settings: dict[str, object], state_dir: Path
) -> None:
    (state_dir / "wsl").mkdir(parents=True)
    (state_dir / "wsl" / "autosync.json").write_text("{not json", encoding="utf-8")
    async with connect(**wsl_settings) as client:
        assert structured(await client.call_tool("wsl", {"action": "autosync_status"}))["enabled"] is False
        structured(await client.call_tool("wsl", {"action": "autosync_config", "enabled": True}))
    saved = json.loads((state_dir / "wsl" / "autosync.json").read_text(encoding="utf-8"))
    assert saved["wsl_auto_sync"]["enabled"] is True
