"""What every fsguard program does before it serves: log to stderr, and refuse to listen beyond loopback unguarded.

Shared by ``fsguard`` (cli.py) and ``fsguard dashboard`` (dashboard/command.py), which the first hands over to.
"""

from __future__ import annotations

import logging
import sys

from fsguard.config import Settings


def start_logging(level: str) -> None:
    """Log to stderr: stdout carries nothing but protocol frames."""
    logging.basicConfig(stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def refuse_without_token(settings: Settings, program: str, why: str) -> None:
    """Exit 2 when ``settings`` bind beyond loopback without a token; ``why`` says what the token protects."""
    if settings.needs_auth_token and not settings.auth_token:
        sys.stderr.write(
            f"{program}: refusing to bind {settings.host}: {why}. Pass --auth-token or set FSGUARD_AUTH_TOKEN.\n"
        )
        raise SystemExit(2)
