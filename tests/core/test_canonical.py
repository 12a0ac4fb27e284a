"""Canonical paths (core/canonical.py): a path below a canonical root is resolved from that root down, and gives
what ``os.path.realpath`` gives, links, ``.``, ``..`` and missing names included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given

from fsguard.core.canonical import canonical_path
from fsguard.core.errors import FsguardError
from tests.strategies import Maze, maze_spellings, mazes


@given(maze=mazes(), spelled=maze_spellings())
def test_a_path_below_a_root_resolves_as_realpath_resolves_it(
    tmp_path_factory: pytest.TempPathFactory, maze: Maze, spelled: tuple[str, ...]
) -> None:
    root, other, _outside = maze.build(tmp_path_factory.mktemp("maze").resolve())
    for path in (root.joinpath(*maze.walk), root.joinpath(*spelled), other.joinpath("d", *spelled)):
        try:
            expected = Path(os.path.realpath(path))
        except OSError:  # a link loop, on Pythons whose realpath raises for one
            with pytest.raises(FsguardError):
                canonical_path(path, str(path), (root, other))
            continue
        assert canonical_path(path, str(path), (root, other)) == expected


def test_a_path_below_a_root_is_resolved_without_looking_above_the_root(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = (tmp_path / "deep" / "er" / "root").resolve()
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("x = 1\n", encoding="utf-8")
    looked: list[str] = []
    real_lstat = os.lstat

    def lstat(path: str | Path, *args: object, **kwargs: object) -> os.stat_result:
        looked.append(str(path))
        return real_lstat(path)

    monkeypatch.setattr(os, "lstat", lstat)
    assert canonical_path(root / "src" / "app.py", "src/app.py", (root,)) == root / "src" / "app.py"
    assert canonical_path(root / "src" / "new" / "b.py", "src/new/b.py", (root,)) == root / "src" / "new" / "b.py"
    assert looked == [f"{root}/src", f"{root}/src/app.py", f"{root}/src", f"{root}/src/new"]


def test_a_link_below_a_root_that_leads_outside_resolves_outside(tmp_path: Path) -> None:
    root, outside = (tmp_path / "root").resolve(), (tmp_path / "outside").resolve()
    root.mkdir()
    outside.mkdir()
    (root / "out").symlink_to(outside)
    assert canonical_path(root / "out" / "secret.txt", "out/secret.txt", (root,)) == outside / "secret.txt"
    assert canonical_path(root / "out" / ".." / "x", "out/../x", (root,)) == tmp_path.resolve() / "x"
