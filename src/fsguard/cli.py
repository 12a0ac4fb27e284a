"""Command line: arguments → Settings → a server on stdio or HTTP."""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import anyio

from fsguard import __version__
from fsguard.config import Settings, default_state_dir
from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.flags import RESPONSE_FLOOR, add_path_rules, amount, port, whole_number
from fsguard.server import FsguardServer, build_server
from fsguard.startup import (
    keep_token_out_of_logs,
    lift_open_file_limit,
    refuse_unusable_config,
    refuse_unusable_token,
    refuse_without_token,
    signals_exit_cleanly,
    start_logging,
)
from fsguard.stdio import serve_stdio

logger = logging.getLogger("fsguard")


# A state directory start-up cannot write to: the user's to move, with the flag that does it.
def parser() -> argparse.ArgumentParser:
    """The flags of SPEC §5 that the tools of this release use; the rest arrive with their features."""
    # No abbreviations: one flag's prefix (--read-only) silently became another (--read-only-root).
    p = argparse.ArgumentParser(
        prog="fsguard", description="MCP server: safe, typed access to a filesystem.", allow_abbrev=False
    )
    p.epilog = "fsguard dashboard [ROOTS...] starts the web dashboard instead; see fsguard dashboard --help."
    add = p.add_argument
    add("roots", nargs="*", type=Path, help="directories the agent may use (default: the current directory)")
    add("--transport", choices=["stdio", "http"], default="stdio", help="stdio (default) or streamable HTTP at /mcp")
    add("--host", default="127.0.0.1", help="HTTP bind address; anything but loopback needs --auth-token")
    add("--port", type=port, default=8765, help="HTTP port (default 8765)")
    add(
        "--auth-token",
        default=os.environ.get("FSGUARD_AUTH_TOKEN"),
        help="bearer token HTTP clients must send (env FSGUARD_AUTH_TOKEN)",
    )
    add("--read-only", action="store_true", help="register only tools that never change the filesystem")
    add(
        "--unrestricted",
        action="store_true",
        help="allow any path (character and name checks, deny rules and the denial of fsguard's own files stay on)",
    )
    add("--state-dir", type=Path, default=None, help=f"server state outside the roots (default {default_state_dir()})")
    add(
        "--backup-max-age",
        type=amount(0),
        default=7.0,
        metavar="DAYS",
        help="drop backups older than this (default 7; inf: never; 0 keeps each file's newest only)",
    )
    add("--backup-max-count", type=whole_number(1), default=100, metavar="N", help="backups kept per file (100)")
    add(
        "--auto-occ",
        choices=["off", "warn", "block"],
        default="warn",
        help="edits without expected_hash of a file changed since this session saw it: warn (default), block, off",
    )
    add("--risk-threshold-medium", type=amount(0, 100), default=20.0, metavar="PCT", help="change %% for MEDIUM risk")
    add("--risk-threshold-high", type=amount(0, 100), default=75.0, metavar="PCT", help="change %% for HIGH risk")
    occurrences = whole_number(1)
    add("--risk-occurrences-medium", type=occurrences, default=50, metavar="N", help="occurrences for at least MEDIUM")
    add("--risk-occurrences-high", type=occurrences, default=100, metavar="N", help="occurrences for at least HIGH")
    add("--log-dir", type=Path, default=None, help="write operations.jsonl (one line per call) and metrics.json here")
    add("--hooks-config", type=Path, default=None, help="hooks JSON file: commands run before/after operations")
    add("--compact-mode", action="store_true", help="terse text blocks (same facts)")
    add("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="stderr log level")
    add(
        "--max-file-size",
        type=whole_number(1),
        default=50 * 1024 * 1024,
        metavar="BYTES",
        help="largest file loaded whole or edited (ranged reads of bigger files stream)",
    )
    add(
        "--max-response-bytes",
        type=whole_number(RESPONSE_FLOOR),
        default=256 * 1024,
        metavar="BYTES",
        help="most text one read_file returns; longer lines are cut with a marker and read on by start_column",
    )
    add(
        "--max-media-bytes",
        type=whole_number(0),
        default=3 * 1024 * 1024,
        metavar="BYTES",
        help="largest image/audio file read_file inlines as an image/audio block (default 3 MiB); a larger one "
        "is sent as a resource_link; 0 links every media file",
    )
    add("--max-search-results", type=whole_number(1), default=1000, metavar="N", help="matches per search_files answer")
    add("--max-list-items", type=whole_number(1), default=500, metavar="N", help="entries per list_directory answer")
    add("--wsl-mount-root", type=Path, default=Path("/mnt"), help="where C:\\ paths map to (default /mnt)")
    add(
        "--wsl",
        action=argparse.BooleanOptionalAction,
        default=env_flag("FSGUARD_WSL"),
        help="treat this machine as WSL (--no-wsl: as not), instead of detecting it; env FSGUARD_WSL=1/0. "
        "For tests on plain Linux with a fake --wsl-mount-root tree",
    )
    add(
        "--wsl-windows-home",
        default=os.environ.get("FSGUARD_WSL_WINDOWS_HOME") or None,
        metavar="PATH",
        help="the Windows user folder, e.g. C:\\Users\\me (env FSGUARD_WSL_WINDOWS_HOME; default USERPROFILE, "
        "else <mount root>/c/Users/$USER)",
    )
    add(
        "--wsl-autosync",
        action="store_true",
        default=bool(env_flag("FSGUARD_WSL_AUTOSYNC")),
        help="copy files written under ~ to the Windows home, whatever wsl(action=autosync_config) saved; "
        "env FSGUARD_WSL_AUTOSYNC=1",
    )
    add(
        "--git-hooks",
        action="store_true",
        help="let git commit and push run the repository's hooks (off: an agent that can write files could write "
        "a hook under core.hooksPath and have it run)",
    )
    add(
        "--confirm",
        choices=["off", "risky", "irreversible"],
        default="risky",
        help="ask the user (when the client supports elicitation) before: irreversible = permanent deletes, trash "
        "purges, git restore of uncommitted work, forced pushes; risky (default) = those and HIGH/CRITICAL changes; "
        "off = never",
    )
    add_path_rules(p, "tools")
    add(
        "--no-client-roots",
        dest="client_roots",
        action="store_false",
        help="never ask the client for its roots (roots/list); serve exactly the command-line roots",
    )
    add("--version", action="version", version=f"fsguard {__version__}")
    return p


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings for parsed arguments."""
    return Settings(
        roots=tuple(root.expanduser() for root in args.roots),
        unrestricted=args.unrestricted,
        read_only=args.read_only,
        compact_mode=args.compact_mode,
        transport=args.transport,
        host=args.host,
        port=args.port,
        auth_token=args.auth_token or None,
        state_dir=(args.state_dir or default_state_dir()).expanduser(),
        backup_max_age_days=args.backup_max_age,
        backup_max_count=args.backup_max_count,
        auto_occ=args.auto_occ,
        risk_threshold_medium=args.risk_threshold_medium,
        risk_threshold_high=args.risk_threshold_high,
        risk_occurrences_medium=args.risk_occurrences_medium,
        risk_occurrences_high=args.risk_occurrences_high,
        log_level=args.log_level,
        log_dir=args.log_dir.expanduser() if args.log_dir else None,
        hooks_config=args.hooks_config.expanduser() if args.hooks_config else None,
        max_file_size=args.max_file_size,
        max_response_bytes=args.max_response_bytes,
        max_media_bytes=args.max_media_bytes,
        max_list_items=args.max_list_items,
        max_search_results=args.max_search_results,
        wsl_mount_root=args.wsl_mount_root,
        wsl=args.wsl,
        wsl_windows_home=args.wsl_windows_home,
        wsl_autosync=args.wsl_autosync,
        git_hooks=args.git_hooks,
        confirm=args.confirm,
        read_only_roots=tuple(root.expanduser() for root in args.read_only_roots),
        deny=tuple(args.deny),
        default_deny=args.default_deny,
        client_roots=args.client_roots,
    )


def env_flag(name: str) -> bool | None:
    """An on/off environment variable: 1/true/yes/on, 0/false/no/off; None when unset or anything else."""
    value = os.environ.get(name, "").strip().lower()
    return True if value in ("1", "true", "yes", "on") else False if value in ("0", "false", "no", "off") else None


def client_config(settings: Settings) -> str:
    """A client configuration snippet for the running server."""
    if settings.transport == "http":
        entry: dict[str, object] = {"type": "http", "url": settings.mcp_url}
        if settings.auth_token:
            entry["headers"] = {"Authorization": "Bearer <your token>"}
    else:
        entry = {"command": shutil.which("fsguard") or "fsguard", "args": [str(r) for r in settings.effective_roots()]}
    return json.dumps({"mcpServers": {"fsguard": entry}}, indent=2)


def main(argv: Sequence[str] | None = None) -> None:
    """Run fsguard; exits 2 on a configuration error."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["dashboard"]:  # a root named "dashboard" is still reachable as ./dashboard
        from fsguard.dashboard.command import main as dashboard_main

        dashboard_main(given[1:])
        return
    flags = parser()
    args = flags.parse_args(argv)
    for kind, unit in (("threshold", "%"), ("occurrences", "")):
        medium, high = getattr(args, f"risk_{kind}_medium"), getattr(args, f"risk_{kind}_high")
        if medium > high:
            flags.error(
                f"--risk-{kind}-medium ({medium:g}{unit}) is above --risk-{kind}-high ({high:g}{unit}): "
                "MEDIUM must start at or below HIGH"
            )
    start_logging(args.log_level)
    lift_open_file_limit()
    settings = settings_from(args)
    refuse_without_token(settings, "fsguard", "serving a filesystem beyond loopback needs a bearer token")
    refuse_unusable_token(settings, "fsguard")
    keep_token_out_of_logs(settings.auth_token)
    if settings.unrestricted:
        logger.warning(
            "--unrestricted: any path on this machine is reachable (character and name checks, deny rules and the "
            "denial of fsguard's own files stay on)"
        )
    try:
        server = build_server(settings)
    except FsguardError as exc:
        if exc.fields.get("path") == "dashboard" and not Path("dashboard").exists():
            # `fsguard --state-dir SD dashboard R` took "dashboard" for a root: the subcommand comes first only.
            hint = " (to start the dashboard, put `dashboard` first: fsguard dashboard …)"
            exc = InvalidParamsError(exc.message + hint, path="dashboard")
        refuse_unusable_config(exc, "fsguard", settings.state_dir)
    # Everything built so far (SDK, pydantic schemas, parsers) lives as long as the process: keep it out of the
    # cyclic collector, whose full passes over it cost tens of milliseconds during a large search.
    gc.freeze()
    server.freeze_when_built = True
    try:
        if settings.transport == "stdio":
            anyio.run(serve_stdio, server)
        else:
            _serve_http(server, settings)
    finally:
        server.groundwork.locks.sweep(leftovers=True)  # else each path it touched keeps a lock file for ever
        if server.groundwork.audit is not None:
            server.groundwork.audit.flush()


def _serve_http(server: FsguardServer, settings: Settings) -> None:
    # Imported here: uvicorn costs a noticeable share of start-up, and stdio clients never need it.
    from fsguard.http import uvicorn_config
    from fsguard.listeners import PreboundServer, listen_refusal, listening_sockets

    try:
        sockets = listening_sockets(settings)  # before the banner: a URL is printed only once it is this server's
    except OSError as exc:
        sys.stderr.write(listen_refusal(settings, exc) + "\n")
        raise SystemExit(2) from exc
    sys.stderr.write(
        f"fsguard {__version__} serving {server.groundwork.policy.describe_roots()}\n"
        f"URL: {settings.mcp_url}\n"
        f"Client config:\n{client_config(settings)}\n"
    )
    with signals_exit_cleanly():
        PreboundServer(uvicorn_config(server, settings), settings.mcp_url).run(sockets)
