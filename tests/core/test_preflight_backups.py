"""The question before a cleanup that removes backups: what it counts, what it names, and when it is not asked."""

from __future__ import annotations

from pathlib import Path

from fsguard.core.preflight_backups import cleaning
from tests.core.test_inventory import DAY_S, NOW, store_at


def test_the_question_counts_old_backups_files_and_bytes_and_names_only_shown_paths(tmp_path: Path) -> None:
    old = store_at(tmp_path, NOW - 10 * DAY_S)
    for path, data in (("/r/a.txt", b"one"), ("/r/a.txt", b"two!"), ("/r/secret.txt", b"hidden")):
        old.snapshot(Path(path), data, 0o644, operation="edit", after_hash=None)
    store = store_at(tmp_path, NOW)
    store.snapshot(Path("/r/b.txt"), b"young", 0o644, operation="edit", after_hash=None)

    found = cleaning(store, older_than_days=7, shown=lambda path: "secret" not in path)

    assert found is not None
    assert found.summary.startswith("Remove 2 undo backups of 1 file for good: '/r/a.txt'. ")
    assert "7 bytes of saved versions go" in found.summary
    assert "secret" not in found.summary
    assert not found.reversible
    assert found == cleaning(store, older_than_days=7, shown=lambda path: "secret" not in path)  # same store, same
    assert cleaning(store, older_than_days=30, shown=lambda path: True) is None  # nothing that old: no question
    assert cleaning(store, older_than_days=7, shown=lambda path: path.endswith("secret.txt")) is not None
    assert cleaning(store, older_than_days=7, shown=lambda path: False) is None
