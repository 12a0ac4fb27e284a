"""Asking an MCP client for its roots, in both protocol eras, and keeping the answer per connection.

2025-11-25: a ``roots/list`` request to the client before the first tool call of a connection runs (calls that
arrive together share one), asked again after the client sends ``notifications/roots/list_changed``. 2026-07-28
has no back-channel, no change notice and no roots in the request ``_meta``: the only way the SDK offers is an
``input_required`` round (``inputRequests: {"fsguard:roots": roots/list}``), and with no change notice an answer
cannot be kept, so a client declaring the roots capability is asked on every call (on HTTP and in memory a 2026
request is its own connection anyway). Clients that declare no roots capability are never asked, and
``--no-client-roots`` stops the asking altogether.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, TypeGuard

import anyio
from mcp import MCPError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context
from mcp.types import REQUEST_TIMEOUT, InputRequiredResult, ListRootsRequest, ListRootsResult
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from fsguard.core.clientroots import ClientScope, intersect
from fsguard.core.errors import AccessDeniedError
from fsguard.core.oserrors import shorten
from fsguard.core.paths import PathPolicy
from fsguard.tools._connections import connection_state

logger = logging.getLogger(__name__)

ROOTS_REQUEST_KEY = "fsguard:roots"
_STATE_KEY = "fsguard/client_scope"
_GENERATION_KEY = "fsguard/client_roots_changes"
_PENDING_KEY = "fsguard/client_roots_asking"  # the roots/list in flight on the connection, its calls all wait for
_LAST_KEY = "fsguard/client_scope_named_last"  # kept across roots/list_changed: what a failed re-ask serves
LIST_CHANGED = "notifications/roots/list_changed"
# Clients answer roots/list at once; some declare the capability yet drop every request from the server, and an
# unbounded wait would hang each tool call of theirs until the client gives up on it.
ROOTS_ANSWER_SECONDS = 5.0


@dataclass(frozen=True)
class Asked:
    """The client's answer: its scope (None: it named no roots), or the round that asks it (2026)."""

    scope: ClientScope | None = None
    ask: InputRequiredResult | None = None


@dataclass
class _Pending:
    """One roots/list in flight on a connection: what it answered (or how it failed), set when ``done`` is."""

    generation: int
    done: anyio.Event = field(default_factory=anyio.Event)
    answer: ListRootsResult | None = None
    failure: Exception | None = None  # None with no answer: the call asking was cancelled; a waiter asks itself


class ClientRootsAsker:
    """Learns each connection's client roots and turns them into a :class:`ClientScope`."""

    def __init__(self, policy: PathPolicy, *, enabled: bool) -> None:
        self._policy = policy
        self._enabled = enabled

    async def scope(self, context: Context[Any, Any] | None) -> Asked:
        """The scope of the connection ``context`` belongs to; a 2026 call first gets the round asking for it."""
        if not self._asks(context):
            return Asked()
        modern = context.protocol_version in MODERN_PROTOCOL_VERSIONS
        # 2026 has no change notice, so nothing is kept there: even a stdio connection asks on every call.
        state = {} if modern else _state_of(context.session)
        if _STATE_KEY in state:
            cached: ClientScope | None = state[_STATE_KEY]
            return Asked(cached)
        generation = state.get(_GENERATION_KEY, 0)
        if modern:
            answer = (context.input_responses or {}).get(ROOTS_REQUEST_KEY)
            if not isinstance(answer, ListRootsResult):
                return Asked(ask=InputRequiredResult(input_requests={ROOTS_REQUEST_KEY: ListRootsRequest()}))
        else:
            try:
                answer = await _shared_answer(context.session, state, generation)
            except ValidationError as exc:  # it meant to name roots: serving the server's would widen its session
                raise unreadable_roots(exc) from exc
            except Exception as exc:
                return Asked(self._unanswered(exc, state, generation))
        scope = intersect(
            self._policy.roots,
            [str(root.uri) for root in answer.roots],
            unrestricted=self._policy.unrestricted,
            mount_root=self._policy.wsl_mount_root,
        )
        if scope is not None and scope.ignored:
            logger.info("client roots granting nothing (outside the server's roots): %s", ", ".join(scope.ignored))
        if state.get(_GENERATION_KEY, 0) == generation:  # else roots/list_changed came meanwhile: ask again next time
            state[_STATE_KEY] = scope
        state[_LAST_KEY] = scope
        return Asked(scope)

    def asking_again(self, round_: InputRequiredResult, context: Context[Any, Any] | None) -> InputRequiredResult:
        """``round_`` (another question of a 2026 call whose client was asked for its roots) asking for the roots as
        well: a 2026 client answers only what the round it retries asks, and nothing is kept between rounds."""
        if (
            not self._asks(context)
            or context.protocol_version not in MODERN_PROTOCOL_VERSIONS
            or ROOTS_REQUEST_KEY in (round_.input_requests or {})
        ):
            return round_
        asks = {**(round_.input_requests or {}), ROOTS_REQUEST_KEY: ListRootsRequest()}
        return round_.model_copy(update={"input_requests": asks})

    def _asks(self, context: Context[Any, Any] | None) -> TypeGuard[Context[Any, Any]]:
        """Whether the client of ``context`` is asked for its roots: it declares them, and --no-client-roots is off."""
        return self._enabled and context is not None and _declares_roots(context)

    def _unanswered(self, exc: Exception, state: dict[str, Any], generation: int) -> ClientScope | None:
        """The scope of a call whose roots/list failed (an error, or no answer in time): the roots the client
        named last on this connection, so a narrowed session never widens; the server's roots when it named none
        yet."""
        last: ClientScope | None = state.get(_LAST_KEY)
        kept = "the roots it named last" if last is not None else "the server's roots"
        logger.warning("the client declared roots but roots/list failed (%s); serving %s", exc, kept)
        unanswered = isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT
        if (unanswered or last is not None) and state.get(_GENERATION_KEY, 0) == generation:
            # Kept, so a client that never answers waits once per connection, not on every call;
            # roots/list_changed asks again.
            state[_STATE_KEY] = last
        return last


async def _shared_answer(session: Any, state: dict[str, Any], generation: int) -> ListRootsResult:
    """The client's answer to one roots/list per connection at a time: calls arriving while one is in flight wait
    for it and share its answer or its failure, unless roots/list_changed came since it was sent (``generation``)."""
    while True:
        pending: _Pending | None = state.get(_PENDING_KEY)
        if pending is None or pending.generation < generation:  # sent before roots/list_changed: ask anew
            break
        await pending.done.wait()
        if pending.failure is not None:
            raise pending.failure
        if pending.answer is not None:
            return pending.answer
        # The call that asked was cancelled before the answer came: the next waiter asks in its place.
    mine = state[_PENDING_KEY] = _Pending(generation)
    try:
        mine.answer = await session.send_request(
            ListRootsRequest(), ListRootsResult, request_read_timeout_seconds=ROOTS_ANSWER_SECONDS
        )
        return mine.answer
    except Exception as exc:
        mine.failure = exc
        raise
    finally:
        if state.get(_PENDING_KEY) is mine:
            del state[_PENDING_KEY]  # the next call after this answer or failure asks anew (unless it is kept)
        mine.done.set()


def unreadable_roots(exc: ValidationError) -> AccessDeniedError:
    """The refusal of a call whose client answered roots/list with no list of roots, or roots that are not file://
    URIs (the SDK refuses the whole answer then, so even its good roots are unknown)."""
    named = [shorten(str(error["input"])) for error in exc.errors() if error["loc"][-1:] == ("uri",)]
    which = f" ({', '.join(named[:3])})" if named else ""
    return AccessDeniedError(
        f"The client answered roots/list with something other than a list of file:// roots{which}, so which "
        "folders it allows is unknown and nothing was done. Ask the user to fix the client's workspace roots (each "
        "a file:// URI), or to start fsguard with --no-client-roots.",
    )


def forget_roots(session: Any) -> None:
    """Drop a connection's cached client roots (its client sent roots/list_changed): the next call asks again."""
    state = _state_of(session)
    state.pop(_STATE_KEY, None)
    state[_GENERATION_KEY] = state.get(_GENERATION_KEY, 0) + 1


def _declares_roots(context: Context[Any, Any]) -> bool:
    capabilities = context.client_capabilities
    return capabilities is not None and capabilities.roots is not None


def _state_of(session: Any) -> dict[str, Any]:
    """The connection's state; without one, a dict of this call alone: nothing is cached (asked every call)."""
    state = connection_state(session)
    return {} if state is None else state


async def roots_changes(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Middleware: a client's roots/list_changed makes its connection ask for the roots again on the next call."""
    if ctx.method == LIST_CHANGED:
        forget_roots(ctx.session)
    return await call_next(ctx)
