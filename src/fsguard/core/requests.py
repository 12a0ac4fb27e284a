"""Edit requests as data: one value per edit_file call, and the table from its mode to a planner.

The tool adapter fills an :class:`EditRequest` by keyword; :func:`planner_for` checks that the mode got
what it needs and builds the planner from :mod:`fsguard.core.modes`. A new mode is one row in
:data:`_BUILDERS`, not another positional parameter threaded through three layers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from fsguard.core import modes
from fsguard.core.errors import InvalidParamsError
from fsguard.core.lineends import retypes_breaks
from fsguard.core.matching import Replacement

EditMode = Literal["replace", "search_replace", "regex", "insert", "replace_range", "delete_range"]
Position = Literal["before", "after"]


@dataclass(frozen=True, kw_only=True)
class EditRequest:
    """What one edit_file call asks for; the fields a mode does not use are ignored."""

    mode: EditMode = "replace"
    old_text: str | None = None
    new_text: str | None = None
    replace_all: bool = False
    occurrence: int | None = None
    whole_word: bool = False
    pattern: str | None = None
    replacement: str | None = None
    rules: tuple[modes.RegexRule, ...] = ()
    case_sensitive: bool = True
    anchor: str | None = None
    position: Position = "after"
    start_line: int | None = None
    end_line: int | None = None
    tolerant: bool | None = False  # None: the caller has no tolerant_whitespace to pass, so no miss advises it

    def retypes_line_breaks(self) -> bool:
        """Whether the text typed differs from the text found in line breaks alone (for a regex: its replacement
        types a break), which every mode spells in the file's own endings: such an edit changes nothing."""
        if self.mode == "regex":
            typed = [rule.replacement for rule in self.rules]
            typed += [_replacement(self)] if self.pattern is not None else []
            return any(retypes_breaks("", text, literal=False) for text in typed)
        if self.mode == "replace":
            found, retyped = self.old_text, self.new_text
        elif self.mode == "search_replace":
            found, retyped = self.pattern, _replacement(self)
        else:
            return False
        return found is not None and retyped is not None and retypes_breaks(found, retyped)

    def need(self, value: object, refusal: str) -> None:
        """Refuse the request when ``value``, which this mode needs, is missing; ``refusal`` opens with the
        seed's words for it, which its callers match on."""
        if value is None:
            raise InvalidParamsError(refusal)


def planner_for(request: EditRequest, path: str) -> modes.Planner:
    """The planner of ``request``'s mode.

    Raises:
        InvalidParamsError: the mode lacks a field it needs.
    """
    return _BUILDERS[request.mode](request, path)


def _replace(request: EditRequest, path: str) -> modes.Planner:
    request.need(
        request.old_text, "old_text (or old_str) is required: the exact text to change, copied from read_file."
    )
    request.need(request.new_text, "mode 'replace' needs new_text (use \"\" to delete old_text).")
    # The seed's callers send occurrence 0 for "not given"; it names no occurrence, so it is absent.
    occurrence = request.occurrence or None
    if occurrence is not None and request.replace_all:
        raise InvalidParamsError(
            f"occurrence={occurrence} changes one match and replace_all=true changes every match. "
            "Pass one of them, not both.",
            occurrence=occurrence,
        )
    edit = Replacement(
        request.old_text or "",
        request.new_text or "",
        request.replace_all,
        occurrence,
        request.whole_word,
    )
    return modes.replace(edit, tolerant=request.tolerant, path=path)


def _search_replace(request: EditRequest, path: str) -> modes.Planner:
    request.need(request.pattern, 'pattern is required for mode:"search_replace": the literal text to find.')
    return modes.search_replace(
        request.pattern or "", _replacement(request), case_sensitive=request.case_sensitive, path=path
    )


def _regex(request: EditRequest, path: str) -> modes.Planner:
    rules = list(request.rules)
    if request.pattern is not None:
        rules.insert(0, modes.RegexRule(request.pattern, _replacement(request)))
    return modes.regex(rules, case_sensitive=request.case_sensitive, path=path)


def _insert(request: EditRequest, path: str) -> modes.Planner:
    request.need(
        request.anchor, 'anchor is required for mode:"insert": text that occurs once, next to where new_text goes.'
    )
    request.need(request.new_text, 'new_text (the text to insert) is required for mode:"insert".')
    return modes.insert(request.anchor or "", request.new_text or "", request.position, path=path)


def _line_range(request: EditRequest, path: str) -> modes.Planner:
    replacing = request.mode == "replace_range"
    refusal = f'mode:"{request.mode}" requires start_line and end_line (1-based, inclusive)'
    refusal += " and new_text (the lines that replace the range)" if replacing else ""
    # A 0 arrives here as absent (harnesses fill unset numbers with it): "requires start_line" alone read as
    # wrong to a caller that sent both, so the refusal names the number missing and how lines are counted.
    missing = [name for name in ("start_line", "end_line") if getattr(request, name) is None]
    if missing:
        raise InvalidParamsError(
            f"{refusal}: {' and '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing or 0. Lines count "
            "from 1: send start_line=1 for the first line, and end_line as the last line of the range."
        )
    refusal += "."
    if replacing:
        request.need(request.new_text, refusal)
    new_text = request.new_text if replacing else None
    return modes.line_range(request.start_line or 1, request.end_line or 1, new_text, path=path)


def _replacement(request: EditRequest) -> str:
    """search_replace and regex take ``replacement``, or ``new_text`` as the seed's callers send it."""
    return request.replacement if request.replacement is not None else request.new_text or ""


_BUILDERS: dict[EditMode, Callable[[EditRequest, str], modes.Planner]] = {
    "replace": _replace,
    "search_replace": _search_replace,
    "regex": _regex,
    "insert": _insert,
    "replace_range": _line_range,
    "delete_range": _line_range,
}
