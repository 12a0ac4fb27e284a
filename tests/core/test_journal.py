"""Replaying a backup journal's events: records, the chain head, and the links a drop cuts."""

from __future__ import annotations

from typing import Any

from fsguard.core.journal import BackupRecord, Replay


class _Unlisted(dict[str, BackupRecord]):
    """Records that refuse to be looked through whole: what one event must not need."""

    def items(self) -> Any:
        raise AssertionError("an event looked through every record")

    def values(self) -> Any:
        raise AssertionError("an event looked through every record")

    def __iter__(self) -> Any:
        raise AssertionError("an event looked through every record")


def backup(backup_id: str, parent: str | None) -> dict[str, Any]:
    return {
        "e": "backup",
        "backup_id": backup_id,
        "path": "/r/f.txt",
        "time": 1.0,
        "operation": "edit_file",
        "size": 1,
        "content_hash": "h",
        "mode": 0o644,
        "after_hash": None,
        "parent_backup_id": parent,
        "chained": True,
    }


def test_a_dropped_backup_ends_the_chain_of_its_child_without_a_look_at_every_other_record() -> None:
    replay = Replay()
    for backup_id, parent in (("a", None), ("b", "a"), ("c", "b"), ("d", "c")):
        replay.apply(backup(backup_id, parent))
    replay.records = _Unlisted(replay.records)

    replay.apply({"e": "drop", "id": "b"})

    assert dict.keys(replay.records) == {"a", "c", "d"}
    assert dict.__getitem__(replay.records, "c").parent_backup_id is None
    assert dict.__getitem__(replay.records, "d").parent_backup_id == "c"
    assert dict.__getitem__(replay.records, "a").parent_backup_id is None
    assert replay.head == "d"


def test_a_copied_replay_cuts_links_on_its_own() -> None:
    replay = Replay()
    for backup_id, parent in (("a", None), ("b", "a")):
        replay.apply(backup(backup_id, parent))
    copy = replay.copy()

    copy.apply({"e": "drop", "id": "a"})
    copy.apply(backup("c", "b"))

    assert copy.records["b"].parent_backup_id is None
    assert replay.records["b"].parent_backup_id == "a"
    assert replay.children == {"a": ["b"]}
