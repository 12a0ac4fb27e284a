"""The file operation tools over real stdio, checked by the external strict TypeScript client (official TS SDK + Ajv).

``tests/scenarios/fileops.json`` drives delete_file, move_file, copy_file, analyze_operation and the trash
actions of backup, with the refusals an agent meets (a non-empty directory without recursive, the root, an
existing destination, stale expected_hash, malformed and unknown sd_id, a restore over a path that exists again).
The harness is found as in ``tests/test_harness.py``; a missing harness fails.

A scenario cannot carry a value from one step to the next, so it cannot learn an sd_id from a delete. The entries
it restores and purges are therefore put in the trash before the server starts, by the same ``Trash`` the server
then reads, in the state directory it then uses; their ids are passed as ``--var``. What a scenario's "files"
cannot express (symlinks) is made beforehand too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fsguard.config import Settings
from fsguard.core.beneath import Beneath
from fsguard.core.disk import AtomicWriter
from fsguard.core.trash import Trash
from fsguard.services import Services
from tests.conftest import MODES
from tests.test_harness import (
    REPO_ROOT,
    assert_every_step_passed,
    load_scenario,
    replay_compact,
    run_strict,
    scenario_dirs,
    scenario_file_bytes,
)
from tests.test_races import Entry, snapshot

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "fileops.json"

SEEDED_BYTES = b"seeded bytes\n"
SEEDED_MODE = 0o640
OUTSIDE_BYTES = b"outside the root\n"

# Where the scenario moved, copied or restored things to, and the exact bytes there afterwards.
LANDED = {
    "mv/new/deep/dst.txt": b"move me\n",
    "mv/dir-moved/x.txt": b"x\n",
    "mv/dir-moved/y/z.txt": b"z\n",
    "mv/hashed-moved.txt": b"hashed move\n",
    "cp/out/one-copy.txt": b"copy me\n",
    "cp/linked-copy/file.txt": b"linked file\n",
    "restore/seeded.txt": SEEDED_BYTES,
    "restore/newer.txt": b"a newer file\n",
}
# Sources the scenario moved or deleted away.
GONE = [
    "mv/src.txt",
    "mv/dir",
    "mv/hashed.txt",
    "del/file.txt",
    "del/tree",
    "del/many1.txt",
    "del/many2.txt",
    "del/hash.txt",
    "del/perm.txt",
    "links/outside",
]
# Files every call on which was refused, read-only, or a copy's source: byte-identical to the scenario's "files".
UNTOUCHED = [
    "mv/taken.txt",
    "mv/blocker.txt",
    "cp/one.txt",
    "cp/tree/a.txt",
    "cp/tree/sub/b.bin",
    "an/plan.txt",
    "an/.env",
    "an/credentials.txt",
]
# Destinations of refused or read-only calls: none may exist.
NEVER_MADE = [
    "mv/anywhere.txt",
    "mv/root-moved",
    "mv/dir-again",
    "mv/elsewhere.txt",
    "mv/dir-moved/y/inner",
    "cp/anywhere.txt",
    "cp/tree/sub/again",
    "an/new.txt",
    "del/never-existed.txt",
]
# What the scenario soft-deleted and leaves in the trash: original path -> the entry's item, as snapshot() sees it.
TRASHED_FILES = {
    "del/file.txt": b"delete me\n",
    "del/many1.txt": b"many one\n",
    "del/many2.txt": b"many two\n",
    "del/hash.txt": b"hashed\n",
}


def scenario() -> dict[str, Any]:
    return load_scenario(SCENARIO)


def file_bytes(relative: str) -> bytes:
    """A file of the scenario's "files", as the strict client writes it."""
    return scenario_file_bytes(scenario(), relative)


def prepare(root: Path, state: Path, outside: Path) -> tuple[dict[str, str], dict[str, Entry]]:
    """Trash the entries the scenario restores and purges, make its symlinks; returns the --var ids and the
    snapshot of the seeded directory as it was deleted."""
    (root / "restore" / "seeded-dir" / "sub").mkdir(parents=True)
    seeded = root / "restore" / "seeded.txt"
    seeded.write_bytes(SEEDED_BYTES)
    seeded.chmod(SEEDED_MODE)
    tree = root / "restore" / "seeded-dir"
    (tree / "a.txt").write_bytes(b"alpha\r\n")
    (tree / "sub" / "b.bin").write_bytes(b"\x00beta\xff")
    (tree / "sub" / "b.bin").chmod(0o600)
    (tree / "sub" / "link").symlink_to("../a.txt")
    tree.chmod(0o750)
    tree_before = snapshot(tree)
    (root / "purge").mkdir()
    (root / "purge" / "old.txt").write_bytes(b"purge me\n")

    trash = Trash(state / "trash", AtomicWriter(state))
    beneath = Beneath((root,))
    ids = {}
    for name, item in (("SD_ID", seeded), ("SD_DIR_ID", tree), ("SD_PURGE_ID", root / "purge" / "old.txt")):
        with beneath.entry(item, follow=False) as pinned:
            ids[name] = trash.put(pinned).sd_id
    beneath.close()

    outside.write_bytes(OUTSIDE_BYTES)
    (root / "links").mkdir()
    (root / "links" / "outside").symlink_to(outside)
    (root / "cp" / "linked").mkdir(parents=True)
    (root / "cp" / "linked" / "file.txt").write_bytes(b"linked file\n")
    (root / "cp" / "linked" / "link").symlink_to("file.txt")
    return ids, tree_before


def run_fileops_scenario(tmp_path: Path) -> tuple[Path, Path, dict[str, Any], dict[str, Entry]]:
    """Run fileops.json against fsguard serving a fresh root; returns the root, state dir, report and the
    snapshot of the seeded directory."""
    root, state = scenario_dirs(tmp_path)
    ids, tree_before = prepare(root, state, tmp_path / "outside.txt")
    report = run_strict(tmp_path, SCENARIO, root, state, (), **ids)
    return root, state, report, tree_before


def assert_landed_bytes(root: Path, tree_before: dict[str, Entry]) -> None:
    """Moved, copied and restored things hold exactly the expected bytes; their sources are gone or intact."""
    assert root.is_dir()
    for relative, expected in LANDED.items():
        assert (root / relative).read_bytes() == expected, relative
    for relative in GONE:
        assert not (root / relative).exists(), relative
        assert not (root / relative).is_symlink(), relative
    assert sorted(
        p.relative_to(root / "mv" / "dir-moved").as_posix() for p in (root / "mv" / "dir-moved").rglob("*")
    ) == [
        "x.txt",
        "y",
        "y/z.txt",
    ]
    # A copy keeps bytes and modes, file by file; the link inside cp/linked was skipped, not followed.
    assert snapshot(root / "cp" / "tree-copy") == snapshot(root / "cp" / "tree")
    assert sorted(p.name for p in (root / "cp" / "linked-copy").iterdir()) == ["file.txt"]
    # The seeded entries came back exactly as they were deleted: bytes, modes and the link inside.
    assert (root / "restore" / "seeded.txt").stat().st_mode & 0o7777 == SEEDED_MODE
    assert snapshot(root / "restore" / "seeded-dir") == tree_before
    assert not (root / "purge" / "old.txt").exists()


def assert_refusals_left_everything_untouched(root: Path, outside: Path) -> None:
    for relative in UNTOUCHED:
        assert (root / relative).read_bytes() == file_bytes(relative), relative
    for relative in NEVER_MADE:
        assert not (root / relative).exists(), relative
    assert outside.read_bytes() == OUTSIDE_BYTES
    assert (root / "del").is_dir()
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []


def assert_trash_and_backups(root: Path, state: Path, outside: Path) -> None:
    """The six soft-deleted entries are whole in the state dir's trash; the purged and restored ones are gone."""
    trash = Trash(state / "trash", AtomicWriter(state))
    entries = {Path(e.original_path).relative_to(root).as_posix(): e for e in trash.entries()}
    assert sorted(entries) == sorted([*TRASHED_FILES, "del/tree", "links/outside"])
    items = {relative: state / "trash" / entry.sd_id / "item" for relative, entry in entries.items()}
    for relative, expected in TRASHED_FILES.items():
        assert items[relative].read_bytes() == expected, relative
        assert entries[relative].kind == "file"
    assert (entries["del/tree"].kind, entries["del/tree"].files) == ("directory", 2)
    assert {name: entry[2] for name, entry in snapshot(items["del/tree"]).items() if entry[0] == "file"} == {
        "a.txt": b"tree a\n",
        "sub/b.txt": b"tree b\n",
    }
    assert items["links/outside"].is_symlink()
    assert items["links/outside"].readlink() == outside
    # Only the six entries are left: the restored and the purged ones took their directories with them.
    assert sorted(p.name for p in (state / "trash").iterdir()) == sorted(e.sd_id for e in entries.values())
    assert list((state / "inflight").iterdir()) == []
    # The permanent delete backed the file up first, in the state dir.
    store = Services.create(Settings(roots=(root,), state_dir=state)).backups
    [record] = [r for r in store.records() if r.operation == "delete_file"]
    assert record.path == str(root / "del" / "perm.txt")
    assert store.read_blob(record) == b"permanently\n"
    # Nothing of fsguard's (trash, blobs, journals) appeared in the root.
    assert not [p for p in root.rglob("*") if p.name in ("trash", "blobs", "meta.json") or p.name.endswith(".jsonl")]


@pytest.mark.harness
def test_fileops_scenario_passes_the_strict_client_and_leaves_exactly_the_expected_bytes(tmp_path: Path) -> None:
    root, state, report, tree_before = run_fileops_scenario(tmp_path)
    assert_every_step_passed(report, scenario())
    assert_landed_bytes(root, tree_before)
    assert_refusals_left_everything_untouched(root, tmp_path / "outside.txt")
    assert_trash_and_backups(root, state, tmp_path / "outside.txt")


@pytest.mark.anyio
@pytest.mark.parametrize("era", MODES)
async def test_fileops_scenario_replayed_in_the_compact_voice_in_both_eras_leaves_the_same_bytes(
    tmp_path: Path, era: str
) -> None:
    root, state = scenario_dirs(tmp_path)
    ids, tree_before = prepare(root, state, tmp_path / "outside.txt")
    await replay_compact(scenario(), root, state, era, ids)
    assert_landed_bytes(root, tree_before)
    assert_refusals_left_everything_untouched(root, tmp_path / "outside.txt")
    assert_trash_and_backups(root, state, tmp_path / "outside.txt")
