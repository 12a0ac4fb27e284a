"""Lock files are deleted by sweeps, and a sweep never splits a lock: what anyone holds stays, and an acquirer
that locked a file a sweep unlinked takes the linked one instead."""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from fsguard.core import locks as locks_module
from fsguard.core import locksweep
from fsguard.core.locks import PathLocks
from tests.core.test_locks import BLOCKED, WAIT, _holder, _second_waits_for_first

REAL_FLOCK = fcntl.flock


def lock_name(path: Path) -> str:
    return hashlib.sha256(str(path).encode()).hexdigest()[:32] + ".lock"


def names_in(directory: Path) -> set[str]:
    return {entry.name for entry in directory.iterdir()}


@pytest.fixture
def lock_dirs(tmp_path: Path, user_lock_dir: Path) -> tuple[Path, Path]:
    """The state directory's lock directory and the user's shared one."""
    return tmp_path / "state" / "locks", user_lock_dir


def both_hold(lock_dirs: tuple[Path, Path], names: set[str]) -> bool:
    return all(names_in(directory) == names for directory in lock_dirs)


def test_a_sweep_deletes_the_lock_files_this_process_used_from_both_directories(
    tmp_path: Path, root: Path, lock_dirs: tuple[Path, Path]
) -> None:
    locks = PathLocks(tmp_path / "state", [root])
    paths = [root / "a.txt", root / "d" / "b.txt", root / "d"]
    for path in paths:
        with locks.hold(path):
            pass
    used = {lock_name(path) for path in [*paths, root]}
    assert both_hold(lock_dirs, used)

    assert locks.sweep() == 2 * len(used)

    assert both_hold(lock_dirs, set())


def test_a_sweep_keeps_the_files_a_thread_of_this_process_holds_and_the_lock_still_excludes(
    tmp_path: Path, root: Path, lock_dirs: tuple[Path, Path]
) -> None:
    # The holding thread's open file description is not the sweep's: LOCK_NB fails for it as for another process.
    locks = PathLocks(tmp_path / "state", [root])
    held, other = root / "d" / "held.txt", root / "other.txt"
    for path in (held, other):
        with locks.hold(path):
            pass
    holding, release = threading.Event(), threading.Event()
    waiting, done = threading.Event(), threading.Event()
    holder = _holder(locks, held, holding, release)
    try:
        assert holding.wait(WAIT)
        assert locks.sweep() == 2  # other.txt's, in both directories
        assert both_hold(lock_dirs, {lock_name(held), lock_name(held.parent), lock_name(root)})
        waiter = _holder(PathLocks(tmp_path / "state", [root]), held, waiting, done)
        assert not waiting.wait(BLOCKED), "a second holder got the lock a sweep had left held"
    finally:
        release.set()
    done.set()
    assert waiting.wait(WAIT)
    holder.join(WAIT)
    waiter.join(WAIT)
    assert not holder.is_alive()
    assert not waiter.is_alive()


def test_a_sweep_keeps_a_lock_file_another_process_holds_and_that_process_still_excludes_ours(
    tmp_path: Path, root: Path, lock_dirs: tuple[Path, Path]
) -> None:
    locks = PathLocks(tmp_path / "state", [root])
    path = root / "f.txt"
    with locks.hold(path):
        pass
    state_locks, shared = lock_dirs
    holding = (
        "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDWR); fcntl.flock(fd, fcntl.LOCK_EX);"
        "print('held', flush=True); sys.stdin.read()"
    )
    taken, release = threading.Event(), threading.Event()
    with subprocess.Popen(
        [sys.executable, "-c", holding, str(shared / lock_name(path))], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    ) as child:
        assert child.stdin is not None
        assert child.stdout is not None
        try:
            assert child.stdout.readline() == b"held\n"
            assert locks.sweep() == 3
            assert names_in(shared) == {lock_name(path)}  # the root's is swept: nobody holds it
            assert names_in(state_locks) == set()
            waiter = _holder(locks, path, taken, release)
            assert not taken.wait(BLOCKED), "the lock was taken while another process held its file"
        finally:
            child.stdin.close()
            child.wait(WAIT)
    release.set()
    assert taken.wait(WAIT)
    waiter.join(WAIT)
    assert not waiter.is_alive()


def unlinking_first(unlinked: list[Path]) -> Callable[[int, int], None]:
    """``flock`` that first sweeps the file ``fd`` opened, once per path: a sweep between an open and a flock."""

    def flock(fd: int, operation: int) -> None:
        path = Path(f"/proc/self/fd/{fd}").readlink()
        if not operation & fcntl.LOCK_NB and path not in unlinked:
            unlinked.append(path)
            assert locksweep.remove_if_free(str(path))
        REAL_FLOCK(fd, operation)

    return flock


def test_an_acquirer_whose_lock_file_was_unlinked_before_its_flock_holds_the_linked_file_and_others_wait(
    tmp_path: Path, root: Path, lock_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    unlinked: list[Path] = []
    monkeypatch.setattr(fcntl, "flock", unlinking_first(unlinked))
    path = root / "f.txt"
    first, second = PathLocks(tmp_path / "state", [root]), PathLocks(tmp_path / "state", [root])

    _second_waits_for_first((first, path), (second, path))

    assert len(unlinked) == 4  # the root's and the file's lock files, in both directories, once each
    assert both_hold(lock_dirs, {lock_name(path), lock_name(root)})


def test_a_sweep_never_unlinks_a_file_created_after_another_sweep_removed_the_one_it_opened(
    tmp_path: Path, root: Path, lock_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Between the sweep's open and its flock, another sweep removes the file and an acquirer creates and holds a
    # new one at the name: the sweep locks the unlinked inode, and must not unlink the acquirer's file.
    locks = PathLocks(tmp_path / "state", [root])
    path = root / "f.txt"
    with locks.hold(path):
        pass
    newcomers: list[int] = []

    def flock(fd: int, operation: int) -> None:
        if operation & fcntl.LOCK_NB:
            name = Path(f"/proc/self/fd/{fd}").readlink()
            name.unlink()
            newcomer = os.open(name, os.O_RDWR | os.O_CREAT, 0o600)
            REAL_FLOCK(newcomer, fcntl.LOCK_SH)
            newcomers.append(newcomer)
        REAL_FLOCK(fd, operation)

    monkeypatch.setattr(fcntl, "flock", flock)
    try:
        assert locks.sweep() == 0
        assert both_hold(lock_dirs, {lock_name(path), lock_name(root)})
    finally:
        for fd in newcomers:
            os.close(fd)
    assert len(newcomers) == 4


def test_passing_the_bound_of_names_used_starts_a_sweep(
    tmp_path: Path, root: Path, lock_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locks_module, "SWEEP_AT", 4)
    locks = PathLocks(tmp_path / "state", [root])
    for number in range(3):  # with the root's: 4 names, not past the bound
        with locks.hold(root / f"{number}.txt"):
            pass
    assert locks.sweeper is None
    assert both_hold(lock_dirs, {lock_name(root)} | {lock_name(root / f"{number}.txt") for number in range(3)})

    with locks.hold(root / "3.txt"):
        pass

    assert locks.sweeper is not None
    locks.sweeper.join(WAIT)
    assert not locks.sweeper.is_alive()
    assert both_hold(lock_dirs, set())


def test_a_shutdown_sweep_removes_old_leftovers_of_other_processes_unless_held(
    tmp_path: Path, lock_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    locks = PathLocks(tmp_path / "state")
    leftovers = {f"{number:032x}.lock" for number in range(3)}
    for directory in lock_dirs:
        for name in [*leftovers, "notes.txt"]:
            (directory / name).write_bytes(b"")
    held = os.open(lock_dirs[1] / f"{0:032x}.lock", os.O_RDONLY)  # as another process's lock
    fcntl.flock(held, fcntl.LOCK_SH)
    try:
        assert locks.sweep(leftovers=True) == 0  # created just now: not leftovers yet
        monkeypatch.setattr(locks_module, "LEFTOVER_AGE_S", 0.0)
        assert locks.sweep(leftovers=True) == 5
    finally:
        os.close(held)
    assert names_in(lock_dirs[0]) == {"notes.txt"}
    assert names_in(lock_dirs[1]) == {"notes.txt", f"{0:032x}.lock"}


def test_a_shutdown_sweep_looks_at_a_bounded_number_of_entries_for_leftovers(
    tmp_path: Path, lock_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(locks_module, "LEFTOVER_AGE_S", 0.0)
    monkeypatch.setattr(locksweep, "LEFTOVERS_EXAMINED", 2)
    locks = PathLocks(tmp_path / "state")
    for directory in lock_dirs:
        for number in range(5):
            (directory / f"{number:032x}.lock").write_bytes(b"")

    assert locks.sweep(leftovers=True) == 4

    assert [len(names_in(directory)) for directory in lock_dirs] == [3, 3]
