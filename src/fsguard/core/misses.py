"""What a failed match tells the agent: that the edit looks applied already, or the lines to copy old_text from."""

from __future__ import annotations

import difflib
import heapq

from fsguard.core.applied import already_applied
from fsguard.core.confirmation import plural
from fsguard.core.errors import NoMatchError
from fsguard.core.textio import LINE_BREAK, LineIndex

WHOLE_FILE_HINT_LINES = 20
CLOSEST_POOL = 500  # distinct lines compared in full with old_text's first line, at most
_CUTOFF = 0.5
LINE_CHARS = 300  # of each line an error shows


_TOLERANT_HINT = ", or pass tolerant_whitespace=true if only tabs/spaces or line endings differ"


def no_match(
    text: str, index: LineIndex, old: str, new: str, path: str, *, tried: list[str], subject: str, closest: bool = True
) -> NoMatchError:
    """The error of an old_text (or anchor) found by no tier (``tried`` names them): the edit already applied, or
    the lines to copy from (the whole file when short, else the closest lines; neither without ``closest``)."""
    applied = _line_of(index, already_applied(text, old, new))
    if applied is not None:
        return NoMatchError(
            f"old_text is not in {path}, but new_text is, at line {applied}: the edit looks already applied. "
            "Re-read the file before changing it again.",
            path=path,
            already_applied=True,
            line=applied,
        )
    if not closest:
        evidence = ""
    elif len(index.lines) <= WHOLE_FILE_HINT_LINES:
        shown = _numbered(index, 0, len(index.lines))
        evidence = f"The whole file ({plural(len(index.lines), 'line')}):\n{shown}"
    else:
        evidence = _closest(index, old, subject)
    hint = f" into {subject} and retry"  # insert's anchor: tolerant_whitespace does not apply there
    if subject == "old_text":
        hint = " and retry" + ("" if "tolerant_whitespace" in tried else _TOLERANT_HINT)
    return NoMatchError(
        f"{subject} was not found in {path} (tried: {', '.join(tried)}). Nothing was written.\n"
        + (evidence + "\n" if evidence else "")
        + f"Copy the exact text from read_file{hint}.",
        path=path,
    )


def _line_of(index: LineIndex, offset: int | None) -> int | None:
    return None if offset is None else index.line_of(offset)


def _closest(index: LineIndex, old: str, subject: str) -> str:
    first = next((line for line in LINE_BREAK.split(old) if line.strip()), old).strip()
    stripped = [line.strip() for line in index.lines]
    best = difflib.get_close_matches(first, _likeliest(first, stripped), n=1, cutoff=_CUTOFF)
    if not best:
        return f"No line resembles the first line of {subject}."
    at = stripped.index(best[0])
    return f"Closest lines:\n{_numbered(index, max(at - 2, 0), min(at + 3, len(index.lines)))}"


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


def _cut(line: str, number: int) -> str:
    """A line of a minified or generated file is shown by its start: the whole of it would flood the answer."""
    if len(line) <= LINE_CHARS:
        return line
    return f"{line[:LINE_CHARS]}… [{len(line):,} characters: read_file(start_line={number}) shows it]"
