"""Entries the operating system refuses to the server's user, reached through every tool family: a directory
without search permission, one without read or search permission. Each call answers access_denied, never
internal_error, and changes nothing. A directory the user may write and search but not list (a drop box) takes
every change, and each is reported done.

Root passes every permission bit, so as root each call runs with the effective uid and gid of nobody, restored
after it (seteuid reaches every thread of the process: the worker thread running the tool too). The root, the
state directory and the lock directory are then made where nobody can reach them: pytest's own temp directory
is root's alone, and so may be the Python install: what the client loads on first use is loaded first, as root.
"""

from __future__ import annotations

import importlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.core import locks
from tests.conftest import ClientFactory, Mount, error_code, structured, text_of

pytestmark = pytest.mark.anyio

NOBODY = 65534
importlib.import_module("jsonschema")  # the client loads it for the first result it validates: not as nobody


@pytest.fixture
def reachable(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory holding root/, state/ and locks/, owned by nobody when the tests run as root."""
    base = Path(tempfile.mkdtemp(prefix="fsguard-permissions-")).resolve()
    for name in ("root", "state", "locks"):
        (base / name).mkdir()
    monkeypatch.setattr(locks, "_user_lock_dir", lambda: base / "locks")
    if os.geteuid() == 0:
        for path in (base, *base.iterdir()):
            os.chown(path, NOBODY, NOBODY)
    yield base
    for directory, _dirs, _files in os.walk(base):
        Path(directory).chmod(0o755)
    shutil.rmtree(base)


@contextmanager
def as_a_user() -> Iterator[None]:
    """Run the block as a user permission bits stop: nobody when this process is root, else as it is."""
    if os.geteuid() != 0:
        yield
        return
    os.setegid(NOBODY)
    os.seteuid(NOBODY)
    try:
        yield
    finally:
        os.seteuid(0)
        os.setegid(0)


def users(*paths: Path) -> None:
    """Make ``paths`` the files of the user :func:`as_a_user` runs as: a file is changed only by a user who may
    write it, not by any who may write its directory."""
    if os.geteuid() == 0:
        for path in paths:
            os.chown(path, NOBODY, NOBODY)


def tree(directory: Path) -> dict[str, tuple[int, bytes | None]]:
    """Every entry under ``directory``: its mode, and its bytes (None for a directory)."""
    return {
        str(path.relative_to(directory)): (path.lstat().st_mode, None if path.is_dir() else path.read_bytes())
        for path in sorted(directory.rglob("*"))
    }


@asynccontextmanager
async def client_on(connect: ClientFactory, base: Path, **overrides: Any) -> AsyncIterator[Client]:
    async with connect(roots=(base / "root",), state_dir=base / "state", **overrides) as client:
        if os.geteuid() == 0:  # what the server made in its state directory at start, made as root
            for directory, dirs, files in os.walk(base / "state"):
                for name in [Path(directory), *(Path(directory) / entry for entry in dirs + files)]:
                    os.chown(name, NOBODY, NOBODY)
        yield client


async def call_as_a_user(
    connect: ClientFactory, base: Path, tool: str, arguments: dict[str, Any], **overrides: Any
) -> CallToolResult:
    """One call of ``tool`` on a server over ``base``, made as a user permission bits stop."""
    async with client_on(connect, base, **overrides) as client:
        with as_a_user():
            return await client.call_tool(tool, arguments)


@pytest.mark.parametrize("locked_mode", [0o000, 0o644], ids=["no-permissions", "no-search"])
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("copy_file", {"source_path": "locked/f.txt", "dest_path": "copy.txt"}),
        ("copy_file", {"source_path": "plain.txt", "dest_path": "locked/f.txt"}),
        ("move_file", {"source_path": "locked/f.txt", "dest_path": "moved.txt"}),
        ("move_file", {"source_path": "plain.txt", "dest_path": "locked/f.txt"}),
        ("analyze_operation", {"operation": "file", "path": "locked/f.txt"}),
        ("analyze_operation", {"operation": "write", "path": "locked/f.txt", "content": "x"}),
        (
            "batch_operations",
            {"request_json": {"operations": [{"type": "copy", "source": "locked/f.txt", "destination": "c"}]}},
        ),
        (
            "batch_operations",
            {"request_json": {"operations": [{"type": "move", "source": "plain.txt", "destination": "locked/f.txt"}]}},
        ),
        (
            "batch_operations",
            {
                "pipeline_json": {
                    "name": "p",
                    "steps": [{"action": "search", "params": {"pattern": "a", "path": "locked/f.txt"}}],
                }
            },
        ),
        ("batch_operations", {"rename_json": {"path": "locked", "mode": "add_prefix", "prefix": "p_"}}),
        ("project_replace", {"find": "a", "replace": "b", "path": "locked/f.txt"}),
    ],
)
async def test_a_path_below_a_directory_the_os_refuses_is_access_denied_and_nothing_changes(
    connect: ClientFactory, reachable: Path, tool: str, arguments: dict[str, Any], locked_mode: int
) -> None:
    root = reachable / "root"
    (root / "plain.txt").write_bytes(b"plain\n")
    (root / "locked").mkdir()
    (root / "locked" / "f.txt").write_bytes(b"a locked file\n")
    (root / "locked").chmod(locked_mode)
    before = tree(root)
    result = await call_as_a_user(connect, reachable, tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "permission" in text_of(result).lower()
    assert tree(root) == before


TOP = {"top.txt": b"top\n"}
OLD = {"box/f.txt": b"old\n"}
BOTH = (
    {"type": "write", "path": "box/b.txt", "content": "b\n"},
    {"type": "edit", "path": "box/f.txt", "old_text": "old", "new_text": "e"},
)


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("write_file", {"path": "box/f.txt", "content": "new\n"}, {**TOP, "box/f.txt": b"new\n"}),
        ("write_file", {"path": "box/n.txt", "content": "new\n"}, {**TOP, **OLD, "box/n.txt": b"new\n"}),
        ("edit_file", {"path": "box/f.txt", "old_text": "old", "new_text": "new"}, {**TOP, "box/f.txt": b"new\n"}),
        ("move_file", {"source_path": "top.txt", "dest_path": "box/m.txt"}, {**OLD, "box/m.txt": b"top\n"}),
        ("move_file", {"source_path": "box/f.txt", "dest_path": "m.txt"}, {**TOP, "m.txt": b"old\n"}),
        ("copy_file", {"source_path": "top.txt", "dest_path": "box/c.txt"}, {**TOP, **OLD, "box/c.txt": b"top\n"}),
        ("delete_file", {"path": "box/f.txt"}, TOP),
        ("batch_operations", {"request_json": {"operations": BOTH}}, {**TOP, "box/b.txt": b"b\n", "box/f.txt": b"e\n"}),
    ],
)
async def test_a_change_in_a_directory_the_user_may_write_but_not_list_is_made_and_reported_done(
    connect: ClientFactory, reachable: Path, tool: str, arguments: dict[str, Any], expected: dict[str, bytes]
) -> None:
    # A drop box (mode -wx): a file in it can be made, replaced and removed, but the directory cannot be opened to
    # fsync it. fsguard made the change, then answered access_denied: a batch so "failed" was not rolled back.
    root = reachable / "root"
    (root / "box").mkdir()
    (root / "box" / "f.txt").write_bytes(b"old\n")
    (root / "top.txt").write_bytes(b"top\n")
    users(root / "box" / "f.txt", root / "top.txt")
    (root / "box").chmod(0o333)
    result = await call_as_a_user(connect, reachable, tool, arguments)
    assert not result.is_error, text_of(result)
    (root / "box").chmod(0o755)
    assert {str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()} == expected


async def test_a_search_and_a_replace_of_a_file_in_a_directory_the_user_may_not_list_read_the_file(
    connect: ClientFactory, reachable: Path, tool_engine: str
) -> None:
    # The file's directory was pinned open for listing, which EACCES refuses for mode -wx: the search answered
    # access_denied with rg and "No match" with the Python engine, and project_replace "0 occurrences in 0 files".
    root = reachable / "root"
    (root / "box").mkdir()
    (root / "box" / "f.txt").write_bytes(b"old\n")
    users(root / "box" / "f.txt")
    (root / "box").chmod(0o333)
    async with client_on(connect, reachable) as client:
        with as_a_user():
            found = await client.call_tool(
                "search_files", {"pattern": "old", "path": "box/f.txt", "include_content": True}
            )
            replaced = await client.call_tool("project_replace", {"find": "old", "replace": "new", "path": "box/f.txt"})
    assert structured(found)["total_matches"] == 1
    assert structured(replaced)["total_replacements"] == 1
    (root / "box").chmod(0o755)
    assert (root / "box" / "f.txt").read_bytes() == b"new\n"


# Directories the user may not list, and nox, which it may list but not enter: rg lists its names, opens none of them
OUT_OF_REACH = {
    "locked": 0o000,
    "box": 0o333,
    "nox": 0o666,
    "sub/deeper": 0o000,
    "vault": 0o000,
    "node_modules/pkg": 0o000,
}


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_files", {"pattern": "*.py"}),
        ("search_files", {"pattern": "hello", "include_content": True}),
        ("search_files", {"pattern": "hello", "include_content": True, "count_only": True}),
        ("project_replace", {"find": "hello", "replace": "bye", "preview": True}),
        ("project_replace", {"find": "hel+o", "replace": "bye", "literal": False}),
        ("project_replace", {"find": "hello", "replace": "bye"}),
    ],
)
async def test_a_search_or_replace_names_the_subdirectories_the_user_may_not_list_and_changes_nothing_in_them(
    connect: ClientFactory, reachable: Path, tool_engine: str, tool: str, arguments: dict[str, Any]
) -> None:
    # Both engines skipped such a directory, or a file the user may not read, without a word (rg runs with
    # --no-messages): an agent took "1 match" for all there was. A denied one stays unnamed, and one the default
    # skips leave out is not looked into. A name search lists an unreadable file as any other, but no name in a
    # directory it may not enter (rg listed them, the Python walk did not: neither could confirm them).
    root = reachable / "root"
    (root / "a.py").write_bytes(b"hello\n")
    users(root / "a.py")
    (root / "b.py").write_bytes(b"hello\n")
    (root / "b.py").chmod(0o000)
    for name, mode in OUT_OF_REACH.items():
        (root / name).mkdir(parents=True)
        (root / name / "c.py").write_bytes(b"hello\n")
        (root / name).chmod(mode)
    result = await call_as_a_user(connect, reachable, tool, arguments, deny=("vault/",))
    found = structured(result)
    by_name = tool == "search_files" and not arguments.get("include_content")  # lists b.py as any file
    unreadable = ["box/", "locked/", "nox/", "sub/deeper/"]
    unreadable = unreadable if by_name else ["b.py", *unreadable]
    assert found["skipped_unreadable_paths"] == unreadable
    assert found["skipped_unreadable"] == len(unreadable)
    assert f"may not read them: {', '.join(unreadable)}" in text_of(result)
    (root / "b.py").chmod(0o644)
    assert (root / "b.py").read_bytes() == b"hello\n"
    for name in OUT_OF_REACH:
        (root / name).chmod(0o755)
        assert (root / name / "c.py").read_bytes() == b"hello\n"
    changed = tool == "project_replace" and not arguments.get("preview")
    assert (root / "a.py").read_bytes() == (b"bye\n" if changed else b"hello\n")
    if by_name:
        assert found["files"] == [str(root / "a.py"), str(root / "b.py")]


async def test_a_pipeline_search_step_names_what_the_user_may_not_read(
    connect: ClientFactory, reachable: Path, tool_engine: str
) -> None:
    root = reachable / "root"
    (root / "a.py").write_bytes(b"hello\n")
    (root / "b.py").write_bytes(b"hello\n")
    (root / "b.py").chmod(0o000)
    (root / "locked").mkdir()
    (root / "locked" / "c.py").write_bytes(b"hello\n")
    (root / "locked").chmod(0o000)
    steps = [{"id": "find", "action": "search", "params": {"pattern": "hello"}}]
    result = await call_as_a_user(
        connect, reachable, "batch_operations", {"pipeline_json": {"name": "t", "steps": steps}}
    )
    (root / "locked").chmod(0o755)
    step = structured(result)["steps"][0]
    assert step["files"] == [str(root / "a.py")]
    assert step["not_searched"] == {"skipped_unreadable": 2, "skipped_unreadable_paths": ["b.py", "locked/"]}
    assert "the server's user may not read them: b.py, locked/" in text_of(result)


@pytest.mark.parametrize("locked_mode", [0o000, 0o333, 0o666], ids=["no-permissions", "drop-box", "list-only"])
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_files", {"pattern": "*.py", "path": "locked"}),
        ("search_files", {"pattern": "hello", "path": "locked", "include_content": True}),
        ("project_replace", {"find": "hello", "replace": "bye", "path": "locked"}),
        ("project_replace", {"find": "hello", "replace": "bye", "path": "locked", "preview": True}),
    ],
)
async def test_a_search_of_a_directory_the_user_may_not_list_or_enter_is_access_denied_not_an_empty_answer(
    connect: ClientFactory, reachable: Path, tool_engine: str, tool: str, arguments: dict[str, Any], locked_mode: int
) -> None:
    root = reachable / "root"
    (root / "locked").mkdir()
    (root / "locked" / "c.py").write_bytes(b"hello\n")
    (root / "locked").chmod(locked_mode)
    result = await call_as_a_user(connect, reachable, tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "locked" in text_of(result)
    (root / "locked").chmod(0o755)
    assert (root / "locked" / "c.py").read_bytes() == b"hello\n"


@pytest.mark.parametrize(
    ("name", "bits", "verb"),
    [("locked", 0o000, "list"), ("box", 0o333, "list"), ("secret.txt", 0o000, "read")],
    ids=["no-permissions", "drop-box", "unreadable-file"],
)
async def test_get_file_info_describes_what_the_user_may_not_read_and_says_so(
    connect: ClientFactory, reachable: Path, name: str, bits: int, verb: str
) -> None:
    # Every access_denied message advises get_file_info to check permissions, and get_file_info itself answered
    # access_denied for a directory it could not list or a file it could not read.
    root = reachable / "root"
    if name.endswith(".txt"):
        (root / name).write_bytes(b"secret\n")
    else:
        (root / name).mkdir()
    (root / name).chmod(bits)
    result = await call_as_a_user(connect, reachable, "get_file_info", {"path": name})
    facts = structured(result)
    assert facts["readable"] is False
    assert facts["mode"] == f"{bits:04o}"
    assert "entries" not in facts
    assert "content_hash" not in facts
    assert f"the server's user may not {verb} it" in text_of(result)


async def test_a_tree_shows_a_subdirectory_the_user_may_not_list_as_such_and_the_rest_whole(
    connect: ClientFactory, reachable: Path
) -> None:
    # One unlistable subdirectory made the whole tree access_denied.
    root = reachable / "root"
    (root / "t" / "open").mkdir(parents=True)
    (root / "t" / "open" / "a.txt").write_bytes(b"a\n")
    (root / "t" / "locked").mkdir()
    (root / "t" / "locked").chmod(0o000)
    result = await call_as_a_user(
        connect, reachable, "list_directory", {"path": "t", "max_depth": 3, "output_format": "tree"}
    )
    children = structured(result)["tree"]["children"]
    assert [(node["name"], node.get("readable"), node.get("children")) for node in children] == [
        ("locked", False, None),
        ("open", None, [{"name": "a.txt", "type": "file", "size": 2}]),
    ]
    assert "locked/ [the server's user may not list it]" in text_of(result)
    assert "a.txt" in text_of(result)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("copy_file", {"source_path": "t", "dest_path": "t2"}),
        ("move_file", {"source_path": "t", "dest_path": "t2"}),
        ("delete_file", {"path": "t", "recursive": True}),
    ],
)
async def test_a_tree_holding_a_subdirectory_the_user_may_not_list_is_refused_naming_that_subdirectory(
    connect: ClientFactory, reachable: Path, tool: str, arguments: dict[str, Any]
) -> None:
    # The refusal named the top ("refused access to t"), whose permissions get_file_info then showed as fine.
    root = reachable / "root"
    (root / "t" / "deep" / "locked").mkdir(parents=True)
    (root / "t" / "a.txt").write_bytes(b"a\n")
    (root / "t" / "deep" / "locked").chmod(0o000)
    before = tree(root)
    result = await call_as_a_user(connect, reachable, tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "t/deep/locked: Permission denied" in text_of(result)
    assert tree(root) == before


@pytest.mark.parametrize("blocked_mode", [0o555, 0o000, 0o444], ids=["read-only", "no-permissions", "no-search"])
async def test_a_permanent_delete_of_a_tree_holding_a_directory_the_user_may_not_empty_removes_nothing(
    connect: ClientFactory, reachable: Path, blocked_mode: int
) -> None:
    # The tree was removed file by file until the first the user might not remove: part of it was gone for good,
    # and the call failed (a Go module cache's directories are read-only, for one).
    root = reachable / "root"
    (root / "t" / "deep" / "blocked").mkdir(parents=True)
    for name in ("t/a.txt", "t/deep/b.txt", "t/deep/blocked/c.txt", "t/z.txt"):
        (root / name).write_bytes(name.encode())
    if os.geteuid() == 0:  # the user's own tree: all it lacks is the permission bits of one directory
        for path in (root / "t", *(root / "t").rglob("*")):
            os.chown(path, NOBODY, NOBODY)
    (root / "t" / "deep" / "blocked").chmod(blocked_mode)
    before = tree(root)
    arguments = {"path": "t", "recursive": True, "permanent": True}
    result = await call_as_a_user(connect, reachable, "delete_file", arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "t/deep/blocked" in text_of(result)
    assert "nothing was removed" in text_of(result)
    assert tree(root) == before
    (root / "t" / "deep" / "blocked").chmod(0o755)
    assert (root / "t" / "deep" / "blocked" / "c.txt").read_bytes() == b"t/deep/blocked/c.txt"


async def test_a_trashed_tree_holding_a_read_only_directory_is_purged_whole(
    connect: ClientFactory, reachable: Path
) -> None:
    # The purge removed what it could, then failed silently at the read-only directory and counted the entry
    # purged: its remains held the disk space for good, listed nowhere.
    root = reachable / "root"
    (root / "t" / "ro").mkdir(parents=True)
    (root / "t" / "a.txt").write_bytes(b"a\n")
    (root / "t" / "ro" / "c.txt").write_bytes(b"c\n")
    if os.geteuid() == 0:
        for path in (root / "t", *(root / "t").rglob("*")):
            os.chown(path, NOBODY, NOBODY)
    (root / "t" / "ro").chmod(0o555)
    async with client_on(connect, reachable) as client:
        with as_a_user():
            trashed = await client.call_tool("delete_file", {"path": "t", "recursive": True})
            sd_id = structured(trashed)["results"][0]["sd_id"]
            purge = {"action": "purge_trash", "sd_id": sd_id, "dry_run": False, "force": True}
            purged = await client.call_tool("backup", purge)
    assert not purged.is_error, text_of(purged)
    assert not (root / "t").exists()
    assert not [path for path in (reachable / "state").rglob("*") if sd_id in str(path)]


async def test_a_move_across_filesystems_of_a_tree_the_user_may_not_empty_is_refused_before_the_copy(
    connect: ClientFactory, reachable: Path, mount_tmpfs: Mount
) -> None:
    # The tree was copied, then its removal failed partway: half of the source stayed beside the whole copy.
    root = reachable / "root"
    other = mount_tmpfs(root / "other", "4m")
    (root / "t" / "blocked").mkdir(parents=True)
    (root / "t" / "a.txt").write_bytes(b"a\n")
    (root / "t" / "blocked" / "c.txt").write_bytes(b"c\n")
    for path in (other, root / "t", *(root / "t").rglob("*")):
        os.chown(path, NOBODY, NOBODY)
    (root / "t" / "blocked").chmod(0o555)
    before = tree(root / "t")
    result = await call_as_a_user(connect, reachable, "move_file", {"source_path": "t", "dest_path": "other/t"})
    assert error_code(result) == "access_denied", text_of(result)
    assert "t/blocked may not be emptied" in text_of(result)
    assert tree(root / "t") == before
    assert list(other.iterdir()) == []


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_files", {"pattern": "hello", "path": "secret.txt"}),
        ("project_replace", {"find": "hello", "replace": "bye", "path": "secret.txt"}),
    ],
)
async def test_a_search_or_replace_of_one_file_the_user_may_not_read_is_access_denied_not_no_match(
    connect: ClientFactory, reachable: Path, tool_engine: str, tool: str, arguments: dict[str, Any]
) -> None:
    # "No matches found for 'hello' under secret.txt" and "Replaced 0 occurrences in 0 files", for a file never read.
    root = reachable / "root"
    (root / "secret.txt").write_bytes(b"hello\n")
    (root / "secret.txt").chmod(0o000)
    result = await call_as_a_user(connect, reachable, tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)
    assert "secret.txt: Permission denied" in text_of(result)
    (root / "secret.txt").chmod(0o644)
    assert (root / "secret.txt").read_bytes() == b"hello\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "locked/f.txt"}),
        ("get_file_info", {"path": "locked/f.txt"}),
        ("write_file", {"path": "locked/new.txt", "content": "x"}),
        ("edit_file", {"path": "locked/f.txt", "old_text": "a", "new_text": "b"}),
    ],
)
async def test_a_file_in_a_directory_without_search_permission_is_named_by_its_path_not_its_last_name(
    connect: ClientFactory, reachable: Path, tool: str, arguments: dict[str, Any]
) -> None:
    root = reachable / "root"
    (root / "locked").mkdir()
    (root / "locked" / "f.txt").write_bytes(b"a locked file\n")
    (root / "locked").chmod(0o644)
    before = tree(root)
    async with client_on(connect, reachable) as client:
        with as_a_user():
            result = await client.call_tool(tool, arguments)
            advised = await client.call_tool("get_file_info", {"path": "locked"})
    assert error_code(result) == "access_denied", text_of(result)
    assert f"refused access to {arguments['path']}:" in text_of(result)  # not just "f.txt", which could be anywhere
    assert "Check the permissions of locked with get_file_info" in text_of(result)
    assert structured(advised)["mode"] == "0644"  # the advice, followed, shows why
    assert tree(root) == before


@pytest.mark.parametrize("tool", ["move_file", "copy_file"])
async def test_a_move_or_copy_into_a_directory_the_user_may_not_write_names_that_directory_not_the_source(
    connect: ClientFactory, reachable: Path, tool: str
) -> None:
    root = reachable / "root"
    (root / "plain.txt").write_bytes(b"plain\n")
    (root / "shut").mkdir()
    (root / "shut").chmod(0o555)
    before = tree(root)
    result = await call_as_a_user(connect, reachable, tool, {"source_path": "plain.txt", "dest_path": "shut/plain.txt"})
    assert error_code(result) == "access_denied", text_of(result)
    assert "refused access to shut:" in text_of(result)
    assert "plain.txt" not in text_of(result)
    assert tree(root) == before


@pytest.mark.parametrize(("bits", "where"), [(0o000, "secret.txt"), (0o000, "locked")], ids=["file", "directory"])
async def test_get_file_info_shows_the_permissions_of_an_entry_whose_contents_the_os_refuses(
    connect: ClientFactory, reachable: Path, bits: int, where: str
) -> None:
    root = reachable / "root"
    (root / "secret.txt").write_bytes(b"s\n")
    (root / "locked").mkdir()
    (root / where).chmod(bits)
    before = tree(root)
    async with client_on(connect, reachable) as client:
        with as_a_user():
            refused = await client.call_tool("read_file", {"path": f"{where}/f.txt" if where == "locked" else where})
            info = await client.call_tool("get_file_info", {"path": where})
    assert error_code(refused) == "access_denied"
    assert "get_file_info" in text_of(refused)
    facts = structured(info)  # the advice, followed, answers with the permissions
    assert facts["mode"] == f"{bits:04o}"
    assert "content_hash" not in facts
    assert "entries" not in facts
    assert tree(root) == before
