"""Responses held back whole, so that a wrapper of the SDK's ASGI app can replace one after seeing all of it.

The SDK answers some requests with a bare status and a plain-text body ("Invalid Host header", "Could not parse
message"); the wrappers that give those a JSON-RPC error first need the whole answer to tell which it is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Container

from starlette.types import Message, Send

Finish = Callable[[list[Message]], Awaitable[None]]


def holding(send: Send, statuses: Container[int], finish: Finish) -> Send:
    """``send`` for an app whose responses with one of ``statuses`` are held until their last body part, then given
    whole to ``finish`` (which sends them on, or an answer in their place); any other response passes through."""
    held: list[Message] = []

    async def relay(message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] in statuses:
            held.append(message)
            return
        if not held:
            await send(message)
            return
        held.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body", False):
            whole = held.copy()
            held.clear()
            await finish(whole)

    return relay


def body_of(held: list[Message]) -> bytes:
    """The body of a response held whole by :func:`holding`."""
    return b"".join(part.get("body", b"") for part in held[1:])


async def send_all(send: Send, held: list[Message]) -> None:
    """A held response passed on as it was."""
    for part in held:
        await send(part)
