"""A directory on a path's way swapped for a symlink and back while the pinned walk steps through it.

The walk opens each directory on the way with O_DIRECTORY|O_NOFOLLOW; when that fails it reads the name as a link.
A swap between those two calls (a link at the open, the directory again at the readlink) made the walk call the
directory a file ("d is a file, not a directory"), a refusal naming the wrong thing. It now looks again.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fsguard.core import beneath, walksteps
from tests.conftest import ClientFactory, text_of
from tests.swaps import exchange

pytestmark = pytest.mark.anyio


@pytest.fixture
def swapped_at_open(monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path) -> Iterator[Path]:
    """``d`` is a link to ``outside`` during the walk's first open of it, and a directory again just after."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_bytes(b"OUTSIDE\n")
    (root / "d").mkdir()
    (root / "d" / "a.txt").write_bytes(b"inside\n")
    (root / "link").symlink_to(outside)
    swaps: list[str] = []

    def racing(parent: int, name: str, label: str) -> int:
        if name == "d" and not swaps:
            swaps.append(name)
            exchange(root / "d", root / "link")
            try:
                return walksteps.open_dir(parent, name, label)
            finally:
                exchange(root / "d", root / "link")  # back before the walk reads the name as a link
        return walksteps.open_dir(parent, name, label)

    monkeypatch.setattr(beneath, "open_dir", racing)
    yield outside
    assert swaps == ["d"]


async def test_a_directory_that_was_a_link_only_at_the_walk_s_open_is_walked_not_called_a_file(
    connect: ClientFactory, root: Path, swapped_at_open: Path
) -> None:
    async with connect() as client:
        read = await client.call_tool("read_file", {"path": "d/a.txt"})

    assert not read.is_error, text_of(read)
    assert text_of(read).startswith("inside")
    assert (swapped_at_open / "a.txt").read_bytes() == b"OUTSIDE\n"


async def test_a_directory_made_below_such_a_swap_lands_inside_the_root(
    connect: ClientFactory, root: Path, swapped_at_open: Path
) -> None:
    async with connect() as client:
        made = await client.call_tool("create_directory", {"path": "d/new/deeper"})

    assert not made.is_error, text_of(made)
    assert (root / "d" / "new" / "deeper").is_dir()
    assert sorted(p.name for p in swapped_at_open.iterdir()) == ["a.txt"]
