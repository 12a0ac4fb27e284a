"""JSON-RPC frames the SDK's parser refuses or misreads, told apart and answered in words; shared by the transports.

JSON-RPC 2.0 answers a frame it cannot take: -32700 for bytes that are not JSON, -32600 for JSON that is no request.
The SDK drops such a frame without a word, or reads a request whose id is no string or integer as a notification,
and either way its client waits for an answer until it times out.
"""

from __future__ import annotations

import json
import re
from typing import Any

import mcp_types as types
from pydantic import ValidationError

BAD_ID_MESSAGE = (
    "Invalid Request: a request's id must be a string or an integer (not null, a fraction, a boolean, an array or "
    "an object); nothing was done. Send it again with such an id."
)
BAD_ID_ERROR = types.JSONRPCError(
    jsonrpc="2.0", id=None, error=types.ErrorData(code=types.INVALID_REQUEST, message=BAD_ID_MESSAGE)
)
# How deep pydantic's JSON parser, which reads every frame, nests arrays and objects (the envelope's included).
_FRAME_DEPTH = 200
# The most digits an integer may have: Python's limit on converting one (sys.get_int_max_str_digits), and the SDK's.
_DIGITS = 4300
# A \\u escape of a UTF-16 surrogate: alone, it stands for no character, and pydantic refuses the frame.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def refusal(line: bytes, exc: Exception) -> types.JSONRPCError:
    """The answer to a line the SDK's message adapter refused with ``exc``: -32700 for bytes that are not UTF-8 JSON,
    -32600 for JSON that is no message, under the frame's id when one can be read, else null."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as bad:
        code = types.PARSE_ERROR
        message = (
            f"Parse error: the frame is not UTF-8 (byte 0x{line[bad.start]:02X} at offset {bad.start}); nothing "
            "was done. Send each message as one line of UTF-8 JSON."
        )
        text = line.decode("utf-8", "replace")  # only to read its id
    else:
        first = exc.errors()[0] if isinstance(exc, ValidationError) else None
        said = str(first["msg"]) if first is not None and first["type"] == "json_invalid" else None
        code = types.INVALID_REQUEST if said is None else types.PARSE_ERROR
        if said is None:
            message = (
                "Invalid Request: the frame is JSON but no JSON-RPC 2.0 request, notification or response "
                "(a batch array is not taken either); nothing was done. Send one JSON-RPC message per line."
            )
        elif "recursion limit" in said:
            message = too_deep("frame")
        elif "number out of range" in said:
            message = (
                f"Parse error: the frame holds a number of more than {_DIGITS:,} digits, which this server cannot "
                "read; nothing was done. Send the number with fewer digits."
            )
        elif "escape" in said and _SURROGATE_ESCAPE.search(text):
            message = (
                "Parse error: the frame holds a \\u escape of half a UTF-16 surrogate pair, which stands for no "
                "character; nothing was done. Escape both halves of the pair, or send the character as UTF-8."
            )
        else:
            message = "Parse error: the frame is not JSON; nothing was done. Send each message as one line of JSON."
    return types.JSONRPCError(jsonrpc="2.0", id=_id_of(text), error=types.ErrorData(code=code, message=message))


def too_deep(what: str) -> str:
    """The refusal of a ``what`` (frame, body) nested deeper than the SDK's parser reads."""
    return (
        f"Parse error: the {what} nests arrays or objects deeper than the {_FRAME_DEPTH} levels this server reads; "
        "nothing was done. Send the value with fewer levels."
    )


def unparsable_body(said: str) -> str:
    """The refusal of an HTTP body the SDK could not read as JSON, from what it said: "Parse error", and in the
    2025-era path where and why (``Parse error: EOF while parsing a value at line 1 column 3``)."""
    detail = said.removeprefix("Parse error").lstrip(": ")
    if "recursion limit" in detail:
        return too_deep("body")
    where = f" ({detail})" if detail else ""
    return f"Parse error: the body is not JSON{where}; nothing was done. Send one JSON-RPC message per request."


def _json_value(text: str | bytes) -> Any:
    """The JSON value ``text`` holds, or None when it holds none: not JSON, or nested deeper than the stack allows
    (json reads by recursion; one frame of 100,000 open brackets raised RecursionError and ended the server)."""
    try:
        return json.loads(text, parse_int=_integer)
    except (ValueError, RecursionError):
        return None


def _integer(digits: str) -> int | None:
    """A JSON integer, or None for one longer than Python converts (:data:`_DIGITS`): json refused the whole frame
    for it, and a frame's id was then not found beside such a number."""
    return int(digits) if len(digits.lstrip("-")) <= _DIGITS else None


def _id_of(text: str) -> str | int | None:
    """The id of a refused frame that asks something (an object with a ``method``) by a string or integer id, else
    None: a broken response's id is one of the server's own requests, not the client's."""
    frame = _json_value(text)
    return request_id(frame.get("id")) if isinstance(frame, dict) and "method" in frame else None


def asked_id(body: bytes) -> str | int | None:
    """The id of the request ``body`` holds (an object with a ``method`` and a string or integer id), else None:
    not JSON, a notification, an answer."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None  # the transport refuses it, in its own words
    if not isinstance(message, dict) or "method" not in message:
        return None
    return request_id(message.get("id"))


def request_id(value: object) -> str | int | None:
    """``value`` when it can be a request's id, a string or an integer, else None. JSON's true and false are no
    integers, though Python's bool is one: ``"requestId": true`` in a cancellation named request 1."""
    return value if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)) else None


def asks_with_a_bad_id(frame: bytes) -> bool:
    """Whether ``frame``, which the SDK's adapter took for a notification, was a request: it has an ``id`` that is
    no string or integer (null, 1.5, true). Left so, it is never answered and its client waits until it times out.
    A notifications/* frame carrying ``"id": null`` stays a notification."""
    message = _json_value(frame)
    if not isinstance(message, dict) or "id" not in message:
        return False
    if request_id(message["id"]) is not None:
        return False  # a good id: the legacy SSE transport asks this of every message it accepted
    method = message.get("method")
    return isinstance(method, str) and not method.startswith("notifications/")


def reused_id(ident: types.RequestId) -> types.JSONRPCError:
    """The answer to a request whose id a request still in flight has: JSON-RPC ids name one request each, and a
    client that resends a request under its id (a retry after a timeout) would have an edit made twice. Sent under a
    null id: under the id itself it would pass for the answer to the first request, which is still to come."""
    message = (
        f"Invalid Request: id {ident!r} is the id of a request still in flight; nothing was done for this one. Give "
        "each request its own id (wait for the first answer, or cancel it, before reusing one)."
    )
    error = types.ErrorData(code=types.INVALID_REQUEST, message=message)
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
