"""The state directory's listings (change groups, trash entries, backups) read again only what changed on disk: each
equals a listing read from scratch, sees what another process wrote, changed or removed, and leaves out what
cannot be read."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from fsguard.core import parsedfiles, trashentries
from fsguard.core import replays as replays_module
from fsguard.core.backups import BackupRecord, BackupStore
from fsguard.core.beneath import Pinned
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import BackupCorruptError, InvalidParamsError, NotFoundError
from fsguard.core.groups import Change, Group, GroupStore
from fsguard.core.inventory import BackupFilter, list_backups, list_groups, list_trash, operation_matches, purge_trash
from fsguard.core.journal import Replay, read_journal
from fsguard.core.rmtree import remove_tree_named
from fsguard.core.trash import Trash
from fsguard.core.trashentries import TrashEntry
from tests.strategies import StoreAct, store_events

NOW = 1_700_000_000.0
DAY_S = 86_400.0


def trash_files(trash: Trash, files: Path, names: list[str]) -> list[TrashEntry]:
    files.mkdir(exist_ok=True)
    fd = os.open(files, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        entries = []
        for name in names:
            (files / name).write_bytes(name.encode())
            entries.append(trash.put(Pinned(fd, name, files / name)))
        return entries
    finally:
        os.close(fd)


def test_a_trash_entry_whose_description_is_corrupt_is_left_out_of_the_listing_and_the_purge(tmp_path: Path) -> None:
    then = Trash(tmp_path / "trash", AtomicWriter(tmp_path), clock=lambda: NOW - 10 * DAY_S)
    kept, broken, odd, typed = trash_files(then, tmp_path / "files", ["kept.txt", "broken.txt", "odd.txt", "typed"])
    trash = Trash(tmp_path / "trash", AtomicWriter(tmp_path), clock=lambda: NOW)
    (tmp_path / "trash" / broken.sd_id / "meta.json").write_bytes(b"{not json")
    (tmp_path / "trash" / odd.sd_id / "meta.json").write_bytes(b'{"sd_id": "sd-1"}')
    # Parses, but a time that is a string failed the sort of the whole listing.
    (tmp_path / "trash" / typed.sd_id / "meta.json").write_text(
        json.dumps({**vars(typed), "time": "yesterday"}), encoding="utf-8"
    )

    listed = list_trash(trash, path_contains=None, older_than_days=None, limit=10)
    swept = purge_trash(trash, sd_id=None, older_than_days=7, dry_run=True, limit=10)

    assert ([entry.sd_id for entry in listed.shown], listed.total) == ([kept.sd_id], 1)
    assert ([entry.sd_id for entry in swept.shown], swept.removed) == ([kept.sd_id], 1)
    assert (tmp_path / "trash" / broken.sd_id / "item").read_bytes() == b"broken.txt"
    for damaged in (broken, odd, typed):
        with pytest.raises(BackupCorruptError, match="move it back by hand"):
            trash.get(damaged.sd_id)


PATHS = ("/r/a", "/r/b/a", "/r/hidden/a", "/r/B")
OPERATIONS = ("batch_operations", "project_replace", "edit_file:replace")
HOUR_S = 3_600.0


def hides_hidden(path: str, is_dir: bool = False) -> bool:
    return "/hidden/" not in path


FILTERS = (
    BackupFilter(),
    BackupFilter(shown=hides_hidden),
    BackupFilter(path=Path("/r/b/a"), shown=hides_hidden),
    BackupFilter(path_contains="b", shown=hides_hidden),
    BackupFilter(path_contains="HIDDEN"),
    BackupFilter(operation="edit_file", shown=hides_hidden),
    BackupFilter(newer_than_hours=1.5, shown=hides_hidden),
)


@pytest.fixture
def settled_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as settled as soon as written: the listings trust a stat at once, so these tests exercise what
    they remember rather than files read again for being young (each rewrite below changes a file's size: a
    reused inode within one clock tick would otherwise keep its stat)."""
    monkeypatch.setattr(parsedfiles, "_SETTLED_NS", 0)


def admitted_before(wanted: BackupFilter, item: BackupRecord | Group, now: float) -> bool:
    """The filter as it was written before the listings remembered anything: every condition, in its order."""
    paths = [item.path] if isinstance(item, BackupRecord) else item.paths
    shown = [path for path in paths if wanted.shown is None or wanted.shown(path)]
    return (
        bool(shown)
        and (wanted.path is None or str(wanted.path) in shown)
        and (not wanted.path_contains or any(wanted.path_contains.lower() in path.lower() for path in shown))
        and operation_matches(item.operation, wanted.operation)
        and (wanted.newer_than_hours is None or item.time >= now - wanted.newer_than_hours * HOUR_S)
    )


def groups_read_afresh(store: GroupStore) -> list[Group]:
    found = []
    for path in store.root.glob("*.json"):
        try:
            group = store.find(path.stem)
        except (BackupCorruptError, InvalidParamsError):
            continue
        if group is not None:
            found.append(group)
    return sorted(found, key=lambda group: (group.time, group.group_id), reverse=True)


def group_payload(group_id: str, step: int, number: int) -> bytes:
    change = {"kind": "created", "path": PATHS[number % 4], "after_hash": "811c9dc5"}
    payload = {"group_id": group_id, "operation": "x" * (step + 1), "time": NOW + number % 4, "changes": [change]}
    return json.dumps(payload).encode()


def saved(store: GroupStore, path: str) -> Group:
    group = store.save("batch_operations", [Change.created(Path(path), "0")])
    assert group is not None
    return group


@given(events=store_events())
def test_group_listings_equal_the_groups_read_afresh_whatever_another_process_does_between_them(
    tmp_path: Path, settled_at_once: None, events: list[tuple[StoreAct, int]]
) -> None:
    home = Path(tempfile.mkdtemp(dir=tmp_path))
    writer, moment = AtomicWriter(home), [NOW]
    other = GroupStore(home / "groups", writer, clock=lambda: moment[0])
    lister = GroupStore(home / "groups", writer)
    for step, (act, number) in enumerate([*events, ("list", 0)]):
        files = sorted(other.root.glob("*.json"))
        if act == "add":
            moment[0] = NOW + number % 4 - HOUR_S * (number % 3)
            changes = [Change.created(Path(PATHS[(number + k) % 4]), "811c9dc5") for k in range(number % 2 + 1)]
            other.save(OPERATIONS[number % 3], changes)
        elif act == "list":
            expected = groups_read_afresh(other)
            assert lister.groups() == expected
            for wanted in FILTERS:
                page = list_groups(lister, wanted, 2, now=NOW + 4)
                admitted = [group for group in expected if admitted_before(wanted, group, NOW + 4)]
                assert (page.shown, page.total) == (admitted[:2], len(admitted))
        elif files:
            target = files[number % len(files)]
            if act == "rewrite":
                writer.write(target, group_payload(target.stem, step, number))
            elif act == "remove":
                target.unlink()
            else:
                target.write_bytes(b"{" * (step + 1))


def test_a_second_group_listing_reads_no_file_again_and_a_changed_or_removed_one_is_seen(
    tmp_path: Path, settled_at_once: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = AtomicWriter(tmp_path)
    other = GroupStore(tmp_path / "groups", writer)
    kept, changed, gone = (saved(other, path) for path in PATHS[:3])
    lister = GroupStore(tmp_path / "groups", writer)
    assert len(lister.groups()) == 3
    reads: list[str] = []
    find = GroupStore.find

    def counted(store: GroupStore, group_id: str) -> Group | None:
        reads.append(group_id)
        return find(store, group_id)

    monkeypatch.setattr(GroupStore, "find", counted)

    assert len(lister.groups()) == 3
    assert reads == []
    writer.write(other.root / f"{changed.group_id}.json", group_payload(changed.group_id, 5, 1))
    (other.root / f"{gone.group_id}.json").unlink()
    listed = lister.groups()

    assert reads == [changed.group_id]
    assert sorted((group.group_id, group.operation) for group in listed) == sorted(
        [(kept.group_id, "batch_operations"), (changed.group_id, "xxxxxx")]
    )


def entries_read_afresh(root: Path) -> list[TrashEntry]:
    found = []
    for home in root.glob("sd-*"):
        meta, item = home / "meta.json", home / "item"
        if meta.is_file() and (item.exists() or item.is_symlink()):
            try:
                found.append(TrashEntry(**json.loads(meta.read_text(encoding="utf-8"))))
            except (ValueError, TypeError):
                continue
    return sorted(found, key=lambda entry: (entry.time, entry.sd_id), reverse=True)


TRASH_QUERIES = ((None, None, None), ("b", None, hides_hidden), (None, 1.5, hides_hidden), ("A", 0.5, None))


@given(events=store_events())
def test_trash_listings_equal_the_entries_read_afresh_whatever_another_process_does_between_them(
    tmp_path: Path, settled_at_once: None, events: list[tuple[StoreAct, int]]
) -> None:
    home = Path(tempfile.mkdtemp(dir=tmp_path))
    writer, moment = AtomicWriter(home), [NOW]
    other = Trash(home / "trash", writer, clock=lambda: moment[0])
    lister = Trash(home / "trash", writer, clock=lambda: NOW + 4 * DAY_S)
    files = home / "files"
    for step, (act, number) in enumerate([*events, ("list", 0)]):
        entries = sorted(other.root.glob("sd-*"))
        if act == "add":
            moment[0] = NOW + (number % 4) * DAY_S
            name = PATHS[number % 4].removeprefix("/r/").replace("/", "_")
            trash_files(other, files, [name + "." * (number % 3)])
        elif act == "list":
            expected = entries_read_afresh(other.root)
            assert lister.entries() == expected
            for contains, days, shown in TRASH_QUERIES:
                page = list_trash(lister, path_contains=contains, older_than_days=days, limit=2, shown=shown)
                cutoff = NOW + 4 * DAY_S - (days or 0) * DAY_S
                admitted = [
                    entry
                    for entry in expected
                    if (days is None or entry.time < cutoff)
                    and (shown is None or shown(entry.original_path))
                    and (not contains or contains.lower() in entry.original_path.lower())
                ]
                assert (page.shown, page.total) == (admitted[:2], len(admitted))
        elif entries:
            target = entries[number % len(entries)]
            if act == "rewrite" and number % 2:
                (target / "item").unlink(missing_ok=True)
            elif act == "rewrite":
                moved = TrashEntry(target.name, "/r/hidden/" + "x" * step, "file", step, 1, "0", NOW + number % 4)
                writer.write(target / "meta.json", json.dumps(vars(moved)).encode())
            elif act == "remove":
                remove_tree_named(target)
            else:
                (target / "meta.json").write_bytes(b"{" * (step + 1))


def test_a_second_trash_listing_reads_no_description_again_and_a_changed_or_emptied_entry_is_seen(
    tmp_path: Path, settled_at_once: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = AtomicWriter(tmp_path)
    other = Trash(tmp_path / "trash", writer, clock=lambda: NOW)
    kept, changed, emptied, gone = trash_files(other, tmp_path / "files", ["kept", "changed", "emptied", "gone"])
    lister = Trash(tmp_path / "trash", writer)
    assert len(lister.entries()) == 4
    reads: list[str] = []

    def counted(**fields: object) -> TrashEntry:
        reads.append(str(fields["sd_id"]))
        return TrashEntry(**fields)  # type: ignore[arg-type]

    monkeypatch.setattr(trashentries, "TrashEntry", counted)
    assert len(lister.entries()) == 4
    assert reads == []
    writer.write(other.root / changed.sd_id / "meta.json", json.dumps({**vars(changed), "size": 12345}).encode())
    (other.root / emptied.sd_id / "item").unlink()
    remove_tree_named(other.root / gone.sd_id)
    listed = lister.entries()

    assert reads == [changed.sd_id]
    assert sorted((entry.sd_id, entry.size) for entry in listed) == sorted([(kept.sd_id, 4), (changed.sd_id, 12345)])


def test_listing_an_unchanged_store_again_keeps_what_it_remembered_rather_than_equal_copies(
    tmp_path: Path, settled_at_once: None
) -> None:
    # New copies of 10,000 remembered entries on every call made the cyclic garbage collector sweep the whole heap
    # every few calls (a fifth to a third of a trash listing's mean time).
    trash = Trash(tmp_path / "trash", AtomicWriter(tmp_path), clock=lambda: NOW)
    trash_files(trash, tmp_path / "files", [f"f{i}" for i in range(20)])
    assert len(trash.entries()) == 20
    remembered = dict(trash._metas._last[0])

    assert len(trash.entries()) == 20
    assert remembered.keys() == trash._metas._last[0].keys()
    assert all(trash._metas._last[0][name] is pair for name, pair in remembered.items())


def records_read_afresh(root: Path) -> list[BackupRecord]:
    found: list[BackupRecord] = []
    for journal in (root / "journal").glob("*.jsonl"):
        with journal.open("rb") as handle:
            found.extend(read_journal(handle).records.values())
    return sorted(found, key=lambda record: (record.time, record.backup_id), reverse=True)


@given(events=store_events())
def test_backup_listings_equal_the_journals_read_afresh_whatever_another_process_does_between_them(
    tmp_path: Path, settled_at_once: None, events: list[tuple[StoreAct, int]]
) -> None:
    root, moment = Path(tempfile.mkdtemp(dir=tmp_path)) / "backups", [NOW]
    other = BackupStore(root, max_age_days=365, max_count=2, clock=lambda: moment[0])
    lister = BackupStore(root, max_age_days=365, max_count=2)
    for act, number in [*events, ("list", 0)]:
        path, journals = Path(PATHS[number % 4]), sorted((root / "journal").glob("*.jsonl"))
        if act == "add":
            moment[0] = NOW + number % 4 - HOUR_S * (number % 3)
            operation = OPERATIONS[number % 3]
            other.snapshot(path, bytes([number % 3]) * (number % 5), 0o644, operation=operation, after_hash=None)
        elif act == "rewrite" and (head := other.head(path)) is not None:
            other.step_back(head, withdraw=bool(number % 2))
        elif act == "remove" and journals:
            journals[number % len(journals)].unlink()
        elif act == "corrupt" and journals:
            with journals[number % len(journals)].open("ab") as torn:
                torn.write(b'{"e":"backup","backup_id":')
        elif act == "list":
            expected = records_read_afresh(root)
            assert lister.records() == expected
            for wanted in FILTERS:
                page = list_backups(lister, wanted, 2, now=NOW + 4)
                admitted = [record for record in expected if admitted_before(wanted, record, NOW + 4)]
                assert (page.shown, page.total) == (admitted[:2], len(admitted))
            assert [lister.get(record.backup_id) for record in expected] == expected


def test_a_second_backup_listing_replays_no_journal_again_past_the_replays_kept_and_sees_an_append(
    tmp_path: Path, settled_at_once: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replays_module, "_REPLAYS_KEPT", 1)
    moment = [NOW]
    other = BackupStore(tmp_path / "backups", max_age_days=365, max_count=5, clock=lambda: moment[0])
    for path in PATHS[:3]:
        other.snapshot(Path(path), b"one", 0o644, operation="edit_file:replace", after_hash=None)
    lister = BackupStore(tmp_path / "backups", max_age_days=365, max_count=5)
    assert len(lister.records()) == 3
    replays: list[str] = []
    for name in ("read_journal", "read_on"):
        monkeypatch.setattr(replays_module, name, counting(getattr(replays_module, name), replays))

    assert len(lister.records()) == 3
    for _ in range(2):
        with pytest.raises(NotFoundError):
            lister.get("20200101-000000-0123456789abcdef")
    assert replays == []
    moment[0] = NOW + 1
    added = other.snapshot(Path(PATHS[0]), b"two", 0o644, operation="write_file", after_hash=None)
    replays.clear()  # the other process's own

    assert lister.records()[0] == added
    assert len(replays) == 1  # that journal only


def counting(replay: Callable[..., Replay], calls: list[str]) -> Callable[..., Replay]:
    def counted(*args: Any) -> Replay:
        calls.append(replay.__name__)
        return replay(*args)

    return counted
