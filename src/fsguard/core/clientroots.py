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

from fsguard.core.errors import AccessDeniedError, InvalidParamsError
from fsguard.core.wslpaths import is_windows_form, to_wsl

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


def uri_path(uri: str, mount_root: Path = Path("/mnt")) -> Path | None:
    """The canonical directory a ``file://`` URI names; None for any other scheme, or a path naming no directory
    that can be reached: missing, holding a NUL (``%00``), too long, or behind a directory fsguard may not search
    (each raised, and failed every call of the session, not just this root).

    A Windows client's ``file:///C:/Users/me/proj`` names ``<mount_root>/c/Users/me/proj``, as a tool's ``C:\\…``
    path does (WSL's layout). A URI with a query or a fragment names no folder: ``file:///a#b`` is a folder ``a#b``
    whose ``#`` the client did not escape, or something else altogether, never the folder ``a``.
    """
    parsed = urlparse(uri)
    if parsed.scheme != "file" or parsed.netloc not in ("", "localhost") or parsed.query or parsed.fragment:
        return None
    try:
        path = unquote(parsed.path)
        if path.startswith("/") and is_windows_form(path[1:]) and not path.startswith("//"):  # file:///C:/x
            path = str(to_wsl(path[1:], mount_root))
        real = Path(os.path.realpath(path))
        return real if real.is_dir() else None
    except (ValueError, OSError, InvalidParamsError):  # InvalidParamsError: a drive-relative C:x names no folder
        return None


def intersect(
    configured: Iterable[Path], uris: Iterable[str], *, unrestricted: bool = False, mount_root: Path = Path("/mnt")
) -> ClientScope | None:
    """The effective roots for a client naming ``uris``; None when it names none (command-line roots apply).

    With ``unrestricted`` the command line allows everything, so every existing client root is kept. ``mount_root``
    is where Windows drives are mounted (:func:`uri_path`).
    """
    client_uris = tuple(uris)
    if not client_uris:
        return None
    server = tuple(configured)
    kept: dict[Path, Origin] = {}
    ignored: list[str] = []
    for uri in client_uris:
        client = uri_path(uri, mount_root)
        if client is None:
            ignored.append(uri)
            continue
        granted = _granted(server, client, unrestricted=unrestricted)
        if not granted:
            ignored.append(uri)
        for path, origin in granted:
            kept[path] = origin if kept.get(path, origin) == origin else "both"
    # In the client's order (a client root holding several command-line roots: theirs): the first is where
    # relative paths start, as the client's first workspace folder is its main one.
    roots = tuple(EffectiveRoot(path, origin) for path, origin in kept.items())
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


def reaching_nothing(scope: ClientScope, user_path: str, server_roots: tuple[Path, ...]) -> AccessDeniedError:
    """The refusal of every path in a session whose client named no root inside the server's: the agent can do
    nothing about it but tell the user what to change."""
    named = ", ".join(scope.client_uris[:3]) + (
        f" and {len(scope.client_uris) - 3} more" if len(scope.client_uris) > 3 else ""
    )
    held = "; ".join(map(str, server_roots)) or "any folder: --unrestricted"
    return AccessDeniedError(
        f"access denied: {user_path}: every root the client named ({named}) lies outside the server's roots "
        f"({held}) or is no folder, so this session reaches nothing. Ask the user to open a folder inside the "
        "server's roots in the client, or to start fsguard with a root holding the client's folders.",
        path=user_path,
    )
