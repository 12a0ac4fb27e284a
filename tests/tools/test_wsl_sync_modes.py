"""A file a sync creates takes the source's mode less the umask, as a new file written here would: drvfs reports
every Windows file 0777, and its copy must not come out world-writable or setuid. An existing one keeps its mode.
Both eras."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from fsguard.core.disk import new_file_mode
from tests.conftest import ClientFactory

pytestmark = pytest.mark.anyio


async def test_a_synced_new_file_gets_the_source_mode_less_the_umask(connect: ClientFactory, root: Path) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    (home / "proj").mkdir(parents=True)
    (win / "proj").mkdir(parents=True)
    for name, mode in (("open.txt", 0o777), ("suid.sh", 0o4755), ("kept.txt", 0o777)):
        (win / "proj" / name).write_bytes(name.encode())
        (win / "proj" / name).chmod(mode)
    (home / "proj" / "kept.txt").write_bytes(b"old")
    (home / "proj" / "kept.txt").chmod(0o600)
    settings = {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}
    async with connect(**settings) as client:
        await client.call_tool("wsl", {"action": "sync", "windows_path": "C:\\Users\\me\\proj"})
    allowed = new_file_mode(executable=True)  # 0777 less this process's umask
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in (home / "proj").iterdir()}
    assert modes == {"open.txt": allowed, "suid.sh": 0o755 & allowed, "kept.txt": 0o600}
    assert (home / "proj" / "kept.txt").read_bytes() == b"kept.txt"
