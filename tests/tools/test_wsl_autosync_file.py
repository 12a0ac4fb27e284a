"""autosync's saved settings (``<state dir>/wsl/autosync.json``): only JSON booleans count, and a server reads them
again when another one sharing the state dir saved others. Both eras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio


def _settings(root: Path) -> dict[str, object]:
    home = root / "home" / "me"
    home.mkdir(parents=True, exist_ok=True)
    (root / "mnt" / "c" / "Users" / "me").mkdir(parents=True, exist_ok=True)
    return {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}


async def test_a_saved_string_false_leaves_autosync_off(connect: ClientFactory, root: Path, state_dir: Path) -> None:
    (state_dir / "wsl").mkdir(parents=True)
    (state_dir / "wsl" / "autosync.json").write_text('{"wsl_auto_sync": {"enabled": "false"}}', encoding="utf-8")
    async with connect(**_settings(root)) as client:
        await client.call_tool("write_file", {"path": "home/me/n.md", "content": "x"})
        assert structured(await client.call_tool("wsl", {"action": "autosync_status"}))["enabled"] is False
    assert not (root / "mnt" / "c" / "Users" / "me" / "n.md").exists()


async def test_autosync_turned_off_by_another_server_stops_copying_here(connect: ClientFactory, root: Path) -> None:
    settings = _settings(root)
    async with connect(**settings) as first:
        await first.call_tool("wsl", {"action": "autosync_config", "enabled": True})
        async with connect(**settings) as second:
            await second.call_tool("wsl", {"action": "autosync_config", "enabled": False})
        await first.call_tool("write_file", {"path": "home/me/after_off.txt", "content": "x"})
        assert structured(await first.call_tool("wsl", {"action": "autosync_status"}))["enabled"] is False
    assert not (root / "mnt" / "c" / "Users" / "me" / "after_off.txt").exists()
