"""The scale benchmark's timing rules (benchmarks/bench_scale.py), with sides that answer in set times: a quick row is
timed while its servers are fresh and again once they are warm, and its target is met only when it holds in both."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))

from bench_scale import Measured, Timing, interleave
from scale_data import Row, Target


class TimedSide:
    """A side whose calls take ``first`` ms for their first ``slow_calls``, then ``later`` ms."""

    def __init__(self, first: float, later: float, slow_calls: int) -> None:
        self.timing = Timing()
        self._times: Iterator[float] = iter([first] * slow_calls)
        self._later = later
        self.calls = 0

    def first(self) -> bool:
        self.timing.first_ms = self.timing.median_ms = 50.0
        return True

    def again(self) -> float:
        self.calls += 1
        return next(self._times, self._later)

    def finish(self) -> None:
        """Nothing to stop."""


ROW = Row("tail", "read_file", {}, Target("≤ reference", ratio=1.0))


def test_a_quick_row_is_timed_fresh_and_again_after_the_settling_rounds() -> None:
    ours = TimedSide(1.0, 1.0, 0)
    reference = TimedSide(2.0, 0.5, 35)  # fast only once warm, as a JIT-compiled server is
    interleave([ours, reference], runs=5, quick_runs=30, settle_rounds=100)
    assert (ours.timing.fresh_ms, ours.timing.median_ms) == (1.0, 1.0)
    assert (reference.timing.fresh_ms, reference.timing.median_ms) == (2.0, 0.5)
    assert ours.calls == reference.calls == 5 + 30 + 100 + 30
    measured = Measured(ROW, ours.timing, reference.timing)
    assert (measured.fresh_ratio(), measured.ratio()) == (0.5, 2.0)
    assert measured.met() == "no (met fresh only)"


def test_a_target_held_fresh_and_warm_is_met() -> None:
    ours, reference = TimedSide(1.0, 0.4, 35), TimedSide(2.0, 0.5, 35)
    interleave([ours, reference], runs=5, quick_runs=30, settle_rounds=10)
    assert Measured(ROW, ours.timing, reference.timing).met() == "yes"


def test_a_row_with_one_slow_side_settles_nothing_so_every_figure_is_taken_in_turn() -> None:
    ours = TimedSide(80.0, 80.0, 0)  # above the quick line: its five calls are its figure
    rg = TimedSide(20.0, 20.0, 0)
    interleave([ours, rg], runs=5, quick_runs=30, settle_rounds=100)
    assert ours.calls == 5
    assert rg.calls == 5 + 30
    assert ours.timing.fresh_ms is None
    assert rg.timing.fresh_ms is None
    assert Measured(ROW, ours.timing, rg.timing).fresh_ratio() is None
