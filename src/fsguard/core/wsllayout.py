"""Where WSL's two sides are: whether this machine is WSL, the drives' mount root, the Linux and Windows homes.

Derived only from what the server is started with and the environment it is given, so a fake mount tree on
plain Linux stands in for a real WSL in tests.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.errors import InvalidParamsError, WslUnavailableError
from fsguard.core.wslpaths import is_windows_form, to_windows, to_wsl

Direction = Literal["wsl_to_windows", "windows_to_wsl"]
STANDARD_FOLDERS = ("claude", "projects")
_INTEROP = ("WSLInterop", "WSLInterop-late")  # the second name is what WSL 2.x registers
AUTOSYNC_NEEDS_HOME = "Autosync has nowhere to copy to: restart"
_FORCE_HINT = "If this is WSL after all, restart fsguard with --wsl (or FSGUARD_WSL=1)."


@dataclass(frozen=True)
class WslDetection:
    """Whether this machine is WSL, and the evidence."""

    is_wsl: bool
    reason: str
    distro: str | None
    interop: bool


def detect(forced: bool | None, environ: Mapping[str, str], proc: Path = Path("/proc")) -> WslDetection:
    """WSL when ``/proc/sys/fs/binfmt_misc/WSLInterop`` exists, ``WSL_DISTRO_NAME`` is set, or the kernel names
    Microsoft; ``forced`` (``--wsl``/``--no-wsl``, ``FSGUARD_WSL``) overrides the evidence."""
    interop = any((proc / "sys" / "fs" / "binfmt_misc" / name).exists() for name in _INTEROP)
    distro = environ.get("WSL_DISTRO_NAME") or None
    if forced is not None:
        how = "forced on by --wsl / FSGUARD_WSL=1" if forced else "forced off by --no-wsl / FSGUARD_WSL=0"
        return WslDetection(forced, how, distro, interop)
    try:
        kernel = (proc / "version").read_text(encoding="ascii", errors="replace")
    except OSError:
        kernel = ""
    signs = [
        *(["binfmt_misc/WSLInterop present"] if interop else []),
        *([f"WSL_DISTRO_NAME={distro}"] if distro else []),
        *(["/proc/version names Microsoft"] if "microsoft" in kernel.lower() else []),
    ]
    if signs:
        return WslDetection(True, "detected: " + ", ".join(signs), distro, interop)
    reason = "no binfmt_misc/WSLInterop, WSL_DISTRO_NAME unset, and /proc/version does not name Microsoft"
    return WslDetection(False, reason, None, False)


@dataclass(frozen=True)
class WslLayout:
    """The two sides: the drives' mount root, the Linux home and where the Windows home is mounted (canonical)."""

    detection: WslDetection
    mount_root: Path
    home: Path
    windows_home: Path | None
    windows_home_source: str

    @classmethod
    def create(
        cls,
        detection: WslDetection,
        mount_root: Path,
        *,
        home: Path | None,
        windows_home: str | None,
        environ: Mapping[str, str],
    ) -> WslLayout:
        """The layout for the configured homes; the Windows home falls back to USERPROFILE, then C:\\Users\\$USER.

        Raises:
            InvalidParamsError: the configured Windows home is not a drive path.
        """
        linux_home = Path(os.path.realpath(home if home is not None else _user_home()))
        found, source = _windows_home(windows_home, mount_root, environ, detection.distro)
        return cls(detection, mount_root, linux_home, found and Path(os.path.realpath(found)), source)

    def require(self) -> None:
        """Raises WslUnavailableError outside WSL."""
        if not self.detection.is_wsl:
            raise WslUnavailableError(
                f"this machine is not WSL ({self.detection.reason}), so there is no Windows side to sync with. "
                + _FORCE_HINT
            )

    def windows_home_required(self, instead: str = "Pass both wsl_path and windows_path, or restart") -> Path:
        """The Windows home; ``instead`` starts the advice when it is unknown.

        Raises:
            WslUnavailableError: the Windows home is unknown, or not a folder (its drive not mounted, a typo): a
                copy there would make it, a user folder that is no one's.
        """
        if self.windows_home is None:
            raise WslUnavailableError(
                "the Windows home folder is unknown (no USERPROFILE, and no "
                + str(self.mount_root / "c" / "Users")
                + f"/$USER). {instead} fsguard with "
                "--wsl-windows-home C:\\Users\\<you> (or FSGUARD_WSL_WINDOWS_HOME)."
            )
        if not self.windows_home.is_dir():
            raise WslUnavailableError(
                f"the Windows home folder {self.windows_home} ({self.windows_home_source}) is not a folder: is its "
                "drive mounted, is the name right? Nothing is copied there until it is; fix --wsl-windows-home "
                "(or FSGUARD_WSL_WINDOWS_HOME) and restart fsguard if it is wrong."
            )
        return self.windows_home

    def windows_spelling(self, path: Path) -> str:
        """``C:\\…`` for a path on a drive, else the Linux path."""
        try:
            return to_windows(path, self.mount_root)
        except InvalidParamsError:
            return str(path)

    def counterpart(self, path: Path, direction: Direction) -> Path:
        """The other side's path for ``path``: the same place relative to the other home.

        Raises:
            InvalidParamsError: ``path`` is not under its side's home.
        """
        here, there = (self.home, self.windows_home_required())
        if direction == "windows_to_wsl":
            here, there = there, here
        if path != here and not path.is_relative_to(here):
            side = "WSL" if direction == "wsl_to_windows" else "Windows"
            other = "windows_path" if direction == "wsl_to_windows" else "wsl_path"
            raise InvalidParamsError(
                f"{path} is not under the {side} home {here}, so it has no standard counterpart. Pass {other} too."
            )
        return there / path.relative_to(here)

    def autosync_target(self, path: Path) -> Path | None:
        """Where autosync copies ``path``: under the Windows home, for a file under the Linux home; else None.

        Raises:
            WslUnavailableError: ``path`` is under the Linux home and the Windows home is unknown.
        """
        if not path.is_relative_to(self.home) or path.is_relative_to(self.mount_root):
            return None
        windows = self.windows_home_required(AUTOSYNC_NEEDS_HOME)
        if path.is_relative_to(windows):  # already on the Windows side
            return None
        return windows / path.relative_to(self.home)

    def standard_pairs(self) -> list[tuple[Path, Path]]:
        """(Linux folder, Windows folder) for each standard folder."""
        windows = self.windows_home_required()
        return [(self.home / name, windows / name) for name in STANDARD_FOLDERS]


def _user_home() -> Path:
    try:
        return Path.home()
    except RuntimeError:  # neither $HOME nor a passwd entry (an odd container): a home nothing lies under
        return Path("/nonexistent/home")


def _windows_home(
    configured: str | None, mount_root: Path, environ: Mapping[str, str], distro: str | None
) -> tuple[Path | None, str]:
    if configured:
        try:
            path = to_wsl(configured, mount_root, distro) if is_windows_form(configured) else Path(configured)
        except InvalidParamsError as exc:  # drive-relative, a network share, another distro's
            raise InvalidParamsError(f"--wsl-windows-home: {exc.message}", param="wsl_windows_home") from exc
        path = path.expanduser()
        try:
            to_windows(path, mount_root)
        except InvalidParamsError as exc:  # a relative or Linux path, a \\wsl$ one: no Windows folder is named
            raise InvalidParamsError(
                f"--wsl-windows-home {configured} is not on a Windows drive (under {mount_root}). Give it as "
                f"C:\\Users\\<you>, or its mount path {mount_root / 'c' / 'Users'}/<you>.",
                param="wsl_windows_home",
            ) from exc
        return path, "--wsl-windows-home"
    profile = environ.get("USERPROFILE", "")
    if profile and is_windows_form(profile):
        return to_wsl(profile, mount_root, distro), "USERPROFILE"
    user = environ.get("USER") or environ.get("LOGNAME")
    guess = mount_root / "c" / "Users" / user if user else None
    if guess is not None and guess.is_dir():
        return guess, "guessed from $USER"
    return None, "unknown"
