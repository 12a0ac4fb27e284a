"""The matching ladder: each tier, uniqueness, line endings of replacements, and the failure reports."""

from __future__ import annotations

import difflib
import tracemalloc
from typing import Any

import pytest
from hypothesis import assume, given

from fsguard.core.errors import AmbiguousMatchError, InvalidParamsError, NoMatchError
from fsguard.core.indentation import uniform_shift
from fsguard.core.matching import LADDER, LINES_NAMED, Replacement, find_matches
from fsguard.core.misses import CLOSEST_POOL
from tests.strategies import break_mixed_texts


def edited(text: str, old: str, new: str, *, tolerant: bool = False, **placement: Any) -> tuple[str, str]:
    plan = find_matches(text, Replacement(old, new, **placement), tolerant=tolerant)
    return plan.tier, plan.apply(text)


def test_the_ladder_is_data_in_the_documented_order() -> None:
    assert [name for name, _ in LADDER] == [
        "exact",
        "escape_fixed",
        "trailing_whitespace",
        "indentation",
        "line_endings",
        "tolerant_whitespace",
    ]


@pytest.mark.parametrize(
    ("text", "old", "new", "tier", "result"),
    [
        # exact
        ("alpha beta gamma\n", "beta", "BETA", "exact", "alpha BETA gamma\n"),
        # boundary newline: the newline that separated the match from the next line is kept
        ("aaa\nbbb\nccc\n", "bbb\n", "bbb", "exact", "aaa\nbbb\nccc\n"),
        ("aaa\nbbb\n", "bbb\n", "bbb", "exact", "aaa\nbbb"),
        ("aaa\nbbb\nccc\n", "bbb\n", "BBB\n", "exact", "aaa\nBBB\nccc\n"),
        # CRLF file, LF old_text: whole lines ignoring the CR, replacement takes CRLF
        ("line1\r\nline2\r\nline3\r\n", "line2\n", "LINE2\n", "trailing_whitespace", "line1\r\nLINE2\r\nline3\r\n"),
        ("a  \nb\n", "a\nb\n", "A\nB\n", "trailing_whitespace", "A\nB\n"),
        # literal \n escapes when old_text has no real newline
        ("first\nsecond\n", "first\\nsecond", "1\\n2", "escape_fixed", "1\n2\n"),
        ("first\r\nsecond\r\n", "first\\nsecond", "1\\n2", "escape_fixed", "1\r\n2\r\n"),
        ("x\rfirst\rsecond", "first\\nsec", "1\\n2", "escape_fixed", "x\r1\r2ond"),
        # code that contains a literal backslash-n is matched exactly, not unescaped
        ('print("a\\nb")\n', 'print("a\\nb")', 'print("c")', "exact", 'print("c")\n'),
        # uniform indentation offset, replacement re-indented the same way
        (
            "def f():\n        x = 1\n        y = 2\n",
            "x = 1\ny = 2",
            "x = 10\ny = 20",
            "indentation",
            "def f():\n        x = 10\n        y = 20\n",
        ),
        ("    target\n", "        target\n", "        replaced\n", "indentation", "    replaced\n"),
    ],
)
def test_each_tier_places_the_edit_and_keeps_the_surrounding_bytes(
    text: str, old: str, new: str, tier: str, result: str
) -> None:
    assert edited(text, old, new) == (tier, result)


def test_tabs_count_as_four_spaces_for_whole_shifted_lines_and_with_tolerant_whitespace_keeping_the_tabs() -> None:
    """The indentation tier reads a tab as four columns, as the seed's did (catalog §2.8 tier 6); a tab inside a
    line still takes tolerant_whitespace."""
    text = "\tif x:\n\t\treturn\n"
    old, new = "    if x:\n        return\n", "    if y:\n        return 1\n"
    assert edited(text, old, new) == ("indentation", "\tif y:\n\t\treturn 1\n")
    assert edited(text, old, new, tolerant=True) == ("indentation", "\tif y:\n\t\treturn 1\n")
    with pytest.raises(NoMatchError):
        find_matches("a\tb\n", Replacement("a    b", "c"))
    assert edited("a\tb\n", "a    b", "c", tolerant=True) == ("tolerant_whitespace", "c\n")


def test_tolerant_whitespace_maps_crlf_back_to_the_original_bytes() -> None:
    assert edited("before\r\nXXafter", "before\nXX", "B\nY", tolerant=True)[1] == "B\r\nYafter"


def test_uniqueness_is_required_and_every_line_is_named() -> None:
    with pytest.raises(AmbiguousMatchError) as caught:
        find_matches("x\ny\nx\n", Replacement("x", "z"))
    assert caught.value.fields["lines"] == [1, 3]
    assert "replace_all=true" in caught.value.message


def test_overlapping_places_are_no_unique_match_and_occurrence_picks_either() -> None:
    braces = "}\n}\n}\n"
    with pytest.raises(AmbiguousMatchError) as caught:
        find_matches(braces, Replacement("}\n}", "]"))
    assert caught.value.fields["lines"] == [1, 2]
    assert "some of them overlap" in caught.value.message
    assert edited(braces, "}\n}", "]", occurrence=1)[1] == "]\n}\n"
    assert edited(braces, "}\n}", "]", occurrence=2)[1] == "}\n]\n"
    with pytest.raises(AmbiguousMatchError):
        find_matches("a === b\n", Replacement("==", "!="))
    assert edited("aaaa\n", "aa", "b", replace_all=True)[1] == "bb\n"  # those that do not overlap, first to last


@given(break_mixed_texts(), break_mixed_texts())
def test_an_edit_placed_without_occurrence_is_the_only_place_old_text_starts(text: str, old: str) -> None:
    text, old = text.replace("\r", ""), old.replace("\r", "")  # LF only: no CR for a find to widen over
    assume(old)
    starts = [i for i in range(len(text)) if text.startswith(old, i)]
    try:
        plan = find_matches(text, Replacement(old, "Z"))
    except AmbiguousMatchError:
        assert len(starts) > 1 or not starts  # a later tier may find several where the text itself has none
        return
    except NoMatchError:
        assert not starts
        return
    if plan.tier == "exact":
        assert [match.start for match in plan.matches] == starts


def test_an_ambiguous_match_names_each_line_once_and_at_most_lines_named() -> None:
    with pytest.raises(AmbiguousMatchError) as caught:
        find_matches("        x\n" * 5_000, Replacement("  ", "\t"))
    assert caught.value.fields["lines"] == list(range(1, LINES_NAMED + 1))
    assert (
        "matches 35,000 times (expected 1) in the file (at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and more ("
        in caught.value.message
    )


def test_a_crlf_widened_find_is_one_place_not_two() -> None:
    assert edited("a\r\nx\r\n", "\nx", "")[1] == "a\r\n"


def test_occurrence_counts_from_either_end_and_refuses_out_of_range() -> None:
    assert edited("x x x\n", "x", "y", occurrence=2)[1] == "x y x\n"
    assert edited("x x x\n", "x", "y", occurrence=-1)[1] == "x x y\n"
    with pytest.raises(NoMatchError, match=r"occurrence 4 out of range \(only 3 matches found\)"):
        find_matches("x x x\n", Replacement("x", "y", occurrence=4))


def test_occurrence_zero_names_no_occurrence_so_the_match_must_be_unique() -> None:
    assert edited("x\n", "x", "y", occurrence=0)[1] == "y\n"
    with pytest.raises(AmbiguousMatchError):
        find_matches("x x\n", Replacement("x", "y", occurrence=0))


def test_whole_word_skips_matches_inside_words() -> None:
    assert (
        edited("foo foobar barfoo foo.\n", "foo", "X", whole_word=True, replace_all=True)[1] == "X foobar barfoo X.\n"
    )


def test_whole_word_counts_a_combining_accent_as_part_of_its_word_as_search_does() -> None:
    # "cafe" + U+0301 is one word (café written decomposed): "cafe" inside it is no whole word, for an edit as for
    # search_files (Rust's \\w takes marks); the edit wrote "bar\u0301".
    decomposed = "the cafe\u0301 is open\n"
    with pytest.raises(NoMatchError):
        find_matches(decomposed, Replacement("cafe", "bar", whole_word=True))
    assert edited(decomposed, "cafe\u0301", "bar", whole_word=True) == ("exact", "the bar is open\n")


def test_whole_word_needs_a_boundary_only_where_old_text_starts_or_ends_with_a_word_character() -> None:
    # An edge that is a line break, tab or bracket is a boundary by itself: "foo\n" before "bar", "\tb" after "a"
    # and "(a)" beside other punctuation never matched with whole_word.
    assert edited("foo\nbar\n", "foo\n", "X\n", whole_word=True) == ("exact", "X\nbar\n")
    assert edited("a\tb\n", "\tb", " c", whole_word=True) == ("exact", "a c\n")
    assert edited("f((a));\n", "(a)", "(b)", whole_word=True) == ("exact", "f((b));\n")
    assert edited("x\r\nfoo\r\nz", "foo\n", "Q\n", whole_word=True) == ("trailing_whitespace", "x\r\nQ\r\nz")
    with pytest.raises(NoMatchError):
        find_matches("xfoo\nbar\n", Replacement("foo\n", "X\n", whole_word=True))
    with pytest.raises(NoMatchError):
        find_matches("a\tbc\n", Replacement("\tb", "X", whole_word=True))


@pytest.mark.parametrize(
    ("text", "old", "expected"),
    [
        ("keep\r\nold1\nold2\r\nnext\r\n", "old1\nold2\r\n", "keep\r\nnew\r\nnext\r\n"),
        ("keep\nold1\r\nold2\nnext\n", "old1\r\nold2\n", "keep\nnew\nnext\n"),
        ("a7\n\rb\n", "7\n\r", "anew\rb\n"),
    ],
)
def test_the_line_break_kept_after_a_match_of_whole_lines_is_the_matchs_own_last_one(
    text: str, old: str, expected: str
) -> None:
    # In a file of mixed endings the break kept took the style of the match's first break: the line after the
    # edit lost its CRLF.
    assert edited(text, old, "new")[1] == expected


MIXED = "a\nb\r\nc\r\nd\n"  # line a ends in LF, b and c in CRLF, d in LF


@pytest.mark.parametrize(
    ("old", "new", "tier", "expected"),
    [
        ("a\nb\n", "a\nB\n", "trailing_whitespace", "a\nB\r\nc\r\nd\n"),
        ("a\nb\nc", "a\nB\nc", "trailing_whitespace", "a\nB\r\nc\r\nd\n"),
        ("a\nb\r\n", "a\nB\r\n", "exact", "a\nB\r\nc\r\nd\n"),
        ("b\nc\nd\n", "B\nC\nD\n", "trailing_whitespace", "a\nB\r\nC\r\nD\n"),
        # An added line takes the ending of the line before it, or the one typed where it spells the file's bytes.
        ("a\nb\n", "a\nX\nb\n", "trailing_whitespace", "a\nX\nb\r\nc\r\nd\n"),
        ("a\nb\r\n", "a\nb\r\nX\r\n", "exact", "a\nb\r\nX\r\nc\r\nd\n"),
        ("a\nb\nc\n", "a\nc\n", "trailing_whitespace", "a\nc\r\nd\n"),
        ("c\nd", "c\nX\nd", "trailing_whitespace", "a\nb\r\nc\r\nX\r\nd\n"),
    ],
)
def test_each_line_of_a_replacement_keeps_the_ending_of_the_line_it_stands_for_in_a_mixed_file(
    old: str, new: str, tier: str, expected: str
) -> None:
    # Every typed break was spelled as the match's first: line b's CRLF became LF.
    assert edited(MIXED, old, new) == (tier, expected)


def test_a_multiline_lf_edit_in_a_crlf_file_cannot_fan_out_to_several_places() -> None:
    text = "a\r\nb\r\nc\r\na\r\nb\r\n"
    with pytest.raises(AmbiguousMatchError):
        find_matches(text, Replacement("a\nb\n", "X\n"))


def test_no_match_in_a_small_file_shows_the_whole_file_numbered() -> None:
    with pytest.raises(NoMatchError) as caught:
        find_matches("one\ntwo\n", Replacement("three", "3"))
    assert "    1: one\n    2: two" in caught.value.message


def test_no_match_in_a_large_file_shows_the_closest_lines() -> None:
    text = "".join(f"value_{i} = {i}\n" for i in range(100))
    with pytest.raises(NoMatchError) as caught:
        find_matches(text, Replacement("valeu_42 = 42", "x"))
    assert "   43: value_42 = 42" in caught.value.message


def test_already_applied_is_recognised() -> None:
    with pytest.raises(NoMatchError) as caught:
        find_matches("new line\n", Replacement("old line", "new line"))
    assert caught.value.fields["already_applied"] is True


def test_empty_old_text_is_invalid() -> None:
    with pytest.raises(InvalidParamsError):
        find_matches("abc", Replacement("", "x"))


class _Tallied(str):
    """A text that adds up how many of its characters are sliced out or counted through."""

    tally = 0

    def __getitem__(self, key: Any) -> str:
        part = str.__getitem__(self, key)
        self.tally += len(part)
        return part

    def count(self, sub: str, start: Any = None, end: Any = None) -> int:
        self.tally += len(range(*slice(start, end).indices(len(self))))
        return str.count(self, sub, start, end)


def test_replacing_every_one_of_many_matches_reads_the_text_about_once() -> None:
    text = _Tallied("".join(f"call({i})\n" for i in range(2_000)))

    plan = find_matches(text, Replacement("call", "run", replace_all=True))

    assert plan.apply(str(text)) == "".join(f"run({i})\n" for i in range(2_000))
    assert [match.start for match in plan.matches] == [text.index(f"call({i})") for i in range(2_000)]
    assert plan.first_line == 1
    assert text.tally < 4 * len(text)  # not the rest of the file once more for each match
    text.tally = 0
    with pytest.raises(AmbiguousMatchError) as ambiguous:  # the first lines are named, the matches counted
        find_matches(text, Replacement("call", "run"))
    assert ambiguous.value.fields["lines"] == list(range(1, LINES_NAMED + 1))
    assert "matches 2,000 times" in ambiguous.value.message
    assert text.tally < 4 * len(text)
    mixed = "a\r\nx a y\nb a\rc\na"  # each match's line ending is still its own line's (the last: the file's first)
    assert edited(mixed, "a", "1\n2", replace_all=True)[1] == "1\r\n2\r\nx 1\n2 y\nb 1\r2\rc\n1\r\n2"


def test_the_closest_lines_of_a_large_file_are_found_without_comparing_every_line_in_full(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = "".join(f"    value_{i} = compute({i}, 'x')  # note\n" for i in range(3 * CLOSEST_POOL))
    ratio = difflib.SequenceMatcher.ratio
    compared: list[float] = []

    def counted(matcher: difflib.SequenceMatcher[str]) -> float:
        compared.append(ratio(matcher))
        return compared[-1]

    monkeypatch.setattr(difflib.SequenceMatcher, "ratio", counted)
    with pytest.raises(NoMatchError) as raised:
        find_matches(text, Replacement("value_700 = compute(700, 'y')\n", "z\n"))

    assert "  701:     value_700 = compute(700, 'x')  # note" in raised.value.message
    assert len(compared) <= 2 * CLOSEST_POOL  # difflib takes the ratio of a close line twice


def test_an_ambiguous_tiny_old_text_holds_its_places_compactly() -> None:
    # Two spaces of indentation in a big file are hundreds of thousands of places: a tuple each held about 120
    # bytes (+279 MiB for 5.6 MB) before the edit could say it was ambiguous.
    text = "        x = 1\n" * 50_000  # 700 KB, "    " at 5 overlapping places a line
    tracemalloc.start()
    try:
        with pytest.raises(AmbiguousMatchError, match="matches 250,000 times") as raised:
            find_matches(text, Replacement("    ", "\t"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert raised.value.fields["lines"] == list(range(1, LINES_NAMED + 1))
    assert peak < 12 * len(text)  # a tuple a place took over 40 times the text


def test_the_indentation_tier_judges_each_distinct_window_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # 80,000 like indented lines against 50 unindented ones: each of the 79,951 windows was judged line by line (7 s).
    judged = 0

    def counted(pairs: list[tuple[str, str]]) -> tuple[str, str] | None:
        nonlocal judged
        judged += 1
        return uniform_shift(pairs)

    monkeypatch.setattr("fsguard.core.matching.uniform_shift", counted)
    text = "  a\n" * 2000 + "  b\n" + "  a\n" * 3
    with pytest.raises(AmbiguousMatchError, match="matches 1,951 times"):
        find_matches(text, Replacement("a\n" * 50, "x"))
    assert judged == 1
    plan = find_matches(text, Replacement("a\nb\na\n", "c\nd\n"))
    assert plan.tier == "indentation"
    assert plan.apply(text) == "  a\n" * 1999 + "  c\n  d\n" + "  a\n" * 2
