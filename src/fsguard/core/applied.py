"""Whether a failed edit was already made: the diagnosis a no_match gives only when it is true.

An agent that retries an edit which already succeeded should hear so; an agent whose old_text is simply wrong
must not (it would believe its change is in the file). So finding new_text somewhere is not enough: it has to
sit, alone, where old_text would have matched.
"""

from __future__ import annotations

import re

from fsguard.core.textio import LINE_BREAK

_WORD = re.compile(r"\w")


def already_applied(text: str, old: str, new: str) -> int | None:
    """The offset where ``new`` sits in place of ``old``, or None unless that is the only fair reading.

    Finding ``new`` somewhere proves nothing when it is blank, a piece of ``old`` (``"x100 = 999"`` → ``"x"``),
    cut out of longer words, or found in several places; so it must occur once on the word boundaries that it
    and ``old`` have at their ends, and putting ``old`` back there must make ``old`` occur exactly once (the
    edit would then have matched right there and produced this very text).
    """
    if not new.strip() or new in old:
        return None
    for candidate in dict.fromkeys((new, LINE_BREAK.sub("\r\n", new), LINE_BREAK.sub("\n", new))):
        places = [
            start
            for start in _occurrences(text, candidate)
            if _same_edges(text, start, start + len(candidate), new)
            and _same_edges(text, start, start + len(candidate), old)
        ]
        if len(places) > 1:
            return None
        if places:
            start = places[0]
            before = LINE_BREAK.sub("\n", text[:start] + old + text[start + len(candidate) :])
            return start if before.count(LINE_BREAK.sub("\n", old)) == 1 else None
    return None


def _occurrences(text: str, piece: str) -> list[int]:
    found, start = [], text.find(piece)
    while start != -1:
        found.append(start)
        start = text.find(piece, start + 1)
    return found


def _same_edges(text: str, start: int, end: int, piece: str) -> bool:
    """True when ``piece``, put at ``text[start:end]``, would not run on into a word around it."""
    starts_word = bool(_WORD.match(piece[:1]))
    ends_word = bool(_WORD.match(piece[-1:]))
    if starts_word and start > 0 and _WORD.match(text[start - 1]):
        return False
    return not (ends_word and end < len(text) and _WORD.match(text[end]))
