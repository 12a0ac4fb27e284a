"""Asking the person behind the agent before a call runs: the SDK's Resolve/Elicit around the core's preflight.

A tool that may ask takes one more parameter, ``Annotated[Consent, Resolve(resolver)]`` (hidden from its input
schema). The resolver runs before the body: it calls :func:`ask`, which puts the question only when the client
declared form elicitation, ``--confirm`` covers the operation and the core's preflight
(:mod:`fsguard.core.preflight`) returns a :class:`Confirmation`. The SDK then asks in the era's own way: an
``input_required`` result on 2026-07-28 (the client answers and calls again), ``elicitation/create`` in the
middle of the call on 2025-11-25. The body calls :func:`consent`: an accepted, ticked form runs the call as if
``force`` were given; anything else raises ``declined`` before anything changed. When nobody was asked, the body
gets :data:`NOT_ASKED` and the call runs with its own arguments, exactly as before.

Resolvers are module functions that reach the services through the context (never closures over one server):
a tool's schemas are built once per process and signature (``_params._built``), so every server shares them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio.to_thread
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult
from pydantic import BaseModel, Field

from fsguard.core.confirmation import Confirmation, ConfirmMode, declined
from fsguard.core.errors import FsguardError
from fsguard.services import Services
from fsguard.tools._wire import wire_text

logger = logging.getLogger(__name__)


class ConfirmForm(BaseModel):
    """The form the user fills in: the question is the summary paragraph, the one field is the answer."""

    confirm: bool = Field(title="Go ahead", description="Tick to let the agent do this; leave it unticked to refuse.")


class NotAsked:
    """The call was not put to the user: it runs with its own arguments (today's ``force`` gates)."""


NOT_ASKED = NotAsked()

Consent = ElicitationResult[ConfirmForm]
Preflight = Callable[[Services], Confirmation | None]


def can_elicit(ctx: Context) -> bool:
    """The SDK's own rule: form elicitation declared, or a bare ``elicitation: {}`` (which meant form)."""
    capabilities = ctx.client_capabilities
    declared = capabilities.elicitation if capabilities is not None else None
    return declared is not None and (declared.form is not None or declared.url is None)


def services_of(ctx: Context) -> Services:
    services = getattr(ctx.mcp_server, "services", None)
    if not isinstance(services, Services):
        raise RuntimeError("a confirming tool runs on an FsguardServer, which carries its services")
    return services


async def ask(ctx: Context, preflight: Preflight) -> Elicit[ConfirmForm] | NotAsked:
    """The question for this call, or NOT_ASKED; the preflight runs only for a client that can answer."""
    services = services_of(ctx)
    mode = ConfirmMode(services.settings.confirm)
    if mode is ConfirmMode.OFF or not can_elicit(ctx):
        return NOT_ASKED
    try:
        found = await anyio.to_thread.run_sync(preflight, services)
    except FsguardError:
        return NOT_ASKED  # a call that cannot run asks nothing: the body raises the same error
    if found is None or not found.asked_under(mode):
        return NOT_ASKED
    logger.info("%s asks the user to confirm it (%s)", found.operation, found.reason)
    return Elicit(wire_text(found.summary), ConfirmForm)


def consent(answer: Consent, operation: str, *, force: bool = False) -> bool:
    """The ``force`` the call runs with: its own when nobody was asked, True when the user confirmed.

    Raises:
        DeclinedError: the user declined, cancelled, or left the box unticked; nothing ran.
    """
    if isinstance(answer, AcceptedElicitation):
        if isinstance(answer.data, NotAsked):
            return force
        if answer.data.confirm:
            return True
        how = "answered no"
    else:
        how = "declined" if answer.action == "decline" else "cancelled"
    raise declined(operation, how)
