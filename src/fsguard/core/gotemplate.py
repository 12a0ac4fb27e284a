"""Go-style replacement templates, as the seed's regex edits and renames take them (``$1``, ``${1}``, ``${name}``,
``$name``, ``$$``), read once for all the matches they are put in for."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fsguard.core.errors import InvalidParamsError

# ``$name`` takes the longest run of word characters, as Go's regexp.Expand reads it; but where ``$1x`` names no
# group, Go puts in nothing, and what was meant is group 1 then ``x`` (as in JavaScript, .NET and sed): that is read.
_GO_TEMPLATE = re.compile(r"\$(?:\$|\{(\w+)\}|(\w+))")
_LEADING_NUMBER = re.compile(r"([0-9]+)(\w*)")


def expand_go_template(template: str, match: Any) -> str:  # an re2 match: the wheel ships no type information
    """Go-style replacement: $1 / ${1} / ${name} / $name insert groups, $$ a dollar; nothing else is special."""
    return GoTemplate(template).expand(match)


class GoTemplate:
    """A Go-style replacement read once for all its matches: each literal stretch, and the group named after it."""

    def __init__(self, template: str) -> None:
        parts: list[tuple[str, str | None]] = []
        literal, cursor = "", 0
        for token in _GO_TEMPLATE.finditer(template):
            literal += template[cursor : token.start()]
            cursor = token.end()
            if token.group() == "$$":
                literal += "$"
            else:
                parts.append((literal, token.group(1) or token.group(2)))
                literal = ""
        parts.append((literal + template[cursor:], None))
        self._parts = tuple(parts)

    def expand(self, match: Any) -> str:
        """The text put in for ``match``.

        Raises:
            InvalidParamsError: the template names a group the pattern does not have.
        """
        pieces: list[str] = []
        for literal, name in self._parts:
            pieces.append(literal)
            if name is not None:
                pieces.append(_group(match, name))
        return "".join(pieces)


def _group(match: Any, name: str) -> str:
    """The text ``$name`` puts in for ``match``: the group of that name, else (``$1x``) the numbered group and the
    word characters after its number.

    Raises:
        InvalidParamsError: the pattern has no such group.
    """
    try:
        return match.group(name) or ""
    except (IndexError, KeyError):
        pass  # no group of that name: perhaps a number and letters
    missing = InvalidParamsError(f"replacement refers to group {name!r}, which the pattern does not have.")
    number = _LEADING_NUMBER.fullmatch(name)
    if number is None:
        raise missing
    try:
        return (match.group(int(number[1])) or "") + number[2]
    except IndexError as exc:
        raise missing from exc


def expander(spell: Callable[[Any], str]) -> Callable[[Any], str]:
    """The expansion of the template ``spell`` gives each match (one replacement, spelled in the line ending of the
    match's line), each distinct template read once: a replacement is spelled at most three ways in one text."""
    templates: dict[str, GoTemplate] = {}

    def expand(match: Any) -> str:
        typed = spell(match)
        template = templates.get(typed)
        if template is None:
            template = templates[typed] = GoTemplate(typed)
        return template.expand(match)

    return expand
