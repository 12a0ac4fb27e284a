"""Remembered facts: valid under the identity they were read with, bounded by their total weight."""

from __future__ import annotations

from pathlib import Path

from fsguard.core.remembered import Remembered

LATER = 10**30  # a clock far past every timestamp: every stat is old enough to remember


def test_the_oldest_values_make_room_for_a_new_one_within_the_weight_bound(tmp_path: Path) -> None:
    stat = tmp_path.stat()
    remembered: Remembered[str, str] = Remembered(5)
    for key in "abc":
        remembered.keep(key, 1, key.upper(), stat, taken=LATER, weight=2)

    assert [remembered.get(key, 1) for key in "abc"] == [None, "B", "C"]


def test_a_value_heavier_than_the_bound_is_not_kept_and_drops_nothing(tmp_path: Path) -> None:
    stat = tmp_path.stat()
    remembered: Remembered[str, str] = Remembered(5)
    remembered.keep("small", 1, "kept", stat, taken=LATER, weight=5)
    remembered.keep("big", 1, "too big", stat, taken=LATER, weight=6)

    assert (remembered.get("small", 1), remembered.get("big", 1)) == ("kept", None)


def test_keeping_a_key_again_replaces_its_value_and_its_weight(tmp_path: Path) -> None:
    stat = tmp_path.stat()
    remembered: Remembered[str, str] = Remembered(4)
    remembered.keep("a", 1, "first", stat, taken=LATER, weight=3)
    remembered.keep("a", 2, "second", stat, taken=LATER, weight=3)
    remembered.keep("b", 1, "other", stat, taken=LATER, weight=1)

    assert (remembered.get("a", 1), remembered.get("a", 2), remembered.get("b", 1)) == (None, "second", "other")
    assert len(remembered) == 2


def test_values_of_weight_zero_still_count_against_the_bound(tmp_path: Path) -> None:
    stat = tmp_path.stat()
    remembered: Remembered[int, str] = Remembered(3)
    for key in range(10):
        remembered.keep(key, 1, "a scan that left every name out", stat, taken=LATER, weight=0)

    assert len(remembered) == 3
    assert [remembered.get(key, 1) for key in (6, 7, 8, 9)] == [None, *["a scan that left every name out"] * 3]
