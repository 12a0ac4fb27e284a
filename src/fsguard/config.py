"""Settings: every limit, flag and path the server runs with, fixed at start-up."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import platformdirs

Transport = Literal["stdio", "http"]
AutoOcc = Literal["off", "warn", "block"]
Confirm = Literal["off", "risky", "irreversible"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine's loopback only: ``localhost`` in any case, or a loopback address in any
    spelling (127.0.0.2, 0:0:0:0:0:0:0:1); such a bind needs no token, as 127.0.0.1 needs none."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


def host_names(host: str) -> tuple[str, ...]:
    """How a client's Host header names the bound loopback ``host`` (lower case; an IPv6 address bracketed, as typed
    and compressed), beside the usual loopback names."""
    bare = host.lower().removeprefix("[").removesuffix("]")
    try:
        address = ipaddress.ip_address(bare)
    except ValueError:
        return (bare,)
    if address.version == 6:
        return tuple(dict.fromkeys((f"[{bare}]", f"[{address.compressed}]")))
    return (address.compressed,)


MCP_PATH = "/mcp"
MESSAGES_PATH = "/messages/"  # the 2024-11-05 HTTP+SSE transport's message endpoint (fsguard.legacysse)


def default_state_dir() -> Path:
    """The platform's per-user state directory, e.g. ``~/.local/state/fsguard`` on Linux."""
    return Path(platformdirs.user_state_dir("fsguard", appauthor=False))


@dataclass(frozen=True)
class Settings:
    """Everything the server is configured with; built once by the CLI or a test."""

    roots: tuple[Path, ...] = ()
    unrestricted: bool = False
    read_only: bool = False
    compact_mode: bool = False
    transport: Transport = "stdio"
    host: str = "127.0.0.1"
    port: int = 8765
    auth_token: str | None = None
    state_dir: Path = field(default_factory=default_state_dir)
    backup_max_age_days: float = 7.0
    backup_max_count: int = 100
    auto_occ: AutoOcc = "warn"
    risk_threshold_medium: float = 20.0
    risk_threshold_high: float = 75.0
    risk_occurrences_medium: int = 50
    risk_occurrences_high: int = 100
    log_dir: Path | None = None
    hooks_config: Path | None = None
    log_level: str = "INFO"
    max_file_size: int = 50 * 1024 * 1024
    max_response_bytes: int = 256 * 1024  # read_file's text budget; a longer line is cut and read on by column
    max_list_items: int = 500
    max_search_results: int = 1000
    wsl_mount_root: Path = Path("/mnt")
    # None: detect WSL (binfmt_misc/WSLInterop, WSL_DISTRO_NAME, /proc/version); True/False forces the answer
    # (--wsl / --no-wsl, FSGUARD_WSL=1/0), which is how the wsl tool is tested on plain Linux.
    wsl: bool | None = None
    wsl_home: Path | None = None  # the Linux side of the standard folders and of autosync; None: $HOME
    # C:\Users\me or its mount path (--wsl-windows-home, FSGUARD_WSL_WINDOWS_HOME); None: USERPROFILE, else
    # <mount root>/c/Users/$USER when that exists.
    wsl_windows_home: str | None = None
    wsl_autosync: bool = False  # --wsl-autosync / FSGUARD_WSL_AUTOSYNC=1: autosync on, whatever its config says
    git_hooks: bool = False  # --git-hooks: git(action=commit/push) runs the repository's hooks
    read_truncate_lines: int = 300
    max_media_bytes: int = 3 * 1024 * 1024  # read_file inlines images/audio up to this; larger: a resource_link
    # --confirm: which operations ask the person (by elicitation, when the client can) before they run
    confirm: Confirm = "risky"
    read_only_roots: tuple[Path, ...] = ()  # --read-only-root: roots too, where every mutation is refused
    deny: tuple[str, ...] = ()  # --deny GLOB (gitwildmatch), after the default secret rules
    default_deny: bool = True  # --no-default-deny switches the default secret rules off
    client_roots: bool = True  # --no-client-roots: never ask the client for its roots

    def effective_roots(self) -> tuple[Path, ...]:
        """The configured roots, or the current directory when none were given."""
        if self.roots or self.read_only_roots:
            return self.roots
        return () if self.unrestricted else (Path.cwd(),)

    @property
    def wsl_autosync_config(self) -> Path:
        """The saved autosync settings: in the state dir, so each server (and test) has its own."""
        return self.state_dir / "wsl" / "autosync.json"

    @property
    def sweep_age_days(self) -> float:
        """The age backup(cleanup) and backup(purge_trash) remove from when not told: the backup retention age.

        SPEC §5 lists no flag of its own, so it follows --backup-max-age (default 7 days).
        """
        return self.backup_max_age_days

    @property
    def mcp_url(self) -> str:
        """The HTTP endpoint's URL, for people and clients: an IPv6 address in brackets (``http://[::1]:8765/mcp``),
        as a URL must have it."""
        return f"http://{url_host(self.host)}:{self.port}{MCP_PATH}"

    @property
    def needs_auth_token(self) -> bool:
        """Binding anything but loopback exposes the filesystem to the network."""
        return self.transport == "http" and not is_loopback(self.host)


def url_host(host: str) -> str:
    """``host`` as a URL names it: an IPv6 address in brackets (http://[::1]:9100/; http://::1:9100/ is no URL)."""
    return f"[{host}]" if ":" in host else host
