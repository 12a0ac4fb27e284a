"""A symlink inside the roots a client named, pointing elsewhere in the server's roots, in both eras: no tool
follows it out. The client's roots narrow the server's, so what lies outside them is outside for that client, read
by name or through a link; a copy of the link's target read it as surely as read_file would have."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_least_privilege import answering, snapshot, tree

pytestmark = pytest.mark.anyio


async def test_a_copy_never_follows_a_link_out_of_the_client_roots(connect: ClientFactory, root: Path) -> None:
    tree(root, {"proj/a.txt": "a\n", "other/b.txt": "OTHER-PRIVATE\n", "other/sub/c.txt": "OTHER-C\n"})
    (root / "proj" / "link").symlink_to("../other/b.txt")
    (root / "proj" / "dlink").symlink_to("../other/sub")
    before = snapshot(root)
    async with connect(list_roots_callback=answering([root / "proj"])) as client:
        copies = [
            await client.call_tool("copy_file", {"source_path": "link", "dest_path": "copy.txt"}),
            await client.call_tool("copy_file", {"source_path": "dlink", "dest_path": "dcopy"}),
        ]
        kept = await client.call_tool("copy_file", {"source_path": "a.txt", "dest_path": "a2.txt"})
    assert [error_code(result) for result in copies] == ["access_denied", "access_denied"]
    assert all("OTHER" not in text_of(result) for result in copies)
    assert not kept.is_error
    assert snapshot(root) == {**before, "proj/a2.txt": b"a\n"}
