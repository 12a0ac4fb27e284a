"""backup(action="cleanup", dry_run=false) asks the user first, as purge_trash does: removed backups cannot be undone.

Every test runs in both eras (conftest's ``connect``); the backups are checked on disk, in the state directory.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.types import ElicitRequestParams, ElicitResult

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_confirmation import User

pytestmark = pytest.mark.anyio

_CLEANUP = {"action": "cleanup", "older_than_days": 0, "dry_run": False}


def _store(state_dir: Path) -> dict[str, bytes]:
    """Every file of the backup store (its journals and blobs), by path, with its bytes."""
    store = state_dir / "backups"
    return {str(p.relative_to(store)): p.read_bytes() for p in sorted(store.rglob("*")) if p.is_file()}


def _journals(state_dir: Path) -> list[Path]:
    return sorted((state_dir / "backups" / "journal").glob("*.jsonl"))


async def _edited(client: Client, root: Path, *names: str) -> None:
    for name in names:
        (root / name).write_text("1\n", encoding="utf-8")
        for old, new in (("1", "2"), ("2", "3")):
            done = await client.call_tool("edit_file", {"path": name, "old_text": old, "new_text": new})
            assert not done.is_error, text_of(done)


async def test_a_cleanup_the_user_accepts_removes_the_backups_from_disk(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    user = User()
    async with connect(elicitation_callback=user) as client:
        await _edited(client, root, "a.txt", "b.txt")
        assert _journals(state_dir)
        result = await client.call_tool("backup", _CLEANUP)
        assert not result.is_error, text_of(result)
        assert structured(result)["removed"] == 4
        assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0
    assert _journals(state_dir) == []
    assert len(user.asked) == 1
    assert "Remove 4 undo backups of 2 files for good: 'a.txt'" in user.asked[0].replace(str(root) + "/", "")
    assert "8 bytes of saved versions" in user.asked[0]
    assert "cannot be undone" in user.asked[0]


async def test_a_cleanup_the_user_declines_keeps_every_backup_byte_exact(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    async with connect(elicitation_callback=User(action="decline")) as client:
        await _edited(client, root, "a.txt")
        before = _store(state_dir)
        result = await client.call_tool("backup", _CLEANUP)
        assert error_code(result) == "declined"
        assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 2
    assert _journals(state_dir)
    assert _store(state_dir) == before


async def test_a_cleanup_that_removes_nothing_or_is_a_dry_run_or_forced_asks_nothing(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        empty = await client.call_tool("backup", _CLEANUP)
        assert structured(empty)["removed"] == 0
        await _edited(client, root, "a.txt")
        young = await client.call_tool("backup", {**_CLEANUP, "older_than_days": 30})
        assert structured(young)["removed"] == 0
        dry = await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0})
        assert structured(dry)["removed"] == 2
        assert structured(await client.call_tool("backup", {**_CLEANUP, "force": True}))["removed"] == 2
    assert user.asked == []
    assert _journals(state_dir) == []


async def test_a_client_without_elicitation_cleans_up_on_dry_run_false_as_a_purge_purges(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    async with connect() as client:
        await _edited(client, root, "a.txt")
        assert structured(await client.call_tool("backup", _CLEANUP))["removed"] == 2
    assert _journals(state_dir) == []


async def test_the_question_never_names_a_backup_a_deny_rule_hides(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    async with connect(default_deny=False) as client:
        await _edited(client, root, "secret.txt", "open.txt")
    user = User(action="decline")
    async with connect(deny=("secret.txt",), elicitation_callback=user) as client:
        result = await client.call_tool("backup", _CLEANUP)
        assert error_code(result) == "declined"
    assert "secret" not in user.asked[0]
    assert "Remove 2 undo backups of 1 file for good" in user.asked[0]


async def test_a_yes_given_while_more_backups_came_asks_again_about_them(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    async with connect() as other, connect() as setup:
        await _edited(setup, root, "a.txt")

        class Busy(User):
            async def __call__(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
                if not self.asked:  # another client edits while the user reads the first question
                    await other.call_tool("edit_file", {"path": "a.txt", "old_text": "3", "new_text": "4"})
                return await super().__call__(context, params)

        user = Busy()
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("backup", _CLEANUP)
    assert not result.is_error, text_of(result)
    assert [asked.split(":")[0] for asked in user.asked] == [
        "Remove 2 undo backups of 1 file for good",
        "Remove 3 undo backups of 1 file for good",
    ]
    assert structured(result)["removed"] == 3
    assert _journals(state_dir) == []
