"""Confirmation by elicitation: the calls that ask the user, what each answer does, and what the disk shows after.

Every test runs in both eras (conftest's ``connect``): on 2026-07-28 the question comes back as an
``input_required`` result that the client answers and retries, on 2025-11-25 as ``elicitation/create``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client import ClientRequestContext
from mcp.types import ElicitRequestParams, ElicitResult

from fsguard.config import Settings
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.test_transports import http_server
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio


@dataclass
class User:
    """The person behind the client: answers every question the same way and remembers what was asked."""

    action: str = "accept"
    confirm: bool = True
    asked: list[str] = field(default_factory=list)

    async def __call__(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(getattr(params, "message", ""))
        content: dict[str, Any] | None = {"confirm": self.confirm} if self.action == "accept" else None
        return ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


def _file(root: Path, name: str, text: str = "keep me\n") -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _trash_items(state_dir: Path) -> list[Path]:
    return sorted(p for p in (state_dir / "trash").rglob("item")) if (state_dir / "trash").exists() else []


# delete_file, permanent -------------------------------------------------------------------------------------------


async def test_a_permanent_delete_the_user_accepts_removes_the_file(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    user = User()
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert not result.is_error, text_of(result)
    assert not target.exists()
    assert len(user.asked) == 1
    assert "Permanently delete 1 path" in user.asked[0]
    assert "cannot be undone" in user.asked[0]


async def test_a_permanent_delete_the_user_declines_changes_nothing(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect(elicitation_callback=User(action="decline")) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert error_code(result) == "declined"
    assert "nothing was changed" in text_of(result)
    assert target.read_text(encoding="utf-8") == "keep me\n"


async def test_a_cancelled_question_changes_nothing(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect(elicitation_callback=User(action="cancel")) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert error_code(result) == "declined"
    assert "cancelled" in text_of(result)
    assert target.exists()


async def test_accepting_with_the_box_unticked_changes_nothing(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect(elicitation_callback=User(confirm=False)) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert error_code(result) == "declined"
    assert target.exists()


async def test_a_client_without_elicitation_deletes_as_before(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect() as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert not result.is_error, text_of(result)
    assert not target.exists()


async def test_a_soft_delete_of_a_file_asks_nothing(connect: ClientFactory, root: Path, state_dir: Path) -> None:
    target = _file(root, "a.txt")
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"path": str(target)})
    assert not result.is_error, text_of(result)
    assert not target.exists()
    assert user.asked == []
    assert [p.read_text(encoding="utf-8") for p in _trash_items(state_dir)] == ["keep me\n"]


async def test_a_call_that_cannot_run_asks_nothing_and_fails_as_before(connect: ClientFactory, root: Path) -> None:
    user = User()
    async with connect(elicitation_callback=user) as client:
        missing = await client.call_tool("delete_file", {"path": "nope.txt", "permanent": True})
        outside = await client.call_tool("delete_file", {"path": "/etc/hostname", "permanent": True})
    assert error_code(missing) == "not_found"
    assert error_code(outside) == "access_denied"
    assert user.asked == []


async def test_a_permanent_delete_of_several_paths_asks_about_the_rest_when_one_will_be_refused(
    connect: ClientFactory, root: Path
) -> None:
    target = _file(root, "a.txt")
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"paths": ["/etc/hostname", str(target)], "permanent": True})
    assert error_code(result) == "declined"
    assert len(user.asked) == 1
    assert "a.txt" in user.asked[0]
    assert "hostname" not in user.asked[0]
    assert target.read_text(encoding="utf-8") == "keep me\n"


# delete_file, recursive ------------------------------------------------------------------------------------------


async def test_a_recursive_delete_of_a_full_directory_asks_and_a_no_keeps_it(
    connect: ClientFactory, root: Path
) -> None:
    _file(root, "dir/a.txt")
    _file(root, "dir/sub/b.txt")
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"path": "dir", "recursive": True})
    assert error_code(result) == "declined"
    assert (root / "dir/sub/b.txt").read_text(encoding="utf-8") == "keep me\n"
    assert "3 files and folders (16 bytes) in all" in user.asked[0]  # two files of "keep me\n"
    assert "restore_trash" in user.asked[0]


async def test_a_recursive_delete_of_one_byte_says_1_byte(connect: ClientFactory, root: Path) -> None:
    _file(root, "dir/a.txt", "x")
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"path": "dir", "recursive": True})
    assert error_code(result) == "declined"
    assert (root / "dir/a.txt").read_bytes() == b"x"
    assert "(1 byte) in all" in user.asked[0], user.asked[0]


async def test_a_recursive_delete_the_user_accepts_goes_to_the_trash(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    _file(root, "dir/a.txt")
    async with connect(elicitation_callback=User()) as client:
        result = await client.call_tool("delete_file", {"path": "dir", "recursive": True})
    assert not result.is_error, text_of(result)
    assert not (root / "dir").exists()
    assert [p.joinpath("a.txt").read_text(encoding="utf-8") for p in _trash_items(state_dir)] == ["keep me\n"]


async def test_irreversible_mode_does_not_ask_for_a_recursive_soft_delete(connect: ClientFactory, root: Path) -> None:
    _file(root, "dir/a.txt")
    user = User(action="decline")
    async with connect(elicitation_callback=user, confirm="irreversible") as client:
        result = await client.call_tool("delete_file", {"path": "dir", "recursive": True})
    assert not result.is_error, text_of(result)
    assert not (root / "dir").exists()
    assert user.asked == []


async def test_irreversible_mode_still_asks_for_a_permanent_delete(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect(elicitation_callback=User(action="decline"), confirm="irreversible") as client:
        result = await client.call_tool("delete_file", {"paths": [str(target)], "permanent": True})
    assert error_code(result) == "declined"
    assert target.exists()


async def test_confirm_off_never_asks(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    user = User(action="decline")
    async with connect(elicitation_callback=user, confirm="off") as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert not result.is_error, text_of(result)
    assert not target.exists()
    assert user.asked == []


# backup(purge_trash) ----------------------------------------------------------------------------------------------


async def _trashed(client: Any, root: Path) -> None:
    _file(root, "old.txt", "trashed\n")
    assert not (await client.call_tool("delete_file", {"path": "old.txt"})).is_error


async def test_a_purge_the_user_declines_keeps_the_trash(connect: ClientFactory, root: Path, state_dir: Path) -> None:
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        await _trashed(client, root)
        result = await client.call_tool("backup", {"action": "purge_trash", "older_than_days": 0, "dry_run": False})
    assert error_code(result) == "declined"
    assert [p.read_text(encoding="utf-8") for p in _trash_items(state_dir)] == ["trashed\n"]
    assert "Purge 1 trash entry for good" in user.asked[0]


async def test_a_purge_of_one_file_of_one_byte_counts_it_in_the_singular(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        _file(root, "one.txt", "x")
        assert not (await client.call_tool("delete_file", {"path": "one.txt"})).is_error
        result = await client.call_tool("backup", {"action": "purge_trash", "older_than_days": 0, "dry_run": False})
    assert error_code(result) == "declined"
    assert "1 file (1 byte) leaves the trash for good" in user.asked[0]
    assert [p.read_bytes() for p in _trash_items(state_dir)] == [b"x"]


async def test_a_purge_the_user_accepts_empties_the_trash(connect: ClientFactory, root: Path, state_dir: Path) -> None:
    async with connect(elicitation_callback=User()) as client:
        await _trashed(client, root)
        result = await client.call_tool("backup", {"action": "purge_trash", "older_than_days": 0, "dry_run": False})
    assert structured(result)["removed"] == 1
    assert _trash_items(state_dir) == []


async def test_a_dry_run_purge_and_a_forced_one_ask_nothing(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        await _trashed(client, root)
        dry = await client.call_tool("backup", {"action": "purge_trash", "older_than_days": 0})
        assert structured(dry)["dry_run"] is True
        assert len(_trash_items(state_dir)) == 1
        forced = {"action": "purge_trash", "older_than_days": 0, "dry_run": False, "force": True}
        assert structured(await client.call_tool("backup", forced))["removed"] == 1
    assert _trash_items(state_dir) == []
    assert user.asked == []


# project_replace --------------------------------------------------------------------------------------------------


def _many(root: Path, count: int = 60) -> list[Path]:
    return [_file(root, f"m{i:02}.txt", "old\n") for i in range(count)]


async def test_a_high_risk_replace_the_user_accepts_runs_as_if_forced(connect: ClientFactory, root: Path) -> None:
    files = _many(root)
    user = User()
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("project_replace", {"find": "old", "replace": "new"})
    assert not result.is_error, text_of(result)
    assert {f.read_text(encoding="utf-8") for f in files} == {"new\n"}
    assert "in 60 files" in user.asked[0]
    assert "risk HIGH" in user.asked[0] or "risk CRITICAL" in user.asked[0]


async def test_a_high_risk_replace_the_user_declines_writes_nothing(connect: ClientFactory, root: Path) -> None:
    files = _many(root)
    async with connect(elicitation_callback=User(action="decline")) as client:
        result = await client.call_tool("project_replace", {"find": "old", "replace": "new"})
    assert error_code(result) == "declined"
    assert {f.read_text(encoding="utf-8") for f in files} == {"old\n"}


async def test_a_small_replace_asks_nothing(connect: ClientFactory, root: Path) -> None:
    files = _many(root, 2)
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("project_replace", {"find": "old", "replace": "new"})
    assert not result.is_error, text_of(result)
    assert {f.read_text(encoding="utf-8") for f in files} == {"new\n"}
    assert user.asked == []


async def test_without_elicitation_a_high_risk_replace_is_still_blocked(connect: ClientFactory, root: Path) -> None:
    files = _many(root)
    async with connect() as client:
        result = await client.call_tool("project_replace", {"find": "old", "replace": "new"})
    assert error_code(result) == "risk_blocked"
    assert {f.read_text(encoding="utf-8") for f in files} == {"old\n"}


async def test_irreversible_mode_keeps_the_risk_gate_for_a_replace(connect: ClientFactory, root: Path) -> None:
    _many(root)
    user = User()
    async with connect(elicitation_callback=user, confirm="irreversible") as client:
        result = await client.call_tool("project_replace", {"find": "old", "replace": "new"})
    assert error_code(result) == "risk_blocked"
    assert user.asked == []


# batch_operations(pipeline_json) ----------------------------------------------------------------------------------

_WIDE = [{"id": "wide", "action": "edit", "params": {"files": ["big.txt"], "old_text": "x", "new_text": "y"}}]


async def test_a_risky_pipeline_the_user_accepts_runs(connect: ClientFactory, root: Path) -> None:
    big = _file(root, "big.txt", "x " * 600)
    user = User()
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": _WIDE}})
    assert not result.is_error, text_of(result)
    assert big.read_text(encoding="utf-8") == "y " * 600
    assert "1 'wide' (edit would change 1 file, 600 edits: risk HIGH)" in user.asked[0]


async def test_a_risky_pipeline_the_user_cancels_changes_nothing(connect: ClientFactory, root: Path) -> None:
    big = _file(root, "big.txt", "x " * 600)
    async with connect(elicitation_callback=User(action="cancel")) as client:
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": _WIDE}})
    assert error_code(result) == "declined"
    assert big.read_text(encoding="utf-8") == "x " * 600


async def test_without_elicitation_a_risky_pipeline_is_still_blocked(connect: ClientFactory, root: Path) -> None:
    big = _file(root, "big.txt", "x " * 600)
    async with connect() as client:
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": _WIDE}})
    assert error_code(result) == "batch_failed"
    assert big.read_text(encoding="utf-8") == "x " * 600


# git restore ------------------------------------------------------------------------------------------------------


async def test_a_git_restore_the_user_accepts_discards_the_edit(connect: ClientFactory, root: Path) -> None:
    make_repo(root)
    (root / "a.txt").write_text("edited\n", encoding="utf-8")
    user = User()
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt"]})
    assert not result.is_error, text_of(result)
    assert (root / "a.txt").read_text(encoding="utf-8") == "alpha\n"
    assert "Discard the uncommitted changes of 1 file" in user.asked[0]


async def test_a_git_restore_the_user_declines_keeps_the_edit(connect: ClientFactory, root: Path) -> None:
    make_repo(root)
    (root / "a.txt").write_text("edited\n", encoding="utf-8")
    async with connect(elicitation_callback=User(action="decline"), confirm="irreversible") as client:
        result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt"]})
    assert error_code(result) == "declined"
    assert (root / "a.txt").read_text(encoding="utf-8") == "edited\n"
    assert git(root, "status", "--porcelain").strip() == "M a.txt"


async def test_without_elicitation_a_git_restore_still_needs_force(connect: ClientFactory, root: Path) -> None:
    make_repo(root)
    (root / "a.txt").write_text("edited\n", encoding="utf-8")
    async with connect() as client:
        result = await client.call_tool("git", {"action": "restore", "paths": ["a.txt"]})
    assert error_code(result) == "risk_blocked"
    assert (root / "a.txt").read_text(encoding="utf-8") == "edited\n"


# git push ---------------------------------------------------------------------------------------------------------


def _diverged(root: Path) -> tuple[Path, str]:
    """A repository whose published main was rewritten locally: a plain push is rejected."""
    repo = make_repo(root)
    git(repo.parent, "init", "-q", "--bare", str(repo / "remote.git"))
    git(repo, "remote", "add", "origin", "remote.git")
    (repo / ".git" / "info" / "exclude").write_text("remote.git/\n", encoding="utf-8")
    git(repo, "push", "-q", "-u", "origin", "main")
    published = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "commit", "-q", "--amend", "-m", "rewritten")
    return repo, published


async def test_a_rejected_push_the_user_accepts_is_pushed_with_lease(connect: ClientFactory, root: Path) -> None:
    repo, _ = _diverged(root)
    user = User()
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("git", {"action": "push"})
    assert structured(result)["forced"] is True
    assert git(repo / "remote.git", "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    assert "Force-push to 'origin' (--force-with-lease)" in user.asked[0]
    assert "main" in user.asked[0]


async def test_a_rejected_push_the_user_declines_leaves_the_remote(connect: ClientFactory, root: Path) -> None:
    repo, published = _diverged(root)
    async with connect(elicitation_callback=User(action="decline"), confirm="irreversible") as client:
        result = await client.call_tool("git", {"action": "push"})
    assert error_code(result) == "declined"
    assert git(repo / "remote.git", "rev-parse", "main").strip() == published


async def test_a_fast_forward_push_asks_nothing(connect: ClientFactory, root: Path) -> None:
    repo, _ = _diverged(root)
    git(repo, "push", "-q", "--force", "origin", "main")
    (repo / "b.txt").write_text("beta\n", encoding="utf-8")
    git(repo, "add", "b.txt")
    git(repo, "commit", "-q", "-m", "more")
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("git", {"action": "push"})
    assert structured(result)["forced"] is False
    assert git(repo / "remote.git", "rev-parse", "main") == git(repo, "rev-parse", "HEAD")
    assert user.asked == []


async def test_without_elicitation_a_rejected_push_still_needs_force(connect: ClientFactory, root: Path) -> None:
    repo, published = _diverged(root)
    async with connect() as client:
        result = await client.call_tool("git", {"action": "push"})
    assert error_code(result) == "git_error"
    assert git(repo / "remote.git", "rev-parse", "main").strip() == published


# stats and audit --------------------------------------------------------------------------------------------------


async def test_a_call_that_asks_is_counted_once_and_a_declined_one_is_audited(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    kept, gone = _file(root, "kept.txt"), _file(root, "gone.txt")
    logs = tmp_path / "logs"
    async with connect(elicitation_callback=User(action="decline"), log_dir=logs) as client:
        await client.call_tool("delete_file", {"path": str(kept), "permanent": True})
    async with connect(elicitation_callback=User(), log_dir=logs) as client:
        await client.call_tool("delete_file", {"path": str(gone), "permanent": True})
        stats = structured(await client.call_tool("server_info", {"action": "stats"}))["stats"]
    assert stats["by_tool"]["delete_file"] == 1
    lines = [json.loads(line) for line in (logs / "operations.jsonl").read_text(encoding="utf-8").splitlines()]
    deletes = [(line["status"], line.get("error_code")) for line in lines if line["tool"] == "delete_file"]
    assert deletes == [("error", "declined"), ("ok", None)]
    assert kept.exists()
    assert not gone.exists()


# real transports --------------------------------------------------------------------------------------------------


async def test_over_stdio_a_declined_permanent_delete_keeps_the_file(root: Path, state_dir: Path, mode: str) -> None:
    kept = _file(root, "kept.txt")
    user = User(action="decline")
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    )
    with anyio.fail_after(30):
        async with Client(params, mode=mode, read_timeout_seconds=20, elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": str(kept), "permanent": True})
    assert (error_code(result), len(user.asked)) == ("declined", 1)
    assert kept.read_text(encoding="utf-8") == "keep me\n"


async def test_over_http_the_user_is_asked_in_both_eras(base_settings: Settings, root: Path, mode: str) -> None:
    kept = _file(root, "kept.txt")
    user = User(action="decline")
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    with anyio.fail_after(30):
        async with http_server(settings) as url, Client(url, mode=mode, elicitation_callback=user) as client:
            result = await client.call_tool("delete_file", {"path": str(kept), "permanent": True})
    assert (error_code(result), len(user.asked)) == ("declined", 1)
    assert kept.exists()


async def test_forced_preview_and_dry_run_calls_ask_nothing(connect: ClientFactory, root: Path) -> None:
    files = _many(root)
    big = _file(root, "big.txt", "x " * 600)
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        preview = await client.call_tool("project_replace", {"find": "old", "replace": "new", "preview": True})
        dry = {"name": "p", "steps": _WIDE, "dry_run": True}
        planned = await client.call_tool("batch_operations", {"pipeline_json": dry})
        forced = await client.call_tool("project_replace", {"find": "old", "replace": "new", "force": True})
        empty = await client.call_tool("backup", {"action": "purge_trash", "older_than_days": 0, "dry_run": False})
    assert not preview.is_error, text_of(preview)
    assert not planned.is_error, text_of(planned)
    assert structured(empty)["removed"] == 0
    assert not forced.is_error, text_of(forced)
    assert {f.read_text(encoding="utf-8") for f in files} == {"new\n"}
    assert big.read_text(encoding="utf-8") == "x " * 600
    assert user.asked == []
