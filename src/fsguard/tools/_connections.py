"""A client connection's scratch space, and the key fsguard keeps a connection's own memory under.

A legacy-era connection (stdio, or an HTTP session) lives across calls; the SDK gives each a ``Connection`` with a
``state`` dict, reached through the per-request ``ServerSession`` because no public accessor exists. A 2026-era
call is stateless: it has no connection to remember anything under.
"""

from __future__ import annotations

import uuid
from typing import Any

from mcp.server.mcpserver import Context
from mcp.types.version import MODERN_PROTOCOL_VERSIONS

_CLIENT_KEY = "fsguard/client"


def connection_state(session: Any) -> dict[str, Any] | None:
    """The state dict of the connection ``session`` serves, None when it has none."""
    connection = getattr(session, "_connection", None)
    state = getattr(connection, "state", None)
    return state if isinstance(state, dict) else None


def client_key(context: Context[Any, Any] | None) -> str | None:
    """The key of the connection ``context``'s call came on, the same for all its calls; None for a call without
    one (in process, or in the stateless 2026 era)."""
    if context is None or context.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return None
    state = connection_state(context.session)
    if state is None:
        return None
    key: str | None = state.get(_CLIENT_KEY)
    if key is None:  # not setdefault: it would draw a fresh uuid on every call only to drop it
        key = state[_CLIENT_KEY] = uuid.uuid4().hex
    return key
