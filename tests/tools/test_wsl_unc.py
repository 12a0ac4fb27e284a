"""UNC paths the wsl tool and the path tools refuse, in both eras, WSL forced on over a fake mount tree: another
distro's files (``\\\\wsl$\\Debian\\…`` from Ubuntu) and a network share in long form (``\\\\?\\UNC\\…``), each
named in the refusal as it was typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def wsl_settings(root: Path) -> dict[str, object]:
    (root / "mnt" / "c" / "Users" / "me").mkdir(parents=True)
    (root / "home").mkdir()
    return {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": root / "home", "wsl_windows_home": "C:\\Users\\me"}


@pytest.mark.parametrize("host", ["wsl$", "wsl.localhost", "?\\UNC\\wsl$"])
async def test_a_path_in_another_distro_is_refused_never_read_as_this_distros_own(
    connect: ClientFactory, wsl_settings: dict[str, object], root: Path, monkeypatch: pytest.MonkeyPatch, host: str
) -> None:
    monkeypatch.setenv("WSL_DISTRO_NAME", "Ubuntu")
    (root / "home" / "f.txt").write_bytes(b"ubuntu's own file\n")
    inner = str(root / "home").replace("/", "\\")
    theirs = f"\\\\{host}\\Debian{inner}\\f.txt"
    copy = {"action": "sync", "windows_path": theirs, "wsl_path": str(root / "home" / "copy.txt")}
    async with connect(**wsl_settings) as client:
        synced = await client.call_tool("wsl", copy)
        read = await client.call_tool("read_file", {"path": theirs})
        own = await client.call_tool("read_file", {"path": theirs.replace("Debian", "ubuntu")})
    for refused in (synced, read):
        assert error_code(refused) == "invalid_params"
        assert text_of(refused).startswith(f"'{theirs}' is in the WSL distro Debian, but fsguard runs in Ubuntu")
    assert not (root / "home" / "copy.txt").exists()
    assert "ubuntu's own file" in text_of(own)


async def test_a_network_share_in_long_form_is_refused_as_a_network_share(
    connect: ClientFactory, wsl_settings: dict[str, object]
) -> None:
    async with connect(**wsl_settings) as client:
        for share in ("\\\\?\\UNC\\server\\share\\x", "\\\\server\\share\\x"):
            refused = await client.call_tool("wsl", {"action": "sync", "windows_path": share, "dry_run": True})
            assert error_code(refused) == "invalid_params"
            assert text_of(refused).startswith(f"'{share}' is a network share; only drive paths")
