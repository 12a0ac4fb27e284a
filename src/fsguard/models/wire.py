"""What leaves the server must encode as UTF-8: names the OS gives as bytes that are not UTF-8 do not.

Python decodes such a name with ``surrogateescape`` (``b"caf\\xe9"`` is ``"caf\\udce9"``), so every path
still reaches its file. JSON has no valid text for a lone surrogate: each is shown as U+FFFD, as a terminal or
an editor shows the name (:mod:`fsguard.tools._wire` scrubs whole results). Dict keys need it sooner:
pydantic's JSON dump turns a lone surrogate in a key into three U+FFFD, one per byte of its UTF-8 form, while
values keep it for the scrub to make one, so a count's key named no file of the result's list.
"""

from __future__ import annotations

import re
from typing import TypeVar

from pydantic import AfterValidator

LONE_SURROGATE = re.compile("[\ud800-\udfff]")
Item = TypeVar("Item")


def wire_text(text: str) -> str:
    """``text`` with each lone surrogate replaced by U+FFFD; ``text`` itself when it has none."""
    if text.isascii():  # constant time: CPython records it
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub("\ufffd", text)
    return text


def _keys_on_wire(value: dict[str, Item]) -> dict[str, Item]:
    if all(key.isascii() for key in value):
        return value
    return {wire_text(key): item for key, item in value.items()}


# A validator, not a serializer: a serializer's return type would replace the field's in the published schema.
PATH_KEYS = AfterValidator(_keys_on_wire)
"""For a dict keyed by paths: ``Annotated[dict[str, int], PATH_KEYS]``."""
