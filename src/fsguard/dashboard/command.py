"""``fsguard dashboard [ROOTS…]``: its flags, its Settings, and serving it with uvicorn."""

from __future__ import annotations

import argparse
import logging
import os
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from fsguard import __version__
from fsguard.config import Settings, default_state_dir, url_host
from fsguard.core.errors import FsguardError
from fsguard.flags import add_path_rules, port
from fsguard.startup import (
    keep_token_out_of_logs,
    refuse_unusable_config,
    refuse_unusable_token,
    refuse_without_token,
    signals_exit_cleanly,
    start_logging,
)

if TYPE_CHECKING:
    from starlette.applications import Starlette

DEFAULT_PORT = 9100
logger = logging.getLogger("fsguard.dashboard")


def parser() -> argparse.ArgumentParser:
    """The dashboard's flags: the roots, state and log directories of the servers it watches, and where to listen."""
    p = argparse.ArgumentParser(
        prog="fsguard dashboard",
        description="Web UI: what agents did through fsguard (audit log), undo and restore files, recover the trash.",
        allow_abbrev=False,  # --read-only (a server's flag) was taken for --read-only-root
    )
    add = p.add_argument
    add("roots", nargs="*", type=Path, help="directories files may be restored into (default: the current directory)")
    add("--host", default="127.0.0.1", help="bind address; anything but loopback needs --auth-token")
    add("--port", type=port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    add(
        "--auth-token",
        default=os.environ.get("FSGUARD_AUTH_TOKEN"),
        help="token: a browser opens /?token=<token> once (then a cookie), a script sends Authorization: Bearer "
        "(env FSGUARD_AUTH_TOKEN)",
    )
    add("--state-dir", type=Path, default=None, help=f"the servers' state dir (default {default_state_dir()})")
    add("--log-dir", type=Path, default=None, help="the servers' --log-dir (the audit log the Activity page shows)")
    add(
        "--hooks-config",
        type=Path,
        default=None,
        help="the servers' hooks file: Undo, Restore and trash restores fire the same hooks as the backup tool",
    )
    # The servers' own rules: without them the dashboard showed the history of a file a server's --deny hides,
    # and restored into a root the servers may only read.
    add_path_rules(p, "the dashboard")
    add("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="stderr log level")
    return p


def settings_from(args: argparse.Namespace) -> Settings:
    """Settings for the dashboard: the fields it uses, the rest at their defaults."""
    return Settings(
        roots=tuple(root.expanduser() for root in args.roots),
        transport="http",  # so needs_auth_token applies the MCP endpoint's rule to the dashboard's host
        host=args.host,
        port=args.port,
        auth_token=args.auth_token or None,
        state_dir=(args.state_dir or default_state_dir()).expanduser(),
        log_dir=args.log_dir.expanduser() if args.log_dir else None,
        hooks_config=args.hooks_config.expanduser() if args.hooks_config else None,
        log_level=args.log_level,
        read_only_roots=tuple(root.expanduser() for root in args.read_only_roots),
        deny=tuple(args.deny),
        default_deny=args.default_deny,
    )


def main(argv: Sequence[str]) -> None:
    """Serve the dashboard until interrupted; exits 2 on a configuration error."""
    args = parser().parse_args(argv)
    start_logging(args.log_level)
    settings = settings_from(args)
    refuse_without_token(
        settings, "fsguard dashboard", "it can restore and purge files, so beyond loopback it needs a token"
    )
    refuse_unusable_token(settings, "fsguard dashboard")
    keep_token_out_of_logs(settings.auth_token)
    # Imported here: Starlette, Jinja2 and uvicorn are not needed to parse the flags.
    from fsguard.dashboard.app import build_app
    from fsguard.listeners import listen_refusal, listening_sockets

    # Bound first, as the server binds: uvicorn bound after the URL was printed (and after start-up had ended the
    # runs a killed server left), then failed a taken port or a bad --host with its own error and exit 3.
    try:
        sockets = listening_sockets(settings)
    except OSError as exc:
        sys.stderr.write(listen_refusal(settings, exc, "fsguard dashboard") + "\n")
        raise SystemExit(2) from exc
    try:
        app = build_app(settings)
    except FsguardError as exc:
        for sock in sockets:
            sock.close()
        refuse_unusable_config(exc, "fsguard dashboard", settings.state_dir)
    # Stopping cleanly from the banner on: the sockets listen already, so a client may connect (and its user press
    # Ctrl+C) as soon as the URL shows.
    try:
        with signals_exit_cleanly():
            _serve(app, settings, sockets)
    finally:
        app.state.dashboard.services.locks.sweep(leftovers=True)  # else its restores' lock files stay for ever


def _serve(app: Starlette, settings: Settings, sockets: list[socket.socket]) -> None:
    """Print the banner and serve ``app`` on ``sockets`` until stopped."""
    import uvicorn

    from fsguard.dashboard.app import wrap
    from fsguard.http import RequestDeadline

    shown = "127.0.0.1" if settings.host in ("0.0.0.0", "::") else url_host(settings.host)  # noqa: S104
    suffix = "/?token=<token>" if settings.auth_token else "/"
    sys.stderr.write(
        f"fsguard {__version__} dashboard for {app.state.dashboard.services.policy.describe_roots()}\n"
        f"state: {settings.state_dir}  audit log: {settings.log_dir or '(none: pass --log-dir)'}\n"
        f"URL: http://{shown}:{settings.port}{suffix}\n"
    )
    config = uvicorn.Config(
        wrap(app, settings),
        host=settings.host,
        port=settings.port,
        log_level=settings.log_level.lower(),
        log_config=None,
        timeout_graceful_shutdown=2,
        http=RequestDeadline,
    )
    uvicorn.Server(config).run(sockets)
