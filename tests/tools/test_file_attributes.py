"""What a file holds besides its bytes, through the tools: its write permission is obeyed, and its owner, group,
extended attributes (a POSIX ACL lives in one) and set-id bits are carried to the file an edit writes, to a copy, and
across filesystems (a move, the trash), never handed to a user they were not set for."""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import stat
import struct
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ClientFactory, Mount, error_code, structured, text_of
from tests.tools.test_partial_moves import immutable
from tests.tools.test_permissions import NOBODY, call_as_a_user, reachable, tree

__all__ = ["reachable"]  # the fixture, used here

pytestmark = pytest.mark.anyio

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another owner needs root")


def tagged(path: Path) -> None:
    """Give ``path`` a user extended attribute, or skip where its filesystem keeps none."""
    try:
        os.setxattr(path, "user.origin", b"camera 7")
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
            pytest.skip(f"{path.parent} keeps no user extended attributes")
        raise


@pytest.mark.parametrize("owner", ["own", "another user's"])
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "locked.txt", "old_text": "kept", "new_text": "changed"}),
        ("write_file", {"path": "locked.txt", "content": "replaced\n"}),
    ],
)
async def test_a_change_to_a_file_the_user_may_not_write_is_access_denied_and_leaves_it_as_it_was(
    connect: ClientFactory, reachable: Path, tool: str, arguments: dict[str, object], owner: str
) -> None:
    # The temp-and-rename write needs only the directory's write permission: a 0444 file of the user's own, or
    # another user's 0644 one, was replaced where `echo >> file` is refused.
    locked = reachable / "root" / "locked.txt"
    locked.write_bytes(b"kept\n")
    if owner == "own":
        locked.chmod(0o444)
        if os.geteuid() == 0:
            os.chown(locked, NOBODY, NOBODY)
    elif os.geteuid() == 0:
        locked.chmod(0o644)  # root's: nobody may read it, not write it
    else:
        pytest.skip("a file of another user's needs root to make")
    before = tree(reachable / "root")
    result = await call_as_a_user(connect, reachable, tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "not writable" in text_of(result)
    assert tree(reachable / "root") == before


async def test_an_edit_keeps_the_files_extended_attributes_and_so_does_its_undo(
    connect: ClientFactory, root: Path
) -> None:
    notes = root / "notes.txt"
    notes.write_bytes(b"draft\n")
    tagged(notes)
    async with connect() as client:
        structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "draft", "new_text": "final"}))
        assert notes.read_bytes() == b"final\n"
        assert os.getxattr(notes, "user.origin") == b"camera 7"
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "notes.txt"}))
    assert notes.read_bytes() == b"draft\n"
    assert os.getxattr(notes, "user.origin") == b"camera 7"


@ROOT_ONLY
async def test_an_edit_by_a_member_of_the_files_group_keeps_that_group(connect: ClientFactory, reachable: Path) -> None:
    # Only root gives a file to another owner, but a user may give a file of theirs to a group they are in: a
    # shared 0664 file edited by nobody became nobody's group's, and the team lost its write access.
    team = 5000
    shared = reachable / "root" / "shared.txt"
    shared.write_bytes(b"team notes\n")
    shared.chmod(0o664)
    os.chown(shared, 0, team)
    groups = os.getgroups()
    os.setgroups([team])  # nobody runs with this process's supplementary groups: now in the team
    try:
        result = await call_as_a_user(
            connect, reachable, "edit_file", {"path": "shared.txt", "old_text": "notes", "new_text": "plans"}
        )
    finally:
        os.setgroups(groups)
    structured(result)
    assert shared.read_bytes() == b"team plans\n"
    assert (shared.stat().st_gid, stat.S_IMODE(shared.stat().st_mode)) == (team, 0o664)


@ROOT_ONLY
async def test_a_copy_made_by_root_of_another_users_setuid_program_stays_that_users(
    connect: ClientFactory, root: Path
) -> None:
    # A copy made as root came out root's with the source's mode: another user's setuid program became setuid root.
    (root / "bin").mkdir()
    tool = root / "bin" / "tool"
    tool.write_bytes(b"#!/bin/sh\necho hi\n")
    os.chown(tool, 1234, 1234)
    tool.chmod(0o6755)
    async with connect() as client:
        structured(await client.call_tool("copy_file", {"source_path": "bin/tool", "dest_path": "tool-copy"}))
        structured(await client.call_tool("copy_file", {"source_path": "bin", "dest_path": "bin-copy"}))
    for copy in (root / "tool-copy", root / "bin-copy" / "tool"):
        found = copy.stat()
        assert (found.st_uid, found.st_gid, stat.S_IMODE(found.st_mode)) == (1234, 1234, 0o6755)
        assert copy.read_bytes() == tool.read_bytes()


async def test_an_undo_of_a_deleted_setuid_file_makes_it_again_without_the_set_id_bits(
    connect: ClientFactory, root: Path
) -> None:
    # A backup keeps the bytes and the mode, not the owner: recreated by the server's user, a setuid bit set for
    # another owner would make a program that runs as the server's user (root, say).
    tool = root / "tool"
    tool.write_bytes(b"#!/bin/sh\necho hi\n")
    tool.chmod(0o6755)
    async with connect() as client:
        structured(await client.call_tool("delete_file", {"path": "tool", "permanent": True}))
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "tool"}))
    assert tool.read_bytes() == b"#!/bin/sh\necho hi\n"
    assert stat.S_IMODE(tool.stat().st_mode) == 0o755


async def test_a_move_to_another_filesystem_carries_pipes_sockets_and_attributes(
    connect: ClientFactory, root: Path, mount_tmpfs: Mount
) -> None:
    # Sockets were left out of the copy, whose check then failed: "did not verify; Retry the move", for ever.
    other = mount_tmpfs(root / "other", "1m")
    box = root / "box"
    box.mkdir()
    (box / "data.txt").write_bytes(b"payload\n")
    os.mkfifo(box / "pipe", 0o640)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(box / "sock"))
    os.chown(box / "data.txt", 1234, 4321)
    (box / "data.txt").chmod(0o4750)
    async with connect() as client:
        structured(await client.call_tool("move_file", {"source_path": "box", "dest_path": "other/box"}))
    assert not box.exists()
    moved = other / "box"
    assert (moved / "data.txt").read_bytes() == b"payload\n"
    found = (moved / "data.txt").stat()
    assert (found.st_uid, found.st_gid, stat.S_IMODE(found.st_mode)) == (1234, 4321, 0o4750)
    assert stat.S_ISFIFO((moved / "pipe").lstat().st_mode)
    assert stat.S_IMODE((moved / "pipe").lstat().st_mode) == 0o640
    assert stat.S_ISSOCK((moved / "sock").lstat().st_mode)


async def test_the_trash_on_another_filesystem_takes_a_socket_and_gives_it_back(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    # A lone socket given to delete_file was refused: "only files and directories are copied", nobody asked to copy.
    mount_tmpfs(state_dir, "4m")
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(root / "app.sock"))
    async with connect() as client:
        deleted = structured(await client.call_tool("delete_file", {"path": "app.sock"}))
        assert not (root / "app.sock").exists()
        [trashed] = deleted["results"]
        structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": trashed["sd_id"]}))
    assert stat.S_ISSOCK((root / "app.sock").lstat().st_mode)


async def test_a_move_to_another_filesystem_keeps_the_hard_links_within_the_tree(
    connect: ClientFactory, root: Path, mount_tmpfs: Mount
) -> None:
    # Copied file by file, two names of one file became two files: an edit of one no longer showed in the other.
    other = mount_tmpfs(root / "other", "1m")
    box = root / "box"
    (box / "deep").mkdir(parents=True)
    (box / "a.txt").write_bytes(b"shared\n")
    os.link(box / "a.txt", box / "deep" / "b.txt")
    async with connect() as client:
        structured(await client.call_tool("move_file", {"source_path": "box", "dest_path": "other/box"}))
    first, second = other / "box" / "a.txt", other / "box" / "deep" / "b.txt"
    assert first.read_bytes() == second.read_bytes() == b"shared\n"
    assert first.stat().st_ino == second.stat().st_ino
    assert first.stat().st_nlink == 2


@ROOT_ONLY
async def test_an_edit_of_a_program_with_file_capabilities_leaves_them_off_the_new_bytes(
    connect: ClientFactory, root: Path
) -> None:
    # The kernel drops a file's capabilities on any write, root's too: carried over, an edit of a program granted
    # cap_net_raw handed the capability to whatever bytes were written.
    tool = root / "pinger"
    tool.write_bytes(b"#!/bin/sh\necho ping\n")
    tool.chmod(0o755)
    if shutil.which("setcap") is None or subprocess.run(["setcap", "cap_net_raw+ep", str(tool)]).returncode != 0:
        pytest.skip("setcap cannot grant a file capability here")
    tagged(tool)
    async with connect() as client:
        structured(await client.call_tool("edit_file", {"path": "pinger", "old_text": "ping", "new_text": "pong"}))
    assert tool.read_bytes() == b"#!/bin/sh\necho pong\n"
    assert "security.capability" not in os.listxattr(tool)
    assert os.getxattr(tool, "user.origin") == b"camera 7"  # what does not vouch for the bytes stays


async def test_an_edit_of_an_immutable_file_names_the_flag_not_the_mode(connect: ClientFactory, root: Path) -> None:
    # Root passes the permission bits, so only the flag refuses: "make it writable (chmod u+w)" would change nothing.
    locked = root / "locked.txt"
    locked.write_bytes(b"kept\n")
    with immutable(locked):
        async with connect() as client:
            result = await client.call_tool("edit_file", {"path": "locked.txt", "old_text": "kept", "new_text": "x"})
        assert locked.read_bytes() == b"kept\n"
    assert error_code(result) == "access_denied", text_of(result)
    expected = "marked immutable or append-only" if os.geteuid() == 0 else "not writable by the server's user"
    assert expected in text_of(result)


@pytest.mark.parametrize(
    ("tool", "arguments", "told_in"),
    [
        ("edit_file", {"path": "a.txt", "old_text": "one", "new_text": "two"}, "notes"),
        ("multi_edit", {"path": "a.txt", "edits": [{"old_text": "one", "new_text": "two"}]}, "notes"),
        ("write_file", {"path": "a.txt", "content": "two\n"}, "feedback"),
        ("write_file", {"path": "a.txt", "content": "two\n", "append": True}, "feedback"),
    ],
)
async def test_a_change_to_a_file_with_another_hard_link_says_that_name_keeps_the_old_bytes(
    connect: ClientFactory, root: Path, tool: str, arguments: dict[str, object], told_in: str
) -> None:
    # The replace-by-rename gives the name a new file, so the other name silently kept the old bytes; an in-place
    # editor would have changed both. The agent is now told, in the result and its text.
    (root / "a.txt").write_bytes(b"one\n")
    os.link(root / "a.txt", root / "b.txt")
    async with connect() as client:
        result = await client.call_tool(tool, arguments)
    data = structured(result)
    assert (root / "b.txt").read_bytes() == b"one\n"
    assert (root / "a.txt").read_bytes() != b"one\n"
    told = data[told_in] if told_in == "feedback" else "\n".join(data[told_in])
    assert "a.txt had another hard link: that name keeps the old bytes" in told
    assert "hard link" in text_of(result)


async def test_a_change_to_a_file_without_other_links_says_nothing_of_links(connect: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_bytes(b"one\n")
    async with connect() as client:
        result = await client.call_tool("write_file", {"path": "a.txt", "content": "two\n"})
    assert "hard link" not in text_of(result)
    assert not structured(result).get("feedback")


def sparse(path: Path) -> bytes:
    """Make ``path`` a 64 MiB file of holes around two bits of data (the last one short of its end); returns its
    bytes. Skips where the filesystem stores the holes."""
    with path.open("wb") as out:
        out.seek(16 << 20)
        out.write(b"middle\n")
        out.seek(40 << 20)
        out.write(b"late\n")
        out.truncate(64 << 20)
    if path.stat().st_blocks * 512 >= 1 << 20:
        pytest.skip(f"{path.parent} keeps no holes")
    return path.read_bytes()


async def test_a_copy_and_a_move_to_another_filesystem_keep_a_sparse_files_holes(
    connect: ClientFactory, root: Path, mount_tmpfs: Mount
) -> None:
    # Copied byte for byte, a 64 MiB file holding 12 bytes took 64 MiB (a disk image, its whole nominal size).
    data = sparse(root / "disk.img")
    other = mount_tmpfs(root / "other", "8m")
    async with connect() as client:
        structured(await client.call_tool("copy_file", {"source_path": "disk.img", "dest_path": "copy.img"}))
        structured(await client.call_tool("move_file", {"source_path": "disk.img", "dest_path": "other/disk.img"}))
    for copy in (root / "copy.img", other / "disk.img"):
        assert copy.read_bytes() == data
        assert copy.stat().st_blocks * 512 < 1 << 20


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("move_file", {"source_path": "locked.txt", "dest_path": "moved.txt"}),
        ("delete_file", {"path": "locked.txt"}),
    ],
)
async def test_a_move_or_delete_of_an_immutable_file_names_the_flag_not_the_permissions(
    connect: ClientFactory, root: Path, tool: str, arguments: dict[str, object]
) -> None:
    # The bare EPERM said "Check its permissions with get_file_info", which shows a mode that allows the change.
    locked = root / "locked.txt"
    locked.write_bytes(b"kept\n")
    with immutable(locked):
        async with connect() as client:
            result = await client.call_tool(tool, arguments)
        assert locked.read_bytes() == b"kept\n"
    assert sorted(path.name for path in root.iterdir()) == ["locked.txt"]
    assert error_code(result) == "access_denied", text_of(result)
    if os.geteuid() == 0:
        assert "it is marked immutable (lsattr shows an i)" in text_of(result)
        assert "chattr -i" in text_of(result)


def private_share(directory: Path) -> None:
    """Give ``directory`` the default ACL ``user::rw- user:65534:rw- group::r-- mask::rw- other::---`` (written as
    its extended attribute: setfacl need not be installed), or skip where the filesystem keeps no POSIX ACL."""
    everyone = 0xFFFFFFFF
    entries = [(0x01, 6, everyone), (0x02, 6, 65534), (0x04, 4, everyone), (0x10, 6, everyone), (0x20, 0, everyone)]
    value = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)
    try:
        os.setxattr(directory, "system.posix_acl_default", value)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP, errno.EPERM):
            pytest.skip(f"{directory} keeps no POSIX ACL")
        raise


async def test_a_file_written_anew_in_a_directory_with_a_default_acl_takes_that_acl_as_any_program_would(
    connect: ClientFactory, root: Path
) -> None:
    # Set to 0666 less the umask after its creation, a new file overrode the directory's default ACL: others, whom
    # the ACL kept out, could read it (0644), and the named user lost write (the mask became r--).
    share = root / "share"
    share.mkdir()
    private_share(share)
    made = os.open(share / "by_hand.txt", os.O_WRONLY | os.O_CREAT, 0o666)
    os.close(made)
    async with connect() as client:
        structured(await client.call_tool("write_file", {"path": "share/new.txt", "content": "x\n"}))
        deeper = {"path": "share/a/b.txt", "content": "y\n", "create_dirs": True}
        structured(await client.call_tool("write_file", deeper))
    expected = stat.S_IMODE((share / "by_hand.txt").stat().st_mode)
    assert expected == 0o660
    for made_here in (share / "new.txt", share / "a" / "b.txt"):
        assert stat.S_IMODE(made_here.stat().st_mode) == expected
        assert os.getxattr(made_here, "system.posix_acl_access") == os.getxattr(
            share / "by_hand.txt", "system.posix_acl_access"
        )


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("edit_file", {"path": "box/kept.txt", "old_text": "kept", "new_text": "x"}),
        ("write_file", {"path": "box/new.txt", "content": "x\n"}),
        ("delete_file", {"path": "box/kept.txt"}),
    ],
)
async def test_a_change_in_an_immutable_directory_names_its_flag_not_its_mode(
    connect: ClientFactory, root: Path, tool: str, arguments: dict[str, object]
) -> None:
    # As root the directory's bits allow it: "make it writable (chmod u+w)" would change nothing.
    box = root / "box"
    box.mkdir()
    (box / "kept.txt").write_bytes(b"kept\n")
    with immutable(box):
        async with connect() as client:
            result = await client.call_tool(tool, arguments)
        assert sorted(path.name for path in box.iterdir()) == ["kept.txt"]
    assert (box / "kept.txt").read_bytes() == b"kept\n"
    assert error_code(result) == "access_denied", text_of(result)
    if os.geteuid() == 0:
        assert "its directory box is marked immutable (lsattr -d shows an i)" in text_of(result)
        assert "chmod" not in text_of(result)


async def test_a_project_replace_in_a_file_with_another_hard_link_says_that_name_keeps_the_old_bytes(
    connect: ClientFactory, root: Path
) -> None:
    # The other name is outside the replaced path, so only a.txt's name gets the new file; b.txt keeps "one".
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_bytes(b"one\n")
    os.link(root / "src" / "a.txt", root / "b.txt")
    async with connect() as client:
        result = await client.call_tool(
            "project_replace", {"path": "src", "find": "one", "replace": "two", "preview": False}
        )
    data = structured(result)
    assert (root / "b.txt").read_bytes() == b"one\n"
    assert (root / "src" / "a.txt").read_bytes() == b"two\n"
    (changed,) = data["files"]
    assert "a.txt had another hard link: that name keeps the old bytes" in "\n".join(changed["notes"])
    assert "hard link" in text_of(result)


@pytest.mark.parametrize("action", ["undo_last", "restore"])
async def test_an_undo_or_restore_of_a_file_with_another_hard_link_says_that_name_keeps_the_old_bytes(
    connect: ClientFactory, root: Path, action: str
) -> None:
    (root / "a.txt").write_bytes(b"one\n")
    async with connect() as client:
        written = structured(await client.call_tool("write_file", {"path": "a.txt", "content": "two\n"}))
        os.link(root / "a.txt", root / "b.txt")  # linked after the write: the undo is what breaks the link
        arguments = {"file_path": "a.txt"} if action == "undo_last" else {"backup_id": written["backup_id"]}
        result = await client.call_tool("backup", {"action": action, **arguments})
    data = structured(result)
    assert (root / "a.txt").read_bytes() == b"one\n"
    assert (root / "b.txt").read_bytes() == b"two\n"
    (restored,) = data["restored"]
    assert "a.txt had another hard link: that name keeps the old bytes" in "\n".join(restored["notes"])
    assert "hard link" in text_of(result)


@pytest.mark.parametrize(
    "operation",
    [
        {"type": "write", "path": "a.txt", "content": "two\n"},
        {"type": "write", "path": "a.txt", "content": "two\n", "append": True},
        {"type": "edit", "path": "a.txt", "old_text": "one", "new_text": "two"},
    ],
)
async def test_a_batch_change_to_a_file_with_another_hard_link_says_that_name_keeps_the_old_bytes(
    connect: ClientFactory, root: Path, operation: dict[str, object]
) -> None:
    (root / "a.txt").write_bytes(b"one\n")
    os.link(root / "a.txt", root / "b.txt")
    async with connect() as client:
        request = json.dumps({"operations": [operation]})
        result = await client.call_tool("batch_operations", {"request_json": request})
    data = structured(result)
    assert (root / "b.txt").read_bytes() == b"one\n"
    assert (root / "a.txt").read_bytes() != b"one\n"
    (done,) = data["operations"]
    assert "a.txt had another hard link: that name keeps the old bytes" in "\n".join(done["notes"])
    assert "hard link" in text_of(result)


async def test_a_pipeline_edit_of_a_file_with_another_hard_link_says_that_name_keeps_the_old_bytes(
    connect: ClientFactory, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"one\n")
    os.link(root / "a.txt", root / "b.txt")
    edit = {"id": "fix", "action": "edit", "params": {"files": ["a.txt"], "old_text": "one", "new_text": "two"}}
    async with connect() as client:
        pipeline = json.dumps({"name": "links", "steps": [edit]})
        result = await client.call_tool("batch_operations", {"pipeline_json": pipeline})
    data = structured(result)
    assert (root / "b.txt").read_bytes() == b"one\n"
    assert (root / "a.txt").read_bytes() == b"two\n"
    (step,) = data["steps"]
    assert "a.txt had another hard link: that name keeps the old bytes" in "\n".join(step["notes"])
    assert "hard link" in text_of(result)
