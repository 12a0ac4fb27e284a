"""The "already applied" diagnosis of a failed edit is given only when it is true (issue 17)."""

from __future__ import annotations

import pytest

from fsguard.core.errors import AmbiguousMatchError, NoMatchError
from fsguard.core.matching import Replacement, find_matches

NUMBERED = "".join(f"x{i} = {i}\n" for i in range(1, 100)) + "max_value = x\n"


def _diagnosis(text: str, old: str, new: str) -> NoMatchError:
    with pytest.raises(NoMatchError) as caught:
        find_matches(text, Replacement(old, new))
    return caught.value


def test_a_one_character_new_text_found_elsewhere_is_not_called_applied() -> None:
    error = _diagnosis(NUMBERED, "x100 = 999", "x")
    assert "already applied" not in error.message
    assert "already_applied" not in error.fields


def test_new_text_cut_out_of_a_longer_word_is_not_called_applied() -> None:
    error = _diagnosis("maximum = 1\n", "minimum", "max")
    assert "already applied" not in error.message


def test_new_text_found_several_times_is_not_called_applied() -> None:
    error = _diagnosis("return None\nreturn None\n", "return 0", "return None")
    assert "already applied" not in error.message


def test_an_edit_retried_after_it_succeeded_is_called_applied_at_its_line() -> None:
    old, new = "def total(a):\n    return a\n", "def total(a, b):\n    return a + b\n"
    text = "import os\n\n" + old + "\nprint(total(1))\n"
    edited = find_matches(text, Replacement(old, new)).apply(text)
    error = _diagnosis(edited, old, new)
    assert error.fields["already_applied"] is True
    assert error.fields["line"] == 3
    assert "at line 3: the edit looks already applied" in error.message


def test_a_retried_edit_in_a_crlf_file_is_called_applied() -> None:
    error = _diagnosis("a\r\nnew one\r\nb\r\n", "old one\n", "new one\n")
    assert error.fields["already_applied"] is True


def test_an_ambiguous_edit_lists_ten_lines_and_the_count() -> None:
    with pytest.raises(AmbiguousMatchError) as caught:
        find_matches("hit\n" * 111, Replacement("hit", "miss"))
    message = caught.value.message
    assert "at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 101 more (search_files shows every one)" in message
    assert caught.value.fields["lines"] == list(range(1, 112))
    assert len(message) < 400


def test_an_applied_diagnosis_shows_the_line_so_new_text_in_a_comment_is_told_from_the_edit() -> None:
    # new_text once, old_text nowhere: the rule cannot tell a comment from the edited line, the agent can.
    error = _diagnosis("# TODO: set x = 2 later\ndef f():\n    x = 5\n", "x = 1", "x = 2")
    assert 'at line 1: the edit looks already applied if that line is where it goes: "# TODO: set x = 2 later"' in (
        error.message
    )


def test_new_text_whose_last_letter_a_combining_mark_changes_is_not_called_applied() -> None:
    # A decomposed (NFD) file holds "cafe" inside "café": e and U+0301 read as é, no plain e.
    error = _diagnosis("menu: cafe\u0301 au lait\n", "the tea", "cafe")
    assert "already applied" not in error.message
    assert "already_applied" not in error.fields
