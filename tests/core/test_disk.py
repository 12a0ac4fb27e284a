"""AtomicWriter.write_at with a backup alongside: the temp is written on another thread while the backup runs, and
the file is replaced only once both have finished."""

from __future__ import annotations

import errno
import os
import resource
import select
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from fsguard.core import beneath
from fsguard.core.beneath import Pinned
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import DiskFullError, FsguardError

TEMP_MARK = ".fsguard-tmp-"
OLD = b"old bytes\n"


@contextmanager
def pinned(path: Path) -> Iterator[Pinned]:
    parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield Pinned(parent, path.name, path)
    finally:
        os.close(parent)


@pytest.fixture
def old_file(tmp_path: Path) -> Path:
    path = tmp_path / "f.txt"
    path.write_bytes(OLD)
    return path


def leftovers(directory: Path, state_dir: Path) -> list[str]:
    """Temp files beside the file, and temp records in the state directory."""
    temps = [entry.name for entry in directory.iterdir() if TEMP_MARK in entry.name]
    return temps + [entry.name for entry in (state_dir / "inflight").iterdir()]


def test_the_backup_alongside_sees_the_old_bytes_and_the_file_holds_the_new_ones_after(
    tmp_path: Path, state_dir: Path, old_file: Path
) -> None:
    seen: list[bytes] = []

    with pinned(old_file) as entry:
        AtomicWriter(state_dir).write_at(entry, b"new bytes\n", alongside=lambda: seen.append(old_file.read_bytes()))

    assert seen == [OLD]
    assert old_file.read_bytes() == b"new bytes\n"
    assert leftovers(tmp_path, state_dir) == []


def test_a_backup_that_fails_alongside_the_write_replaces_nothing_and_its_error_is_the_one_raised(
    tmp_path: Path, state_dir: Path, old_file: Path
) -> None:
    def backup() -> None:
        raise DiskFullError("the state directory is full.")

    with pinned(old_file) as entry, pytest.raises(DiskFullError, match="state directory"):
        AtomicWriter(state_dir).write_at(entry, b"new bytes\n", alongside=backup)

    assert old_file.read_bytes() == OLD
    assert leftovers(tmp_path, state_dir) == []


def test_a_failed_data_write_alongside_a_finished_backup_leaves_the_old_bytes_and_no_temp_file(
    tmp_path: Path, state_dir: Path, old_file: Path
) -> None:
    backed_up: list[bool] = []
    # A real write failure on the filler thread: above RLIMIT_FSIZE write() fails with EFBIG (SIGXFSZ ignored).
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, hard))
    try:
        with pinned(old_file) as entry, pytest.raises(FsguardError) as info:
            AtomicWriter(state_dir).write_at(entry, b"x" * (1 << 20), alongside=lambda: backed_up.append(True))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)

    assert backed_up == [True]
    assert "too large" in info.value.message.lower()
    assert old_file.read_bytes() == OLD
    assert leftovers(tmp_path, state_dir) == []


def test_a_temp_its_failed_write_cannot_remove_keeps_its_record_so_the_next_start_removes_it(
    tmp_path: Path, state_dir: Path, old_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The file's directory made read-only mid-write (by its owner): the rename is refused, and so is the temp's
    # unlink. The record was removed anyway, and the temp stayed in the user's directory for good.
    real_unlink = os.unlink

    def refused(*args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))

    def unlink(name: Any, *args: Any, **kwargs: Any) -> None:
        (refused if TEMP_MARK in str(name) else real_unlink)(name, *args, **kwargs)

    monkeypatch.setattr(os, "rename", refused)
    monkeypatch.setattr(beneath, "_renameat2", lambda: None)  # the temp goes in by os.rename, not an exchange
    monkeypatch.setattr(os, "unlink", unlink)
    with pinned(old_file) as entry, pytest.raises(FsguardError):
        AtomicWriter(state_dir).write_at(entry, b"new bytes\n")
    monkeypatch.undo()

    [temp] = [entry for entry in tmp_path.iterdir() if TEMP_MARK in entry.name]
    [record] = (state_dir / "inflight").iterdir()
    assert record.read_bytes() == os.fsencode(temp)
    record.rename(record.with_name(f"gone-{record.name}"))  # as the next start sees it: of a process that has ended
    assert AtomicWriter(state_dir).clean_strays() == [temp]
    assert leftovers(tmp_path, state_dir) == []
    assert old_file.read_bytes() == OLD


# Python 3.12+ warns that fork() in a threaded process may deadlock: that is the case this test is about.
@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_a_forked_child_writes_with_fillers_of_its_own(state_dir: Path, old_file: Path) -> None:
    writer = AtomicWriter(state_dir)
    done_r, done_w = os.pipe()
    with pinned(old_file) as entry:
        writer.write_at(entry, b"parent\n", alongside=lambda: None)  # the parent's filler thread exists now
        child = os.fork()
        if child == 0:  # the child: its filler must be a thread of its own, or this write waits for ever
            try:
                writer.write_at(entry, b"child\n", alongside=lambda: None)
                os.write(done_w, b"1")
            finally:
                os._exit(0)
    os.close(done_w)
    finished, _, _ = select.select([done_r], [], [], 30)
    if not finished:
        os.kill(child, signal.SIGKILL)
    os.waitpid(child, 0)
    assert finished, "the child's write never finished"
    assert os.read(done_r, 1) == b"1"
    os.close(done_r)
    assert old_file.read_bytes() == b"child\n"


def test_a_directory_among_the_temp_records_is_left_in_place_and_the_records_beside_it_are_swept(
    tmp_path: Path, state_dir: Path
) -> None:
    AtomicWriter(state_dir)
    temp = tmp_path / f"{TEMP_MARK}{'0' * 32}"
    temp.write_bytes(b"half written\n")
    (state_dir / "inflight" / "999999999-aa").mkdir()  # put there by hand: no fsguard writes one
    (state_dir / "inflight" / f"gone-{'0' * 32}").write_bytes(os.fsencode(temp))

    assert AtomicWriter(state_dir).clean_strays() == [temp]

    assert [entry.name for entry in (state_dir / "inflight").iterdir()] == ["999999999-aa"]
    assert not temp.exists()


@pytest.mark.parametrize("writer", ["this process", "another process"])
def test_a_record_whose_pid_runs_again_is_swept_once_its_writer_is_gone_and_a_running_writes_is_not(
    tmp_path: Path, state_dir: Path, old_file: Path, writer: str
) -> None:
    # A container restarted after a crash runs fsguard with the pid the crashed one had; an unrelated process can
    # hold it too. Judged by the pid, the crashed write's temp was never swept.
    with pinned(old_file) as entry, AtomicWriter(state_dir).temp_name(entry) as running:
        (tmp_path / running).write_bytes(b"being written\n")
        [record] = (state_dir / "inflight").iterdir()
        crashed = tmp_path / f"{TEMP_MARK}{'0' * 32}"
        crashed.write_bytes(b"half written\n")
        pid = os.getpid() if writer == "this process" else os.getppid()
        (state_dir / "inflight" / f"{pid}-{'0' * 32}-held").write_bytes(os.fsencode(crashed))

        assert AtomicWriter(state_dir).clean_strays() == [crashed]

        assert (tmp_path / running).read_bytes() == b"being written\n"
        assert [entry.name for entry in (state_dir / "inflight").iterdir()] == [record.name]
    assert not crashed.exists()
