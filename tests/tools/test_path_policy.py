"""The path policy as an agent meets it: through the tools, in both protocol eras."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    path = tmp_path / "outside"
    path.mkdir()
    (path / "secret.txt").write_text("top secret", encoding="utf-8")
    return path


async def test_reading_through_a_symlink_that_leaves_the_root_is_refused(
    client: Client, root: Path, outside: Path
) -> None:
    (root / "door").symlink_to(outside)
    (root / "secret-link.txt").symlink_to(outside / "secret.txt")
    for path in ("door/secret.txt", "secret-link.txt"):
        result = await client.call_tool("read_file", {"path": path})
        assert error_code(result) == "access_denied"
        assert "top secret" not in text_of(result)
        assert str(root) in text_of(result)


async def test_a_new_file_beneath_an_escaping_symlink_is_refused_and_not_created(
    client: Client, root: Path, outside: Path
) -> None:
    (root / "door").symlink_to(outside)
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x"})
    result = await client.call_tool(
        "server_info", {"action": "artifact", "sub_action": "write", "path": "door/planted.txt"}
    )
    assert error_code(result) == "access_denied"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


@pytest.mark.parametrize(
    "name",
    [
        "evil\x00.txt",
        "evil\u202etxt.exe",
        "zero\u200bwidth.txt",
        "isolate\u2066.txt",
        "soft\u00adhyphen.txt",
        "CON",
        "nul.txt",
        "com1.tar.gz",
        "LPT9.md",
    ],
)
async def test_invisible_characters_and_device_names_are_refused_by_every_tool(
    client: Client, root: Path, name: str
) -> None:
    for tool in ("read_file", "get_file_info", "create_directory", "list_directory"):
        result = await client.call_tool(tool, {"path": name})
        assert error_code(result) == "access_denied", tool
    assert list(root.iterdir()) == []


async def test_windows_forms_are_translated_to_the_mount_root(connect: ClientFactory, root: Path) -> None:
    mount = root / "mnt"
    (mount / "c" / "Users" / "ada").mkdir(parents=True)
    (mount / "c" / "Users" / "ada" / "notes.txt").write_bytes(b"hello world")
    async with connect(wsl_mount_root=mount) as client:
        backslashes = structured(await client.call_tool("read_file", {"path": "C:\\Users\\ada\\notes.txt"}))
        forward = structured(await client.call_tool("get_file_info", {"path": "c:/Users/ada/notes.txt"}))
    assert backslashes["path"] == forward["path"] == str(mount / "c" / "Users" / "ada" / "notes.txt")
    assert backslashes["content_hash"] == "d58b3fa7"


async def test_paths_in_results_are_canonical_whatever_the_spelling(client: Client, root: Path) -> None:
    (root / "real").mkdir()
    (root / "real" / "f.txt").write_text("f", encoding="utf-8")
    (root / "alias").symlink_to(root / "real")
    spellings = ["real/f.txt", "./real/../real/f.txt", str(root / "alias" / "f.txt"), f"{root}//real/./f.txt"]
    paths = {structured(await client.call_tool("read_file", {"path": p}))["path"] for p in spellings}
    assert paths == {str(root / "real" / "f.txt")}


async def test_a_file_that_does_not_decode_is_an_encoding_error(client: Client, root: Path) -> None:
    (root / "broken.txt").write_bytes(b"\xff\xfe" + b"abc")  # UTF-16 BOM, then an odd number of bytes
    result = await client.call_tool("read_file", {"path": "broken.txt"})
    assert error_code(result) == "encoding_error"
    assert "encoding='base64'" in text_of(result)


async def test_a_directory_rule_hides_the_directory_itself_from_every_tool(connect: ClientFactory, root: Path) -> None:
    (root / "private").mkdir()
    (root / "private" / "notes.txt").write_text("secret\n", encoding="utf-8")
    (root / "public.txt").write_text("open\n", encoding="utf-8")
    async with connect(deny=("private/",)) as client:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("list_directory", {"path": "private"}),
            ("get_file_info", {"path": "private"}),
            ("delete_file", {"path": "private", "recursive": True}),
            ("read_file", {"path": "private/notes.txt"}),
        ]
        codes = [error_code(await client.call_tool(tool, args)) for tool, args in calls]
        listed = structured(await client.call_tool("list_directory", {"path": "."}))
    assert codes == ["access_denied"] * 4
    assert [entry["name"] for entry in listed["entries"]] == ["public.txt"]
    assert (root / "private" / "notes.txt").read_text(encoding="utf-8") == "secret\n"


async def test_a_deny_refusal_names_the_path_as_asked_made_absolute_in_its_meta_and_a_multi_read(
    client: Client, root: Path
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / ".env").write_bytes(b"S=1\n")
    (root / "a.txt").write_bytes(b"a\n")
    for typed in ("sub/.env", "./sub/../sub/.env"):
        refused = await client.call_tool("read_file", {"path": typed})
        assert error_code(refused) == "access_denied"
        assert (refused.meta or {})["fsguard/error"]["path"] == str(root / "sub" / ".env")
        assert text_of(refused).startswith("access denied: sub/.env matches the deny rule '.env'")
    moved = await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": "sub/.env.bak"})
    assert (moved.meta or {})["fsguard/error"]["path"] == str(root / "sub" / ".env.bak")
    files = structured(await client.call_tool("read_file", {"paths": ["sub/.env", "a.txt"]}))["files"]
    assert [f["path"] for f in files] == [str(root / "sub" / ".env"), str(root / "a.txt")]
    assert (root / "sub" / ".env").read_bytes() == b"S=1\n"
    assert (root / "a.txt").read_bytes() == b"a\n"
