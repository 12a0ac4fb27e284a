"""Environment failures through the tools, in both protocol eras: each has its own code, never internal_error.

Bad encodings and bad base64, names too long for any filesystem, a read-only mount (EROFS) and a full
disk (ENOSPC) in the root or in the state directory. The mount tests need root to mount a tmpfs and skip
otherwise; the fault-injection tests make the temp file's write or fsync fail with ENOSPC and run anywhere.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path
from typing import Any, BinaryIO

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, Mount, error_code, structured, text_of, tree

pytestmark = pytest.mark.anyio

TEMP_MARK = ".fsguard-tmp-"
ORIGINAL = b"original line\n" * 3


def temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob(f"{TEMP_MARK}*"))


def error_fields(result: CallToolResult) -> dict[str, Any]:
    return dict((result.meta or {})["fsguard/error"])


# --- encodings and base64 -----------------------------------------------------------------------------------


@pytest.mark.parametrize("encoding", ["rot13", "hex", "zlib", "base64_codec", "undefined", "idna", "not-a-codec"])
async def test_write_file_refuses_a_codec_that_is_not_a_text_encoding_and_writes_nothing(
    client: Client, root: Path, encoding: str
) -> None:
    (root / "old.txt").write_bytes(ORIGINAL)
    for name in ("new.txt", "old.txt"):
        result = await client.call_tool("write_file", {"path": name, "content": "a..b\n", "encoding": encoding})
        assert error_code(result) == "invalid_params"
        assert "utf-8" in text_of(result)
    assert not (root / "new.txt").exists()
    assert (root / "old.txt").read_bytes() == ORIGINAL
    assert temps(root) == []


async def test_write_file_accepts_a_text_encoding_by_any_of_its_names(client: Client, root: Path) -> None:
    structured(await client.call_tool("write_file", {"path": "l1.txt", "content": "café\n", "encoding": "Latin-1"}))
    assert (root / "l1.txt").read_bytes() == b"caf\xe9\n"


@pytest.mark.parametrize("encoding", ["rot13", "utf-8", "not-a-codec", ""])
async def test_read_file_reads_normally_with_any_encoding_but_base64_as_the_seed_did(
    client: Client, root: Path, encoding: str
) -> None:
    # The seed's read_file only acted on "base64"; any other value was a normal read, and its clients send them.
    (root / "a.txt").write_bytes(ORIGINAL)
    plain = structured(await client.call_tool("read_file", {"path": "a.txt"}))
    assert structured(await client.call_tool("read_file", {"path": "a.txt", "encoding": encoding})) == plain


@pytest.mark.parametrize("raw", ["héllo", "aGVsbG8", "not base64!"])
async def test_content_base64_that_is_not_base64_is_invalid_params_and_writes_nothing(
    client: Client, root: Path, raw: str
) -> None:
    result = await client.call_tool("write_file", {"path": "b.bin", "content_base64": raw})
    assert error_code(result) == "invalid_params"
    assert text_of(result).startswith("Invalid base64: content_base64 is not valid base64 (")
    assert "Nothing was written" in text_of(result)
    assert not (root / "b.bin").exists()


async def test_content_that_is_not_base64_with_encoding_base64_names_the_content_parameter(
    client: Client, root: Path
) -> None:
    result = await client.call_tool("write_file", {"path": "b.bin", "content": "héllo", "encoding": "base64"})
    assert error_code(result) == "invalid_params"
    assert text_of(result).startswith("Invalid base64: content is not valid base64 (")
    assert not (root / "b.bin").exists()


# --- names too long -----------------------------------------------------------------------------------------

LONG_PATH = "x" * 200_000
LONG_NAME = "sub/" + "y" * 5_000


def long_name_calls(name: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("read_file", {"path": name}),
        ("write_file", {"path": name, "content": "x\n"}),
        ("edit_file", {"path": name, "old_text": "a", "new_text": "b"}),
        ("get_file_info", {"path": name}),
        ("list_directory", {"path": name}),
        ("create_directory", {"path": name}),
        ("delete_file", {"path": name}),
        ("move_file", {"source_path": "a.txt", "dest_path": name}),
        ("move_file", {"source_path": name, "dest_path": "b.txt"}),
        ("copy_file", {"source_path": "a.txt", "dest_path": name}),
        ("copy_file", {"source_path": name, "dest_path": "b.txt"}),
    ]


@pytest.mark.parametrize("index", range(len(long_name_calls(""))), ids=[c[0] for c in long_name_calls("")])
async def test_a_name_too_long_for_any_filesystem_is_name_too_long_on_every_path_tool_and_creates_nothing(
    client: Client, root: Path, index: int
) -> None:
    (root / "a.txt").write_bytes(ORIGINAL)
    (root / "sub").mkdir()
    before = tree(root)
    for name in (LONG_PATH, LONG_NAME):
        tool, arguments = long_name_calls(name)[index]
        result = await client.call_tool(tool, arguments)
        assert error_code(result) == "name_too_long", text_of(result)[:300]
        assert "bytes" in text_of(result)
        assert len(text_of(result)) < 1_000  # the path is shortened, not echoed whole
    assert tree(root) == before


@pytest.mark.parametrize("index", range(len(long_name_calls(""))), ids=[c[0] for c in long_name_calls("")])
async def test_a_name_too_long_keeps_the_whole_absolute_path_in_meta_and_shortens_it_in_the_text_only(
    client: Client, root: Path, index: int
) -> None:
    (root / "a.txt").write_bytes(ORIGINAL)
    name = "x" * 300
    tool, arguments = long_name_calls(name)[index]
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "name_too_long", text_of(result)[:300]
    assert (result.meta or {})["fsguard/error"]["path"] == str(root / name)
    assert "(" + f"{len(str(root / name)):,} characters)" in text_of(result)
    assert not (root / name[:255]).exists()


def path_of_bytes(root: Path, size: int) -> str:
    """A relative path of 200-byte directories and a last name that makes its absolute path ``size`` bytes."""
    directories = ["d" * 200] * ((size - len(str(root)) - 50) // 201)
    rest = size - len(str(root / "/".join(directories))) - 1
    return "/".join([*directories, "f" * rest])


async def test_a_path_of_4096_bytes_is_name_too_long_on_every_tool_and_one_of_4095_is_written_and_copied(
    client: Client, root: Path
) -> None:
    longest, over = path_of_bytes(root, 4095), path_of_bytes(root, 4096)
    written = await client.call_tool("write_file", {"path": longest, "content": "x\n"})
    assert not written.is_error, text_of(written)[:300]
    before = tree(root)
    for tool, arguments in [
        ("write_file", {"path": over, "content": "x\n"}),
        ("copy_file", {"source_path": longest, "dest_path": longest + "c"}),
        ("move_file", {"source_path": longest, "dest_path": longest + "c"}),
    ]:
        result = await client.call_tool(tool, arguments)
        assert error_code(result) == "name_too_long", text_of(result)[:300]
        assert "at most 4,095 bytes" in text_of(result)
    assert tree(root) == before
    assert (root / longest).read_bytes() == b"x\n"
    copied = await client.call_tool("copy_file", {"source_path": longest, "dest_path": longest[:-1] + "c"})
    assert not copied.is_error, text_of(copied)[:300]
    assert (root / (longest[:-1] + "c")).read_bytes() == b"x\n"


# --- mounts (root only) -------------------------------------------------------------------------------------


def _write_forever(handle: BinaryIO) -> None:
    chunk = b"\0" * 65536
    while True:
        handle.write(chunk)


def remount_read_only(directory: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(directory)], capture_output=True, check=True)


def fill(directory: Path) -> None:
    """Write a filler file until the filesystem says ENOSPC."""
    with (directory / "filler").open("wb", buffering=0) as handle, pytest.raises(OSError) as caught:
        _write_forever(handle)
    assert caught.value.errno == errno.ENOSPC
    assert os.statvfs(directory).f_bavail == 0


@pytest.fixture
def read_only_dir(root: Path, mount_tmpfs: Mount) -> Path:
    """root/ro: a tmpfs holding keep.txt and empty/, remounted read-only."""
    directory = mount_tmpfs(root / "ro")
    (directory / "keep.txt").write_bytes(ORIGINAL)
    (directory / "empty").mkdir()
    remount_read_only(directory)
    return directory


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("write_file", {"path": "ro/new.txt", "content": "new\n"}),
        ("write_file", {"path": "ro/keep.txt", "content": "replaced\n"}),
        ("edit_file", {"path": "ro/keep.txt", "old_text": "original line\n", "new_text": "x\n", "replace_all": True}),
        ("delete_file", {"path": "ro/keep.txt"}),
        ("delete_file", {"path": "ro/keep.txt", "permanent": True}),
        ("delete_file", {"path": "ro/empty", "permanent": True, "recursive": True}),
        ("create_directory", {"path": "ro/made"}),
        ("create_directory", {"path": "ro/empty/made/deeper"}),
        ("git", {"action": "init", "path": "ro/repo"}),
    ],
    ids=[
        "write-new",
        "write-replace",
        "edit",
        "delete-to-trash",
        "delete-permanent",
        "delete-directory-permanent",
        "mkdir",
        "mkdir-parents",
        "git-init",
    ],
)
async def test_a_change_on_a_read_only_mount_is_read_only_filesystem_and_nothing_changes(
    client: Client, root: Path, state_dir: Path, read_only_dir: Path, tool: str, arguments: dict[str, Any]
) -> None:
    before = tree(read_only_dir)
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "read_only_filesystem", text_of(result)
    assert f"mounted at {read_only_dir.relative_to(root)}:" in text_of(result)  # text names it from the root
    assert tree(read_only_dir) == before
    assert sorted((state_dir / "trash").glob("*/item")) == []  # no copy in the trash of what was not deleted


@pytest.fixture
def full_dir(root: Path, mount_tmpfs: Mount) -> Path:
    """root/full: a 256 KiB tmpfs holding keep.txt, then filled to the last block."""
    directory = mount_tmpfs(root / "full")
    (directory / "keep.txt").write_bytes(ORIGINAL)
    fill(directory)
    return directory


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("write_file", {"path": "full/new.txt", "content": "n" * 20_000}),
        ("write_file", {"path": "full/keep.txt", "content": "r" * 20_000}),
        (
            "edit_file",
            {"path": "full/keep.txt", "old_text": "original line\n", "new_text": "g" * 20_000, "replace_all": True},
        ),
    ],
    ids=["write-new", "write-replace", "edit-grow"],
)
async def test_a_write_to_a_full_filesystem_is_disk_full_and_leaves_the_old_bytes_and_no_temp_file(
    client: Client, full_dir: Path, tool: str, arguments: dict[str, Any]
) -> None:
    before = tree(full_dir)
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "disk_full", text_of(result)
    assert "bytes free" in text_of(result) or " free)" in text_of(result)
    assert "then retry" in text_of(result)
    assert isinstance(error_fields(result)["free_bytes"], int)
    assert (full_dir / "keep.txt").read_bytes() == ORIGINAL
    assert temps(full_dir) == []
    assert tree(full_dir) == before


async def test_a_full_state_directory_makes_edit_file_disk_full_and_leaves_the_file_untouched(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    mount_tmpfs(state_dir)
    (root / "keep.txt").write_bytes(ORIGINAL)
    async with connect() as client:  # the server lays out its state directory first; then the disk fills
        fill(state_dir)
        result = await client.call_tool(
            "edit_file",
            {"path": "keep.txt", "old_text": "original line\n", "new_text": "edited\n", "replace_all": True},
        )
        assert error_code(result) == "disk_full", text_of(result)
    assert (root / "keep.txt").read_bytes() == ORIGINAL
    assert temps(root) == []
    assert list((state_dir / "inflight").iterdir()) == []  # no empty record of the write it refused


async def test_cleanup_on_a_full_state_directory_frees_the_space_it_reports_and_the_next_edit_succeeds(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    # The disk_full advice names cleanup. Its drops fit the journal's last page, but the compaction that would free
    # the bytes needs room for a copy: cleanup said "Removed 3 backups" and freed nothing. A journal left with no
    # backup is now removed, which needs no room, and freed_bytes is what the store really shrank by.
    mount_tmpfs(state_dir)
    (root / "keep.txt").write_bytes(ORIGINAL)
    async with connect() as client:
        for version in range(3):
            await client.call_tool("write_file", {"path": "keep.txt", "content": f"{version}\n" * 5_000})
        fill(state_dir)
        edit = {"path": "keep.txt", "old_text": "2\n", "new_text": "3\n", "replace_all": True}
        assert error_code(await client.call_tool("edit_file", edit)) == "disk_full"
        cleaned = structured(
            await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0, "dry_run": False})
        )
        assert cleaned["removed"] == 3
        assert list((state_dir / "backups" / "journal").iterdir()) == []
        free = os.statvfs(state_dir)
        assert 0 < cleaned["freed_bytes"] <= free.f_bavail * free.f_frsize
        assert "held_bytes" not in cleaned
        assert structured(await client.call_tool("edit_file", edit))["replacements"] == 5_000
    assert (root / "keep.txt").read_bytes() == b"3\n" * 5_000


async def test_cleanup_on_a_read_only_state_directory_answers_a_dry_run_and_refuses_the_real_one_with_its_remedy(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    mount_tmpfs(state_dir)
    (root / "keep.txt").write_bytes(ORIGINAL)
    async with connect() as client:
        await client.call_tool("write_file", {"path": "keep.txt", "content": "new\n"})
        journals = tree(state_dir / "backups")
        remount_read_only(state_dir)
        dry = await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0})
        assert structured(dry)["removed"] == 1
        real = await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0, "dry_run": False})
        assert error_code(real) == "read_only_filesystem", text_of(real)  # was internal_error
        assert "restart fsguard with --state-dir on a writable filesystem" in text_of(real)
    assert tree(state_dir / "backups") == journals


async def test_a_batch_and_a_pipeline_stopped_by_the_state_directory_name_its_remedy_as_edit_file_does(
    connect: ClientFactory, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    # They quoted the failed operation's error as a root's ("Write under a root on a writable filesystem instead").
    mount_tmpfs(state_dir)
    (root / "a.txt").write_bytes(b"alpha\n")
    edit = {"old_text": "alpha", "new_text": "omega"}
    calls = {
        "batch": {"request_json": json.dumps({"operations": [{"type": "edit", "path": "a.txt", **edit}]})},
        "pipeline": {
            "pipeline_json": json.dumps(
                {"name": "p", "steps": [{"action": "edit", "files": ["a.txt"], "params": edit}]}
            )
        },
    }
    remedies = {
        "read_only_filesystem": "restart fsguard with --state-dir on a writable filesystem",
        "disk_full": "backup(action='purge_trash') and backup(action='cleanup') free what it keeps there",
    }
    async with connect() as client:
        await client.call_tool("read_file", {"path": "a.txt"})  # the server lays out its state directory first
        for cause, remedy in remedies.items():
            if cause == "read_only_filesystem":
                remount_read_only(state_dir)
            else:
                subprocess.run(["mount", "-o", "remount,rw", str(state_dir)], capture_output=True, check=True)
                fill(state_dir)
            for arguments in calls.values():
                result = await client.call_tool("batch_operations", arguments)
                assert error_fields(result)["error_code"] == cause, text_of(result)
                assert remedy in text_of(result).split("\n")[0]
                assert "Write under a root" not in text_of(result)
    assert (root / "a.txt").read_bytes() == b"alpha\n"


# --- fault injection (any user) -----------------------------------------------------------------------------


def _is_temp(fd: int) -> bool:
    try:
        return TEMP_MARK in str(Path(f"/proc/self/fd/{fd}").readlink())
    except OSError:
        return False


@pytest.fixture
def temp_writes_fail_with_enospc(monkeypatch: pytest.MonkeyPatch) -> None:
    """os.write and os.fsync on an fsguard temp file raise ENOSPC, as a full disk (or delayed allocation) would."""
    if not Path("/proc/self/fd").is_dir():
        pytest.skip("needs /proc/self/fd to tell the writer's temp file from other files")
    real_write, real_fsync = os.write, os.fsync

    def write(fd: int, data: Any) -> int:
        if _is_temp(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    def fsync(fd: Any) -> None:
        if isinstance(fd, int) and _is_temp(fd):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(os, "write", write)
    monkeypatch.setattr(os, "fsync", fsync)


@pytest.mark.usefixtures("temp_writes_fail_with_enospc")
@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("write_file", {"path": "new.txt", "content": "new\n"}),
        ("write_file", {"path": "keep.txt", "content": "replaced\n"}),
        (
            "edit_file",
            {"path": "keep.txt", "old_text": "original line\n", "new_text": "grown " * 50, "replace_all": True},
        ),
    ],
    ids=["write-new", "write-replace", "edit-grow"],
)
async def test_enospc_while_writing_the_temp_file_is_disk_full_and_leaves_the_old_bytes_and_no_temp_file(
    client: Client, root: Path, tool: str, arguments: dict[str, Any]
) -> None:
    (root / "keep.txt").write_bytes(ORIGINAL)
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "disk_full", text_of(result)
    assert "then retry" in text_of(result)
    assert (root / "keep.txt").read_bytes() == ORIGINAL
    assert not (root / "new.txt").exists()
    assert temps(root) == []


async def test_an_unexpected_failure_is_internal_error_and_its_traceback_is_in_the_server_log(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    (root / "a.txt").write_bytes(ORIGINAL)

    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("a bug deep in the engine")

    monkeypatch.setattr("fsguard.core.reading.FileReader.read_one", broken)
    result = await client.call_tool("read_file", {"path": "a.txt"})
    assert error_code(result) == "internal_error"
    assert "the details are in the server log" in text_of(result)
    crashes = [record for record in caplog.records if record.exc_info and record.levelname == "ERROR"]
    assert [str(record.exc_info[1]) for record in crashes if record.exc_info] == ["a bug deep in the engine"]
    assert (root / "a.txt").read_bytes() == ORIGINAL


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("delete_file", {"path": "mnt", "recursive": True, "permanent": True}),
        ("delete_file", {"path": "mnt", "recursive": True}),
        ("move_file", {"source_path": "mnt", "dest_path": "moved"}),
    ],
    ids=["delete-permanent", "delete-to-trash", "move"],
)
async def test_a_mount_point_is_refused_as_access_denied_before_anything_inside_it_is_deleted(
    client: Client, root: Path, state_dir: Path, mount_tmpfs: Mount, tool: str, arguments: dict[str, Any]
) -> None:
    mounted = mount_tmpfs(root / "mnt")
    (mounted / "keep.txt").write_bytes(ORIGINAL)
    before = tree(mounted)
    result = await client.call_tool(tool, arguments)
    assert error_code(result) == "access_denied", text_of(result)  # not the fallback "error" with no next action
    assert "mount point" in text_of(result)
    assert "inside it" in text_of(result)
    assert tree(mounted) == before  # a permanent delete emptied it before the OS refused the mount point itself
    assert not (root / "moved").exists()


@pytest.mark.parametrize("permanent", [True, False], ids=["permanent", "to-trash"])
async def test_a_tree_holding_a_mount_point_is_not_deleted_and_the_mounted_files_stay(
    client: Client, root: Path, mount_tmpfs: Mount, permanent: bool
) -> None:
    # A permanent delete of the tree emptied the filesystem mounted inside it, then failed at the mount point with
    # "I/O error … Device or resource busy": files of another disk erased, and nothing said so.
    (root / "proj").mkdir()
    (root / "proj" / "a.txt").write_bytes(ORIGINAL)
    mounted = mount_tmpfs(root / "proj" / "deep" / "data")
    (mounted / "keep.txt").write_bytes(ORIGINAL)
    before = tree(root / "proj")
    arguments = {"path": "proj", "recursive": True, "permanent": permanent}
    result = await client.call_tool("delete_file", arguments)
    assert tree(root / "proj") == before
    assert (mounted / "keep.txt").read_bytes() == ORIGINAL
    assert error_code(result) == "access_denied", text_of(result)
    assert "holds a mount point, proj/deep/data" in text_of(result)


async def _trashed(client: Client, root: Path, name: str) -> str:
    (root / name / "sub").mkdir(parents=True)
    (root / name / "a.txt").write_bytes(ORIGINAL)
    (root / name / "sub" / "b.txt").write_bytes(ORIGINAL)
    trashed = structured(await client.call_tool("delete_file", {"path": name, "recursive": True}))
    return str(trashed["results"][0]["sd_id"])


async def test_a_trash_purge_that_cannot_remove_an_entry_says_so_and_keeps_it_listed(
    client: Client, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    # The purge removed what it could of the entry, swallowed the failure and counted it purged: "Purged 1 trash
    # entry", while its remains held their space, listed nowhere.
    sd_id = await _trashed(client, root, "t")
    mount_tmpfs(state_dir / "trash" / sd_id / "item" / "sub")  # EBUSY: a mount point is never removed
    purge = {"action": "purge_trash", "sd_id": sd_id, "dry_run": False, "force": True}
    refused = await client.call_tool("backup", purge)
    assert error_code(refused) == "access_denied", text_of(refused)
    assert f"trash entry {sd_id} could not be purged" in text_of(refused)
    assert "stays in the trash" in text_of(refused)
    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
    assert [entry["sd_id"] for entry in listed["trash"]] == [sd_id]
    assert (state_dir / "trash" / sd_id / "meta.json").is_file()


async def test_a_trash_purge_by_age_purges_the_rest_and_names_the_entry_it_could_not_remove(
    client: Client, root: Path, state_dir: Path, mount_tmpfs: Mount
) -> None:
    blocked, free = await _trashed(client, root, "t"), await _trashed(client, root, "u")
    mount_tmpfs(state_dir / "trash" / blocked / "item" / "sub")
    purge = {"action": "purge_trash", "older_than_days": 0, "dry_run": False, "force": True}
    result = await client.call_tool("backup", purge)
    data = structured(result)
    assert data["removed"] == 1
    assert [entry["sd_id"] for entry in data["trash"]] == [free]
    assert [failure.split(":")[0] for failure in data["not_purged"]] == [blocked]
    assert f"Could not purge {blocked}" in text_of(result)
    assert not (state_dir / "trash" / free).exists()
    listed = structured(await client.call_tool("backup", {"action": "list_trash"}))
    assert [entry["sd_id"] for entry in listed["trash"]] == [blocked]
