"""A wsl sync whose Windows side a deny rule hides is refused in the deny rule's words, as read_file's is: it was
told the place lay outside the roots and to restart fsguard with it as a root, though a root held it. Both eras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_least_privilege import answering

pytestmark = pytest.mark.anyio


async def test_a_sync_to_a_windows_side_a_deny_rule_hides_names_the_rule(connect: ClientFactory, root: Path) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    (home / "claude").mkdir(parents=True)
    (win / "claude").mkdir(parents=True)
    (home / "claude" / "n.md").write_bytes(b"one\n")
    settings = {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}
    async with connect(deny=("mnt/c/Users/me/claude/",), **settings) as client:
        result = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "claude" / "n.md")})
    assert error_code(result) == "access_denied"
    assert "matches the deny rule 'mnt/c/Users/me/claude/'" in text_of(result)
    assert "outside" not in text_of(result)
    assert list((win / "claude").iterdir()) == []


async def test_a_windows_side_the_client_roots_leave_out_says_so_not_to_add_a_server_root(
    connect: ClientFactory, root: Path
) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    home.mkdir(parents=True)
    win.mkdir(parents=True)
    (home / "w.txt").write_bytes(b"linux\n")
    (win / "w.txt").write_bytes(b"windows\n")
    settings = {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}
    async with connect(list_roots_callback=answering([home]), **settings) as client:
        result = await client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "w.txt")})
    assert error_code(result) == "access_denied"
    assert "the client's roots leave it out" in text_of(result)
    assert "Start fsguard" not in text_of(result)
    assert (win / "w.txt").read_bytes() == b"windows\n"
