"""What the permission bits refuse, said of the entry whose bits refuse it: a file inside a tree the user may not
read, and what a refusal then asks the user to change. Calls run as a user the bits stop (:func:`as_a_user`)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import ClientFactory, Mount, error_code, structured, text_of
from tests.tools.test_permissions import NOBODY, as_a_user, call_as_a_user, client_on, reachable, tree, users

__all__ = ["reachable"]  # the fixture, used here

pytestmark = pytest.mark.anyio


def a_tree_with_an_unreadable_file(root: Path) -> Path:
    """``t`` of ok.txt and u.txt, the user's own, u.txt with no permission bits."""
    (root / "t").mkdir()
    (root / "t" / "ok.txt").write_bytes(b"ok\n")
    (root / "t" / "u.txt").write_bytes(b"secret bytes\n")
    if os.geteuid() == 0:
        for path in (root / "t", *(root / "t").iterdir()):
            os.chown(path, NOBODY, NOBODY)
    (root / "t" / "u.txt").chmod(0o000)
    return root / "t"


async def test_a_tree_holding_a_file_the_user_may_not_read_goes_to_the_trash_and_comes_back_whole(
    connect: ClientFactory, reachable: Path
) -> None:
    # The trash move is a rename, but its entry's SHA-256 read every file first: the delete was refused ("refused
    # access to t"), where a permanent delete of the same tree, which reads nothing, went through.
    root = reachable / "root"
    a_tree_with_an_unreadable_file(root)
    async with client_on(connect, reachable) as client:
        with as_a_user():
            trashed = await client.call_tool("delete_file", {"path": "t", "recursive": True})
            listed = await client.call_tool("backup", {"action": "list_trash"})
            sd_id = structured(trashed)["results"][0]["sd_id"]
            assert not (root / "t").exists()
            restored = await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id})
    assert not trashed.is_error, text_of(trashed)
    entry = structured(listed)["trash"][0]
    assert (entry["files"], entry["size"], entry.get("sha256")) == (2, 16, None)
    assert not restored.is_error, text_of(restored)
    assert (root / "t" / "ok.txt").read_bytes() == b"ok\n"
    assert (root / "t" / "u.txt").read_bytes() == b"secret bytes\n"
    assert (root / "t" / "u.txt").stat().st_mode & 0o777 == 0


async def test_a_copy_of_a_tree_holding_a_file_the_user_may_not_read_names_that_file(
    connect: ClientFactory, reachable: Path
) -> None:
    # It named the tree ("refused access to t"), whose permissions get_file_info then showed as fine.
    root = reachable / "root"
    a_tree_with_an_unreadable_file(root)
    before = tree(root)
    result = await call_as_a_user(connect, reachable, "copy_file", {"source_path": "t", "dest_path": "t2"})
    assert error_code(result) == "access_denied", text_of(result)
    assert "refused access to t/u.txt: Permission denied" in text_of(result)
    assert tree(root) == before


async def test_a_move_to_another_filesystem_of_a_tree_holding_a_file_the_user_may_not_read_names_that_file(
    connect: ClientFactory, reachable: Path, mount_tmpfs: Mount
) -> None:
    root = reachable / "root"
    other = mount_tmpfs(root / "other", "1m")
    os.chown(other, NOBODY, NOBODY)
    a_tree_with_an_unreadable_file(root)
    before = tree(root / "t")
    result = await call_as_a_user(connect, reachable, "move_file", {"source_path": "t", "dest_path": "other/t"})
    assert error_code(result) == "access_denied", text_of(result)
    assert "refused access to t/u.txt: Permission denied" in text_of(result)
    assert tree(root / "t") == before
    assert list(other.iterdir()) == []


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("write_file", {"path": "rodir/f.txt", "content": "x\n"}),
        ("write_file", {"path": "rodir/new.txt", "content": "x\n"}),
        ("edit_file", {"path": "rodir/f.txt", "old_text": "alpha", "new_text": "beta"}),
        ("delete_file", {"path": "rodir/f.txt"}),
        ("move_file", {"source_path": "rodir/f.txt", "dest_path": "g.txt"}),
        ("batch_operations", {"request_json": {"operations": [{"type": "delete", "path": "rodir/f.txt"}]}}),
    ],
)
async def test_a_change_in_a_directory_the_user_may_not_write_names_that_directory_not_the_file(
    connect: ClientFactory, reachable: Path, tool: str, arguments: dict[str, Any]
) -> None:
    # "refused access to rodir/f.txt ... Check its permissions with get_file_info", which showed -rw-r--r--: the
    # temp, the rename or the unlink is the directory's to allow.
    root = reachable / "root"
    (root / "rodir").mkdir()
    (root / "rodir" / "f.txt").write_bytes(b"alpha\n")
    users(root / "rodir", root / "rodir" / "f.txt")
    (root / "rodir").chmod(0o555)
    before = tree(root)
    result = await call_as_a_user(connect, reachable, tool, arguments)
    assert error_code(result) == ("batch_failed" if tool == "batch_operations" else "access_denied"), text_of(result)
    assert "its directory rodir is not writable by the server's user (mode dr-xr-xr-x)" in text_of(result)
    assert "make rodir writable (chmod u+w)" in text_of(result)
    assert tree(root) == before


# A client in its own process: capabilities are dropped per thread, for good, and the tools run on worker threads.
_EDITS = """
import sys
from pathlib import Path

import anyio
from mcp import Client

from fsguard.config import Settings
from fsguard.server import build_server


async def main() -> None:
    root, state, mode = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    async with Client(build_server(Settings(roots=(root,), state_dir=state)), mode=mode) as client:
        edited = await client.call_tool("edit_file", {"path": "ro.txt", "old_text": "alpha", "new_text": "beta"})
        written = await client.call_tool("write_file", {"path": "ro.txt", "content": "x\\n"})
    for result in (edited, written):
        print(result.content[0].text)


anyio.run(main)
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("capsh") is None, reason="needs root and capsh")
async def test_root_without_the_capability_to_override_permissions_is_told_the_mode_of_a_read_only_file(
    tmp_path: Path, mode: str
) -> None:
    # It was told the mode allowed the write and "chattr -i": root was taken to pass every permission bit.
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "ro.txt").write_bytes(b"alpha\n")
    (tmp_path / "root" / "ro.txt").chmod(0o444)
    (tmp_path / "edits.py").write_text(_EDITS, encoding="utf-8")
    command = [sys.executable, str(tmp_path / "edits.py"), str(tmp_path / "root"), str(tmp_path / "state"), mode]
    drop = "--drop=cap_dac_override,cap_dac_read_search,cap_fowner"
    ran = await anyio.run_process(["capsh", drop, "--", "-c", 'exec "$@"', "edits", *command])
    answers = ran.stdout.decode().splitlines()
    assert len(answers) == 2, answers
    for answer in answers:
        assert "ro.txt is not writable by the server's user (mode -r--r--r--, owner uid 0)" in answer
        assert "chmod u+w" in answer
        assert "chattr" not in answer
    assert (tmp_path / "root" / "ro.txt").read_bytes() == b"alpha\n"
