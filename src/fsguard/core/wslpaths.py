"""Path translation between WSL and Windows: ``<mount root>/c/x/y`` ↔ ``C:\\x\\y``.

Pure functions of their arguments (no filesystem access), so the mount root can be a fake tree in tests.
``\\\\wsl$\\<distro>\\…`` and ``\\\\wsl.localhost\\<distro>\\…`` name this distro's own files, and another
distro's are refused: they are not in this one's tree. Any other UNC path (``\\\\?\\UNC\\…`` too) is a network
share, which has no place under the mount root and is refused.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

from fsguard.core.errors import AccessDeniedError, InvalidParamsError
from fsguard.core.pathforms import escaped, within

_DRIVE = re.compile(r"^([A-Za-z]):(.*)$", re.DOTALL)
_SEPARATORS = re.compile(r"[\\/]+")
_LONG_PREFIX = re.compile(r"^[\\/]{2}[?.][\\/]")  # \\?\C:\x and \\.\C:\x name C:\x
_DISTRO_HOSTS = ("wsl$", "wsl.localhost")


def is_windows_form(text: str) -> bool:
    """True for ``C:…`` drive paths and ``\\\\host\\…`` UNC paths: what :func:`to_wsl` takes."""
    return bool(_DRIVE.match(text)) or (text[:2] in ("\\\\", "//") and not text.startswith("///"))


def to_wsl(windows_path: str, mount_root: Path, distro: str | None = None) -> Path:
    """The Linux path a Windows path names inside WSL: ``C:\\x`` → ``<mount_root>/c/x``.

    Forward slashes, repeated separators, ``.`` and a lower-case drive letter are accepted; ``..`` is applied
    lexically and never climbs above the drive. ``\\\\wsl$\\<distro>\\x`` → ``/x`` when ``<distro>`` is
    ``distro`` (WSL_DISTRO_NAME; any, when it is unknown).

    Raises:
        InvalidParamsError: not a Windows path, a drive-relative path (``C:x``), another distro's path, or a
            network share.
    """
    text = _LONG_PREFIX.sub("", windows_path, count=1)
    if text != windows_path and text[:4].upper() in ("UNC\\", "UNC/"):  # \\?\UNC\server\share is \\server\share
        text = "//" + text[4:]
    drive = _DRIVE.match(text)
    if drive is not None:
        rest = drive.group(2)
        if rest and rest[0] not in "\\/":
            raise InvalidParamsError(
                f"{_typed(windows_path)} is relative to the current folder of drive {drive.group(1).upper()}:, "
                f"which WSL cannot know. Write it absolute: {drive.group(1).upper()}:\\{rest}."
            )
        return mount_root / drive.group(1).lower() / _clean(rest)
    if text[:2] in ("\\\\", "//"):
        host, _, rest = _SEPARATORS.sub("/", text[2:]).partition("/")
        named, _, inner = rest.partition("/")
        if host.lower() in _DISTRO_HOSTS and named:
            # Distro names are matched as Windows matches them, whatever the case.
            if distro is not None and named.casefold() != distro.casefold():
                raise InvalidParamsError(
                    f"{_typed(windows_path)} is in the WSL distro {named}, but fsguard runs in {distro} and reaches "
                    f"only {distro}'s files and the Windows drives. Give a path in {distro} or on a drive (C:\\…); "
                    f"{named}'s files need an fsguard running there."
                )
            return Path("/") / _clean(inner)
        raise InvalidParamsError(
            f"{_typed(windows_path)} is a network share; only drive paths (C:\\…) and \\\\wsl$\\<distro>\\… map "
            "into WSL. Map the share to a drive letter in Windows and use that, or its /mnt path."
        )
    if text != windows_path:  # \\.\ or \\?\ before no drive: a pipe, a volume, a device (GLOBALROOT)
        raise InvalidParamsError(
            f"{_typed(windows_path)} is a Windows device path (a pipe, volume or device), which has no Linux path. "
            "Give a drive path such as C:\\Users\\me\\file.txt, or a Linux path."
        )
    raise InvalidParamsError(
        f"{_typed(windows_path)} is not a Windows path. Give a drive path such as C:\\Users\\me\\file.txt, "
        "or a Linux path."
    )


def to_windows(path: Path, mount_root: Path, distro: str | None = None) -> str:
    """The Windows spelling of a WSL path: ``<mount_root>/c/x`` → ``C:\\x``.

    With ``distro``, a path outside the mount root becomes ``\\\\wsl.localhost\\<distro>\\…``.

    Raises:
        InvalidParamsError: a relative path, a path outside the drives (without ``distro``), or a name holding
            a backslash, which Windows would read as a separator.
    """
    if not path.is_absolute():
        raise InvalidParamsError(f"{path} is relative; only an absolute path has a Windows spelling.")
    clean = PurePosixPath(os.path.normpath(path))
    parts = clean.relative_to(mount_root).parts if clean.is_relative_to(mount_root) else ()
    if parts and len(parts[0]) == 1 and parts[0].isascii() and parts[0].isalpha():
        return f"{parts[0].upper()}:\\" + _joined(parts[1:], path)
    if distro is not None:
        return f"\\\\wsl.localhost\\{distro}\\" + _joined(clean.parts[1:], path)
    raise InvalidParamsError(
        f"{path} is not on a Windows drive: drives are mounted under {mount_root} (/c, /d …). "
        "Give a path below a drive, such as " + str(mount_root / "c" / "Users") + "."
    )


def _clean(rest: str) -> str:
    """Windows components as a relative POSIX path, ``.`` dropped and ``..`` applied, never above the start."""
    parts: list[str] = []
    for part in _SEPARATORS.split(rest):
        if part == "..":
            if parts:
                parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)


def _joined(parts: tuple[str, ...], path: Path) -> str:
    if any("\\" in part for part in parts):
        raise InvalidParamsError(
            f"{path} has a name holding a backslash, which Windows reads as a folder separator. "
            "Rename it (move_file) before syncing it to Windows."
        )
    return "\\".join(parts)


def check_stream_syntax(user_path: str, canonical: Path, mount_root: Path) -> None:
    """Refuse ``name:stream`` on Windows drives (under ``mount_root``), where it would address an NTFS alternate
    data stream."""
    if not within(canonical, mount_root):
        return
    relative = canonical.relative_to(mount_root)
    if len(relative.parts) > 1 and len(relative.parts[0]) == 1 and any(":" in part for part in relative.parts[1:]):
        raise AccessDeniedError(
            f"path {_typed(user_path)} names an NTFS alternate data stream (':' after the drive). "
            "Remove the ':' part of the name.",
            path=user_path,
        )


def _typed(path: str) -> str:
    """``path`` quoted as typed: repr doubled each backslash of a Windows path (``'\\\\\\\\server'``)."""
    return f"'{escaped(path)}'"
