"""A tool that leaves hidden files behind counts them and names none, in both eras: a secret's name (``prod-db.pem``,
``.env.stripe-live``) can say as much as its contents, and `list_directory` and `search_files` never show it."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, structured, text_of
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
