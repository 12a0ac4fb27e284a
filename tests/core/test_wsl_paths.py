"""WSL path translation (``<mount>/c/x`` ↔ ``C:\\x``), WSL detection, and where each side's counterpart lies."""

from __future__ import annotations

import string
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.errors import InvalidParamsError, WslUnavailableError
from fsguard.core.wsllayout import WslDetection, WslLayout, detect
from fsguard.core.wslpaths import is_windows_form, to_windows, to_wsl
from tests.strategies import WindowsPath, windows_names, windows_paths

MOUNT = Path("/mnt")


@pytest.mark.parametrize(
    ("windows", "linux"),
    [
        ("C:\\", "/mnt/c"),
        ("C:", "/mnt/c"),
        ("c:/x", "/mnt/c/x"),
        ("D:\\Users\\me\\a b.txt", "/mnt/d/Users/me/a b.txt"),
        ("C:\\a\\.\\b\\\\c\\", "/mnt/c/a/b/c"),
        ("C:\\a\\..\\b", "/mnt/c/b"),
        ("C:\\..\\..\\x", "/mnt/c/x"),
        ("\\\\?\\C:\\long\\path", "/mnt/c/long/path"),
        ("\\\\wsl$\\Ubuntu\\home\\me\\x", "/home/me/x"),
        ("//wsl.localhost/Debian/tmp", "/tmp"),
        ("\\\\WSL.LOCALHOST\\Ubuntu", "/"),
    ],
)
def test_windows_paths_name_their_place_under_the_mount_root(windows: str, linux: str) -> None:
    assert to_wsl(windows, MOUNT) == Path(linux)


@pytest.mark.parametrize(
    ("windows", "named"),
    [
        ("\\\\server\\share\\x", "network share"),
        ("\\\\?\\UNC\\server\\share\\x", "network share"),
        ("//?/unc/nas/backup", "network share"),
        ("//nas/backup", "network share"),
        ("C:relative\\x", "relative to the current folder"),
        ("/home/me/x", "not a Windows path"),
        ("notes.txt", "not a Windows path"),
        ("\\\\.\\pipe\\foo", "Windows device path"),
        ("\\\\?\\Volume{1234}\\x", "Windows device path"),
        ("\\\\?\\GLOBALROOT\\Device\\x", "Windows device path"),
    ],
)
def test_shares_drive_relative_and_linux_paths_are_refused_with_the_reason(windows: str, named: str) -> None:
    with pytest.raises(InvalidParamsError) as caught:
        to_wsl(windows, MOUNT)
    assert named in caught.value.message
    assert "wsl_path" not in caught.value.message  # read_file and the other path tools have no such parameter


def test_a_refusal_quotes_the_path_as_typed_not_with_its_backslashes_doubled() -> None:
    with pytest.raises(InvalidParamsError) as caught:
        to_wsl("\\\\server\\share\\x", MOUNT)
    assert caught.value.message.startswith("'\\\\server\\share\\x' is a network share")


@pytest.mark.parametrize(
    ("windows", "linux"),
    [
        ("\\\\wsl$\\Ubuntu\\home\\x", "/home/x"),
        ("\\\\wsl.localhost\\ubuntu\\home\\x", "/home/x"),  # Windows matches distro names whatever the case
        ("\\\\?\\UNC\\wsl$\\Ubuntu\\home\\x", "/home/x"),
    ],
)
def test_this_distros_own_path_names_its_linux_path(windows: str, linux: str) -> None:
    assert to_wsl(windows, MOUNT, "Ubuntu") == Path(linux)


@pytest.mark.parametrize(
    "windows", ["\\\\wsl$\\Debian\\home\\x", "//wsl.localhost/Debian/home/x", "\\\\?\\UNC\\wsl$\\Debian\\x"]
)
def test_another_distros_path_is_refused_naming_both_distros(windows: str) -> None:
    with pytest.raises(InvalidParamsError) as caught:
        to_wsl(windows, MOUNT, "Ubuntu")
    assert "in the WSL distro Debian, but fsguard runs in Ubuntu" in caught.value.message


@pytest.mark.parametrize(
    ("linux", "windows"),
    [
        ("/mnt/c", "C:\\"),
        ("/mnt/c/", "C:\\"),
        ("/mnt/d/Users/me/x.txt", "D:\\Users\\me\\x.txt"),
        ("/mnt/c/a/../b", "C:\\b"),
    ],
)
def test_paths_on_a_drive_are_spelled_as_windows_spells_them(linux: str, windows: str) -> None:
    assert to_windows(Path(linux), MOUNT) == windows


def test_paths_off_the_drives_need_a_distro_to_be_spelled() -> None:
    with pytest.raises(InvalidParamsError, match="not on a Windows drive"):
        to_windows(Path("/home/me/x"), MOUNT)
    with pytest.raises(InvalidParamsError, match="not on a Windows drive"):
        to_windows(Path("/mnt/wsl/x"), MOUNT)  # not a drive letter
    assert to_windows(Path("/home/me/x"), MOUNT, distro="Ubuntu") == "\\\\wsl.localhost\\Ubuntu\\home\\me\\x"
    assert to_wsl("\\\\wsl.localhost\\Ubuntu\\home\\me\\x", MOUNT) == Path("/home/me/x")


def test_a_name_holding_a_backslash_has_no_windows_spelling() -> None:
    with pytest.raises(InvalidParamsError, match="backslash"):
        to_windows(Path("/mnt/c/a\\b"), MOUNT)


def test_is_windows_form_tells_drive_and_unc_paths_from_linux_ones() -> None:
    assert [is_windows_form(p) for p in ("C:\\x", "c:", "\\\\s\\x", "//s/x")] == [True] * 4
    assert [is_windows_form(p) for p in ("/mnt/c", "///x", "a.txt", "~/x")] == [False] * 4


@given(windows_paths())
def test_any_typed_drive_path_names_its_drive_and_names(path: WindowsPath) -> None:
    assert to_wsl(path.text, MOUNT) == MOUNT.joinpath(path.drive, *path.names)


@given(windows_paths())
def test_windows_to_wsl_and_back_gives_the_canonical_windows_spelling(path: WindowsPath) -> None:
    assert to_windows(to_wsl(path.text, MOUNT), MOUNT) == f"{path.drive.upper()}:\\" + "\\".join(path.names)


@given(st.sampled_from(string.ascii_lowercase), st.lists(windows_names(), max_size=5))
def test_wsl_to_windows_and_back_is_the_identity(drive: str, names: list[str]) -> None:
    linux = MOUNT.joinpath(drive, *names)
    assert to_wsl(to_windows(linux, MOUNT), MOUNT) == linux


def test_detection_reads_interop_the_distro_variable_and_the_kernel(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    (proc / "sys" / "fs" / "binfmt_misc").mkdir(parents=True)
    (proc / "version").write_text("Linux version 6.1 (gcc) #1 SMP\n", encoding="ascii")
    plain = detect(None, {}, proc)
    assert (plain.is_wsl, plain.interop, plain.distro) == (False, False, None)
    assert "WSL_DISTRO_NAME unset" in plain.reason
    (proc / "version").write_text("Linux version 5.15.90.1-microsoft-standard-WSL2\n", encoding="ascii")
    assert detect(None, {}, proc).is_wsl
    (proc / "version").write_text("Linux\n", encoding="ascii")
    (proc / "sys" / "fs" / "binfmt_misc" / "WSLInterop").write_text("enabled\n", encoding="ascii")
    found = detect(None, {"WSL_DISTRO_NAME": "Ubuntu"}, proc)
    assert (found.is_wsl, found.interop, found.distro) == (True, True, "Ubuntu")
    assert "WSL_DISTRO_NAME=Ubuntu" in found.reason


def test_a_forced_answer_overrides_the_evidence(tmp_path: Path) -> None:
    assert detect(True, {}, tmp_path).is_wsl
    forced_off = detect(False, {"WSL_DISTRO_NAME": "Ubuntu"}, tmp_path)
    assert not forced_off.is_wsl
    assert "--no-wsl" in forced_off.reason


def _layout(tmp_path: Path, windows_home: str | None, environ: dict[str, str]) -> WslLayout:
    on = WslDetection(True, "forced", None, False)
    return WslLayout.create(on, tmp_path / "mnt", home=tmp_path / "home", windows_home=windows_home, environ=environ)


def test_the_windows_home_comes_from_the_setting_then_userprofile_then_the_user_name(tmp_path: Path) -> None:
    mount = tmp_path / "mnt"
    assert _layout(tmp_path, "C:\\Users\\me", {}).windows_home == mount / "c" / "Users" / "me"
    assert _layout(tmp_path, str(mount / "c" / "win"), {}).windows_home == mount / "c" / "win"  # its mount path
    assert _layout(tmp_path, None, {"USERPROFILE": "D:\\Profiles\\x"}).windows_home == mount / "d" / "Profiles" / "x"
    assert _layout(tmp_path, None, {"USER": "sam"}).windows_home is None  # no such folder
    (mount / "c" / "Users" / "sam").mkdir(parents=True)
    guessed = _layout(tmp_path, None, {"USER": "sam"})
    assert (guessed.windows_home, guessed.windows_home_source) == (mount / "c" / "Users" / "sam", "guessed from $USER")


def test_counterparts_keep_the_place_relative_to_each_home(tmp_path: Path) -> None:
    layout = _layout(tmp_path, "C:\\Users\\me", {})
    windows = tmp_path / "mnt" / "c" / "Users" / "me"
    windows.mkdir(parents=True)
    assert layout.counterpart(tmp_path / "home" / "claude" / "a.md", "wsl_to_windows") == windows / "claude" / "a.md"
    assert layout.counterpart(windows / "x", "windows_to_wsl") == tmp_path / "home" / "x"
    with pytest.raises(InvalidParamsError, match="Pass windows_path too"):
        layout.counterpart(tmp_path / "elsewhere", "wsl_to_windows")
    assert layout.autosync_target(tmp_path / "home" / "n.txt") == windows / "n.txt"
    assert layout.autosync_target(tmp_path / "elsewhere" / "n.txt") is None


def test_a_configured_windows_home_that_is_no_folder_is_refused_not_made(tmp_path: Path) -> None:
    layout = _layout(tmp_path, "C:\\Users\\typo", {})  # its drive not mounted, or misspelt
    with pytest.raises(WslUnavailableError, match="is not a folder"):
        layout.autosync_target(tmp_path / "home" / "n.txt")
    with pytest.raises(WslUnavailableError, match="is not a folder"):
        layout.counterpart(tmp_path / "home" / "x", "wsl_to_windows")
    assert not (tmp_path / "mnt" / "c" / "Users").exists()


def test_an_unknown_windows_home_is_refused_naming_the_flag(tmp_path: Path) -> None:
    layout = _layout(tmp_path, None, {})
    with pytest.raises(WslUnavailableError, match="--wsl-windows-home"):
        layout.counterpart(tmp_path / "home" / "x", "wsl_to_windows")
    with pytest.raises(WslUnavailableError, match="Autosync has nowhere to copy to"):
        layout.autosync_target(tmp_path / "home" / "x")
    assert layout.autosync_target(tmp_path / "elsewhere" / "x") is None


def test_without_a_readable_kernel_version_the_other_signs_still_decide(tmp_path: Path) -> None:
    assert not detect(None, {}, tmp_path / "no-proc").is_wsl
    assert detect(None, {"WSL_DISTRO_NAME": "Debian"}, tmp_path / "no-proc").is_wsl
