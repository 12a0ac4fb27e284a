"""Glob regexes: compiled without Python's warnings of set operations to come, members unchanged by the escaping."""

from __future__ import annotations

import re
import warnings
from fnmatch import fnmatchcase
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

from fsguard.core.errors import InvalidParamsError
from fsguard.core.globs import fnmatch_spelling, gitignore_pattern, under_globs, unwarned_sets

# Set members Python warns of when doubled ("--", "&&", "~~", "||") or nested ("[["), the set's own syntax, others.
SET_CHARS = "ab-&~|^[]?*!:=."
PROBES = [*SET_CHARS, "\\", "/", "+", ",", "aa", "a/b"]


@pytest.mark.parametrize(
    ("glob", "members"),
    [
        ("[a||b]", {"a", "b", "|", "a/b"}),  # a name in any directory
        ("[a&&b]", {"a", "b", "&", "a/b"}),
        ("[~~]", {"~"}),
        ("[+--]", {"+", ",", "-"}),  # a range ending in "-"
        ("[[]", {"["}),
        ("[--0]", {"-", ".", "/"}),  # a range starting with "-"
        ("x[!--]", {"x" + c for c in SET_CHARS if c != "-"}),
    ],
)
def test_a_set_python_would_warn_of_compiles_quietly_with_the_same_members(glob: str, members: set[str]) -> None:
    found = gitignore_pattern(glob)  # pytest makes any warning an error

    assert found is not None
    probes = [*PROBES, *("x" + c for c in SET_CHARS)]
    assert {probe for probe in probes if found[0].fullmatch(probe)} == members


def test_a_reversed_range_ending_in_a_dash_is_an_invalid_glob_not_a_warning() -> None:
    with pytest.raises(InvalidParamsError, match="bad character range"):
        gitignore_pattern("[?--]")


@given(st.text(SET_CHARS + "\\/", min_size=1, max_size=8))
def test_escaped_sets_match_exactly_what_the_regex_matched_before(glob: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            regex, _ = GitIgnoreBasicPattern.pattern_to_regex(glob)
        except ValueError:
            return
        if regex is None:
            return
        try:
            before: re.Pattern[str] | None = re.compile(regex, re.DOTALL)
        except re.error:
            before = None
    try:
        after: re.Pattern[str] | None = re.compile(unwarned_sets(regex), re.DOTALL)
    except re.error:
        after = None

    assert (before is None) == (after is None)
    if before is not None and after is not None:
        for probe in PROBES:
            assert bool(before.search(probe)) == bool(after.search(probe)), probe


# Glob pieces without a backslash inside a set, where pathspec and git part ways (the README lists it)
NAME_GLOB_PIECES = (
    "a",
    "b",
    "*",
    "?",
    "\\*",
    "\\?",
    "\\[",
    "\\\\",
    "\\a",
    "]",
    "[",
    "[]a]",
    "[ab]",
    "[^a]",
    "[!b]",
    "[*?]",
)


@given(
    glob=st.lists(st.sampled_from(NAME_GLOB_PIECES), min_size=1, max_size=4).map("".join),
    name=st.text("ab*?[]\\^!", min_size=1, max_size=5),
)
def test_a_name_glob_reads_escapes_and_caret_sets_as_gitignore_syntax_does(glob: str, name: str) -> None:
    found = gitignore_pattern(glob)
    assert found is not None
    regex = found[0]
    everything = regex.pattern == "."  # how pathspec spells a glob of stars alone
    assert fnmatchcase(name, fnmatch_spelling(glob)) == (everything or regex.fullmatch(name) is not None)


@pytest.mark.parametrize(
    ("glob", "names"),
    [
        ("a\\*b.txt", {"a*b.txt"}),
        ("q\\?.md", {"q?.md"}),
        ("\\[x\\].c", {"[x].c"}),
        ("[^a]*.txt", {"b\\c.txt"}),
        ("b\\\\c.txt", {"b\\c.txt"}),
    ],
)
def test_project_replace_paths_read_escapes_and_caret_sets(glob: str, names: set[str]) -> None:
    base = Path("/r")
    every = ["a*b.txt", "axb.txt", "q?.md", "qz.md", "[x].c", "x.c", "b\\c.txt"]
    assert {name for name in every if under_globs(base / name, base, (glob,))} == names
