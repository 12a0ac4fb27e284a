"""The windows of whole lines the whitespace-tolerant tiers of :mod:`fsguard.core.matching` look for: runs of a
file's lines that read as old_text's lines once each line's whitespace is left aside as the tier says."""

from __future__ import annotations

from collections.abc import Callable

from fsguard.core.textio import LINE_BREAK
from fsguard.core.textviews import TextViews


def old_lines(old: str) -> tuple[list[str], bool, bool]:
    """old_text as lines without endings, whether it ended with a line break, and whether it began with one.

    A leading break ends whatever line comes before the match. Read as a blank first line, it made "\\nx" match only
    after a blank line: in a CRLF file, one of two places LF text matches, changed where LF text says ambiguous.
    """
    lead = LINE_BREAK.match(old)
    parts = LINE_BREAK.split(old[lead.end() :] if lead else old)
    ends_with_break = len(parts) > 1 and parts[-1] == ""
    return (parts[:-1] if ends_with_break else parts), ends_with_break, lead is not None


Window = tuple[int, int, int, int]  # first line, line count, span start, span end


def line_windows(views: TextViews, old: str, key: Callable[[str], str], overlapping: bool) -> list[Window]:
    """Every window of lines that match (with ``overlapping``, also those overlapping one before), and the span it
    replaces.

    Two lines match when ``key`` (of each, without its line ending) is the same. ``key`` may drop whitespace, but
    never more than around a line: a window can only start at a line equal to old_text's first line without it, so
    only those lines are tried. A leading line break in old_text is the break ending the line before the window
    (whatever it holds), so the span starts there.
    """
    wanted, with_break, lead = old_lines(old)
    if not any(line.strip() for line in wanted):
        return []
    starts = views.lines_reading(wanted[0].strip())
    if not starts:
        return []
    index = views.index
    lines, count = index.lines, len(wanted)
    keys = [key(line) for line in wanted]
    firsts = None
    if len(starts) * (count - 1) > len(lines) - starts[0]:
        firsts = _firsts_read_once(lines, starts[0], keys, key)
    if firsts is None:
        firsts = [
            first
            for first in starts
            if first + count <= len(lines)
            and all(key(lines[first + k].rstrip("\r\n")) == keys[k] for k in range(count))
        ]
    found: list[Window] = []
    free = 0  # the first offset not inside a window found
    for first in firsts:
        if lead and first == 0:
            continue
        before = lines[first - 1]
        start = index.starts[first - 1] + len(before.rstrip("\r\n")) if lead else index.starts[first]
        last = lines[first + count - 1]
        end = index.starts[first + count - 1] + (len(last) if with_break else len(last.rstrip("\r\n")))
        if overlapping or start >= free:
            found.append((first, count, start, end))
            free = end
    return found


def _firsts_read_once(lines: list[str], origin: int, keys: list[str], key: Callable[[str], str]) -> list[int] | None:
    """The first lines, from ``origin`` on, of the windows whose lines' keys are ``keys``: each line's key taken once.

    Trying each candidate line in turn compares up to a whole window there: 50 lines of old_text against a file of
    2.5 million like lines ran for minutes. Here each line becomes one character (its key's place among old_text's
    keys, NUL for any other line) and the windows are where old_text's characters occur in that string, which
    ``str.find`` looks for in linear time. None: old_text has more distinct lines than characters to spell them.
    """
    codes: dict[str, str] = {}
    for wanted in keys:
        if wanted not in codes:
            number = len(codes) + 1
            number += 0x800 if number >= 0xD800 else 0  # no surrogates: they are no characters
            if number > 0x10FFFF:
                return None
            codes[wanted] = chr(number)
    code = codes.get
    coded = "".join([code(key(line.rstrip("\r\n")), "\0") for line in lines[origin:]])
    needle = "".join(codes[wanted] for wanted in keys)
    firsts: list[int] = []
    at = coded.find(needle)
    while at != -1:
        firsts.append(origin + at)
        at = coded.find(needle, at + 1)
    return firsts


def without_trailing(line: str) -> str:
    return line.rstrip(" \t")
