"""Reverting recorded changes of every kind, and saving and reading change groups."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsguard.config import Settings
from fsguard.core.errors import BackupCorruptError, InvalidParamsError, UndoConflictError
from fsguard.core.groups import Change
from fsguard.core.hashing import content_hash
from fsguard.core.journal import Replay
from fsguard.services import Services


@pytest.fixture
def services(root: Path, state_dir: Path) -> Services:
    return Services.create(Settings(roots=(root,), state_dir=state_dir))


def tree(root: Path) -> dict[str, bytes | None]:
    """Every entry under ``root``: a file's bytes, None for a directory."""
    return {str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None) for p in sorted(root.rglob("*"))}


def test_reverting_undoes_creates_moves_copies_and_trashing_newest_first(services: Services, root: Path) -> None:
    (root / "kept.txt").write_bytes(b"kept\r\n")
    (root / "moved.txt").write_bytes(b"moving\n")
    (root / "binned.txt").write_bytes(b"binned\n")
    (root / "tree").mkdir()
    (root / "tree" / "leaf.txt").write_bytes(b"leaf\n")
    before = tree(root)

    changes: list[Change] = []
    services.directories.create("new")
    changes.append(Change("created_dir", str(root / "new")))
    written = services.writer.write("new/made.txt", "made\n")
    changes.append(Change.created(written.path, written.content_hash))
    edited = services.writer.write("kept.txt", "kept, edited\r\n")
    changes.append(
        Change.modified(edited.path, edited.backup.backup_id if edited.backup else None, edited.content_hash)
    )
    source, destination, *_ = services.mover.move("moved.txt", "new/moved.txt")
    changes.append(Change("moved", str(destination), source=str(source)))
    copied = services.mover.copy("tree", "tree-copy")
    changes.append(Change("copied", str(copied.destination)))
    trashed = services.deleter.delete("binned.txt")
    assert trashed.trash is not None
    changes.append(Change("trashed", str(trashed.path), sd_id=trashed.trash.sd_id))
    assert tree(root) != before

    outcomes = services.reverter.revert(changes)

    assert [o.change.kind for o in outcomes] == ["trashed", "copied", "moved", "modified", "created", "created_dir"]
    assert {o.status for o in outcomes} == {"reverted"}
    assert tree(root) == before


def test_a_change_touched_since_is_a_conflict_and_nothing_is_reverted(services: Services, root: Path) -> None:
    written = services.writer.write("made.txt", "made\n")
    (root / "other.txt").write_bytes(b"x\n")
    edited = services.writer.write("other.txt", "y\n")
    changes = [
        Change.created(written.path, written.content_hash),
        Change.modified(edited.path, edited.backup.backup_id if edited.backup else None, edited.content_hash),
    ]
    (root / "made.txt").write_bytes(b"changed by another process\n")
    with pytest.raises(UndoConflictError) as raised:
        services.reverter.revert(changes)
    assert raised.value.fields["conflicts"] == [str(root / "made.txt")]
    assert (root / "made.txt").read_bytes() == b"changed by another process\n"
    assert (root / "other.txt").read_bytes() == b"y\n"


def test_forcing_a_revert_backs_up_a_created_file_that_changed_before_removing_it(
    services: Services, root: Path
) -> None:
    written = services.writer.write("made.txt", "made\n")
    (root / "made.txt").write_bytes(b"precious later bytes\n")
    [outcome] = services.reverter.revert([Change.created(written.path, written.content_hash)], force=True)
    assert outcome.status == "reverted"
    assert not (root / "made.txt").exists()
    saved = [r for r in services.backups.records() if r.path == str(root / "made.txt")]
    assert [services.backups.read_blob(r) for r in saved] == [b"precious later bytes\n"]


def test_a_created_directory_that_gained_files_is_kept(services: Services, root: Path) -> None:
    services.directories.create("box")
    (root / "box" / "someone-elses.txt").write_bytes(b"mine\n")
    [outcome] = services.reverter.revert([Change("created_dir", str(root / "box"))])
    assert outcome.status == "kept"
    assert (root / "box" / "someone-elses.txt").read_bytes() == b"mine\n"


def test_a_move_back_never_clobbers_what_took_the_old_place(services: Services, root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    source, destination, *_ = services.mover.move("a.txt", "b.txt")
    (root / "a.txt").write_bytes(b"new a\n")
    change = Change("moved", str(destination), source=str(source))
    with pytest.raises(UndoConflictError):
        services.reverter.revert([change])
    [outcome] = services.reverter.revert([change], force=True)
    assert outcome.status == "failed"
    assert outcome.error_code == "already_exists"
    assert (root / "a.txt").read_bytes() == b"new a\n"
    assert (root / "b.txt").read_bytes() == b"a\n"


def test_a_move_recorded_without_a_fingerprint_by_an_earlier_version_is_moved_back_whatever_it_holds(
    services: Services, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    moved = services.mover.move("a.txt", "b.txt", fingerprinted=True)
    (root / "b.txt").write_bytes(b"rewritten\n")
    with pytest.raises(UndoConflictError, match="it changed since it was moved"):
        services.reverter.revert(
            [Change("moved", str(moved.destination), source=str(moved.source), after_hash=moved.fingerprint)]
        )
    [outcome] = services.reverter.revert([Change("moved", str(moved.destination), source=str(moved.source))])
    assert outcome.status == "reverted"
    assert (root / "a.txt").read_bytes() == b"rewritten\n"
    assert not (root / "b.txt").exists()


def test_a_dry_run_revert_writes_nothing(services: Services, root: Path) -> None:
    written = services.writer.write("made.txt", "made\n")
    outcomes = services.reverter.revert([Change.created(written.path, content_hash(b"made\n"))], dry_run=True)
    assert [o.status for o in outcomes] == ["reverted"]
    assert (root / "made.txt").read_bytes() == b"made\n"


def test_groups_round_trip_and_reject_malformed_ids_and_files(services: Services, root: Path) -> None:
    assert services.groups.save("batch_operations", []) is None
    changes = [Change("moved", str(root / "b"), source=str(root / "a")), Change("trashed", str(root / "c"), sd_id="x")]
    group = services.groups.save("batch_operations", changes)
    assert group is not None
    found = services.groups.get(group.group_id)
    assert found.changes == tuple(changes)
    assert found.paths == [str(root / "a"), str(root / "b"), str(root / "c")]
    with pytest.raises(InvalidParamsError):
        services.groups.find("../../etc/passwd")
    (services.groups.root / f"{group.group_id}.json").write_text('{"changes": [{"kind": "exploded"}]}', "utf-8")
    with pytest.raises(BackupCorruptError):
        services.groups.find(group.group_id)


def test_reverting_after_a_restart_looks_for_each_gone_backup_in_its_own_files_journal_only(
    root: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(roots=(root,), state_dir=state_dir)
    first = Services.create(settings)
    changes = []
    for i in range(4):
        (root / f"f{i}.txt").write_bytes(b"old\n")
        edited = first.writer.write(f"f{i}.txt", "new\n")
        changes.append(
            Change.modified(edited.path, edited.backup.backup_id if edited.backup else None, edited.content_hash)
        )
    first.backups.cleanup(0, dry_run=False, shown=lambda _: True)
    restarted = Services.create(settings)
    read = restarted.backups._read
    keys: list[str] = []

    def counted(key: str) -> Replay:
        keys.append(key)
        return read(key)

    monkeypatch.setattr(restarted.backups, "_read", counted)

    outcomes = restarted.reverter.revert(changes)

    assert [o.status for o in outcomes] == ["failed"] * 4
    assert len(keys) == len(changes)  # not every journal once more per change
    assert [(root / f"f{i}.txt").read_bytes() for i in range(4)] == [b"new\n"] * 4
