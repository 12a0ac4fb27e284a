"""The group store's listing: newest first by the time recorded, a group that cannot be read left out."""

from __future__ import annotations

import itertools
from pathlib import Path

from fsguard.core.disk import AtomicWriter
from fsguard.core.groups import Change, GroupStore


def test_groups_are_listed_newest_first_within_one_second_and_an_unreadable_one_is_left_out(tmp_path: Path) -> None:
    ticks = itertools.count(1_700_000_000.1, 0.1)  # one second holds them all: their ids sort by a random part
    store = GroupStore(tmp_path / "groups", AtomicWriter(tmp_path), clock=lambda: next(ticks))
    saved = [store.save("batch_operations", [Change.created(Path(f"/r/{n}.txt"), "811c9dc5")]) for n in range(6)]
    broken = store.save("project_replace", [Change.created(Path("/r/x.txt"), "811c9dc5")])
    assert broken is not None
    (tmp_path / "groups" / f"{broken.group_id}.json").write_bytes(b"{not json")

    listed = store.groups()

    assert [group.group_id for group in listed] == [group.group_id for group in reversed(saved) if group]
