"""Remembered directory shapes: reused while a directory keeps its identity, never while it may still change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fsguard.core.shapes import DirectoryShapes

LATER = 10**30  # a clock far past every timestamp: every directory is old enough to remember


def scandir_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    real = os.scandir

    def counting(path: os.PathLike[str]) -> object:
        calls.append(str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    return calls


def test_a_shape_lists_subdirectories_in_byte_order_and_whether_a_gitignore_is_there(tmp_path: Path) -> None:
    for name in ("b", "a", "Z", "é"):
        (tmp_path / name).mkdir()
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    (tmp_path / ".gitignore").write_text("*.log\n", encoding="utf-8")

    shape = DirectoryShapes().of(tmp_path)

    assert shape.subdirectories == ("Z", "a", "b", "é")
    assert shape.has_gitignore


def test_an_unchanged_old_directory_is_not_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    shapes = DirectoryShapes(clock=lambda: LATER)
    calls = scandir_calls(monkeypatch)

    first, second = shapes.of(tmp_path), shapes.of(tmp_path)

    assert first == second
    assert len(calls) == 1


def test_a_directory_whose_times_changed_is_read_again(tmp_path: Path) -> None:
    shapes = DirectoryShapes(clock=lambda: LATER)
    assert shapes.of(tmp_path).subdirectories == ()
    (tmp_path / "new").mkdir()
    os.utime(tmp_path, ns=(1, 1))  # whatever the mtime says, the ctime moved: a new identity

    assert shapes.of(tmp_path).subdirectories == ("new",)


def test_a_directory_changed_in_the_last_seconds_is_never_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real clock: the directory was just made, and a change within the same clock tick would keep its times,
    # so every look at it reads it again.
    (tmp_path / "sub").mkdir()
    shapes = DirectoryShapes()
    calls = scandir_calls(monkeypatch)

    assert shapes.of(tmp_path) == shapes.of(tmp_path)
    assert len(calls) == 2


def test_the_number_of_remembered_directories_is_bounded(tmp_path: Path) -> None:
    shapes = DirectoryShapes(max_entries=2, clock=lambda: LATER)
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        shapes.of(tmp_path / name)

    assert len(shapes) == 2


def test_a_shape_read_slowly_is_judged_by_the_clock_before_its_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Changed just before the read began: a change during a read that outlasts the racy window can leave the times as
    # they were, so the shape must not be kept, however late the read ends.
    (tmp_path / "sub").mkdir()
    changed = max(tmp_path.stat().st_mtime_ns, tmp_path.stat().st_ctime_ns)
    now = [changed + 1]
    real = os.scandir

    def slow(path: str) -> object:
        now[0] = changed + 10**12
        return real(path)

    shapes = DirectoryShapes(clock=lambda: now[0])
    monkeypatch.setattr(os, "scandir", slow)

    shapes.of(tmp_path)

    assert len(shapes) == 0
