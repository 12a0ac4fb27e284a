"""What every fsguard program does before it serves: log to stderr, refuse to listen beyond loopback unguarded,
make SIGTERM end it through its shutdown path, and lift its open-file limit.

Shared by ``fsguard`` (cli.py) and ``fsguard dashboard`` (dashboard/command.py), which the first hands over to.
"""

from __future__ import annotations

import logging
import resource
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

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


@contextmanager
def sigterm_exits_cleanly() -> Iterator[None]:
    """While the block runs, SIGTERM raises ``SystemExit(0)``: the caller's ``finally`` (its shutdown) runs.

    uvicorn stops on SIGTERM, then raises it again for the handler it found: the default one ended the process
    before the shutdown path (metrics.json, the lock-file sweep).
    """
    previous = signal.signal(signal.SIGTERM, _exit_cleanly)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _exit_cleanly(number: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def lift_open_file_limit() -> None:
    """Raise the soft limit on open files to the hard one, as Go's runtime does for every Go program (the seed
    server among them): a call holding many files' locks (a git switch or restore, a batch) keeps two descriptors
    open per file, and the soft limit many systems start a process with is 1,024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            logging.getLogger(__name__).debug("the open-file limit stays at %s", soft)
