"""Names close to a misspelt one (core/spelling.py): the distance, and which file names a misspelling may mean."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import spelling
from fsguard.core.spelling import closest, edit_distance, near_names, undecorated


@pytest.mark.parametrize(
    ("a", "b", "distance"),
    [
        ("", "", 0),
        ("path", "path", 0),
        ("", "abc", 3),
        ("abc", "", 3),
        ("path", "paths", 1),
        ("path", "pth", 1),
        ("path", "bath", 1),
        ("path", "paht", 2),
        ("kitten", "sitting", 3),
        ("Path", "path", 1),
    ],
)
def test_edit_distance_counts_insertions_deletions_and_substitutions(a: str, b: str, distance: int) -> None:
    assert edit_distance(a, b) == distance
    assert edit_distance(b, a) == distance


@pytest.mark.parametrize(("a", "b"), [("mian.py", "main.py"), ("ab", "ba"), ("recieve", "receive")])
def test_two_neighbours_swapped_are_one_edit_when_swaps_count(a: str, b: str) -> None:
    assert (edit_distance(a, b), edit_distance(a, b, swaps=True)) == (2, 1)


@given(st.text(max_size=8), st.text(max_size=8))
def test_counting_swaps_never_makes_two_names_further_apart(a: str, b: str) -> None:
    swapped = edit_distance(a, b, swaps=True)
    assert swapped == edit_distance(b, a, swaps=True)
    assert (swapped == 0) == (a == b)
    assert abs(len(a) - len(b)) <= swapped <= edit_distance(a, b)


@given(
    st.text(alphabet="abc.", max_size=10),
    st.text(alphabet="abc.", max_size=10),
    st.integers(min_value=0, max_value=3),
    st.booleans(),
)
def test_within_edits_is_the_edit_distance_when_it_is_at_most_the_limit(
    a: str, b: str, limit: int, swaps: bool
) -> None:
    # Three letters and a dot: names this close share runs and swapped neighbours, where a cut band would show.
    distance = edit_distance(a, b, swaps=swaps)
    assert spelling.within_edits(a, b, limit, swaps=swaps) == (distance if distance <= limit else None)


@pytest.mark.parametrize(
    ("asked", "names", "meant"),
    [
        ("readme.md", ["README.md", "setup.py"], ["README.md"]),
        ("mian.py", ["main.py", "maintain.py"], ["main.py"]),
        ("config.yml", ["config.yaml", "config.json", "other.yml"], ["config.yaml", "config.json"]),
        ("main.js", ["main.ts", "index.js"], ["main.ts"]),
        ("utils", ["utils.py", "tests"], ["utils.py"]),
        ("Src", ["src", "docs"], ["src"]),
        ("a.py", ["b.py", "A.py"], ["A.py"]),  # a name this short is matched by its case only
        (
            "component.tsx",
            ["Component.tsx", "components.tsx", "component.ts"],
            ["Component.tsx", "component.ts", "components.tsx"],
        ),
        ("report.txt", ["notes.md", "index.html"], []),
        (".gitignre", [".gitignore", ".github"], [".gitignore"]),
        ("a.py:12", ["a.py", "b.py"], ["a.py"]),  # copied with its line, as search and compilers print it
        ("@src", ["src", "docs"], ["src"]),
        (".env", ["env", ".envrc"], ["env"]),
    ],
)
def test_near_names_offers_the_likely_misspellings_likeliest_first(
    asked: str, names: list[str], meant: list[str]
) -> None:
    assert near_names(asked, names) == meant


def test_near_names_offers_at_most_the_limit() -> None:
    names = [f"file{digit}.txt" for digit in range(10)]
    assert near_names("file.txt", names, limit=2) == ["file0.txt", "file1.txt"]


@pytest.mark.parametrize(
    ("copied", "bare"),
    [
        ("@src", "src"),
        ("main.py:12", "main.py"),
        ("main.py:12:5", "main.py"),
        ("main.py:12:", "main.py"),
        ("main.py#L12", "main.py"),
        ("main.py#L12-L20", "main.py"),
        ("<main.py>", "main.py"),
        ("@main.py:3", "main.py"),
        ("main.py", None),
        ("@", None),
        ("notes:draft", None),
    ],
)
def test_a_name_copied_with_a_mention_a_line_or_brackets_is_read_without_them(copied: str, bare: str | None) -> None:
    assert undecorated(copied) == bare


@given(st.text(max_size=8), st.lists(st.text(max_size=8), max_size=6))
def test_closest_is_the_nearest_candidate_within_two_edits_ignoring_case(name: str, candidates: list[str]) -> None:
    scored = sorted((edit_distance(name.lower(), c.lower()), c) for c in candidates)
    assert closest(name, candidates) == (scored[0][1] if scored and scored[0][0] <= 2 else None)


def test_closest_scores_no_candidate_too_long_or_too_short_to_be_two_edits_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scored: list[tuple[int, int]] = []

    def counted(a: str, b: str, *, swaps: bool = False) -> int:
        scored.append((len(a), len(b)))
        return edit_distance(a, b, swaps=swaps)

    monkeypatch.setattr(spelling, "edit_distance", counted)
    assert closest("(" * 50_000, ["read_file", "edit_file", "help"]) is None
    assert closest("reed_fil", ["read_file", "edit_file", "help"]) == "read_file"
    assert scored == [(8, 9), (8, 9)]
