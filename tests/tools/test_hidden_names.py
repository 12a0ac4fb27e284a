"""A tool that leaves hidden files behind counts them and names none, in both eras: a secret's name (``prod-db.pem``,
``.env.stripe-live``) can say as much as its contents, and `list_directory` and `search_files` never show it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_least_privilege import tree

pytestmark = pytest.mark.anyio

HIDDEN = ("prod-db-root.pem", ".env.stripe-live")


async def test_a_directory_copy_counts_the_files_a_rule_hides_and_names_none(client: Client, root: Path) -> None:
    tree(root, {"app/main.py": "x = 1\n", **{f"app/{name}": "SEKRIT\n" for name in HIDDEN}})
    copied = await client.call_tool("copy_file", {"source_path": "app", "dest_path": "app2"})
    said = text_of(copied) + str(structured(copied))
    assert structured(copied)["denied"] == 2
    assert "2 hidden by deny rules" in text_of(copied)
    for name in HIDDEN:
        assert name not in said
    assert sorted(path.name for path in (root / "app2").iterdir()) == ["main.py"]
    assert {name: (root / "app" / name).read_bytes() for name in HIDDEN} == dict.fromkeys(HIDDEN, b"SEKRIT\n")


async def test_a_wsl_tree_sync_counts_the_files_a_rule_hides_and_names_none(connect: ClientFactory, root: Path) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    win.mkdir(parents=True)
    tree(home, {"site/index.md": "index\n", **{f"site/keys/{name}": "SEKRIT\n" for name in HIDDEN}})
    settings = {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}
    async with connect(**settings) as client:
        synced = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "site")})
    said = text_of(synced) + str(structured(synced))
    assert structured(synced)["denied"] == 2
    assert "2 hidden by deny rules" in text_of(synced)
    for name in HIDDEN:
        assert name not in said
    assert sorted(path.relative_to(win).as_posix() for path in win.rglob("*") if path.is_file()) == ["site/index.md"]


async def test_a_deny_rule_hides_a_name_in_any_case(connect: ClientFactory, root: Path) -> None:
    # A case-insensitive mount (macOS's default volume, WSL's /mnt/c) opens .env when asked for .ENV, as it opens
    # .git for .GIT: a rule must hide every spelling the file system may answer to.
    tree(root, {".ENV": "TOKEN=SEKRIT\n", "certs/Prod.PEM": "SEKRIT\n", "Private/db.yaml": "SEKRIT\n", "ok.txt": "o\n"})
    hidden = [".ENV", "certs/Prod.PEM", "Private/db.yaml", "private/db.yaml"]
    async with connect(deny=("private/",)) as client:
        refused = [await client.call_tool("read_file", {"path": name}) for name in hidden]
        written = await client.call_tool("write_file", {"path": ".Env", "content": "TOKEN=forged\n"})
        listed = structured(await client.call_tool("list_directory", {"path": "."}))
        found = structured(await client.call_tool("search_files", {"pattern": "SEKRIT", "include_content": True}))
    assert [error_code(result) for result in refused] == ["access_denied"] * len(hidden)
    assert error_code(written) == "access_denied"
    assert ([entry["name"] for entry in listed["entries"]], listed["denied"]) == (["certs", "ok.txt"], 2)
    assert found["files"] == []
    assert not (root / ".Env").exists()


async def test_a_rule_letting_one_spelling_back_in_leaves_the_others_hidden(client: Client, root: Path) -> None:
    # "!.env.example" re-allows the template: .env.EXAMPLE, another file on a case-sensitive disk, stays a secret
    tree(root, {".env.example": "TOKEN=\n", ".env.EXAMPLE": "TOKEN=SEKRIT\n", "id_rsa.PUB": "SEKRIT\n"})
    shown = structured(await client.call_tool("read_file", {"path": ".env.example"}))
    refused = [await client.call_tool("read_file", {"path": name}) for name in (".env.EXAMPLE", "id_rsa.PUB")]
    assert shown["content"] == "TOKEN=\n"
    assert [error_code(result) for result in refused] == ["access_denied", "access_denied"]
