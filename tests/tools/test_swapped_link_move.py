"""A link swapped for a file between move_file's look at it and its read of the link's target.

move_file lstats the source, then reads a link's target by ``readlink``; another process exchanging a file into
the name in between made that readlink fail with EINVAL, an exception no layer typed. The move is refused as a
change under way now, and both names keep what they held.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fsguard.core import moving
from tests.conftest import ClientFactory, error_code, text_of
from tests.swaps import swapped_after_the_look

pytestmark = pytest.mark.anyio


async def test_a_link_swapped_for_a_file_after_move_file_looked_at_it_is_refused_and_nothing_moves(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "target.txt").write_bytes(b"the link's target\n")
    (root / "link").symlink_to("target.txt")
    (root / "plain").write_bytes(b"a file\n")
    monkeypatch.setattr(moving, "lstat_at", swapped_after_the_look(root / "link", root / "plain"))
    async with connect() as client:
        result = await client.call_tool("move_file", {"source_path": "link", "dest_path": "moved"})

    assert error_code(result) == "external_change", text_of(result)
    assert "link changed while it was being moved" in text_of(result)
    assert "get_file_info, then retry" in text_of(result)
    assert not (root / "moved").exists()
    assert not (root / "moved").is_symlink()
    assert (root / "link").read_bytes() == b"a file\n"
    assert (root / "plain").readlink() == Path("target.txt")
