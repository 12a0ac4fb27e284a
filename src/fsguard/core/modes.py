"""What each edit mode changes: planners that turn a file's text into its edited text.

A planner is pure (text in, :class:`EditPlan` out) and raises a typed error when the edit cannot be
placed; the pipeline in :mod:`fsguard.core.editing` does everything else the same way for every mode.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import islice
from typing import Literal

from fsguard.core.applied import already_applied
from fsguard.core.confirmation import plural
from fsguard.core.errors import FsguardError, InvalidParamsError, NoMatchError, error_for_code
from fsguard.core.gotemplate import expander
from fsguard.core.growth import check_result, replace_all
from fsguard.core.lineends import (
    LiteralFind,
    between_breaks,
    in_line_endings,
    literal_replacement,
    one_break_each,
    respelled,
)
from fsguard.core.linematches import line_matches
from fsguard.core.matching import LADDER, Match, Replacement, find_matches
from fsguard.core.patterns import compile_re2
from fsguard.core.query import word_edges
from fsguard.core.shortlist import SHOWN, SLACK, shortlist
from fsguard.core.textio import LINE_BREAK, LineIndex, first_break, split_lines
from fsguard.core.textviews import TextViews


@dataclass(frozen=True)
class EditOutcome:
    """One edit of a multi_edit."""

    index: int
    status: Literal["applied", "already_present", "failed", "ambiguous"]
    match_tier: str | None = None
    line: int | None = None
    error: str | None = None
    code: str | None = None


@dataclass(frozen=True)
class EditPlan:
    """The edited text and what the edit did to get there."""

    new_text: str
    replacements: int
    chars_changed: int
    match_tier: str | None = None
    first_line: int | None = None
    rewrite: tuple[int, int] | None = None  # (old_text bytes, new_text bytes) for the rewrite guard
    outcomes: tuple[EditOutcome, ...] = field(default_factory=tuple)


Planner = Callable[[str], EditPlan]


def replace(edit: Replacement, *, tolerant: bool | None, path: str) -> Planner:
    """old_text → new_text through the matching ladder; unique unless replace_all/occurrence say otherwise."""

    def plan(text: str) -> EditPlan:
        return _replaced(TextViews(text), edit, tolerant=tolerant, path=path)

    return plan


def _replaced(
    views: TextViews, edit: Replacement, *, tolerant: bool | None, path: str, closest: bool = True
) -> EditPlan:
    matched = find_matches(views, edit, tolerant=tolerant, path=path, closest=closest)
    count = len(matched.matches)
    return EditPlan(
        new_text=matched.apply(views.text),
        replacements=count,
        chars_changed=max(len(edit.old_text), len(edit.new_text)) * count,
        match_tier=matched.tier,
        first_line=matched.first_line,
        rewrite=(_bytes(edit.old_text), _bytes(edit.new_text)),
    )


def _bytes(text: str) -> int:
    """The UTF-8 size of ``text``; a surrogate standing for a byte (U+DC80-U+DCFF, as a name that is not UTF-8 is read)
    counts one, the file's encoding refusing it later with encoding_error, not here as internal_error."""
    return len(text.encode(errors="surrogateescape"))


def search_replace(pattern: str, replacement: str, *, case_sensitive: bool, path: str) -> Planner:
    """Every occurrence of ``pattern`` taken literally (``$`` and ``\\`` too) becomes ``replacement``."""
    if not pattern:
        raise InvalidParamsError('pattern is required for mode:"search_replace": the literal text to replace.')
    find = LiteralFind.of(pattern, 0 if case_sensitive else re.IGNORECASE)

    def plan(text: str) -> EditPlan:
        finder, loosened = find.finder(text)
        first = finder.search(text)
        if first is None:  # replace-every-occurrence of nothing: 0 replacements, as the seed answered (catalog §1.3 B)
            return EditPlan(new_text=text, replacements=0, chars_changed=0)
        new_text, count = replace_all(finder, text, literal_replacement(text, replacement))
        return EditPlan(
            new_text=new_text,
            replacements=count,
            chars_changed=max(len(pattern), len(replacement)) * count,
            match_tier="line_endings" if loosened else None,
            first_line=LineIndex(text).line_of(first.start()),
        )

    return plan


def must_match(planner: Planner, what: str, path: str) -> Planner:
    """``planner``, failing with no_match where it replaces nothing: for a batch operation or pipeline step that
    is almost always a wrong pattern (edit_file itself answers 0 replacements)."""

    def plan(text: str) -> EditPlan:
        planned = planner(text)
        if not planned.replacements:
            raise NoMatchError(f"{what} does not occur in {path}. Nothing was written.", path=path)
        return planned

    return plan


@dataclass(frozen=True)
class RegexRule:
    """An RE2 pattern, its Go-style replacement ($1, ${name}, $$) and how many matches to replace.

    A ``limit`` of 0 or below means all: the seed's callers send -1 for that.
    """

    pattern: str
    replacement: str
    limit: int = 0

    @property
    def count(self) -> int:
        """The limit as ``subn`` takes it: 0 for all."""
        return max(self.limit, 0)


def regex(rules: list[RegexRule], *, case_sensitive: bool, path: str) -> Planner:
    """Apply RE2 rules in order (linear time, no catastrophic backtracking)."""
    if not rules:
        raise InvalidParamsError('mode:"regex" requires either patterns_json, or pattern (with replacement/new_text).')
    advice = ". fsguard uses RE2 syntax (no backreferences or lookaround)."
    try:
        compiled = [
            # \< and \> read as \b, as search_files and project_replace read them (fsguard.core.query.word_edges)
            (compile_re2(word_edges(rule.pattern), case_sensitive=case_sensitive, what="pattern", advice=advice), rule)
            for rule in rules
        ]
    except InvalidParamsError as exc:  # the seed's words, which its callers match on
        raise InvalidParamsError(f"Transformation failed: {exc.message}", **exc.fields) from exc

    def plan(text: str) -> EditPlan:
        total = changed = 0
        first: int | None = None
        original = text
        for pattern, rule in compiled:
            # A text the rules before left without a line break spells typed ones in the file's own ending.
            expand = expander(in_line_endings(text, rule.replacement, first_break(text, original)))
            pieces: list[str] = []
            size, cursor, count = len(text), 0, 0
            # One pass over the matches as Go's ReplaceAll finds them (at most count) in the lines as search reads
            # them: the result is refused as soon as its size passes the limit, before it is joined.
            for m in islice(line_matches(pattern, rule.pattern, text, at_end=True), rule.count or None):
                start, end = m.span()
                if first is None:
                    first = LineIndex(text).line_of(start)
                expanded = expand(m)
                changed += max(end - start, len(expanded))
                size += len(expanded) - (end - start)
                check_result(size)
                pieces += (text[cursor:start], expanded)
                cursor, count = end, count + 1
            if count:
                text = "".join([*pieces, text[cursor:]])
                total += count
        # No match is 0 replacements and nothing written (the seed rewrote the file anyway, catalog §1.3 C).
        return EditPlan(new_text=text, replacements=total, chars_changed=changed, first_line=first)

    return plan


def insert(anchor: str, new_text: str, position: Literal["before", "after"], *, path: str) -> Planner:
    """new_text on its own line(s) before the first or after the last line of the one place ``anchor`` is."""
    if not new_text:
        raise InvalidParamsError('new_text (the text to insert) is required for mode:"insert".')

    def plan(text: str) -> EditPlan:
        views = TextViews(text)
        matched = find_matches(views, Replacement(anchor, anchor), path=path, subject="anchor")
        place = matched.matches[0]
        index = LineIndex(text)
        line = index.line_of(place.start if position == "before" else max(place.end - 1, place.start))
        # The anchor line's break, as a replacement takes its lines' break: the file's first break put LF lines
        # into the CRLF body of a file whose first line alone ends in LF.
        eol = first_break(index.lines[line - 1], text)
        block = LINE_BREAK.sub(eol, _as_replaced(views, matched.tier, anchor, new_text, place))
        block = block if block.endswith(eol) else block + eol
        if position == "before":
            at = index.starts[line - 1]
        else:
            at = index.starts[line - 1] + len(index.lines[line - 1])
            if not text[:at].endswith(("\n", "\r")):
                block = eol + block.removesuffix(eol)
        block = one_break_each(block, *between_breaks(text, at, at))  # a blank first line after a CR line: not a CRLF
        return EditPlan(
            new_text=text[:at] + block + text[at:],
            replacements=1,
            chars_changed=len(block),
            match_tier=matched.tier,
            first_line=index.line_of(at) if at < len(text) else len(index.lines) + 1,
        )

    return plan


def _as_replaced(views: TextViews, tier: str, anchor: str, new_text: str, place: Match) -> str:
    """new_text as the tier that found the anchor writes a replacement at its place: shifted by the indentation
    tier's offset, in the file's tabs or spaces. Inserted as typed, a method landed at column 0 and ended the
    class, and spaces went into a tab-indented block. The anchor is matched first with itself as the replacement,
    so a miss never reports new_text as the replacement already made."""
    if tier == "exact":  # the tier that takes new_text as given, and nearly every insert's
        return new_text
    spans = dict(LADDER)[tier](views, anchor, new_text, False, True)
    return next((written for start, _, written in spans if start == place.start), new_text)


def line_range(start_line: int, end_line: int, new_text: str | None, *, path: str) -> Planner:
    """Replace (or, with ``new_text`` None, delete) lines start_line..end_line, byte-exact elsewhere."""
    if start_line < 1 or end_line < start_line:
        raise InvalidParamsError(
            f"start_line ({start_line}) and end_line ({end_line}) must satisfy 1 <= start_line <= end_line."
        )

    def plan(text: str) -> EditPlan:
        lines = split_lines(text)
        if start_line > len(lines):
            # The seed's words, which its callers match on.
            seed = f"start_line {start_line} is beyond end of file ({plural(len(lines), 'line')})"
            if not lines:
                seed = f"file is empty: nothing to {'replace' if new_text is not None else 'delete'} ({seed})"
            raise InvalidParamsError(
                f"{seed}: {path}. Read the file again.",
                start_line=start_line,
            )
        last = min(end_line, len(lines))
        before, old_block = "".join(lines[: start_line - 1]), "".join(lines[start_line - 1 : last])
        block = ""
        if new_text is not None and new_text != "":
            keeps_newline = last < len(lines) or old_block.endswith(("\n", "\r"))
            # The range's last line keeps its own break; the lines before it are spelled line by line.
            kept = _own_break(lines[last - 1]) if keeps_newline and not new_text.endswith(("\n", "\r")) else ""
            lines_for = old_block[: len(old_block) - len(kept)]
            after_cr, before_lf = between_breaks(text, len(before), len(before) + len(lines_for))
            eol = first_break(old_block, text)
            block = respelled(lines_for, new_text, eol, after_cr=after_cr, before_lf=before_lf) + kept
        new = before + block + "".join(lines[last:])
        return EditPlan(
            new_text=new,
            replacements=1,
            chars_changed=max(len(old_block), len(block)),
            first_line=start_line,
        )

    return plan


def _own_break(line: str) -> str:
    """The line break ``line`` ends with, or "" for the file's last line without one."""
    return "\r\n" if line.endswith("\r\n") else line[-1:] if line.endswith(("\n", "\r")) else ""


def multi(edits: list[Replacement], *, tolerant: bool | None, path: str) -> Planner:
    """Every edit in order on the evolving text; all must place, or the plan fails listing each status."""

    def plan(original: str) -> EditPlan:
        views = TextViews(original)  # shared by every edit tried on this text; a new one once an edit applies
        outcomes: list[EditOutcome] = []
        changed = applied = 0
        for number, edit in enumerate(edits, 1):
            try:
                # Only the first line of a failure is shown (below): no search for the closest lines.
                step = _replaced(views, edit, tolerant=tolerant, path=path, closest=False)
            except FsguardError as exc:
                outcomes.append(_failed(number, edit, exc, original, views.text))
                continue
            views = TextViews(step.new_text)
            changed += step.chars_changed
            applied += 1
            outcomes.append(EditOutcome(number, "applied", step.match_tier, step.first_line))
        failures = [o for o in outcomes if o.status in ("failed", "ambiguous")]
        if failures:
            raise _multi_edit_error(outcomes, path)
        text = views.text
        return EditPlan(
            new_text=text,
            replacements=applied,
            chars_changed=max(changed, abs(len(text) - len(original))),
            first_line=next((o.line for o in outcomes if o.line), None),
            outcomes=tuple(outcomes),
        )

    return plan


def _failed(number: int, edit: Replacement, exc: FsguardError, original: str, text: str) -> EditOutcome:
    """Why an edit did not place: subsumed by an earlier edit (a skip), ambiguous, or failed.

    Ambiguous, as the seed says it: old_text matches several places, or it was never in the file while new_text
    is there (made before this call, or old_text is wrong; only a re-read tells), by edit_file's rule of when an
    edit looks already applied (core/applied.py).
    """
    if isinstance(exc, NoMatchError) and edit.old_text in original:
        # Subsumed only if an earlier edit of this call put new_text there: text the file already held elsewhere
        # says nothing of this edit, whose old_text an earlier edit then changed.
        if edit.new_text and text.count(edit.new_text) > original.count(edit.new_text):
            return EditOutcome(number, "already_present", error="subsumed by an earlier edit of this batch")
        taken = (
            "old_text is in the file, but an earlier edit of this call changed that text: fold the two into one "
            "edit, or give this one's old_text as the earlier edit leaves it"
        )  # "not found" here sent a caller to copy the very text it had sent
        return EditOutcome(number, "failed", error=taken, code=exc.code)
    if isinstance(exc, NoMatchError) and already_applied(text, edit.old_text, edit.new_text) is not None:
        # Not any occurrence of new_text: a "z" inside other words sent a caller to drop an edit never made.
        reason = (
            "old_text is not in the file but new_text is: made before this call, or old_text is wrong? "
            "Re-read the file; drop this edit if its change is there"
            if already_applied(original, edit.old_text, edit.new_text) is not None
            else "old_text is not in the file; new_text is there only because an earlier edit of this call put it "
            "there: fix this edit's old_text (copy it from read_file)"
        )
        return EditOutcome(number, "ambiguous", error=reason, code=exc.code)
    status: Literal["failed", "ambiguous"] = "ambiguous" if exc.code == "ambiguous_match" else "failed"
    error = exc.message.split("\n")[0]
    if status == "ambiguous" and error.startswith("old_text matches "):  # the seed's words, which callers match on
        error = f"ambiguous match: old_text for edit {number}{error.removeprefix('old_text')}"
    return EditOutcome(number, status, error=error, code=exc.code)


def _multi_edit_error(outcomes: list[EditOutcome], path: str) -> FsguardError:
    """At least one edit could not be placed, so none was: the error of the first failure's class (no_match,
    ambiguous_match …), listing each edit's status (of a long batch, its first failures)."""
    bad = [o for o in outcomes if o.status in ("failed", "ambiguous")]
    # A long batch lists its failures only, the first few of them; the error's edits field has every status.
    listed = outcomes if len(outcomes) <= SHOWN + SLACK else bad[:SHOWN]
    lines = [f"  edit {o.index}: " + _status_line(o) for o in listed]
    rest, fine = [o.index for o in bad[SHOWN:]], len(outcomes) - len(bad)
    if len(listed) < len(outcomes) and rest:
        lines.append(
            f"  … and {plural(len(rest), 'more edit')} that could not be applied ({shortlist(rest)})"
            + ("" if not fine else "; the other edit is fine" if fine == 1 else f"; the other {fine:,} edits are fine")
            + "."
        )
    elif len(listed) < len(outcomes):  # every failure is listed above: say only that the others are fine
        lines.append("  The other edit is fine." if fine == 1 else f"  The other {fine:,} edits are fine.")
    # The seed's words open it, which its callers match on; the first when no edit matched at all.
    if all(o.status == "failed" and o.code == NoMatchError.code for o in outcomes):
        head = f"Multi-edit error: context validation failed: none of the {len(outcomes):,} edits match the current "
        head += f"file content — file NOT modified ({path}).\n"
    else:
        head = f"Multi-edit ROLLED BACK (file unchanged): atomic rollback: {len(bad):,} of {len(outcomes):,} edits "
        head += f"failed — file NOT modified ({path}).\n"
    return error_for_code(bad[0].code or NoMatchError.code)(
        head + "\n".join(lines) + "\nFix the failing old_text (copy it from read_file) and retry.",
        path=path,
        edits=[{"index": o.index, "status": o.status, "error": o.error} for o in outcomes],
    )


def _status_line(outcome: EditOutcome) -> str:
    if outcome.error and outcome.error.startswith("ambiguous match:"):
        return outcome.error
    return outcome.status + (f" — {outcome.error}" if outcome.error else "")
