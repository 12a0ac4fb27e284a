"""Argument types for the numeric flags, and the path-rule flags the server and the dashboard share.

A numeric value that makes no sense stops the server at start-up with the flag's name and what it takes, instead
of serving with it (``--max-list-items -5`` gave every listing an empty page whose next_offset was its own offset,
so a client paging through it never finished)."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path

PORT_MAX = 65535
RESPONSE_FLOOR = 1024
"""The smallest --max-response-bytes: a cut line's marker and some of its text must fit in one answer."""


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least ``minimum``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is below the least it takes, {minimum}")
        return value

    parse.__name__ = "whole number"  # argparse names the type in "invalid <name> value" messages
    return parse


def port(text: str) -> int:
    """An argparse type: a TCP port, 1 to 65535 (0 would bind any free port while the printed URL said 0)."""
    value = whole_number(1)(text)
    if value > PORT_MAX:
        raise argparse.ArgumentTypeError(f"{value} is not a port (1-{PORT_MAX})")
    return value


def amount(minimum: float, maximum: float = math.inf) -> Callable[[str], float]:
    """An argparse type: a finite number from ``minimum`` to ``maximum`` (``inf`` allowed only as the open end)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if math.isnan(value):
            raise argparse.ArgumentTypeError(f"{text!r} is not a number")
        if value < minimum and math.isinf(maximum):
            raise argparse.ArgumentTypeError(f"{value:g} is below the least it takes, {minimum:g}")
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{value:g} is outside {minimum:g}-{maximum:g}")
        return value

    parse.__name__ = "number"
    return parse


def add_path_rules(p: argparse.ArgumentParser, whom: str) -> None:
    """--read-only-root, --deny and --no-default-deny: the rules of what ``whom`` may change and show."""
    p.add_argument(
        "--read-only-root",
        dest="read_only_roots",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help=f"a root where {whom} may read, list and search but every change is refused (repeatable)",
    )
    p.add_argument(
        "--deny",
        action="append",
        default=[],
        metavar="GLOB",
        help=f"hide paths matching this gitignore-style glob from {whom} (repeatable; '!GLOB' re-allows)",
    )
    p.add_argument(
        "--no-default-deny",
        dest="default_deny",
        action="store_false",
        help="switch off the default deny rules for secrets (.env, *.pem, *.key, id_rsa*, ...)",
    )
