"""Risk grading and notes, the integrity check, and the rewrite, truncation and inflation guards."""

from __future__ import annotations

import itertools
import re
import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.risk import (
    RiskAssessment,
    RiskLevel,
    RiskPolicy,
    assess_risk,
    check_integrity,
    rewrite_guard,
    write_guard,
)
from fsguard.voice.notes import integrity_problem, risk_note

POLICY = RiskPolicy()


def _assessed(level: RiskLevel, pct: float, chars: int = 1234, occurrences: int = 3) -> RiskAssessment:
    return RiskAssessment(level, pct, chars, occurrences, ())


# --- assess_risk ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file_chars", "chars_changed", "level"),
    [
        (500, 10, RiskLevel.LOW),
        (500, 99, RiskLevel.LOW),
        (500, 100, RiskLevel.MEDIUM),
        (500, 374, RiskLevel.MEDIUM),
        (500, 375, RiskLevel.HIGH),
        (500, 400, RiskLevel.HIGH),
        (500, 449, RiskLevel.HIGH),
        (500, 450, RiskLevel.CRITICAL),
        (10, 10, RiskLevel.CRITICAL),
    ],
)
def test_the_share_of_the_file_changed_sets_the_level_at_20_75_and_90_percent(
    file_chars: int, chars_changed: int, level: RiskLevel
) -> None:
    assessment = assess_risk(POLICY, file_chars=file_chars, chars_changed=chars_changed, occurrences=1)

    assert assessment.level is level
    assert assessment.change_pct == pytest.approx(chars_changed / file_chars * 100)


@pytest.mark.parametrize(
    ("occurrences", "level"),
    [(49, RiskLevel.LOW), (50, RiskLevel.MEDIUM), (99, RiskLevel.MEDIUM), (100, RiskLevel.HIGH)],
)
def test_many_occurrences_of_a_tiny_change_raise_the_level_at_50_and_100(occurrences: int, level: RiskLevel) -> None:
    assessment = assess_risk(POLICY, file_chars=100_000, chars_changed=occurrences, occurrences=occurrences)

    assert assessment.level is level


def test_occurrences_never_lower_the_level_the_share_gives() -> None:
    assessment = assess_risk(POLICY, file_chars=100, chars_changed=95, occurrences=100)

    assert assessment.level is RiskLevel.CRITICAL


def test_the_policy_thresholds_are_configurable() -> None:
    strict = RiskPolicy(medium_pct=5.0, high_pct=10.0, occurrences_medium=2, occurrences_high=3)

    assert assess_risk(strict, file_chars=100, chars_changed=5, occurrences=1).level is RiskLevel.MEDIUM
    assert assess_risk(strict, file_chars=100, chars_changed=10, occurrences=1).level is RiskLevel.HIGH
    assert assess_risk(strict, file_chars=1000, chars_changed=1, occurrences=3).level is RiskLevel.HIGH


def test_any_change_to_an_empty_file_counts_as_100_percent_and_no_change_as_0() -> None:
    assert assess_risk(POLICY, file_chars=0, chars_changed=5, occurrences=1).change_pct == 100.0
    assert assess_risk(POLICY, file_chars=0, chars_changed=0, occurrences=0).level is RiskLevel.LOW


def test_the_percentage_is_clamped_to_100_when_more_changes_than_the_file_held() -> None:
    assessment = assess_risk(POLICY, file_chars=10, chars_changed=35, occurrences=1)

    assert (assessment.change_pct, assessment.level) == (100.0, RiskLevel.CRITICAL)


def test_factors_name_the_share_the_occurrences_and_a_deletion() -> None:
    assessment = assess_risk(POLICY, file_chars=1000, chars_changed=620, occurrences=120, deletes=True)

    assert assessment.factors == ("62% of the file changes", "120 occurrences", "deletes text")
    assert assess_risk(POLICY, file_chars=1000, chars_changed=5, occurrences=1).factors == ()


@given(
    file_chars=st.integers(min_value=0, max_value=10**6),
    chars_changed=st.integers(min_value=0, max_value=2 * 10**6),
    occurrences=st.integers(min_value=0, max_value=500),
)
def test_the_level_never_drops_when_more_of_the_file_changes(
    file_chars: int, chars_changed: int, occurrences: int
) -> None:
    order = list(RiskLevel)
    less = assess_risk(POLICY, file_chars=file_chars, chars_changed=chars_changed, occurrences=occurrences)
    more = assess_risk(POLICY, file_chars=file_chars, chars_changed=chars_changed + 1, occurrences=occurrences + 1)

    assert 0.0 <= less.change_pct <= 100.0
    assert order.index(less.level) <= order.index(more.level)


# --- risk_note ------------------------------------------------------------------------------------------------------


def test_a_low_risk_edit_gets_no_note() -> None:
    assert risk_note(_assessed(RiskLevel.LOW, 5.0), path="a.py", backup_id="b1", lines=50) is None


def test_the_note_states_the_facts_and_the_backup_without_alarm() -> None:
    note = risk_note(_assessed(RiskLevel.MEDIUM, 30.4), path="a.py", backup_id="b-42", lines=50)

    assert note is not None
    assert note == "note: edit (~1,234 bytes affected, 3 replacements, 30% of file). backup:b-42"
    assert "RISK" not in note.upper()
    assert "⚠" not in note


def test_the_note_leaves_out_the_backup_when_there_is_none() -> None:
    note = risk_note(_assessed(RiskLevel.MEDIUM, 25.0, occurrences=1), path="a.py", backup_id=None, lines=50)

    assert note == "note: edit (~1,234 bytes affected, 1 replacement, 25% of file)."


@pytest.mark.parametrize(("pct", "hinted"), [(39.4, False), (40.0, True), (62.0, True)])
def test_the_note_suggests_reading_the_tail_back_from_40_percent(pct: float, hinted: bool) -> None:
    note = risk_note(_assessed(RiskLevel.HIGH, pct), path="src/a.py", backup_id="b1", lines=50)

    assert note is not None
    assert note.endswith(' — verify with read_file("src/a.py", mode="tail") if needed') is hinted


def test_the_note_of_a_dry_run_suggests_no_read_back() -> None:
    note = risk_note(_assessed(RiskLevel.HIGH, 62.0), path="src/a.py", backup_id=None, lines=50)

    assert note == "note: large edit (~1,234 bytes affected, 3 replacements, 62% of file)."


def test_the_note_clamps_the_percentage_to_100() -> None:
    note = risk_note(_assessed(RiskLevel.CRITICAL, 250.0), path="a.py", backup_id="b1", lines=50)

    assert note is not None
    assert "100% of file" in note
    assert "250" not in note


@pytest.mark.parametrize(("lines", "chars", "small"), [(2, 5, True), (9, 199, True), (10, 5, False), (2, 200, False)])
def test_a_few_characters_of_a_file_of_few_lines_are_noted_as_an_edit_on_a_small_file(
    lines: int, chars: int, small: bool
) -> None:
    """Catalog §2.5: below 10 lines and 200 characters the note says so, not how large a share the edit was."""
    note = risk_note(
        _assessed(RiskLevel.HIGH, 62.0, chars=chars, occurrences=1), path="a.py", backup_id="b1", lines=lines
    )

    assert note is not None
    if small:
        assert note == f"note: edit on small file ({lines} lines, ~{chars} bytes affected, 1 replacement). backup:b1"
    else:
        assert note.startswith("note: large edit (")
        assert note.endswith(' — verify with read_file("a.py", mode="tail") if needed')


# --- check_integrity ------------------------------------------------------------------------------------------------


def test_a_one_byte_file_after_a_60_percent_change_is_a_warning_naming_its_size() -> None:
    integrity = check_integrity(b"x", lines=1, change_pct=60.0)

    assert (integrity.status, integrity.size, integrity.lines) == ("WARNING", 1, 1)
    assert "1 byte" in integrity_problem(integrity)
    assert "60%" in integrity_problem(integrity)


def test_an_empty_file_after_a_35_percent_change_is_an_error() -> None:
    integrity = check_integrity(b"", lines=0, change_pct=35.0)

    assert integrity.status == "ERROR"
    assert "empty" in integrity_problem(integrity)


@pytest.mark.parametrize(
    ("data", "pct"),
    [(b"", 30.0), (b"", 0.0), (b"x" * 99, 50.0), (b"x" * 100, 97.0), (b"short", 10.0)],
    ids=["empty after 30%", "empty unchanged", "99 B after 50%", "100 B after 97%", "small after a small change"],
)
def test_files_that_are_not_empty_or_tiny_after_a_large_change_are_ok(data: bytes, pct: float) -> None:
    integrity = check_integrity(data, lines=1, change_pct=pct)

    assert (integrity.status, integrity_problem(integrity)) == ("OK", "")


def _data_with_a_small_crc() -> bytes:
    """The first decimal number whose CRC-32 starts with three zero hex digits."""
    for number in itertools.count():
        data = str(number).encode()
        if zlib.crc32(data) < 0x00100000:
            return data
    raise AssertionError("unreachable")


def test_the_crc_keeps_its_leading_zeros() -> None:
    data = _data_with_a_small_crc()

    integrity = check_integrity(data, lines=1, change_pct=0.0)

    assert integrity.crc32 == f"{zlib.crc32(data):08x}"
    assert integrity.crc32.startswith("000")


@given(data=st.binary(max_size=64))
def test_the_crc_is_always_8_lowercase_hex_digits(data: bytes) -> None:
    crc = check_integrity(data, lines=0, change_pct=0.0).crc32

    assert re.fullmatch(r"[0-9a-f]{8}", crc)
    assert int(crc, 16) == zlib.crc32(data)


# --- rewrite_guard --------------------------------------------------------------------------------------------------

LINE = "x" * 59 + "\n"  # 60-character lines


def test_a_15_line_header_replaced_by_a_150_line_body_in_a_150_line_file_is_refused() -> None:
    message = rewrite_guard(file_size=150 * len(LINE), old_len=15 * len(LINE), new_len=150 * len(LINE))

    assert message is not None
    assert "accidental full-file rewrite" in message
    assert "900 characters (10%" in message
    assert "9,000 characters (100%" in message
    assert "write_file" in message
    assert "allow_rewrite=true" in message


@pytest.mark.parametrize(
    ("file_size", "old_len", "new_len"),
    [
        (150 * 60, 40 * 60, 45 * 60),
        (150 * 60, 15 * 60, 400),
        (1000, 100, 900),
        (2000, 1100, 2200),
        (2000, 2000, 4000),
    ],
    ids=["similar-size refactor", "small new_text", "file under 1 KiB", "under half would remain", "nothing remains"],
)
def test_edits_that_do_not_look_like_a_pasted_whole_file_are_allowed(
    file_size: int, old_len: int, new_len: int
) -> None:
    assert rewrite_guard(file_size=file_size, old_len=old_len, new_len=new_len) is None


def test_the_rewrite_guard_thresholds_are_inclusive() -> None:
    assert rewrite_guard(file_size=1024, old_len=250, new_len=512) is not None
    assert rewrite_guard(file_size=1023, old_len=250, new_len=512) is None
    assert rewrite_guard(file_size=1024, old_len=257, new_len=512) is None


# --- write_guard ----------------------------------------------------------------------------------------------------


def test_empty_content_over_a_non_empty_file_is_truncation() -> None:
    guard = write_guard(existing_size=9_000, new_size=0)

    assert guard is not None
    assert guard.kind == "truncation"
    assert guard.message == (
        "new content (0 B) is less than 50% of existing file (9000 B). Looks like accidental truncation."
    )


@pytest.mark.parametrize(
    ("existing_size", "new_size", "kind"),
    [
        (10_000, 4_000, "truncation"),
        (10_000, 5_000, None),
        (10_000, 6_000, None),
        (20 * 1024, 80 * 1024, "inflation"),
        (5 * 1024, 20 * 1024, None),
        (20 * 1024, 60 * 1024, None),
        (0, 100_000, None),
        (0, 0, None),
    ],
    ids=["40%", "50%", "60%", "4x of 20 KiB", "4x of 5 KiB", "3x of 20 KiB", "new file", "empty to empty"],
)
def test_whole_file_writes_are_flagged_below_half_or_past_three_times_a_large_file(
    existing_size: int, new_size: int, kind: str | None
) -> None:
    guard = write_guard(existing_size=existing_size, new_size=new_size)

    assert (guard.kind if guard else None) == kind


def test_the_inflation_message_gives_both_sizes_and_the_factor() -> None:
    guard = write_guard(existing_size=20 * 1024, new_size=80 * 1024)

    assert guard is not None
    assert "81920 B" in guard.message
    assert "20480 B" in guard.message
    assert "4.0x the existing file" in guard.message
