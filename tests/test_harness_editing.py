"""The editing tools over real stdio, checked by the external strict TypeScript client (official TS SDK + Ajv).

``tests/scenarios/editing.json`` drives write_file, every edit_file mode, multi_edit and every backup action,
with the refusals an agent meets (stale_edit, no_match, ambiguous_match, rewrite_blocked, nothing_to_undo,
undo_conflict, unknown_param). The harness is found as in ``tests/test_harness.py``; a missing harness fails.

A scenario cannot carry a value from one step to the next, so it cannot learn a backup id from a result. The
one id it needs (info, compare and a successful restore of a known backup) is therefore made before the server
starts: the test saves a backup of ``restore/target.txt`` through the server's own services into the state
directory the server then uses, and passes the id as ``--var BACKUP_ID=<id>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fsguard.config import Settings
from fsguard.core.hashing import content_hash
from fsguard.services import Services
from tests.conftest import MODES
from tests.test_harness import (
    REPO_ROOT,
    assert_every_step_passed,
    load_scenario,
    replay_compact,
    run_strict,
    scenario_dirs,
)

SCENARIO = REPO_ROOT / "tests" / "scenarios" / "editing.json"

# restore/target.txt: the scenario writes VERSION_TWO before the server starts; the seeded backup holds
# VERSION_ONE, as if a write_file had replaced it with VERSION_TWO.
VERSION_ONE = b"version one\n"
VERSION_TWO = b"version two\n"
SEEDED_FILE = "restore/target.txt"

# Files the scenario changes, and their bytes once every step has run.
EDITED = {
    # write_file of LF text over a CRLF file, then an insert of LF text: CRLF throughout.
    "write/crlf.txt": b"uno\r\ndos\r\ndos-b\r\ntres\r\n",
    "write/new/deep/created.txt": b"created\n",
    "write/bytes.bin": b"\x00\x01\x02\x03\xff",
    "write/bytes2.bin": b"\x00\x01\x02\x03\xff",
    "edit/replace.txt": b"RED green BLUE\nRED GREEN\nREDish RED\n",
    "edit/words.txt": b"dog concatenate scattered\n",
    "edit/search.txt": b"price: $6 (was $6)\nPrice: $7\n",
    "edit/regex.txt": b"w0rld hello\nbar! foo\n",
    "edit/insert.py": b"import os\nimport re\nimport sys\nimport json\n\nprint(os.sep, sys.argv)\n",
    "edit/range.txt": b"l1\nTWO-THREE\nl4\n",
    "multi/ok.txt": b"a = 10\nb = 2\nc = 30\n",
    # restored from the seeded backup, then that restore undone
    SEEDED_FILE: VERSION_TWO,
}
# Files whose every change was refused, dry-run only, or undone: byte-identical to the scenario's "files".
UNCHANGED = [
    "write/shrink.txt",  # emptied by write_file, then undo_last
    "edit/undo.txt",  # edited, then undo_last
    "multi/fail.txt",  # multi_edit with one failing edit of two
    "edit/big.txt",  # rewrite_blocked, then an allow_rewrite dry run
    "edit/formats.txt",  # dry runs in every diff_format
]
# Paths of refused calls, which must not exist.
NEVER_WRITTEN = ["write/bad.bin", "write/missing"]


def scenario() -> dict[str, Any]:
    return load_scenario(SCENARIO)


def seed_backup(root: Path, state: Path) -> str:
    """A backup of restore/target.txt taken by the backup store the server builds on ``state``; returns its id."""
    backups = Services.create(Settings(roots=(root,), state_dir=state)).backups
    record = backups.snapshot(
        root / SEEDED_FILE, VERSION_ONE, 0o644, operation="write_file", after_hash=content_hash(VERSION_TWO)
    )
    return record.backup_id


def run_editing_scenario(tmp_path: Path) -> tuple[Path, Path, dict[str, Any], str]:
    """Run editing.json against fsguard serving a fresh root; returns the root, state dir, report and seeded id."""
    root, state = scenario_dirs(tmp_path)
    backup_id = seed_backup(root, state)
    report = run_strict(tmp_path, SCENARIO, root, state, (), BACKUP_ID=backup_id)
    return root, state, report, backup_id


def assert_disk_bytes(root: Path, state: Path) -> None:
    """Every file holds exactly the bytes the scenario leaves, and refused calls left nothing behind."""
    files: dict[str, str] = scenario()["files"]
    for relative, expected in EDITED.items():
        assert (root / relative).read_bytes() == expected, relative
    for relative in UNCHANGED:
        assert (root / relative).read_bytes() == files[relative].encode(), relative
    for relative in NEVER_WRITTEN:
        assert not (root / relative).exists(), relative
    assert [p.name for p in root.rglob("*") if ".fsguard-tmp-" in p.name] == []
    assert list((state / "inflight").iterdir()) == []


def assert_backups(root: Path, state: Path, backup_id: str) -> None:
    """The backups live in the state dir, not the root, and record what the scenario did."""
    store = Services.create(Settings(roots=(root,), state_dir=state)).backups
    records = store.records()
    operations = {record.operation for record in records}
    assert {"write_file", "edit_file:replace", "edit_file:regex", "multi_edit", "restore", "pre_undo"} <= operations
    assert store.get(backup_id).content_hash == content_hash(VERSION_ONE)
    assert store.read_blob(store.get(backup_id)) == VERSION_ONE
    # The seeded backup is the head of restore/target.txt again: its restore was undone.
    head = store.head(root / SEEDED_FILE)
    assert head is not None
    assert head.backup_id == backup_id
    assert all(Path(record.path).is_relative_to(root) for record in records)
    # Backups are kept in the state dir only: no blob or journal of fsguard's appeared in the root.
    assert not [path for path in root.rglob("*") if path.name.endswith(".jsonl") or path.name == "blobs"]


@pytest.mark.harness
def test_editing_scenario_passes_the_strict_client(tmp_path: Path) -> None:
    root, state, report, backup_id = run_editing_scenario(tmp_path)
    assert_every_step_passed(report, scenario())
    assert_disk_bytes(root, state)
    assert_backups(root, state, backup_id)


@pytest.mark.anyio
@pytest.mark.parametrize("era", MODES)
async def test_editing_scenario_replayed_in_the_compact_voice_in_both_eras(tmp_path: Path, era: str) -> None:
    root, state = scenario_dirs(tmp_path)
    backup_id = seed_backup(root, state)
    await replay_compact(scenario(), root, state, era, {"BACKUP_ID": backup_id})
    assert_disk_bytes(root, state)
    assert_backups(root, state, backup_id)
