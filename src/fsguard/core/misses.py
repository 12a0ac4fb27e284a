"""What a failed match tells the agent: that the edit looks applied already, or the lines to copy old_text from."""

from __future__ import annotations

import difflib
import heapq
import json
import re
from itertools import islice

from fsguard.core.applied import already_applied
from fsguard.core.confirmation import plural
from fsguard.core.errors import NoMatchError
from fsguard.core.textio import LINE_BREAK, LineIndex
from fsguard.core.unicodeforms import escaped, first_escape, other_form

WHOLE_FILE_HINT_LINES = 20
CLOSEST_POOL = 500  # distinct lines compared in full with old_text's first line, at most
BLOCK_PLACES = 100  # blocks opening with the closest line compared with old_text, at most (the first ones)
BLOCK_LINES = 20  # of old_text and of each block, compared
CLOSEST_SCAN = 100_000  # lines of a file looked through for the closest; a longer file's are those sharing a word
_WORD = re.compile(r"\w+")
_SHORTEST_WORD = 3
_CUTOFF = 0.5
LINE_CHARS = 300  # of each line an error shows
QUOTED_CHARS = 80  # of old_text (or anchor) the error's first line quotes


_SHAPES = {"decomposed": "a letter, then a combining mark", "composed": "one character each"}
_TOLERANT_HINT = ", or pass tolerant_whitespace=true if only tabs/spaces or line endings differ"


def no_match(
    text: str,
    index: LineIndex,
    old: str,
    new: str,
    path: str,
    *,
    tried: list[str],
    subject: str,
    closest: bool = True,
    offer_tolerance: bool = True,
    one_occurrence: bool = False,
) -> NoMatchError:
    """The error of an old_text (or anchor) found by no tier (``tried`` names them): the edit already applied, or
    the lines to copy from (the whole file when short, else the closest lines; neither without ``closest``). Without
    ``offer_tolerance`` (a batch operation, a pipeline step: no tolerant_whitespace to pass) it is not advised."""
    # The seed's words open it, which its callers match on.
    cut = old if len(old) <= QUOTED_CHARS else old[: QUOTED_CHARS - 1] + "…"
    quoted = json.dumps(cut, ensure_ascii=False)
    seed = f"anchor not found: {quoted}" if subject == "anchor" else f"edit failed: no matches found for text: {quoted}"
    if one_occurrence:  # the seed's occurrence mode said it its own way
        seed = f"pattern not found: '{quoted[1:-1]}'"
    if (spelled := _spelled_otherwise(text, index, old, path, seed, subject, closest=closest)) is not None:
        return spelled
    offset = already_applied(text, old, new)
    applied = _line_of(index, offset)
    if offset is not None and applied is not None:
        # The line itself: new_text may sit in a comment or a string, which only a look tells from the edit's place.
        shown = json.dumps(_line_at(text, offset)[:QUOTED_CHARS], ensure_ascii=False)
        return NoMatchError(
            f"{seed} — old_text is not in {path}, but new_text is, at line {applied}: the edit looks already applied "
            f"if that line is where it goes: {shown}. Re-read the file before changing it again.",
            path=path,
            already_applied=True,
            line=applied,
        )
    if not closest:
        evidence = ""
    elif text.count("\n") <= WHOLE_FILE_HINT_LINES and len(index.lines) <= WHOLE_FILE_HINT_LINES:
        shown = _numbered(index, 0, len(index.lines))
        evidence = f"The whole file ({plural(len(index.lines), 'line')}):\n{shown}"
    else:
        evidence = _closest(text, index, old, subject)
    hint = f" into {subject} and retry"  # insert's anchor: tolerant_whitespace does not apply there
    if subject == "old_text":
        offered = offer_tolerance and "tolerant_whitespace" not in tried
        hint = " and retry" + (_TOLERANT_HINT if offered else "")
    return NoMatchError(
        f"{seed} — {subject} was not found in {path} (tried: {', '.join(tried)}). Nothing was written.\n"
        + (evidence + "\n" if evidence else "")
        + f"Copy the exact text from read_file{hint}.",
        path=path,
    )


def _spelled_otherwise(
    text: str, index: LineIndex, old: str, path: str, seed: str, subject: str, *, closest: bool
) -> NoMatchError | None:
    """The miss of an old_text the file holds in another Unicode form (core/unicodeforms.py), else None.

    Checked before "already applied": a composed old_text is no edit made, and its shown lines would read as sent.
    """
    found = other_form(text, old)
    if found is None:
        return None
    first, last = found.first_line, found.last_line
    file_form, old_form = ("decomposed", "composed") if found.file_decomposed else ("composed", "decomposed")
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    by_number = (
        f', or replace the lines by number: edit_file(path, mode="replace_range", start_line={first}, '
        f"end_line={last}, new_text=...)"
        if subject == "old_text"
        else ""
    )
    lines = {n: index.lines[n - 1].rstrip("\r\n")[:LINE_CHARS] for n in range(first, min(last, first + 2) + 1)}
    shown = "\n".join(f"{number:>5}: {escaped(line)}" for number, line in lines.items())
    advice = (
        f"Quote the file's characters as JSON escapes ({first_escape(list(lines.values()))}) in {subject}{by_number}."
    )
    # The report between the first line and the advice, which stays last (editing.py puts its hints before it); a
    # caller showing only the first line (closest=False: multi_edit's per-edit list) gets the advice there.
    report = f"\nThe file's text, its differing characters escaped:\n{shown}\n" if closest else " "
    return NoMatchError(
        f"{seed} — {subject} is not in {path} as typed, but the same characters are at {where} in another Unicode "
        f"form, which looks alike: the file writes accented letters {file_form} ({_SHAPES[file_form]}), {subject} "
        f"{old_form}. Nothing was written.{report}{advice}",
        path=path,
        line=first,
        unicode_form="NFD" if found.file_decomposed else "NFC",
    )


def _line_at(text: str, offset: int) -> str:
    """The line holding ``offset``, without its break, found from there: a lone CR ends a line too, as line_of
    counts them (the LF-split list of a CR file has one item, and the line it numbered was past its end)."""
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, offset)) + 1
    end = LINE_BREAK.search(text, offset)
    return text[start : len(text) if end is None else end.start()]


def _line_of(index: LineIndex, offset: int | None) -> int | None:
    return None if offset is None else index.line_of(offset)


def _closest(text: str, index: LineIndex, old: str, subject: str) -> str:
    first = next((line for line in LINE_BREAK.split(old) if line.strip()), old).strip()
    numbers = _candidates(text, index, first)
    best = difflib.get_close_matches(first, _likeliest(first, list(numbers)), n=1, cutoff=_CUTOFF)
    if not best:
        return f"No line resembles the first line of {subject}."
    at, offset = numbers[best[0]]
    if offset < 0:
        at = _best_block(index, best[0], old, at)
        return f"Closest lines:\n{_numbered(index, max(at - 2, 0), min(at + 3, len(index.lines)))}"
    return f"Closest lines:\n{_numbered_around(text, at, offset)}"


def _best_block(index: LineIndex, line: str, old: str, at: int) -> int:
    """Of the lines reading ``line`` (a short file's), the one whose block reads most like ``old``, not only its
    first line: 14 functions opening with ``if a:`` showed the first, and the agent copied the wrong one.

    The first :data:`BLOCK_PLACES` such lines are compared, each by its first :data:`BLOCK_LINES` lines cut to
    :data:`LINE_CHARS`: comparing every block whole, as long as old_text, ran for minutes for a missed old_text of
    500 lines in a file of 60,000 like lines (each comparison is quadratic in the block's length)."""
    kept = [part.strip()[:LINE_CHARS] for part in LINE_BREAK.split(old) if part.strip()][:BLOCK_LINES]
    wanted, size = "\n".join(kept), len(kept)
    places = list(islice((number for number, text in enumerate(index.lines) if text.strip() == line), BLOCK_PLACES))
    if size < 2 or len(places) < 2:
        return at

    def likeness(number: int) -> float:
        block = "\n".join(text.strip()[:LINE_CHARS] for text in index.lines[number : number + size])
        return difflib.SequenceMatcher(None, wanted, block).ratio()

    return max(places, key=likeness)  # the first of equals, as before


def _candidates(text: str, index: LineIndex, first: str) -> dict[str, tuple[int, int]]:
    """The distinct stripped lines worth comparing with ``first``, each with the number (0-based) of its first line
    and, in a long file, that line's offset (-1 in a short one, already split into lines):
    every line of a file of up to :data:`CLOSEST_SCAN` lines; in a longer file, those holding the longest word of
    ``first`` (at most :data:`CLOSEST_SCAN`), found by looking for it in the text. Comparing every one of 1.5
    million lines took 11 s for an old_text that was not in the file."""
    if text.count("\n") < CLOSEST_SCAN and len(index.lines) <= CLOSEST_SCAN:
        numbers: dict[str, tuple[int, int]] = {}
        for number, line in enumerate(index.lines):
            numbers.setdefault(line.strip(), (number, -1))
        return numbers
    word = max(_WORD.findall(first), key=len, default="")
    if len(word) < _SHORTEST_WORD:
        return {}
    numbers, position = {}, text.find(word)
    while position != -1 and len(numbers) < CLOSEST_SCAN:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        end = len(text) if end < 0 else end + 1
        numbers.setdefault(text[start:end].strip(), (index.line_of(start) - 1, start))
        position = text.find(word, end)
    return numbers


def _likeliest(first: str, lines: list[str]) -> list[str]:
    """The distinct ``lines`` worth a full comparison with ``first``: all of them up to :data:`CLOSEST_POOL`, else
    the ones whose quick upper bound of the ratio is highest. A full ratio for every line of a large file made a
    failed edit of an 80,000-line file take 4 s (a minute at the 50 MiB size limit)."""
    distinct = list(dict.fromkeys(lines))
    if len(distinct) <= CLOSEST_POOL:
        return distinct
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(first)
    bounded = []
    for line in distinct:
        matcher.set_seq1(line)
        if matcher.real_quick_ratio() >= _CUTOFF and (bound := matcher.quick_ratio()) >= _CUTOFF:
            bounded.append((bound, line))
    return [line for _, line in heapq.nlargest(CLOSEST_POOL, bounded)]


def _numbered(index: LineIndex, start: int, stop: int) -> str:
    return "\n".join(f"{n + 1:>5}: {_cut(index.lines[n].rstrip(chr(13) + chr(10)), n + 1)}" for n in range(start, stop))


def _numbered_around(text: str, at: int, offset: int) -> str:
    """:func:`_numbered` of the two lines before line ``at`` (0-based, starting at ``offset``), it and the two after,
    found from there: splitting a file of a million lines to show five took 300 MB."""
    begin, first = offset, at
    while first > at - 2 and begin > 0:
        begin, first = text.rfind("\n", 0, begin - 1) + 1, first - 1
    rows = []
    for number in range(first, at + 3):
        if begin >= len(text):
            break
        end = text.find("\n", begin)
        end = len(text) if end < 0 else end + 1
        rows.append(f"{number + 1:>5}: {_cut(text[begin:end].rstrip(chr(13) + chr(10)), number + 1)}")
        begin = end
    return "\n".join(rows)


def _cut(line: str, number: int) -> str:
    """A line of a minified or generated file is shown by its start: the whole of it would flood the answer."""
    if len(line) <= LINE_CHARS:
        return line
    return f"{line[:LINE_CHARS]}… [{len(line):,} characters: read_file(start_line={number}) shows it]"
