"""A tree sync or copy of a ``.git`` leaves git's object store and its lists of the tracked files behind, counted as
hidden: their bytes are those of every committed file, a deny rule's too, and a copy could be read. Both eras."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, structured
from tests.tools.test_least_privilege import tree

pytestmark = pytest.mark.anyio

GIT = {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".git/config": "[core]\n",
    ".git/index": "DIRC .env",
    ".git/COMMIT_EDITMSG": "m\n# modified: .env\n",
    ".git/objects/5f/11e1da65d68d9faf358bd291d633ae17e5524e": "blob API_KEY=SEKRIT",
}


async def test_a_wsl_sync_of_a_git_folder_leaves_its_objects_and_index_behind(
    connect: ClientFactory, root: Path
) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    win.mkdir(parents=True)
    tree(home / "repo", GIT)
    settings = {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}
    async with connect(**settings) as client:
        synced = await client.call_tool(
            "wsl", {"action": "sync", "wsl_path": str(home / "repo" / ".git"), "windows_path": "C:\\Users\\me\\loot"}
        )
    assert structured(synced)["denied"] == 3  # the index, the drafted message, the object store (once)
    copied = sorted(path.relative_to(win / "loot").as_posix() for path in win.rglob("*") if path.is_file())
    assert copied == ["HEAD", "config"]


async def test_a_copy_of_a_git_folder_leaves_its_objects_and_index_behind(client: Client, root: Path) -> None:
    tree(root, GIT)
    copied = await client.call_tool("copy_file", {"source_path": ".git", "dest_path": "gitcopy"})
    assert structured(copied)["denied"] == 3
    assert sorted(path.name for path in (root / "gitcopy").rglob("*")) == ["HEAD", "config"]
