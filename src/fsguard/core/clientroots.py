"""Client roots: the workspace folders an MCP client names, which can narrow the command-line roots, never widen them.

Effective roots = command-line roots ∩ client roots: a client root inside a command-line root narrows to it, a
command-line root inside a client root stays, and a client root outside every command-line root grants nothing
(it is listed as ignored). A client that names no roots (no capability, or an empty list) leaves the command-line
roots as they are. The scope is per connection, so it travels in a context variable set around each tool call
rather than in the shared PathPolicy: one HTTP client's roots never change another's.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlparse

Origin = Literal["command_line", "client", "both"]


@dataclass(frozen=True)
class EffectiveRoot:
    """One root a call may use and where it came from: "command_line", "client" or "both"."""

    path: Path
    origin: Origin


@dataclass(frozen=True)
class ClientScope:
    """The roots of one connection after intersecting the client's with the command line's."""

    roots: tuple[EffectiveRoot, ...]
    client_uris: tuple[str, ...]
    ignored: tuple[str, ...]  # client roots granting nothing: outside every command-line root, or not file://

    @property
    def paths(self) -> tuple[Path, ...]:
        return tuple(root.path for root in self.roots)


_SCOPE: ContextVar[ClientScope | None] = ContextVar("fsguard_client_scope", default=None)


def current_scope() -> ClientScope | None:
    """The client scope of the call being served, None when the client named no roots."""
    return _SCOPE.get()


@contextmanager
def scoped(scope: ClientScope | None) -> Iterator[None]:
    """Serve one call inside ``scope`` (None: the command-line roots)."""
    token = _SCOPE.set(scope)
    try:
        yield
    finally:
        _SCOPE.reset(token)


def uri_path(uri: str) -> Path | None:
    """The canonical directory a ``file://`` URI names; None for any other scheme, or a path naming no directory
    that can be reached: missing, holding a NUL (``%00``), too long, or behind a directory fsguard may not search
    (each raised, and failed every call of the session, not just this root)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
        return None
    try:
        real = Path(os.path.realpath(unquote(parsed.path)))
        return real if real.is_dir() else None
    except (ValueError, OSError):
        return None


def intersect(configured: Iterable[Path], uris: Iterable[str], *, unrestricted: bool = False) -> ClientScope | None:
    """The effective roots for a client naming ``uris``; None when it names none (command-line roots apply).

    With ``unrestricted`` the command line allows everything, so every existing client root is kept.
    """
    client_uris = tuple(uris)
    if not client_uris:
        return None
    server = tuple(configured)
    kept: dict[Path, Origin] = {}
    ignored: list[str] = []
    for uri in client_uris:
        client = uri_path(uri)
        if client is None:
            ignored.append(uri)
            continue
        granted = _granted(server, client, unrestricted=unrestricted)
        if not granted:
            ignored.append(uri)
        for path, origin in granted:
            kept[path] = origin if kept.get(path, origin) == origin else "both"
    roots = tuple(EffectiveRoot(path, origin) for path, origin in sorted(kept.items()))
    return ClientScope(roots, client_uris, tuple(ignored))


def _granted(server: tuple[Path, ...], client: Path, *, unrestricted: bool) -> list[tuple[Path, Origin]]:
    if unrestricted:
        return [(client, "client")]
    granted: list[tuple[Path, Origin]] = []
    for root in server:
        if client == root:
            granted.append((root, "both"))
        elif client.is_relative_to(root):
            granted.append((client, "client"))
        elif root.is_relative_to(client):
            granted.append((root, "command_line"))
    return granted
