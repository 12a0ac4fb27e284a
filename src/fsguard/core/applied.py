"""Whether a failed edit was already made: the diagnosis a no_match gives only when it is true.

An agent that retries an edit which already succeeded should hear so; an agent whose old_text is simply wrong
must not (it would believe its change is in the file). So finding new_text somewhere is not enough: it has to
sit, alone, where old_text would have matched.
"""

from __future__ import annotations

import re

from fsguard.core.textio import LINE_BREAK

_WORD = re.compile(r"\w")
# The combining diacritical blocks (and their supplement, extended and symbol ones, and the half marks).
_MARK = "[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"


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
        places = _first_places(text, candidate, new, old)
        if len(places) > 1:
            return None
        if places:
            start = places[0]
            before = LINE_BREAK.sub("\n", text[:start] + old + text[start + len(candidate) :])
            return start if before.count(LINE_BREAK.sub("\n", old)) == 1 else None
    return None


def _first_places(text: str, candidate: str, new: str, old: str) -> list[int]:
    """The first two offsets (overlapping ones too) where ``candidate`` sits in ``text`` without running on into a
    word around it where ``new`` or ``old`` starts or ends with a word character.

    One regular expression finds them: the literal first, its edges checked after, so the engine skips ahead to
    each occurrence. A loop over every occurrence took 4 s (and a list of them 12 bytes each) for a one-letter
    new_text found 1.5 million times in a 45 MB file.
    """
    literal = re.escape(candidate)
    before = any(_WORD.match(piece[:1]) for piece in (new, old))
    after = any(_WORD.match(piece[-1:]) for piece in (new, old))
    # A combining mark after it makes its last letter another one (``cafe`` + U+0301 reads ``café``), whatever the
    # word boundaries: a file written decomposed (NFD) holds every plain base letter that way.
    pattern = re.compile(
        literal + (rf"(?<!\w{literal})" if before else "") + (r"(?!\w)" if after else "") + rf"(?!{_MARK})"
    )
    places: list[int] = []
    found = pattern.search(text)
    while found is not None and len(places) < 2:
        places.append(found.start())
        found = pattern.search(text, found.start() + 1)
    return places
