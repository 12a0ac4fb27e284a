"""A file swapped for a non-empty directory between a delete's or move's check and its act.

Each call looked at the entry once (a file, its hash right), then acted on the name again. Another process
exchanging the file and a directory in one step (renameat2 RENAME_EXCHANGE) in between made a permanent delete erase
the whole directory, a delete to the trash trash it, a move across filesystems erase it after copying the file, and
a group restore remove it in place of the file it created; each answer spoke of the file. The entry is now set aside
under a private name and acted on only while it is the one checked (``core/setaside.py``): the directory stays,
whole, and the call answers ``external_change`` with nothing changed. Each race is made exact: the swap runs at the
point between check and act, from a patched step both the old and the new code pass through.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core import transfer
from fsguard.core.backups import BackupStore
from fsguard.core.beneath import lstat_at
from fsguard.core.hashing import content_hash
from fsguard.core.hooks import HookRunner
from tests.conftest import ClientFactory, Mount, error_code, overlay_mounted, structured, text_of
from tests.swaps import exchange

pytestmark = pytest.mark.anyio

FILE = b"the file\n"
PRECIOUS = b"precious data\n"


@pytest.fixture
def pair(root: Path) -> Path:
    """``x`` a file, ``xd`` a directory holding ``precious.txt`` and ``more/m.txt``."""
    (root / "x").write_bytes(FILE)
    (root / "xd" / "more").mkdir(parents=True)
    (root / "xd" / "precious.txt").write_bytes(PRECIOUS)
    (root / "xd" / "more" / "m.txt").write_bytes(b"m\n")
    return root


def swapped(root: Path) -> None:
    """The state the swap leaves, untouched since: the directory whole at ``x``, the file at ``xd``."""
    assert (root / "x" / "precious.txt").read_bytes() == PRECIOUS
    assert (root / "x" / "more" / "m.txt").read_bytes() == b"m\n"
    assert (root / "xd").read_bytes() == FILE
    assert sorted(path.name for path in root.iterdir()) == ["x", "xd"]


@pytest.fixture
def swap_before_delete(monkeypatch: pytest.MonkeyPatch, pair: Path) -> list[str]:
    """``x`` and ``xd`` exchange once, as the pre-delete hooks run: after the delete checked (and read) the file."""
    fire = HookRunner.fire
    swaps: list[str] = []

    def racing(self: HookRunner, phase: str, family: str, **fields: Any) -> Any:
        if (phase, family) == ("pre", "delete") and not swaps:
            exchange(pair / "x", pair / "xd")
            swaps.append(str(fields.get("file_path")))
        return fire(self, phase, family, **fields)  # type: ignore[arg-type]

    monkeypatch.setattr(HookRunner, "fire", racing)
    return swaps


DELETES: dict[str, tuple[str, dict[str, Any]]] = {
    "permanent_with_hash": ("delete_file", {"path": "x", "permanent": True, "expected_hash": content_hash(FILE)}),
    "permanent": ("delete_file", {"path": "x", "permanent": True}),
    "paths_permanent": ("delete_file", {"paths": ["x"], "permanent": True}),
    "trash": ("delete_file", {"path": "x"}),
    "trash_with_hash": ("delete_file", {"path": "x", "expected_hash": content_hash(FILE)}),
    "paths_trash": ("delete_file", {"paths": ["x"]}),
}


@pytest.mark.parametrize("call", DELETES, ids=list(DELETES))
async def test_a_delete_of_a_file_leaves_a_directory_swapped_in_at_its_name_whole_and_refuses(
    connect: ClientFactory, pair: Path, state_dir: Path, swap_before_delete: list[str], call: str
) -> None:
    tool, arguments = DELETES[call]
    async with connect() as client:
        result = await client.call_tool(tool, arguments)
        trash = structured(await client.call_tool("backup", {"action": "list_trash"}))

    assert swap_before_delete == [str(pair / "x")]
    assert result.is_error, text_of(result)
    assert error_code(result) == "external_change"
    assert "changed while it was being deleted" in text_of(result)
    assert "nothing was deleted" in text_of(result)
    swapped(pair)
    assert trash["trash"] == []
    assert not list((state_dir / "trash").iterdir())


BATCHES: dict[str, dict[str, Any]] = {
    "batch_permanent": {"request_json": {"operations": [{"type": "delete", "path": "x", "permanent": True}]}},
    "batch_trash": {"request_json": {"operations": [{"type": "delete", "path": "x"}]}},
    "pipeline": {"pipeline_json": {"name": "p", "steps": [{"id": "d", "action": "delete", "params": {"path": "x"}}]}},
}


@pytest.mark.parametrize("call", BATCHES, ids=list(BATCHES))
async def test_a_batch_or_pipeline_delete_of_a_file_leaves_a_directory_swapped_in_whole(
    connect: ClientFactory, pair: Path, state_dir: Path, swap_before_delete: list[str], call: str
) -> None:
    async with connect() as client:
        result = await client.call_tool("batch_operations", BATCHES[call])

    assert swap_before_delete == [str(pair / "x")]
    assert result.is_error, text_of(result)
    assert "changed while it was being deleted" in text_of(result)
    swapped(pair)
    assert not list((state_dir / "trash").iterdir())


async def test_a_directory_that_became_a_file_before_its_emptiness_was_checked_is_refused_not_an_internal_error(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "d").mkdir()
    (root / "d" / "inside.txt").write_bytes(b"inside\n")
    (root / "f").write_bytes(FILE)

    def racing(entry: Any) -> Any:
        found = lstat_at(entry)
        if entry.name == "d":  # the delete's one look: a directory; a file from now on
            exchange(root / "d", root / "f")
        return found

    monkeypatch.setattr("fsguard.core.deletion.lstat_at", racing)
    result = await client.call_tool("delete_file", {"path": "d"})

    assert error_code(result) == "external_change", text_of(result)
    assert "nothing was deleted" in text_of(result)
    assert (root / "d").read_bytes() == FILE
    assert (root / "f" / "inside.txt").read_bytes() == b"inside\n"


async def test_a_move_across_filesystems_leaves_a_directory_swapped_in_at_the_source_and_takes_its_copy_back(
    connect: ClientFactory, pair: Path, mount_tmpfs: Mount, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = mount_tmpfs(pair / "m", "1m")
    placed = transfer.put_in_place
    swaps: list[Path] = []

    def racing(source: Any, target: Any) -> None:
        placed(source, target)
        if target.path == other / "x" and not swaps:  # the copy is in place; the source is removed next
            exchange(pair / "x", pair / "xd")
            swaps.append(target.path)

    monkeypatch.setattr(transfer, "put_in_place", racing)
    async with connect() as client:
        result = await client.call_tool("move_file", {"source_path": "x", "dest_path": "m/x"})

    assert swaps == [other / "x"]
    assert error_code(result) == "external_change", text_of(result)
    assert "changed while it was being moved" in text_of(result)
    assert "nothing was moved" in text_of(result)
    assert list(other.iterdir()) == []  # the copy taken back: no second file claimed as moved
    assert (pair / "x" / "precious.txt").read_bytes() == PRECIOUS
    assert (pair / "x" / "more" / "m.txt").read_bytes() == b"m\n"
    assert (pair / "xd").read_bytes() == FILE


async def test_a_group_restore_leaves_a_directory_swapped_in_for_the_file_the_group_created(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "xd" / "more").mkdir(parents=True)
    (root / "xd" / "precious.txt").write_bytes(PRECIOUS)
    (root / "xd" / "more" / "m.txt").write_bytes(b"m\n")
    request = json.dumps([{"type": "write", "path": "x", "content": FILE.decode()}])
    batch = structured(await client.call_tool("batch_operations", {"request_json": request}))
    snapshot: Callable[..., Any] = BackupStore.snapshot

    def racing(self: BackupStore, path: Path, *args: Any, **kwargs: Any) -> Any:
        record = snapshot(self, path, *args, **kwargs)
        if kwargs.get("operation") == "revert_create":  # the created file is backed up; its removal is next
            exchange(root / "x", root / "xd")
        return record

    monkeypatch.setattr(BackupStore, "snapshot", racing)
    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": batch["backup_id"]}))

    [outcome] = restored["reverted"]
    assert outcome["status"] == "kept", outcome
    swapped(root)


async def test_a_move_of_a_file_within_a_filesystem_puts_back_a_directory_swapped_in_and_refuses(
    client: Client, pair: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fire = HookRunner.fire

    def racing(self: HookRunner, phase: str, family: str, **fields: Any) -> Any:
        if (phase, family) == ("pre", "move"):  # the file checked (its hash right), the rename next
            exchange(pair / "x", pair / "xd")
        return fire(self, phase, family, **fields)  # type: ignore[arg-type]

    monkeypatch.setattr(HookRunner, "fire", racing)
    result = await client.call_tool(
        "move_file", {"source_path": "x", "dest_path": "y", "expected_hash": content_hash(FILE)}
    )

    assert error_code(result) == "external_change", text_of(result)
    assert "nothing was moved" in text_of(result)
    swapped(pair)


async def test_deletes_and_moves_of_a_directory_of_an_overlays_lower_layer_still_work(
    connect: ClientFactory, tmp_path: Path
) -> None:
    # overlayfs refuses to rename a lower layer's directory (EXDEV) but lets it be removed: setting it aside first
    # made every delete and move of one in a container's root an I/O error.
    lower = tmp_path / "lower"
    for name in ("gone", "trashed", "moved"):
        (lower / name / "inner").mkdir(parents=True)
        (lower / name / "inner" / "f.txt").write_bytes(PRECIOUS)
    with overlay_mounted(lower, tmp_path / "overlay") as root:
        async with connect(roots=(root,), confirm="off") as client:
            gone = await client.call_tool("delete_file", {"path": "gone", "recursive": True, "permanent": True})
            trashed = await client.call_tool("delete_file", {"path": "trashed", "recursive": True})
            moved = await client.call_tool("move_file", {"source_path": "moved", "dest_path": "renamed"})
            for answer in (gone, trashed, moved):
                assert not answer.is_error, text_of(answer)
            assert sorted(entry.name for entry in root.iterdir()) == ["renamed"]
            assert (root / "renamed" / "inner" / "f.txt").read_bytes() == PRECIOUS
            restored = await client.call_tool(
                "backup", {"action": "restore_trash", "sd_id": structured(trashed)["results"][0]["sd_id"]}
            )
            assert not restored.is_error, text_of(restored)
            assert (root / "trashed" / "inner" / "f.txt").read_bytes() == PRECIOUS
