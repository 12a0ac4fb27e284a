"""get_file_info through the in-memory Client, in both protocol eras."""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_file_info_reports_size_mode_hash_lines_and_encoding(client: Client, root: Path) -> None:
    target = root / "a.txt"
    target.write_bytes(b"alpha\nbeta\n")
    target.chmod(0o640)
    data = structured(await client.call_tool("get_file_info", {"path": "a.txt"}))
    assert data["path"] == str(target)
    assert (data["type"], data["size"], data["mode"], data["permissions"]) == ("file", 11, "0640", "-rw-r-----")
    assert (data["content_hash"], data["line_count"], data["encoding"]) == ("d4d8adf9", 2, "utf-8")
    assert data["is_symlink"] is False
    assert data["modified"].endswith("Z")


async def test_hash_from_info_equals_the_hash_from_read(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"x" * 1000 + b"\n")
    info = structured(await client.call_tool("get_file_info", {"path": "a.txt"}))
    read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
    assert info["content_hash"] == read["content_hash"]


async def test_directory_info_counts_its_entries(client: Client, root: Path) -> None:
    (root / "d").mkdir()
    (root / "d" / "one").write_text("1", encoding="utf-8")
    (root / "d" / "two").mkdir()
    data = structured(await client.call_tool("get_file_info", {"path": "d"}))
    assert (data["type"], data["entries"]) == ("directory", 2)
    assert "content_hash" not in data


async def test_binary_file_has_a_hash_but_no_line_count(client: Client, root: Path) -> None:
    (root / "b.bin").write_bytes(b"\x00\x01\x02")
    data = structured(await client.call_tool("get_file_info", {"path": "b.bin"}))
    assert data["encoding"] == "binary"
    assert "line_count" not in data
    assert len(data["content_hash"]) == 8


async def test_symlink_inside_the_root_is_reported_with_its_target(client: Client, root: Path) -> None:
    (root / "real.txt").write_text("r", encoding="utf-8")
    (root / "alias.txt").symlink_to(root / "real.txt")
    data = structured(await client.call_tool("get_file_info", {"path": "alias.txt"}))
    assert data["is_symlink"] is True
    assert data["symlink_target"] == str(root / "real.txt")
    assert data["name"] == "alias.txt"


async def test_several_paths_report_failures_per_path(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a", encoding="utf-8")
    result = await client.call_tool("get_file_info", {"paths": ["a.txt", "nope", "/etc/passwd"]})
    files = structured(result)["files"]
    assert files[0]["path"] == str(root / "a.txt")
    assert [f.get("error_code") for f in files] == [None, "not_found", "access_denied"]
    assert "ERROR:" in text_of(result)


async def test_missing_path_is_not_found(client: Client) -> None:
    assert error_code(await client.call_tool("get_file_info", {"path": "missing"})) == "not_found"


async def test_path_outside_the_root_is_denied_and_names_the_root(client: Client, root: Path) -> None:
    result = await client.call_tool("get_file_info", {"path": "/etc/hostname"})
    assert error_code(result) == "access_denied"
    assert str(root) in text_of(result)


async def test_info_leaves_the_file_untouched(client: Client, root: Path) -> None:
    target = root / "a.txt"
    target.write_bytes(b"same\r\n")
    os.utime(target, ns=(1_000_000_000, 1_000_000_000))
    await client.call_tool("get_file_info", {"path": "a.txt"})
    assert target.read_bytes() == b"same\r\n"
    assert target.stat().st_mtime_ns == 1_000_000_000


async def test_an_empty_paths_list_says_it_is_empty(client: Client) -> None:
    result = await client.call_tool("get_file_info", {"paths": []})
    assert error_code(result) == "invalid_params"
    assert "paths array is empty" in text_of(result)


async def test_a_dangling_link_is_described_as_itself_under_the_path_asked(client: Client, root: Path) -> None:
    (root / "dangling").symlink_to("nowhere")
    single = await client.call_tool("get_file_info", {"path": "dangling"})
    data = structured(single)
    assert (data["path"], data["name"], data["type"]) == (str(root / "dangling"), "dangling", "symlink")
    assert (data["is_symlink"], data["symlink_target"], data["size"]) == (True, str(root / "nowhere"), 7)
    assert "does not exist" in data["note"]
    assert "does not exist" in text_of(single)
    files = structured(await client.call_tool("get_file_info", {"paths": ["dangling", "nope"]}))["files"]
    assert files[0]["path"] == str(root / "dangling")
    assert (files[0]["is_symlink"], files[0]["symlink_target"]) == (True, str(root / "nowhere"))
    assert "error" not in files[0]
    assert files[1]["error_code"] == "not_found"
    assert (root / "dangling").readlink() == Path("nowhere")
    assert not (root / "nowhere").exists()


async def test_a_link_out_of_the_roots_or_to_a_denied_name_is_refused_whether_its_target_exists(
    client: Client, root: Path
) -> None:
    # list_directory shows each only as a "symlink": whether the target exists is not told here either.
    (root.parent / "there.txt").write_text("outside", encoding="utf-8")
    for name, target in [("away", "there.txt"), ("away_missing", "absent.txt")]:
        (root / name).symlink_to(root.parent / target)
    (root / "secret.pem").write_text("key", encoding="utf-8")
    (root / "to_secret").symlink_to("secret.pem")
    (root / "to_missing_secret").symlink_to("missing.pem")
    texts = {}
    for name in ["away", "away_missing", "to_secret", "to_missing_secret"]:
        result = await client.call_tool("get_file_info", {"path": name})
        assert error_code(result) == "access_denied"
        texts[name] = text_of(result).replace(name, "LINK")
    assert texts["away"] == texts["away_missing"]
    assert texts["to_secret"] == texts["to_missing_secret"]
    files = structured(await client.call_tool("get_file_info", {"paths": ["away_missing", "to_missing_secret"]}))
    assert [(f["path"], f["error_code"]) for f in files["files"]] == [
        ("away_missing", "access_denied"),
        (str(root / "to_missing_secret"), "access_denied"),  # a deny rule names it absolute, unresolved
    ]
    assert (root / "secret.pem").read_text(encoding="utf-8") == "key"


async def test_file_info_names_a_link_target_and_a_dangling_one_relative_to_the_root(
    connect: ClientFactory, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    (root / "in").symlink_to("a.txt")
    (root / "dangling").symlink_to("nowhere")
    for compact in (False, True):
        async with connect(compact_mode=compact) as client:
            linked = text_of(await client.call_tool("get_file_info", {"path": "in"}))
            dangling = text_of(await client.call_tool("get_file_info", {"path": "dangling"}))
        assert ("link -> a.txt" if compact else "Symlink to: a.txt") in linked
        assert "The link's target nowhere does not exist" in dangling
        assert str(root) not in linked + dangling
    assert (root / "dangling").readlink() == Path("nowhere")


async def test_file_info_gives_the_creation_time_the_filesystem_records_as_coreutils_stat_reads_it(
    client: Client, root: Path
) -> None:
    # Linux keeps a birth time on ext4, XFS, Btrfs and tmpfs, which os.stat does not give: "created" was never there.
    (root / "a.txt").write_bytes(b"alpha\n")
    (root / "d").mkdir()
    (root / "d" / "dangling").symlink_to("missing.txt")  # described as the link itself: its own birth time
    for name in ("a.txt", "d", "d/dangling"):
        seen = subprocess.run(
            ["stat", "-c", "%W", str(root / name)], capture_output=True, encoding="utf-8", check=False
        )
        born = int(seen.stdout.strip()) if seen.returncode == 0 and seen.stdout.strip().isdigit() else 0
        data = structured(await client.call_tool("get_file_info", {"path": name}))
        if born == 0:  # this filesystem (or stat) records none: the field is left out, never made up
            assert "created" not in data, data
            continue
        created = datetime.fromisoformat(data["created"].replace("Z", "+00:00"))
        assert int(created.timestamp()) == born, (name, data["created"], born)
        assert data["created"] <= data["modified"]
