"""A folder sync never writes through a link on the destination side: one to a file elsewhere in the roots, or one
back into the source folder, would have it overwrite that file. Both eras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio


def _settings(root: Path, home: Path) -> dict[str, object]:
    return {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}


async def test_a_folder_sync_refuses_destination_links_and_leaves_their_targets_alone(
    connect: ClientFactory, root: Path
) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    site, copy = home / "projects" / "site", win / "projects" / "site"
    (site / "sub").mkdir(parents=True)
    copy.mkdir(parents=True)
    (site / "a.txt").write_bytes(b"SOURCE A")
    (site / "sub" / "a.txt").write_bytes(b"SUB A")
    (site / "b.txt").write_bytes(b"B")
    (home / ".bashrc").write_bytes(b"my bashrc")
    (copy / "sub").symlink_to(site)  # a folder on the Windows side that is the source itself
    (copy / "b.txt").symlink_to(home / ".bashrc")
    async with connect(**_settings(root, home)) as client:
        synced = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(site)})
    assert sorted(error["path"] for error in structured(synced)["errors"]) == [
        str(site / "b.txt"),
        str(site / "sub/a.txt"),
    ]
    assert (site / "a.txt").read_bytes() == b"SOURCE A"
    assert (home / ".bashrc").read_bytes() == b"my bashrc"
    assert (copy / "a.txt").read_bytes() == b"SOURCE A"
    assert (copy / "b.txt").is_symlink()
