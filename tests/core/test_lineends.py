"""A typed line break takes the ending of the line its match is on: search_replace and regex against an oracle built
from the lines of the text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.lineends import LiteralFind
from fsguard.core.matching import Replacement, find_matches
from fsguard.core.modes import RegexRule, regex, search_replace
from tests.strategies import (
    EndedText,
    RetypedLines,
    lf_finds,
    retyped_lines,
    terse_line_contents,
    texts_with_line_endings,
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
