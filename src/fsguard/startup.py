"""What every fsguard program does before it serves: log to stderr, refuse to listen beyond loopback unguarded,
make SIGTERM (and, for fsguard, SIGINT) end it through its shutdown path, and lift its open-file limit.

Shared by ``fsguard`` (cli.py) and ``fsguard dashboard`` (dashboard/command.py), which the first hands over to.
"""

from __future__ import annotations

import logging
import re
import resource
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import NoReturn
from urllib.parse import quote, quote_plus, unquote_plus

from fsguard.config import Settings, default_state_dir
from fsguard.core.errors import FsguardError

# Why a state dir cannot serve, by the error's code; the error's own message advises an agent's tool call.
_STATE_DIR_REASONS = {
    "not_found": "it cannot be created there",
    "not_a_directory": "a file is in the way",
    "already_exists": "a file is in the way",
    "is_directory": "a directory is in the way",
    "access_denied": "the operating system refused access",
    "read_only_filesystem": "its filesystem is read-only",
    "disk_full": "its filesystem is full",
}


def start_logging(level: str) -> None:
    """Log to stderr: stdout carries nothing but protocol frames."""
    logging.basicConfig(stream=sys.stderr, level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def refuse_unusable_config(exc: FsguardError, program: str, state_dir: Path) -> NoReturn:
    """Exit 2 for a configuration start-up refused: an error at a path in the state dir names --state-dir and what
    to pass, not the next tool call its message suggests (its reader is the operator, not an agent)."""
    sys.stderr.write(f"{program}: {_state_dir_refusal(exc, state_dir) or exc.message}\n")
    raise SystemExit(2) from exc


def _state_dir_refusal(exc: FsguardError, state_dir: Path) -> str | None:
    path = exc.fields.get("path")
    if not isinstance(path, str):
        return None
    # absolute(): a --state-dir given relative names its files relative too, from the same working directory.
    if not any(
        Path(path).absolute().is_relative_to(spelling) for spelling in (state_dir.absolute(), state_dir.resolve())
    ):
        return None
    why = _STATE_DIR_REASONS.get(exc.code, exc.code.replace("_", " "))
    # A stray entry inside it, where fsguard keeps one of its own: moving it aside is the fix, not another state dir.
    stray = Path(path)
    blocks = exc.code in ("not_a_directory", "already_exists", "is_directory") and state_dir.is_dir()
    inside = blocks and stray.exists() and stray.resolve() != state_dir.resolve()
    aside = f"Move {path} out of the way (fsguard keeps an entry of its own there), or pass" if inside else "Pass"
    return (
        f"--state-dir {state_dir} cannot hold fsguard's backups, trash and locks ({why}: {path}). {aside} "
        f"--state-dir a directory this user may create and write to (the default is {default_state_dir()})."
    )


def refuse_without_token(settings: Settings, program: str, why: str) -> None:
    """Exit 2 when ``settings`` bind beyond loopback without a token; ``why`` says what the token protects."""
    if settings.needs_auth_token and not settings.auth_token:
        sys.stderr.write(
            f"{program}: refusing to bind {settings.host}: {why}. Pass --auth-token or set FSGUARD_AUTH_TOKEN.\n"
        )
        raise SystemExit(2)


def refuse_unusable_token(settings: Settings, program: str) -> None:
    """Exit 2 when the token holds anything but printable ASCII, or starts or ends with a space: the dashboard could
    never be opened with it (the cookie carrying it cannot be set, and a header arrives decoded as Latin-1), many HTTP
    clients refuse to send it, and a header's token is read without the spaces around it."""
    token = settings.auth_token
    if token and not (token.isascii() and token.isprintable() and token == token.strip()):
        sys.stderr.write(
            f"{program}: --auth-token must be printable ASCII, with no space at either end: HTTP headers and "
            "cookies carry it. Pick another, e.g. the output of: "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'\n"
        )
        raise SystemExit(2)


def keep_token_out_of_logs(token: str | None) -> None:
    """Show ``token`` as ``<token>`` wherever uvicorn's access log would print it.

    The access log prints each request's path with its query, and a browser opens the dashboard as /?token=<token>
    (a client may put it there for /mcp too): the secret would land in every log that keeps stderr.
    """
    if token:
        logging.getLogger("uvicorn.access").addFilter(TokenRedaction(token))


# A query parameter. Its value is a token when its name reads token once percent-decoded (?tok%65n= is ?token= to the
# server); the value may be spelled any way too: a browser percent-encodes a few characters only (it sends ``{}|^``
# as typed), and any mix of encoded and plain characters names the same token to the server.
_QUERY_PARAM = re.compile(r"([?&;])([^=&;#?\s\"']*)=([^&#\s\"']*)")


class TokenRedaction(logging.Filter):
    """Replaces a token, as typed or percent-encoded, in a log record's arguments, and any ``token=`` query value."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self._forms = sorted({token, quote(token, safe=""), quote_plus(token, safe="")}, key=len, reverse=True)

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self._hidden(arg) if isinstance(arg, str) else arg for arg in record.args)
        record.msg = self._hidden(record.msg) if isinstance(record.msg, str) else record.msg
        return True

    def _hidden(self, text: str) -> str:
        text = _QUERY_PARAM.sub(_redacted, text)
        for form in self._forms:
            text = text.replace(form, "<token>")
        return text


def _redacted(param: re.Match[str]) -> str:
    if unquote_plus(param[2]).lower() != "token":
        return param[0]
    return f"{param[1]}{param[2]}=<token>"


@contextmanager
def signals_exit_cleanly(numbers: tuple[signal.Signals, ...] = (signal.SIGTERM, signal.SIGINT)) -> Iterator[None]:
    """While the block runs, each signal of ``numbers`` raises ``SystemExit(0)``: the caller's ``finally`` (its
    shutdown) runs.

    uvicorn stops on SIGTERM or SIGINT, then raises it again for the handler it found: the default SIGTERM one ended
    the process before the shutdown path (metrics.json, the lock-file sweep), and asyncio's SIGINT one printed a
    KeyboardInterrupt traceback for an ordinary Ctrl+C.
    """
    previous = {number: signal.signal(number, _exit_cleanly) for number in numbers}
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


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
