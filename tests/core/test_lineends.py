"""A typed line break takes the ending of the line its match is on: search_replace and regex against an oracle built
from the lines of the text; and it stays one line break on disk, fused with none beside it."""

from __future__ import annotations

import itertools
import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from fsguard.core.lineends import LiteralFind
from fsguard.core.matching import Replacement, find_matches
from fsguard.core.modes import RegexRule, line_range, regex, search_replace
from tests.strategies import (
    EndedText,
    RetypedLines,
    lf_finds,
    retyped_lines,
    terse_line_contents,
    texts_with_line_endings,
    typed_texts,
    whole_stretches,
)

MARK = "\u2603"  # the snowman is not in texts_with_line_endings' alphabet
TYPED = st.sampled_from(("\n", "\r\n", "\r"))


@st.composite
def marked_texts(draw: st.DrawFn) -> EndedText:
    """Lines with the mark put into some of them, each line keeping its ending."""
    text = draw(texts_with_line_endings())
    lines = tuple(
        (content[:cut] + MARK + content[cut:] if draw(st.booleans()) else content, ending)
        for content, ending in text.lines
        for cut in [draw(st.integers(0, len(content)))]
    )
    return EndedText(lines)


def expected(text: EndedText, typed_at: str) -> str:
    """Each mark becomes ``<``, the ending of its line (the text's first one on a last line without one; LF in a text
    without any), ``>``; ``typed_at`` is only which break was typed, which must not matter."""
    assert typed_at in ("\n", "\r\n", "\r")
    first = next((ending for _content, ending in text.lines if ending), "\n")
    return "".join(content.replace(MARK, f"<{ending or first}>") + ending for content, ending in text.lines)


@given(text=marked_texts(), typed=TYPED)
def test_search_replace_spells_each_typed_break_as_its_line_s_ending(text: EndedText, typed: str) -> None:
    planned = search_replace(MARK, f"<{typed}>", case_sensitive=True, path="f")(text.text)
    assert planned.new_text == expected(text, typed)


@given(text=marked_texts(), typed=TYPED)
def test_regex_spells_each_typed_break_as_its_line_s_ending(text: EndedText, typed: str) -> None:
    planned = regex([RegexRule(f"({MARK})", f"<{typed}>")], case_sensitive=True, path="f")(text.text)
    assert planned.new_text == expected(text, typed)


def lone_breaks(text: str) -> tuple[int, int]:
    """CRs not followed by an LF and LFs not after a CR: a split CRLF leaves one of each kind."""
    crlf = text.count("\r\n")
    return text.count("\r") - crlf, text.count("\n") - crlf


@given(text=texts_with_line_endings(), data=st.data())
def test_deleting_any_stretch_of_the_text_with_search_replace_never_splits_a_crlf(
    text: EndedText, data: st.DataObject
) -> None:
    whole = text.text
    if not whole:
        return
    start = data.draw(st.integers(0, len(whole) - 1))
    stretch = whole[start : data.draw(st.integers(start + 1, len(whole)))]
    planned = search_replace(stretch, "", case_sensitive=True, path="f")(whole)
    before, after = lone_breaks(whole), lone_breaks(planned.new_text)
    if stretch.strip("\r"):  # stripping CRs alone is meant to leave LFs
        assert after[0] <= before[0]
        assert after[1] <= before[1]


def lf_offsets(text: str) -> list[int]:
    """Where each offset of ``text`` (and its end) lies in its LF reading, each CRLF and lone CR read as one LF."""
    offsets, at = [], 0
    for index, char in enumerate(text):
        offsets.append(at)
        at += not (char == "\r" and text[index + 1 : index + 2] == "\n")
    return [*offsets, at]


@given(text=texts_with_line_endings(contents=terse_line_contents()), find=lf_finds())
def test_a_find_typed_in_lf_lines_matches_a_text_just_where_it_matches_the_text_s_lf_reading(
    text: EndedText, find: str
) -> None:
    # Each typed break is one whole break of the text: never a CRLF's CR, then its LF as the next break.
    whole, offsets = text.text, lf_offsets(text.text)
    lf_reading = whole.replace("\r\n", "\n").replace("\r", "\n")
    any_break = LiteralFind.of(find).any_break
    assert any_break is not None
    found = [(offsets[match.start()], offsets[match.end()]) for match in any_break.finditer(whole)]
    assert found == [match.span() for match in any_break.finditer(lf_reading)]


TYPED_OR_OWN = st.sampled_from(("\n", None))  # None: the breaks typed as the file spells them


@given(retyped=retyped_lines(), old_typed=TYPED_OR_OWN, new_typed=TYPED_OR_OWN, literal=st.booleans())
def test_an_edit_that_changes_only_characters_within_lines_never_changes_a_line_s_ending(
    retyped: RetypedLines, old_typed: str | None, new_typed: str | None, literal: bool
) -> None:
    # Every break typed in the replacement was spelled as the match's first: a\nb\r\n edited to a\nB\r\n left a\nB\n.
    text = retyped.before.text
    old, new = retyped.run(retyped.before, old_typed), retyped.run(retyped.after, new_typed)
    if literal:
        edited = search_replace(old, new, case_sensitive=True, path="f")(text).new_text
    else:
        edited = find_matches(text, Replacement(old, new)).apply(text)
    assert edited == retyped.after.text


def line_breaks(text: str) -> int:
    """Line breaks as a file reads them back: a CRLF is one."""
    return len(re.findall("\r\n|\r|\n", text))


EDITS = st.sampled_from(("old_text", "search_replace", "line_range"))


@settings(max_examples=200)  # a fusion needs a CR and an LF to meet just so
@given(text=texts_with_line_endings(contents=terse_line_contents()), typed=typed_texts(), how=EDITS, data=st.data())
def test_an_edit_writes_one_line_break_for_each_one_typed_fused_with_no_break_beside_it(
    text: EndedText, typed: str, how: str, data: st.DataObject
) -> None:
    # Line i's CR then a blank line's LF (or the LF after the match) read as one CRLF: a\rb\nc\n edited from a\nb\n
    # to A\n\n wrote A\r\nc\n, a line lost. The typed text is never empty: a deletion puts no break between the
    # text's own (deleting b\n from a\rb\n\nc leaves a\r\nc), which no spelling of typed breaks can keep apart.
    whole = text.text
    if not whole:
        return
    if how == "line_range":
        starts = [0, *itertools.accumulate(map(len, text.split))]
        first = data.draw(st.integers(1, len(text.split)))
        last = data.draw(st.integers(first, len(text.split)))
        spans = [(starts[first - 1], starts[last])]
        edited = line_range(first, last, typed, path="f")(whole).new_text
    else:
        start, end = data.draw(whole_stretches(whole))
        if how == "old_text":
            planned = find_matches(whole, Replacement(whole[start:end], typed, occurrence=1))
            spans = [(match.start, match.end) for match in planned.matches]
            edited = planned.apply(whole)
        else:
            spans = [found.span() for found in LiteralFind.of(whole[start:end]).finder(whole)[0].finditer(whole)]
            edited = search_replace(whole[start:end], typed, case_sensitive=True, path="f")(whole).new_text
    # A text of CRs alone finds a CRLF's CR, as meant (deleting CRs turns a CRLF file LF): no break is whole there.
    assume(not any(0 < at < len(whole) and whole[at - 1 : at + 1] == "\r\n" for span in spans for at in span))
    cuts = [0, *itertools.chain.from_iterable(spans), len(whole)]
    outside = [whole[cut:to] for cut, to in zip(cuts[::2], cuts[1::2], strict=True)]

    def keeps_break(end: int) -> bool:
        # The ladder and line_range keep the break a match closes its line with where the typed text ends in none
        # (the ladder not at the end of the text); search_replace puts the typed text alone.
        closes = whole[end - 1] in "\r\n" and not typed.endswith(("\n", "\r"))
        return closes and (how == "line_range" or (how == "old_text" and end < len(whole)))

    kept = sum(keeps_break(end) for _, end in spans)
    assert line_breaks(edited) == sum(map(line_breaks, outside)) + len(spans) * line_breaks(typed) + kept


def test_breaks_typed_for_matches_side_by_side_stay_apart() -> None:
    # The first a's text ended in a CR (after the file's CR) and the second's began with an LF: one CRLF.
    planned = search_replace("a", "\n", case_sensitive=True, path="f")("x\raa\n")
    assert planned.new_text == "x\r\r\r\n\n"
