"""A subdirectory swapped for a symlink while copy_file or move_file walks the tree above it.

The walk lstats each entry, then opens a directory it saw without following a link. Another process can swap the
directory for a link to somewhere else in between: the open then fails (ENOTDIR), and that failure reached the
client as internal_error. It is a refusal now, with nothing copied and nothing outside the root touched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fsguard.core import fdtree, transfer
from tests.conftest import ClientFactory, error_code

pytestmark = pytest.mark.anyio


@pytest.fixture
def swapped_on_open(monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path) -> Path:
    """``src/swap`` is a directory until a tree walk is about to open it: then it becomes a link to ``outside``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "private.txt").write_bytes(b"outside the root\n")
    (root / "src" / "swap").mkdir(parents=True)
    (root / "src" / "swap" / "f.txt").write_bytes(b"inside\n")
    (root / "src" / "kept.txt").write_bytes(b"kept\n")
    opened = fdtree.child_dir

    @contextmanager
    def racing(parent: int, name: str) -> Iterator[int]:
        swap = root / "src" / "swap"
        if name == "swap" and not swap.is_symlink():  # the first walk to reach it: swapped once
            swap.rename(root / "src" / "was-swap")
            swap.symlink_to(outside)
        with opened(parent, name) as fd:
            yield fd

    monkeypatch.setattr(fdtree, "child_dir", racing)
    monkeypatch.setattr(transfer, "child_dir", racing)
    return outside


@pytest.mark.parametrize("tool", ["copy_file", "move_file"])
async def test_a_subdirectory_swapped_for_a_link_mid_walk_is_refused_and_nothing_is_copied(
    connect: ClientFactory, root: Path, swapped_on_open: Path, tool: str
) -> None:
    async with connect() as client:
        result = await client.call_tool(tool, {"source_path": "src", "dest_path": "copy"})

    assert error_code(result) == "access_denied"
    assert "changed while it was being read" in result.content[0].text  # type: ignore[union-attr]
    assert not (root / "copy").exists()
    assert (root / "src" / "kept.txt").read_bytes() == b"kept\n"
    assert sorted(path.name for path in swapped_on_open.iterdir()) == ["private.txt"]
    assert (swapped_on_open / "private.txt").read_bytes() == b"outside the root\n"
