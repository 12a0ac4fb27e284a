"""Unified diffs of a file before and after an edit, computed on the changed region only.

The diff looks like git's: ``--- a/<label>`` / ``+++ b/<label>``, ``@@ -s,c +s,c @@`` hunks, lines without their
endings, ``\\ No newline at end of file`` after a line that has none; lines are joined with ``\\n``, no trailing one.

Only the differing middle is matched. The common prefix and suffix are found on characters at C speed and backed off
to a ``\\n`` (a hard line end in both texts); the window between is split like :func:`fsguard.core.textio.split_lines`
and trimmed again line by line, so difflib matches exactly the middle left by stripping the common prefix and suffix
lines of the whole texts. Hunks are numbered in file lines, and grouped and written as ``difflib.unified_diff`` does.

That equals ``difflib.unified_diff`` over the whole texts whenever difflib's own matching keeps the common prefix and
suffix aligned, as it does for any replacement by lines found nowhere in the unchanged text (below 200 lines, where
difflib's length-dependent ``autojunk`` is off). It may differ when the change repeats nearby lines: difflib takes
the longest matching block first, and that block may reach into the prefix or suffix. For ``A B A B C`` → ``A B C``
it removes the first ``A B`` where this removes the second; for a line inserted between blank lines it reports
``+2 -1`` where this reports ``+1 -0``. Both are correct diffs.

Guard: difflib's matching is O(n·m) at worst, so a middle of more than :data:`MAX_MATCHED_LINES` lines on either side
is not matched but reported as one replaced block: the headers, one hunk header and a note line. Changes far apart
in a large file make one large middle too (from the first change to the last), so they hit the same guard.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import AnyStr, Literal, get_args

from fsguard.core.errors import InvalidParamsError
from fsguard.core.textio import split_lines

DiffFormat = Literal["auto", "full", "summary", "stat", "none"]

MAX_MATCHED_LINES = 5000
NO_NEWLINE_MARK = "\\ No newline at end of file"
LINE_CHARS = 400  # of a diff line; a longer one is shown around its change
SUMMARY_KEEP = 3  # lines the summary keeps at each end of a hunk longer than twice this

# Big enough to leave the loop to C, small enough that slices stay off mmap (glibc: 128 KiB).
_CHUNK = 16384
_Opcode = tuple[str, int, int, int, int]


@dataclass(frozen=True)
class DiffResult:
    """What to show for an edit, and how many lines it adds and removes."""

    text: str
    added: int
    removed: int
    elided: bool


@dataclass(frozen=True)
class _Hunk:
    header: str
    body: tuple[str, ...]
    added: int
    removed: int


FULL_DIFF = 'pass diff_format="full" to see the complete diff'
"""The closing note's advice for an edit tool, which takes diff_format."""


def render_diff(
    label: str,
    before: str,
    after: str,
    fmt: DiffFormat = "auto",
    *,
    context: int = 3,
    auto_max_lines: int = 40,
    full_diff: str = FULL_DIFF,
) -> DiffResult:
    """Diff ``before`` against ``after`` and render it in ``fmt``.

    Args:
        label: The file name shown in the ``--- a/`` and ``+++ b/`` headers.
        before: The text before the edit.
        after: The text after the edit.
        fmt: ``full`` is the unified diff; ``summary`` its hunk headers with ``(+a -d)`` and long hunks cut to
            their first and last :data:`SUMMARY_KEEP` lines; ``stat`` is ``+a -d``; ``none`` is empty; ``auto`` is
            ``full`` up to ``auto_max_lines`` diff lines, else the summary with a closing note.
        context: Unchanged lines shown around each change.
        auto_max_lines: The longest full diff ``auto`` shows as is, headers included.
        full_diff: What the closing note of an elided ``auto`` diff tells the agent to do for the complete diff:
            a call the calling tool accepts (the default names diff_format, which only the edit tools take).

    Returns:
        The text, the real added and removed line counts (whatever the format), and whether ``auto`` elided lines.
        Identical texts give an empty result in every format.

    Raises:
        InvalidParamsError: ``fmt`` is not a :data:`DiffFormat`.
    """
    if fmt not in get_args(DiffFormat):
        choices = ", ".join(get_args(DiffFormat))
        raise InvalidParamsError(f"diff_format must be one of {choices}; got {fmt!r}.", diff_format=str(fmt))
    if before == after:
        return DiffResult("", 0, 0, False)
    hunks = _hunks(before, after, max(context, 0))
    added = sum(hunk.added for hunk in hunks)
    removed = sum(hunk.removed for hunk in hunks)
    if fmt == "none":
        return DiffResult("", added, removed, False)
    if fmt == "stat":
        return DiffResult(f"+{added} -{removed}", added, removed, False)
    headers = [f"--- a/{label}", f"+++ b/{label}"]
    full = [*headers, *(line for hunk in hunks for line in (hunk.header, *hunk.body))]
    if fmt == "full" or (fmt == "auto" and len(full) <= auto_max_lines):
        return DiffResult("\n".join(full), added, removed, False)
    summary, hidden = _summary(hunks)
    if fmt == "summary":
        return DiffResult("\n".join([*headers, *summary]), added, removed, False)
    note = f"(summary: {_count(hidden, 'diff line')} elided — {full_diff})"
    return DiffResult("\n".join([*headers, *summary, note]), added, removed, True)


def _hunks(before: str, after: str, n: int) -> list[_Hunk]:
    """The hunks of the diff, in file coordinates; ``before`` and ``after`` differ."""
    # Characters first: cheap in C, and backing off to a "\n" leaves both texts split alike up to `cut`.
    cut = before.rfind("\n", 0, common_prefix_len(before, after)) + 1
    tail = common_suffix_len(before, after, min(len(before), len(after)) - cut)
    newline = before.find("\n", len(before) - tail) if tail else -1
    end_old = newline + 1 if newline >= 0 else len(before)
    end_new = end_old + len(after) - len(before)
    old_window, new_window = split_lines(before[cut:end_old]), split_lines(after[cut:end_new])
    head, foot = _common_ends(old_window, new_window)

    prefix = _count_line_ends(before, cut) + head
    old_middle = len(old_window) - head - foot
    new_middle = len(new_window) - head - foot
    if max(old_middle, new_middle) > MAX_MATCHED_LINES:
        return [_replaced_block(prefix, old_middle, new_middle)]

    above = _lines_before(before, cut, n)
    below = _lines_after(before, end_old, n)
    base = prefix - head - len(above)
    old_lines, new_lines = [*above, *old_window, *below], [*above, *new_window, *below]
    matcher = difflib.SequenceMatcher(None, old_window[head : head + old_middle], new_window[head : head + new_middle])
    codes: list[_Opcode] = [("equal", 0, prefix, 0, prefix)] if prefix else []
    codes += [
        (tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix) for tag, i1, i2, j1, j2 in matcher.get_opcodes()
    ]
    # Only the first `n` suffix lines can ever be shown, so the suffix is only as long as the lines at hand.
    shown_below = foot + len(below)
    if shown_below:
        old_end, new_end = prefix + old_middle, prefix + new_middle
        codes.append(("equal", old_end, old_end + shown_below, new_end, new_end + shown_below))
    return [_render(group, old_lines, new_lines, base) for group in _grouped(codes, n)]


def _grouped(codes: list[_Opcode], n: int) -> list[list[_Opcode]]:
    """Opcodes grouped into hunks exactly as ``SequenceMatcher.get_grouped_opcodes(n)`` groups them."""
    codes = list(codes)
    if codes[0][0] == "equal":
        tag, i1, i2, j1, j2 = codes[0]
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    if codes[-1][0] == "equal":
        tag, i1, i2, j1, j2 = codes[-1]
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    groups: list[list[_Opcode]] = []
    group: list[_Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _render(group: list[_Opcode], old: list[str], new: list[str], base: int) -> _Hunk:
    """One hunk; ``old[0]`` and ``new[0]`` are line ``base`` of their files."""
    first, last = group[0], group[-1]
    header = f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@"
    body: list[str] = []
    added = removed = 0
    for tag, i1, i2, j1, j2 in group:
        if tag == "equal":
            body += _shown(" ", _narrowed(old[i1 - base : i2 - base], []))
            continue
        gone, came = old[i1 - base : i2 - base], new[j1 - base : j2 - base]
        if tag in ("replace", "delete"):
            body += _shown("-", _narrowed(gone, came))
            removed += i2 - i1
        if tag in ("replace", "insert"):
            body += _shown("+", _narrowed(came, gone))
            added += j2 - j1
    return _Hunk(header, tuple(body), added, removed)


def _narrowed(lines: list[str], others: list[str]) -> list[str]:
    """``lines`` with each one longer than :data:`LINE_CHARS` cut to that many characters from a little before
    where it first differs from the line in ``others`` at its place (its start when there is none): a word
    changed in a minified file's one line of megabytes is shown, not the megabytes."""
    narrowed = []
    for number, line in enumerate(lines):
        text = line.rstrip("\r\n")
        if len(text) <= LINE_CHARS:
            narrowed.append(line)
            continue
        other = others[number] if number < len(others) else ""
        start = max(common_prefix_len(text, other) - LINE_CHARS // 4, 0)
        where = f", from column {start + 1:,}" if start else ""
        cut = ("…" if start else "") + text[start : start + LINE_CHARS] + f"… [line of {len(text):,} characters{where}]"
        narrowed.append(cut + line[len(text) :])
    return narrowed


def _replaced_block(prefix: int, old_middle: int, new_middle: int) -> _Hunk:
    header = f"@@ -{_range(prefix, prefix + old_middle)} +{_range(prefix, prefix + new_middle)} @@"
    replaced = f"{_count(old_middle, 'line')} replaced by {_count(new_middle, 'line')}"
    return _Hunk(header, (f"({replaced}; diff not computed for a change this large)",), new_middle, old_middle)


def _summary(hunks: list[_Hunk]) -> tuple[list[str], int]:
    """The summary lines, and how many diff lines they leave out."""
    lines: list[str] = []
    hidden = 0
    for hunk in hunks:
        lines.append(f"{hunk.header} (+{hunk.added} -{hunk.removed})")
        extra = len(hunk.body) - 2 * SUMMARY_KEEP
        if extra > 0:
            hidden += extra
            lines += [*hunk.body[:SUMMARY_KEEP], f"    … {_count(extra, 'more line')} …", *hunk.body[-SUMMARY_KEEP:]]
        else:
            lines += hunk.body
    return lines, hidden


def _shown(mark: str, lines: list[str]) -> list[str]:
    """Diff lines for ``lines``: ``mark`` then the line without its ending, and git's marker after an unended one."""
    shown: list[str] = []
    for line in lines:
        if line.endswith("\r\n"):
            shown.append(mark + line[:-2])
        elif line.endswith(("\n", "\r")):
            shown.append(mark + line[:-1])
        else:
            shown += (mark + line, NO_NEWLINE_MARK)
    return shown


def _range(start: int, stop: int) -> str:
    """A hunk range as ``difflib`` writes it: ``s`` for one line, ``s,c`` otherwise, ``s`` before the gap when empty."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def common_prefix_len(a: AnyStr, b: AnyStr) -> int:
    """How many first characters (or bytes) ``a`` and ``b`` share."""
    limit = min(len(a), len(b))
    start = 0
    while start < limit:
        stop = min(start + _CHUNK, limit)
        if a[start:stop] != b[start:stop]:
            # a[start:low] matches and a[start:high] does not: halve the gap.
            low, high = start, stop
            while high - low > 1:
                middle = (low + high) // 2
                low, high = (middle, high) if a[low:middle] == b[low:middle] else (low, middle)
            return low
        start = stop
    return limit


def common_suffix_len(a: AnyStr, b: AnyStr, limit: int) -> int:
    """How many final characters (or bytes) ``a`` and ``b`` share, at most ``limit``."""
    done = 0
    while done < limit:
        end_a, end_b = len(a) - done, len(b) - done
        step = min(_CHUNK, limit - done)
        if a[end_a - step : end_a] != b[end_b - step : end_b]:
            # The last `low` characters of the chunk match and the last `high` do not: halve the gap.
            low, high = 0, step
            while high - low > 1:
                middle = (low + high) // 2
                same = a[end_a - middle : end_a] == b[end_b - middle : end_b]
                low, high = (middle, high) if same else (low, middle)
            return done + low
        done += step
    return limit


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """Leading lines ``a`` and ``b`` share, then trailing lines they share in what is left."""
    head = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    limit = min(len(a), len(b)) - head
    return head, next((k for k in range(limit) if a[-1 - k] != b[-1 - k]), limit)


def _count_line_ends(text: str, end: int) -> int:
    """Lines in ``text[:end]``, which ends at a line end."""
    lf = text.count("\n", 0, end)
    if text.find("\r", 0, end) < 0:  # the common case: one count instead of three
        return lf
    return lf + text.count("\r", 0, end) - text.count("\r\n", 0, end)


def _lines_before(text: str, end: int, n: int) -> list[str]:
    """The last ``n`` lines of ``text[:end]``, which ends with ``\\n`` or is empty."""
    if n <= 0 or end == 0:
        return []
    start = end
    for _ in range(n + 1):  # the piece after the (n+1)-th "\n" back holds n "\n"-ended lines, maybe more
        start = text.rfind("\n", 0, start)
        if start < 0:
            break
    return split_lines(text[start + 1 : end])[-n:]


def _lines_after(text: str, start: int, n: int) -> list[str]:
    """The first ``n`` lines of ``text[start:]``; ``start`` is 0 or follows a ``\\n``."""
    stop = start
    for _ in range(n):
        stop = text.find("\n", stop) + 1
        if not stop:
            stop = len(text)
            break
    return split_lines(text[start:stop])[:n]
