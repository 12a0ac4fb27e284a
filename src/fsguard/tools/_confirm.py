"""Asking the person behind the agent before a call runs: the SDK's Resolve/Elicit around the core's preflight.

A tool that may ask takes one more parameter, ``Annotated[Consent, Resolve(resolver)]`` (hidden from its input
schema). The resolver runs before the body: it calls :func:`ask`, which puts the question only when the client
declared form elicitation, ``--confirm`` covers the operation and the core's preflight
(:mod:`fsguard.core.preflight`) returns a :class:`Confirmation`. The SDK then asks in the era's own way: an
``input_required`` result on 2026-07-28 (the client answers and calls again, and the resolver looks again: an
answer counts only when the question is still the same), ``elicitation/create`` in the middle of the call on
2025-11-25, put by :func:`ask` itself so that it can look again once the person has answered (they may take
minutes, and another client may change the files meanwhile): a ticked answer about what is no longer there is
asked again, as the 2026 era asks it. The body calls :func:`consent`: an accepted, ticked form runs the call as if
``force`` were given; anything else raises ``declined`` before anything changed. When nobody was asked, the body
gets :data:`NOT_ASKED` and the call runs with its own arguments, exactly as before. A batch's body also takes
:func:`binding`: its deletes may take only what the question measured (the run may come out otherwise).

Resolvers are module functions that reach the services through the context (never closures over one server):
a tool's schemas are built once per process and signature (``_params._built``), so every server shares them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import anyio
import anyio.to_thread
from mcp import MCPError
from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult
from mcp.types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from fsguard.core.confirmation import Binding, Confirmation, ConfirmMode, declined
from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.oserrors import shorten
from fsguard.models.wire import wire_text
from fsguard.services import Services
from fsguard.tools._errors import CONFIRM_FORM, CodedToolError

logger = logging.getLogger(__name__)


class ConfirmForm(BaseModel):
    """The form the user fills in: the question is the summary paragraph, the one field is the answer."""

    model_config = ConfigDict(title=CONFIRM_FORM)  # its name, which tells its refusals apart (tools/_errors)

    # Strict: only a ticked box says yes; "yes", 1 or "on" from a client's own form are no answer to this one.
    confirm: StrictBool = Field(
        title="Go ahead", description="Tick to let the agent do this; leave it unticked to refuse."
    )


class NotAsked:
    """The call was not put to the user: it runs with its own arguments (today's ``force`` gates)."""


NOT_ASKED = NotAsked()

# How many times a 2025-11-25 call asks while each ticked answer finds the files changed since its question.
ROUNDS = 3
# How long a 2025-11-25 call waits for the answer (as long as a 2026-07-28 answer stays good, the SDK's requestState):
# a client that never answers (a dialog lost behind a window) no longer holds the call forever; it is declined.
ANSWER_WAIT_S = 600.0


class Answered:
    """The answer to a question put in the middle of the call (2025-11-25), given about what is on disk now."""

    def __init__(self, answer: ElicitationResult[ConfirmForm], question: Confirmation) -> None:
        self.answer = answer
        self.question = question


class Looked:
    """What the look before the question found this round (None: nothing to ask, or nobody to ask): a resolver of
    its own, shared by the asking resolver and the body, which binds a 2026 answer to the question it answers."""

    def __init__(self, found: Confirmation | None) -> None:
        self.found = found


Consent = ElicitationResult[ConfirmForm]
Question = Elicit[ConfirmForm] | NotAsked | Answered  # what a confirming tool's resolver returns
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


async def look(ctx: Context, preflight: Preflight) -> Looked:
    """The question this call would ask now (:func:`ask` takes it from here); the preflight runs only for a client
    that can answer."""
    services = services_of(ctx)
    mode = ConfirmMode(services.settings.confirm)
    if mode is ConfirmMode.OFF or not can_elicit(ctx):
        return Looked(None)
    return Looked(await _look(preflight, services, mode))


async def ask(ctx: Context, preflight: Preflight, looked: Looked | None = None) -> Question:
    """The question for this call, or NOT_ASKED; the preflight runs only for a client that can answer (``looked``:
    it ran already, this round).

    On 2025-11-25 the question is put here and the answer returned (:class:`Answered`).
    """
    services = services_of(ctx)
    mode = ConfirmMode(services.settings.confirm)
    if mode is ConfirmMode.OFF or not can_elicit(ctx):
        return NOT_ASKED
    found = looked.found if looked is not None else await _look(preflight, services, mode)
    if found is None:
        return NOT_ASKED
    logger.info("%s asks the user to confirm it (%s)", found.operation, found.reason)
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return Elicit(wire_text(found.summary), ConfirmForm)  # the SDK asks; the retry runs this resolver again
    for _ in range(ROUNDS):
        try:
            with anyio.fail_after(ANSWER_WAIT_S):  # abandoned, the question is cancelled on the client too
                answer = await ctx.elicit(wire_text(found.summary), ConfirmForm)
        except TimeoutError as exc:
            unanswered = f"no answer within {ANSWER_WAIT_S / 60:g} minutes"
            raise CodedToolError(declined(found.operation, unanswered)) from exc
        except ValueError as exc:  # accepted with no content, or content that is not the form (as the SDK says it)
            raise CodedToolError(
                InvalidParamsError(
                    f"{found.operation}: the client's answer was not the form asked ({_said(exc)}), so nothing was "
                    "changed. Call it again to be asked again."
                )
            ) from exc
        except MCPError as exc:  # the client failed to put the question: nobody said yes
            how = f"the client could not ask: {shorten(exc.error.message)}"
            raise CodedToolError(declined(found.operation, how)) from exc
        if not isinstance(answer, AcceptedElicitation) or not answer.data.confirm:
            return Answered(answer, found)
        now = await _look(preflight, services, mode)
        if now is None:
            return NOT_ASKED  # nothing left to ask about: the call runs with its own arguments, as on a 2026 retry
        if now == found:
            return Answered(answer, now)
        logger.info("%s changed while the user was asked: asking again (%s)", now.operation, now.reason)
        found = now
    raise CodedToolError(declined(found.operation, "the files kept changing while the user was asked"))


def _said(exc: ValueError) -> str:
    """What was wrong with an answer, in a line: pydantic's report names its classes, the input and a link."""
    if not isinstance(exc, ValidationError):
        return str(exc)
    return "; ".join(f"{'.'.join(map(str, error['loc'])) or 'answer'}: {error['msg']}" for error in exc.errors()[:3])


async def _look(preflight: Preflight, services: Services, mode: ConfirmMode) -> Confirmation | None:
    """The question the call asks under ``mode`` now, or None."""
    try:
        found = await anyio.to_thread.run_sync(preflight, services)
    except FsguardError:
        return None  # a call that cannot run asks nothing: the body raises the same error
    if found is None or not found.asked_under(mode):
        return None
    return found


def consent(answer: Consent, operation: str, *, force: bool = False) -> bool:
    """The ``force`` the call runs with: its own when nobody was asked, True when the user confirmed.

    Raises:
        DeclinedError: the user declined, cancelled, or left the box unticked; nothing ran.
    """
    if isinstance(answer, AcceptedElicitation) and isinstance(answer.data, Answered):
        answer = answer.data.answer  # asked in the middle of the call (2025-11-25)
    if isinstance(answer, AcceptedElicitation):
        if isinstance(answer.data, NotAsked):
            return force
        if answer.data.confirm:
            return True
        how = "answered no"
    else:
        how = "declined" if answer.action == "decline" else "cancelled"
    raise declined(operation, how)


def binding(answer: Consent, looked: Looked) -> Binding | None:
    """What a confirmed call may delete (:class:`Binding`): what its question measured; None when nobody was asked
    (the call runs as it always did). Call it after :func:`consent`, which refuses every answer but a yes."""
    if not isinstance(answer, AcceptedElicitation):
        return None
    if isinstance(answer.data, Answered):
        return answer.data.question.binding  # the question last put, in the middle of the call (2025-11-25)
    if isinstance(answer.data, ConfirmForm) and looked.found is not None:
        return looked.found.binding  # the retry's look, whose question the answer was checked against (2026-07-28)
    return None
