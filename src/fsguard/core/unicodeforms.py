"""Whether an old_text that matched nowhere is in the file spelled in another Unicode form (NFC against NFD).

``é`` is one character (U+00E9, composed, NFC) or ``e`` and a combining acute (U+0301, decomposed, NFD): the two
look the same in every answer, so a file saved decomposed (macOS file names pasted in, some editors, text copied
from a PDF) refuses an old_text typed composed, and the lines a no_match shows read exactly like what was sent.
The agent then retries the same text forever. Matching is left byte-exact (an edit must not rewrite characters
the agent did not quote); the miss says what differs, and how to quote it or to reach the lines by number.
"""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass

from fsguard.core.textio import LINE_BREAK

LOOKED_AT = 1_000_000
"""Characters of a file a miss composes to look for old_text: about 0.2 s. Composing a 45 MB file took 7-13 s, too
long for a failed edit of a large file, which then gets the closest lines alone."""
# Conjoining Hangul jamo: a decomposed syllable's pieces, which have no combining class of their own.
_JAMO = range(0x1100, 0x1200)


@dataclass(frozen=True)
class OtherForm:
    """Where old_text sits in the file once both are composed: its first and last line, and which side decomposes."""

    first_line: int
    last_line: int
    file_decomposed: bool


def other_form(text: str, old: str) -> OtherForm | None:
    """The lines where ``old`` is in ``text`` once both are NFC (line breaks read alike), when neither has it as is.

    None for a text over :data:`LOOKED_AT` characters, when both are composed already (the plain tiers looked at
    what composing would give) or the composed old_text would end inside a character the file goes on composing
    (``e`` before a combining mark is no ``e``).
    """
    if len(text) > LOOKED_AT or (text.isascii() and old.isascii()):
        return None
    if unicodedata.is_normalized("NFC", text) and unicodedata.is_normalized("NFC", old):
        return None
    # Line breaks as LF on both sides: the exact tier reads a LF old_text in a CRLF file, so a miss must too.
    composed = unicodedata.normalize("NFC", LINE_BREAK.sub("\n", text) if "\r" in text else text)
    wanted = unicodedata.normalize("NFC", LINE_BREAK.sub("\n", old))
    if not wanted.strip():
        return None
    start = composed.find(wanted)
    while start >= 0 and _runs_on(composed, start + len(wanted)):
        start = composed.find(wanted, start + 1)
    if start < 0:
        return None
    first = composed.count("\n", 0, start) + 1
    return OtherForm(
        first_line=first,
        last_line=first + wanted.rstrip("\n").count("\n"),
        file_decomposed=not unicodedata.is_normalized("NFC", text),
    )


def _runs_on(text: str, end: int) -> bool:
    """Whether the character at ``end`` still belongs to the one before it (a combining mark, a jamo)."""
    return end < len(text) and (unicodedata.combining(text[end]) > 0 or ord(text[end]) in _JAMO)


def escaped(line: str) -> str:
    """``line`` as a JSON string whose characters that compose or decompose are ``\\u`` escapes: what to quote."""
    return '"' + "".join(_one(character) for character in line) + '"'


def first_escape(lines: list[str]) -> str:
    """The escape of the first character of ``lines`` that :func:`escaped` escapes: the example the advice gives."""
    return next((_one(c) for line in lines for c in line if _differs(c)), "\\u0301")


def _differs(character: str) -> bool:
    return bool(
        unicodedata.combining(character)
        or ord(character) in _JAMO
        or unicodedata.normalize("NFD", character) != character
    )


def _one(character: str) -> str:
    return json.dumps(character, ensure_ascii=_differs(character))[1:-1]
