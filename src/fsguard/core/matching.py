"""Where old_text sits in a file: a ladder of matching tiers, each of which must find one place.

Tiers, tried in order until one finds something (the ladder is data: :data:`LADDER`):

1. ``exact``: the text as given.
2. ``escape_fixed``: old_text spelled newlines and tabs as the two characters ``\\n``/``\\t`` and has
   no real newline (some clients send it that way); both texts are unescaped.
3. ``trailing_whitespace``: whole lines, ignoring trailing spaces, tabs and CR; this is also how
   LF-typed old_text finds lines in a CRLF file.
4. ``indentation``: whole lines shifted by one uniform indentation (or, as the seed, by one uniform width with
   a tab counting four columns); new_text is shifted the same way, in the file's tabs or spaces.
5. ``line_endings``: the text as given, each line break in it finding any one (CRLF, LF or CR): LF-typed text
   that starts or ends inside a line of a CRLF file.
6. ``tolerant_whitespace`` (only when asked): tabs count as four spaces, CRLF and CR as LF.

Never edit-distance: a fuzzy match could change the wrong place. A tier's matches must be unique unless
``replace_all`` or ``occurrence`` says which to take. Places that overlap count apart (``"}\\n}"`` in three lines
of ``}`` is at lines 1-2 and 2-3: which one was meant is unknown); ``replace_all`` changes those that do not overlap,
first to last. Replacements take the line ending of the lines they replace, and keep the newline that separated the
match from the text after it.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import pairwise

from fsguard.core.errors import AmbiguousMatchError, InvalidParamsError, NoMatchError
from fsguard.core.growth import check_result
from fsguard.core.indentation import (
    indents_with_tabs,
    recolumn,
    reindent,
    tabify,
    uniform_columns,
    uniform_shift,
)
from fsguard.core.lineends import LineEnds, LiteralFind, literal_pattern
from fsguard.core.linewindows import line_windows, old_lines, without_trailing
from fsguard.core.misses import no_match
from fsguard.core.places import Places, Span
from fsguard.core.query import is_word_char
from fsguard.core.shortlist import SHOWN, shortlist
from fsguard.core.textio import LINE_BREAK, LineIndex, first_break
from fsguard.core.textviews import TextViews, normal_text


@dataclass(frozen=True)
class Match:
    """One place to change: ``text[start:end]`` becomes ``replacement``."""

    start: int
    end: int
    replacement: str


@dataclass(frozen=True)
class MatchPlan:
    """The tier that matched, the places it chose and the line the first one starts on."""

    tier: str
    matches: tuple[Match, ...]
    first_line: int

    def apply(self, text: str) -> str:
        """``text`` with every match replaced.

        Raises:
            TooLargeError: the result would pass the limit in force (:mod:`fsguard.core.growth`); not built.
        """
        check_result(len(text) + sum(len(match.replacement) - (match.end - match.start) for match in self.matches))
        pieces: list[str] = []
        cursor = 0
        for match in self.matches:
            pieces.append(text[cursor : match.start])
            pieces.append(match.replacement)
            cursor = match.end
        pieces.append(text[cursor:])
        return "".join(pieces)


LINES_NAMED = 1_000  # lines an ambiguous match names in its error's fields
# A tier's arguments: the text, old_text, new_text, whole_word, and whether places overlapping one found count too.
Tier = Callable[[TextViews, str, str, bool, bool], Sequence[Span]]


@dataclass(frozen=True)
class Replacement:
    """One old_text → new_text edit and how to place it."""

    old_text: str
    new_text: str
    replace_all: bool = False
    occurrence: int | None = None
    whole_word: bool = False


def find_matches(
    text: str | TextViews,
    edit: Replacement,
    *,
    tolerant: bool | None = False,
    path: str = "the file",
    subject: str = "old_text",
    closest: bool = True,
) -> MatchPlan:
    """Climb the ladder until a tier finds ``edit.old_text`` and choose the places to change.

    ``subject`` is the parameter errors name (insert's ``anchor``), so their advice is one the caller can take.
    ``tolerant=None`` is a caller with no tolerant_whitespace to pass (a batch operation, a pipeline step): the tier
    is not tried, and a miss does not advise it. Pass :class:`TextViews` to try several edits on one text (each
    view is built once); ``closest=False`` spares a no-match error the search for the closest lines, for a caller
    that shows only its first line.

    Raises:
        InvalidParamsError: empty old_text.
        NoMatchError: no tier found it (the message shows the closest lines, or says it is already applied).
        AmbiguousMatchError: it occurs more than once and nothing said which to change.
    """
    old, new, occurrence = edit.old_text, edit.new_text, edit.occurrence
    if not old:
        # The seed's words for it, which its callers match on: "old_text (or old_str) is required".
        seed = {"old_text": "old_text (or old_str)", "anchor": "anchor"}.get(subject, subject)
        seed += ' is required for mode:"insert"' if subject == "anchor" else " is required"
        raise InvalidParamsError(f"{seed}: {subject} is empty. Quote the exact text to find, copied from read_file.")
    views = text if isinstance(text, TextViews) else TextViews(text)
    text, index = views.text, views.index
    for name, tier in LADDER:
        if name == "tolerant_whitespace" and not tolerant:
            continue
        # Overlapping places too unless every place is changed: one found where two overlap is no unique match.
        spans = tier(views, old, new, edit.whole_word, not edit.replace_all)
        if spans:
            chosen = _choose(
                spans, index, name, subject, replace_all=edit.replace_all, occurrence=occurrence, path=path
            )
            ends = LineEnds(text)
            finished = tuple(_finish(text, span, ends) for span in chosen)
            return MatchPlan(name, finished, index.line_of(finished[0].start))
    tried = _tried(bool(tolerant), old)
    raise no_match(
        text,
        index,
        old,
        new,
        path,
        tried=tried,
        subject=subject,
        closest=closest,
        offer_tolerance=tolerant is not None,
        one_occurrence=bool(occurrence),
    )


def _choose(
    spans: Sequence[Span],
    index: LineIndex,
    tier: str,
    subject: str,
    *,
    replace_all: bool,
    occurrence: int | None,
    path: str,
) -> Sequence[Span]:
    if replace_all:
        return spans
    if occurrence:  # 0 names no occurrence, as the seed's callers send it
        position = occurrence - 1 if occurrence > 0 else len(spans) + occurrence
        if not 0 <= position < len(spans):
            raise NoMatchError(
                f"occurrence {occurrence} out of range (only {len(spans)} matches found) of {subject} in {path}. "
                f"Use an occurrence from 1 to {len(spans)} (or -1 for the last).",
                path=path,
                occurrences=len(spans),
            )
        return [spans[position]]
    if len(spans) == 1:
        return spans
    lines = _first_lines(spans, index)
    if len(lines) < LINES_NAMED:
        shown = shortlist(lines, rest="search_files shows every one")
    else:  # how many lines the rest are on is not counted
        shown = ", ".join(map(str, lines[:SHOWN])) + " and more (search_files shows every one)"
    overlap = "; some of them overlap" if any(b[0] < a[1] for a, b in pairwise(spans)) else ""
    where = f"in {path} (at lines {shown}; tier {tier}{overlap}). Nothing was written."
    count = f"{subject} matches {len(spans):,} times (expected 1)"
    if subject == "old_text":
        message = f"{count} {where} Add surrounding lines to old_text so it matches once, pass occurrence=N to "
        message += "pick one, or replace_all=true to change every one."
    else:  # the seed's sentence whole, as its callers match on it (insert's anchor)
        message = f"{count}. Quote more surrounding context to make it unique: {subject} is found {where}"
    raise AmbiguousMatchError(
        message,
        path=path,
        lines=lines,
        tier=tier,
    )


def _first_lines(spans: Sequence[Span], index: LineIndex) -> list[int]:
    """The first :data:`LINES_NAMED` lines the places are on, each once. Two spaces of indentation can match millions
    of times: naming every line cost seconds and put megabytes of numbers in the error's ``_meta``."""
    lines: dict[int, None] = {}
    for start, _, _ in spans:
        lines[index.line_of(start)] = None
        if len(lines) == LINES_NAMED:
            break
    return list(lines)


def _finish(text: str, span: Span, ends: LineEnds) -> Match:
    """Give the replacement the matched lines' line ending, and keep the newline after the match.

    The ending is looked for only where it is used: a replace_all of 100,000 one-line matches looked for it each time.
    """
    start, end, replacement = span
    closes_line = end > start and text[end - 1] in "\n\r"
    if closes_line or ends.types_break(replacement):
        kept = ""
        if closes_line and replacement and not replacement.endswith(("\n", "\r")) and end < len(text):
            kept = _last_break(text, start, end)  # the break kept is the match's own last one
        # The replacement's lines stand for the match's lines before the break kept, each spelled as its own.
        replacement = ends.spell(replacement, start, end - len(kept)) + kept
    return Match(start, end, replacement)


def _last_break(text: str, start: int, end: int) -> str:
    """The line break ``text[start:end]`` ends with (in a file of mixed endings, not always its first one)."""
    return "\r\n" if text[end - 1] == "\n" and end - 2 >= start and text[end - 2] == "\r" else text[end - 1]


# -- the tiers ---------------------------------------------------------------------------------------


def _exact(views: TextViews, old: str, new: str, whole_word: bool, overlapping: bool) -> Places:
    # Never half a CRLF: deleting "\nx" from a CRLF file left a lone CR, a line break.
    return _found(views.text, literal_pattern(old), new, whole_word, overlapping)


def _line_endings(views: TextViews, old: str, new: str, whole_word: bool, overlapping: bool) -> Sequence[Span]:
    # The seed matched on LF-normalized text: LF-typed old_text that starts or ends inside a line of a CRLF file
    # was found there, where trailing_whitespace takes whole lines only. Without a CR on either side every break is
    # an LF, and the exact tier already looked.
    any_break = LiteralFind.of(old).any_break
    if any_break is None or ("\r" not in old and "\r" not in views.text):
        return ()
    return _found(views.text, any_break, new, whole_word, overlapping)


def _found(text: str, finder: re.Pattern[str], new: str, whole_word: bool, overlapping: bool) -> Places:
    """The places ``finder`` finds in ``text``, each becoming ``new``."""
    starts, ends = array("q"), array("q")
    search, keep_start, keep_end = finder.search, starts.append, ends.append  # bound once: places may be millions
    last = -1
    found = search(text)
    while found is not None:
        start, end = found.span()
        # A later start with the same end is the same place found without the CR its widening took, not another.
        if end != last and (not whole_word or _bounded(text, start, end)):
            keep_start(start)
            keep_end(end)
            last = end
            found = search(text, start + 1 if overlapping else end)
        else:
            found = search(text, start + 1)
    return Places(new, starts, ends)


def _bounded(text: str, start: int, end: int) -> bool:
    """No word goes on across either edge of ``text[start:end]``. Where the match itself holds a non-word character
    at an edge (a line break, a tab, a bracket) that edge is a boundary already: asking for one outside as well kept
    "b\\n" from matching before a line that starts with a letter."""
    before = start == 0 or not is_word_char(text[start - 1]) or not is_word_char(text[start])
    after = end == len(text) or not is_word_char(text[end]) or not is_word_char(text[end - 1])
    return before and after


def _escape_fixed(views: TextViews, old: str, new: str, whole_word: bool, overlapping: bool) -> Sequence[Span]:
    if "\\n" not in old or "\n" in old:
        return ()
    unescape = {"\\n": "\n", "\\t": "\t"}.get
    fixed_old = re.sub(r"\\[nt]", lambda m: unescape(m.group()) or m.group(), old)
    fixed_new = new if "\n" in new else re.sub(r"\\[nt]", lambda m: unescape(m.group()) or m.group(), new)
    spans = _exact(views, fixed_old, fixed_new, whole_word, overlapping)
    eol = first_break(views.text)
    if spans or eol == "\n":
        return spans
    # The escaped \n stands for the file's line break: unescaped to LF, it matched an LF file and said no_match
    # in a CRLF (or CR) one.
    return _exact(views, fixed_old.replace("\n", eol), fixed_new, whole_word, overlapping)


def _trailing_whitespace(views: TextViews, old: str, new: str, whole_word: bool, overlapping: bool) -> list[Span]:
    windows = line_windows(views, old, without_trailing, overlapping)
    return [(start, end, new) for _, _, start, end in windows]


def _indentation(views: TextViews, old: str, new: str, whole_word: bool, overlapping: bool) -> list[Span]:
    wanted = old_lines(old)[0]
    index = views.index
    spans: list[Span] = []
    # A window's replacement depends on its lines alone: a file of like lines has few distinct windows and may have
    # millions of them, each judged line by line in Python (80,000 took 7 s).
    judged: dict[tuple[str, ...], str | None] = {}
    for first, count, start, end in line_windows(views, old, str.strip, overlapping):
        seen = tuple(index.lines[first : first + count])
        if seen not in judged:
            judged[seen] = _reindented(seen, wanted, new)
        if (replacement := judged[seen]) is not None:
            spans.append((start, end, replacement))
    return spans


def _reindented(seen: tuple[str, ...], wanted: list[str], new: str) -> str | None:
    """new_text indented as the file's lines ``seen`` are against old_text's ``wanted``; None: not uniformly."""
    pairs = [(line.rstrip("\r\n"), want) for line, want in zip(seen, wanted, strict=True) if want.strip()]
    if (shift := uniform_shift(pairs)) is not None:
        return reindent(new, *shift)
    if (columns := uniform_columns(pairs)) is not None:
        return recolumn(new, columns, indents_with_tabs("".join(seen)))
    return None


def _tolerant(views: TextViews, old: str, new: str, whole_word: bool, overlapping: bool) -> list[Span]:
    text, normal = views.text, views.normal
    norm, wanted = normal.text, normal_text(old)
    spans: list[Span] = []
    position = norm.find(wanted)
    while position != -1:
        end = position + len(wanted)
        whole = normal.starts_character(position) and (end == len(norm) or normal.starts_character(end))
        start, stop = (normal.source(position), normal.source(end)) if whole else (0, 0)
        # whole_word holds on every tier: tolerance about whitespace must not let old_text match inside a word.
        if whole and (not whole_word or _bounded(text, start, stop)):
            spans.append((start, stop, tabify(new) if indents_with_tabs(text[start:stop]) else new))
            position = norm.find(wanted, position + 1 if overlapping else end)
        else:
            position = norm.find(wanted, position + 1)
    return spans


LADDER: tuple[tuple[str, Tier], ...] = (
    ("exact", _exact),
    ("escape_fixed", _escape_fixed),
    ("trailing_whitespace", _trailing_whitespace),
    ("indentation", _indentation),
    ("line_endings", _line_endings),
    ("tolerant_whitespace", _tolerant),
)


def _tried(tolerant: bool, old: str) -> list[str]:
    """The tiers a failed match went through: line_endings only for a text holding a line break."""
    skipped = {"tolerant_whitespace"} if not tolerant else set()
    if not LINE_BREAK.search(old):
        skipped.add("line_endings")
    return [name for name, _ in LADDER if name not in skipped]
