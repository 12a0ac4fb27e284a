"""The state directory's listings (change groups, trash entries, backups) read again only what changed on disk: each
equals a listing read from scratch, sees what another process wrote, changed or removed, and leaves out what
cannot be read."""

from __future__ import annotations

import os
from pathlib import Path

from fsguard.core.beneath import Pinned
from fsguard.core.disk import AtomicWriter
from fsguard.core.inventory import list_trash, purge_trash
from fsguard.core.trash import Trash, TrashEntry

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
    kept, broken, odd = trash_files(then, tmp_path / "files", ["kept.txt", "broken.txt", "odd.txt"])
    trash = Trash(tmp_path / "trash", AtomicWriter(tmp_path), clock=lambda: NOW)
    (tmp_path / "trash" / broken.sd_id / "meta.json").write_bytes(b"{not json")
    (tmp_path / "trash" / odd.sd_id / "meta.json").write_bytes(b'{"sd_id": "sd-1"}')

    listed = list_trash(trash, path_contains=None, older_than_days=None, limit=10)
    swept = purge_trash(trash, sd_id=None, older_than_days=7, dry_run=True, limit=10)

    assert ([entry.sd_id for entry in listed.shown], listed.total) == ([kept.sd_id], 1)
    assert ([entry.sd_id for entry in swept.shown], swept.removed) == ([kept.sd_id], 1)
    assert (tmp_path / "trash" / broken.sd_id / "item").read_bytes() == b"broken.txt"
