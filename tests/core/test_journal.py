"""Replaying a backup journal's events: records, the chain head, and the links a drop cuts."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.journal import BackupRecord, Replay


class _Unlisted(dict[str, BackupRecord]):
    """Records that refuse to be looked through whole: what one event must not need."""

    def items(self) -> Any:
        raise AssertionError("an event looked through every record")

    def values(self) -> Any:
        raise AssertionError("an event looked through every record")

    def __iter__(self) -> Any:
        raise AssertionError("an event looked through every record")


def backup(
    backup_id: str, parent: str | None, *, content_hash: str = "h", size: int = 1, blob: str = ""
) -> dict[str, Any]:
    return {
        "e": "backup",
        "backup_id": backup_id,
        "path": "/r/f.txt",
        "time": 1.0,
        "operation": "edit_file",
        "size": size,
        "content_hash": content_hash,
        "blob": blob,
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
    assert replay.children == {"a": ("b",)}


def test_an_edit_finds_a_twin_and_the_live_bytes_without_a_look_at_every_record() -> None:
    replay = Replay()
    replay.apply(backup("a", None, content_hash="old", size=3))
    replay.apply(backup("b", "a", content_hash="new", size=5))
    replay.apply(backup("c", "b", content_hash="new", size=5, blob="sha"))  # in the old blob store: no twin
    replay.records = _Unlisted(replay.records)

    twin = replay.twin("new", 5)

    assert twin is not None
    assert twin.backup_id == "b"
    assert replay.twin("old", 5) is None
    assert replay.live == 8


# Events on a few backups of a few versions: (drop?, which backup, which version, in the old blob store?).
journal_events = st.lists(
    st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 2), st.booleans()), min_size=1, max_size=30
)


@given(journal_events)
def test_the_live_bytes_and_twins_stay_those_of_the_live_records_through_any_backups_and_drops(
    events: list[tuple[bool, int, int, bool]],
) -> None:
    replay = Replay()
    newest: dict[tuple[str, int], str] = {}  # each version's newest backup in the journal
    for drop, number, version, in_blob_store in events:
        backup_id = f"b{number}"
        if drop:
            replay.apply({"e": "drop", "id": backup_id})
            continue
        key = (f"v{version}", version + 1)
        blob = "sha" if in_blob_store else ""
        replay.apply(backup(backup_id, replay.head, content_hash=key[0], size=key[1], blob=blob))
        if not blob:
            newest[key] = backup_id

    live = [record for record in replay.records.values() if not record.blob]
    assert replay.live == sum(record.size for record in live)
    for key, backup_id in newest.items():
        twin = replay.twin(*key)
        if twin is not None:  # always a live copy of those bytes
            assert twin in live
            assert (twin.content_hash, twin.size) == key
        found = replay.records.get(backup_id)
        if found is not None and not found.blob and (found.content_hash, found.size) == key:
            assert twin == found  # the newest, while it lives
