"""PathLocks: calls on one path take turns, calls on different paths do not wait, idle entries are dropped."""

from __future__ import annotations

import fcntl
import hashlib
import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core.locks import LockBusy, PathLocks, _parents, _path_order
from tests.strategies import path_names

WAIT = 5.0  # upper bound for anything that must happen
BLOCKED = 0.2  # how long a thread that must be blocked gets to prove it is not


def _start(target: Callable[[], None]) -> threading.Thread:
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    return thread


def _holder(locks: PathLocks, path: Path, holding: threading.Event, release: threading.Event) -> threading.Thread:
    """A thread that holds the lock of ``path`` until ``release`` is set."""

    def hold() -> None:
        with locks.hold(path):
            holding.set()
            release.wait(WAIT)

    return _start(hold)


def _second_waits_for_first(first: tuple[PathLocks, Path], second: tuple[PathLocks, Path]) -> None:
    """Hold ``first``'s lock in one thread: ``second``'s, asked for by another, is not taken until it is released,
    and then is."""
    first_holding, first_release = threading.Event(), threading.Event()
    second_holding, second_release = threading.Event(), threading.Event()
    holder = _holder(*first, first_holding, first_release)
    try:
        assert first_holding.wait(WAIT)
        waiter = _holder(*second, second_holding, second_release)
        assert not second_holding.wait(BLOCKED), f"{second[1]} was locked while {first[1]} was held"
    finally:
        first_release.set()
    second_release.set()
    assert second_holding.wait(WAIT)
    holder.join(WAIT)
    waiter.join(WAIT)
    assert not holder.is_alive()
    assert not waiter.is_alive()


def test_path_locks_make_a_second_thread_wait_until_the_first_releases_the_same_path(tmp_path: Path) -> None:
    locks = PathLocks(tmp_path / "state")
    path = tmp_path / "shared.txt"
    first_holding, first_release = threading.Event(), threading.Event()
    second_trying, second_holding = threading.Event(), threading.Event()
    order: list[str] = []

    first = _holder(locks, path, first_holding, first_release)
    assert first_holding.wait(WAIT)

    def take_second() -> None:
        second_trying.set()
        with locks.hold(path):
            order.append("second in")
            second_holding.set()

    second = _start(take_second)
    try:
        assert second_trying.wait(WAIT)
        assert not second_holding.wait(BLOCKED), "the second thread got the lock while the first held it"
        assert len(locks) == 1
        order.append("first out")
    finally:
        first_release.set()
    assert second_holding.wait(WAIT)
    first.join(WAIT)
    second.join(WAIT)

    assert order == ["first out", "second in"]
    assert not first.is_alive()
    assert not second.is_alive()
    assert len(locks) == 0


def test_path_locks_do_not_make_a_thread_wait_for_a_different_path(tmp_path: Path) -> None:
    locks = PathLocks(tmp_path / "state")
    first_holding, first_release = threading.Event(), threading.Event()
    second_holding, second_release = threading.Event(), threading.Event()

    first = _holder(locks, tmp_path / "a.txt", first_holding, first_release)
    try:
        assert first_holding.wait(WAIT)
        second = _holder(locks, tmp_path / "b.txt", second_holding, second_release)
        try:
            assert second_holding.wait(WAIT), "the second path waited for the first path's lock"
            assert len(locks) == 2
        finally:
            second_release.set()
    finally:
        first_release.set()
    first.join(WAIT)
    second.join(WAIT)

    assert not first.is_alive()
    assert not second.is_alive()
    assert len(locks) == 0


def test_path_locks_drop_the_entry_once_nobody_holds_or_waits_for_it(tmp_path: Path) -> None:
    locks = PathLocks(tmp_path / "state")
    path = tmp_path / "f.txt"

    with locks.hold(path):
        assert len(locks) == 1
    assert len(locks) == 0

    with locks.hold(path):  # the lock is usable again after its entry was dropped
        assert len(locks) == 1
    assert len(locks) == 0


def test_path_locks_release_and_drop_the_entry_when_the_block_raises(tmp_path: Path) -> None:
    locks = PathLocks(tmp_path / "state")
    path = tmp_path / "f.txt"

    with pytest.raises(RuntimeError, match="boom"), locks.hold(path):
        raise RuntimeError("boom")

    assert len(locks) == 0
    taken = threading.Event()

    def take() -> None:
        with locks.hold(path):
            taken.set()

    thread = _start(take)
    assert taken.wait(WAIT), "the lock stayed held after the block raised"
    thread.join(WAIT)


@pytest.mark.parametrize("first", ["file", "directory"])
def test_a_directory_lock_and_the_lock_of_a_file_inside_it_take_turns(tmp_path: Path, first: str) -> None:
    # A delete or move of a directory must not run while an edit inside it is between its read and its rename.
    locks = PathLocks(tmp_path / "state")
    directory = tmp_path / "d"
    paths = {"directory": directory, "file": directory / "sub" / "f.txt"}
    second = paths["directory" if first == "file" else "file"]
    _second_waits_for_first((locks, paths[first]), (locks, second))
    assert len(locks) == 0


def test_files_in_one_directory_do_not_wait_for_each_other_and_a_thread_may_lock_a_directory_then_a_file_in_it(
    tmp_path: Path,
) -> None:
    locks = PathLocks(tmp_path / "state")
    first_holding, first_release = threading.Event(), threading.Event()
    second_holding, second_release = threading.Event(), threading.Event()
    first = _holder(locks, tmp_path / "d" / "a.txt", first_holding, first_release)
    second = _holder(locks, tmp_path / "d" / "b.txt", second_holding, second_release)
    try:
        assert first_holding.wait(WAIT)
        assert second_holding.wait(WAIT), "a file's lock waited for another file's in the same directory"
    finally:
        first_release.set()
        second_release.set()
    first.join(WAIT)
    second.join(WAIT)

    nested = threading.Event()

    def directory_then_file() -> None:  # as extraction locks a source and a destination in path order
        with locks.hold(tmp_path / "d"), locks.hold(tmp_path / "d" / "a.txt"):
            nested.set()

    thread = _start(directory_then_file)
    assert nested.wait(WAIT), "a thread holding a directory's lock waited for itself to lock a file inside it"
    thread.join(WAIT)
    assert len(locks) == 0


def test_path_locks_of_two_state_directories_take_turns_on_one_path(tmp_path: Path) -> None:
    # Two fsguards started with different --state-dir values must still exclude each other.
    path = tmp_path / "shared.txt"
    _second_waits_for_first((PathLocks(tmp_path / "state-a"), path), (PathLocks(tmp_path / "state-b"), path))


def test_with_roots_a_file_waits_for_its_directory_below_a_root_and_for_any_directory_outside_every_root(
    tmp_path: Path,
) -> None:
    # The shared locks reach up to the roots (the part a call can delete or move); a path no root holds, as
    # --unrestricted allows, takes them all the way up.
    inside, outside = tmp_path / "root" / "d", tmp_path / "elsewhere" / "d"
    locks = PathLocks(tmp_path / "state", [tmp_path / "root"])
    for directory in (inside, outside):
        _second_waits_for_first((locks, directory), (locks, directory / "f.txt"))
    assert len(locks) == 0


# Canonical paths: absolute, no '.' or '..' components (what the locks are given).
CANONICAL_NAMES = path_names().filter(lambda name: name not in (".", ".."))


@given(st.lists(st.lists(CANONICAL_NAMES, max_size=4), min_size=1, max_size=6))
def test_directories_above_a_path_and_the_lock_order_are_those_of_pathlib(paths: list[list[str]]) -> None:
    texts = ["/" + "/".join(parts) for parts in paths]
    for text in texts:
        assert _parents(text) == [str(parent) for parent in Path(text).parents]
    assert sorted(texts, key=_path_order) == [str(path) for path in sorted(map(Path, texts))]


def _foreign_hold(locks_dir: Path, path: Path) -> int:
    """An fd holding ``path``'s lock file in ``locks_dir`` the way another process's fsguard holds it."""
    name = hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".lock"
    fd = os.open(locks_dir / name, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_the_first_lock_of_a_claimed_call_held_by_another_process_is_busy_and_leaves_nothing_held(
    tmp_path: Path,
) -> None:
    locks = PathLocks(tmp_path / "state")
    path = tmp_path / "a.txt"
    foreign = _foreign_hold(tmp_path / "state" / "locks", path)
    assert locks.claim()
    try:
        with pytest.raises(LockBusy), locks.hold(path):
            pytest.fail("the lock was taken while another process held it")
    finally:
        locks.release()
        os.close(foreign)
    assert len(locks) == 0
    _second_waits_for_first((locks, path), (locks, path))  # and the path locks as before


def test_a_claimed_call_waits_for_its_later_locks_as_any_call_does(tmp_path: Path) -> None:
    # Its first lock taken, the call may have written: running it again elsewhere would write twice.
    locks = PathLocks(tmp_path / "state")
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    foreign = _foreign_hold(tmp_path / "state" / "locks", second)
    gone: list[bool] = []

    def other_process_done() -> None:
        gone.append(True)  # before the close: whoever then holds the lock sees it
        os.close(foreign)

    let_go = threading.Timer(BLOCKED, other_process_done)
    assert locks.claim()
    try:
        with locks.hold(first):
            let_go.start()
            with locks.hold(second):
                assert gone  # taken only once the other process let go
    finally:
        locks.release()
        let_go.join(WAIT)


class Cancelled(BaseException):
    """What a cancelled call's check raises (anyio's cancellation is a BaseException too)."""


def test_a_cancellable_block_checks_once_its_first_locks_are_taken_and_a_raise_lets_them_go(tmp_path: Path) -> None:
    locks = PathLocks(tmp_path / "state")
    path = tmp_path / "f.txt"
    checks: list[bool] = []

    def check() -> None:
        checks.append(True)
        raise Cancelled

    with pytest.raises(Cancelled), locks.cancellable(check), locks.hold(path):
        pytest.fail("the block ran although the call was cancelled")
    assert checks == [True]
    assert len(locks) == 0  # let go: another thread takes the lock at once
    _second_waits_for_first((locks, path), (locks, path))


def test_a_cancellable_block_does_not_check_its_later_locks_so_a_rollback_is_never_cut_short(tmp_path: Path) -> None:
    locks = PathLocks(tmp_path / "state")
    checks: list[str] = []
    with locks.cancellable(lambda: checks.append("checked")):
        with locks.hold(tmp_path / "a.txt"):
            assert checks == ["checked"]
        with locks.hold(tmp_path / "b.txt"):
            pass
    with locks.hold(tmp_path / "c.txt"):  # outside the block: no check
        pass
    assert checks == ["checked"]


def test_a_lock_held_without_changing_checks_and_leaves_the_check_to_the_next_lock(tmp_path: Path) -> None:
    locks = PathLocks(tmp_path / "state")
    checks: list[str] = []
    with locks.cancellable(lambda: checks.append("checked")):
        with locks.hold(tmp_path / "input.js", changing=False):
            assert checks == ["checked"]
        with locks.hold(tmp_path / "output.js"):  # the first lock before a change: checked again
            assert checks == ["checked", "checked"]
        with locks.hold(tmp_path / "output.js"):
            pass
    assert checks == ["checked", "checked"]


def test_a_step_asks_the_check_again_at_its_first_lock_and_ends_with_none_armed(tmp_path: Path) -> None:
    # A project_replace changes file after file, each under its own lock; a non-atomic batch, operation after operation.
    locks = PathLocks(tmp_path / "state")
    checks: list[str] = []
    with locks.cancellable(lambda: checks.append("checked")):
        with locks.hold(tmp_path / "a.txt"):
            assert checks == ["checked"]
        with locks.step(), locks.hold(tmp_path / "b.txt"):
            assert checks == ["checked", "checked"]
            with locks.hold(tmp_path / "c.txt"):  # a later lock of the same step: no check
                pass
        with locks.step():  # a step refused before its first lock leaves no check armed behind it
            pass
        with locks.hold_all(tmp_path / "a.txt", tmp_path / "b.txt"):  # the rollback after the steps: never cut short
            pass
    with locks.step(), locks.hold(tmp_path / "d.txt"):  # outside a cancellable block: nothing to ask
        pass
    assert checks == ["checked", "checked"]


def test_a_thread_holding_a_paths_lock_takes_it_again_at_once_and_keeps_it_to_the_end(tmp_path: Path) -> None:
    # A batch rollback holds every file's lock, then reverts each through the engines, which lock that file again.
    locks, other = PathLocks(tmp_path / "state"), PathLocks(tmp_path / "state")
    held_inside: list[bool] = []

    def nested() -> None:
        with locks.hold_all(tmp_path / "a.txt", tmp_path / "b.txt"):
            with locks.hold(tmp_path / "a.txt"):
                pass
            assert other.claim()  # another process's first lock does not wait: LockBusy while a.txt is held
            try:
                with other.hold(tmp_path / "a.txt"):
                    held_inside.append(False)
            except LockBusy:
                held_inside.append(True)
            finally:
                other.release()

    thread = threading.Thread(target=nested, daemon=True)
    thread.start()
    thread.join(WAIT)
    assert not thread.is_alive(), "a thread waited for the lock it holds"
    assert held_inside == [True]
