"""The pinned walk (core/beneath.py): links inside the roots work, nothing ever resolves outside them.

The property test builds symlink mazes (relative and absolute links into the root, into a second root,
outside, dangling, looping) and checks the walk against the kernel's own answer (``os.path.realpath``):
where the real location is inside a root the walk pins exactly it, and where it is not the walk
refuses; every pinned directory fd is really inside a root, checked through ``/proc/self/fd``.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given

from fsguard.core.beneath import Beneath, rename_no_replace
from fsguard.core.disk import read_at
from fsguard.core.errors import AccessDeniedError, FsguardError, NotDirectoryError, NotFoundError, SymlinkLoopError
from fsguard.core.pins import Pins
from tests.strategies import MAZE_DIRS, MAZE_FILES, Maze, mazes


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[tuple[Path, Path, Path, Beneath]]:
    """Root r (dirs a, a/b, c; files a/f, c/g), second root o (dir d), outside x (dir e, file e/h)."""
    root, other, outside = (tmp_path / name for name in ("r", "o", "x"))
    for directory in (*(root / d for d in MAZE_DIRS), other / "d", outside / "e"):
        directory.mkdir(parents=True)
    for file in (*(root / f for f in MAZE_FILES), outside / "e" / "h"):
        file.write_text(file.name, encoding="utf-8")
    beneath = Beneath((root.resolve(), other.resolve()))
    yield root.resolve(), other.resolve(), outside.resolve(), beneath
    beneath.close()


def _real_dir(fd: int) -> Path:
    return Path(f"/proc/self/fd/{fd}").readlink()


def test_a_link_inside_the_root_is_followed_to_its_target(tree: tuple[Path, Path, Path, Beneath]) -> None:
    root, _other, _outside, beneath = tree
    (root / "c" / "to_b").symlink_to("../a/b")

    with beneath.entry(root / "c" / "to_b" / "new.txt") as pinned:
        assert pinned.name == "new.txt"
        assert pinned.path == root / "a" / "b" / "new.txt"
        assert _real_dir(pinned.parent) == root / "a" / "b"


def test_an_absolute_link_into_another_root_is_followed(tree: tuple[Path, Path, Path, Beneath]) -> None:
    root, other, _outside, beneath = tree
    (root / "shared").symlink_to(other / "d")

    with beneath.entry(root / "shared" / "x.txt") as pinned:
        assert pinned.path == other / "d" / "x.txt"
        assert _real_dir(pinned.parent) == other / "d"


def test_pins_walk_to_a_directory_once_and_a_swap_after_that_cannot_lead_outside(
    tree: tuple[Path, Path, Path, Beneath],
) -> None:
    root, _other, outside, beneath = tree
    (root / "a" / "f2").write_text("f2", encoding="utf-8")
    with Pins(beneath) as pins:
        first = pins.entry(root / "a" / "f")
        assert read_at(first)[0] == b"f"
        # The directory becomes a link to outside: the fd held for it still names the real one.
        (root / "a").rename(root / "a_old")
        (root / "a").symlink_to(outside / "e")
        second = pins.entry(root / "a" / "f2")
        assert second.parent == first.parent
        assert _real_dir(second.parent) == root / "a_old"
        assert read_at(second)[0] == b"f2"
        with pytest.raises(AccessDeniedError):  # another directory: walked again, and the link is refused
            pins.entry(root / "a" / "b" / "x")
        assert read_at(pins.entry(root / "c" / "g"))[0] == b"g"


def test_pins_never_follow_the_last_component(tree: tuple[Path, Path, Path, Beneath]) -> None:
    root, _other, _outside, beneath = tree
    (root / "c" / "to_f").symlink_to(root / "a" / "f")
    with Pins(beneath) as pins, pytest.raises(FsguardError):
        read_at(pins.entry(root / "c" / "to_f"))


@pytest.mark.parametrize("target", ["../x/e", "../../x", "@outside", "a/../../x/e"])
def test_a_link_that_leaves_the_roots_is_refused_with_the_link_named(
    tree: tuple[Path, Path, Path, Beneath], target: str
) -> None:
    root, _other, outside, beneath = tree
    (root / "escape").symlink_to(str(outside / "e") if target == "@outside" else target)

    with pytest.raises(AccessDeniedError) as refused, beneath.entry(root / "escape" / "h"):
        pass

    assert "escape" in refused.value.message
    assert (outside / "e" / "h").read_text(encoding="utf-8") == "h"


def test_a_final_link_is_the_entry_itself_when_not_followed(tree: tuple[Path, Path, Path, Beneath]) -> None:
    root, _other, outside, beneath = tree
    (root / "out").symlink_to(outside / "e" / "h")

    with beneath.entry(root / "out", follow=False) as pinned:
        assert (pinned.name, _real_dir(pinned.parent)) == ("out", root)
    with pytest.raises(AccessDeniedError), beneath.entry(root / "out"):
        pass


def test_a_link_loop_is_refused_not_followed_forever(tree: tuple[Path, Path, Path, Beneath]) -> None:
    root, _other, _outside, beneath = tree
    (root / "p").symlink_to("q")
    (root / "q").symlink_to("p")

    with pytest.raises(SymlinkLoopError, match="loop of symbolic links"), beneath.entry(root / "p" / "x"):
        pass


def test_a_file_used_as_a_directory_and_a_missing_directory_are_told_apart(
    tree: tuple[Path, Path, Path, Beneath],
) -> None:
    root, _other, _outside, beneath = tree

    with pytest.raises(NotDirectoryError), beneath.entry(root / "a" / "f" / "x"):
        pass
    with pytest.raises(NotFoundError), beneath.entry(root / "nope" / "x"):
        pass


def test_make_parents_creates_the_missing_directories_inside_the_root(tree: tuple[Path, Path, Path, Beneath]) -> None:
    root, _other, _outside, beneath = tree

    with beneath.entry(root / "n1" / "n2" / "f.txt", make_parents=True) as pinned:
        assert _real_dir(pinned.parent) == root / "n1" / "n2"
    assert (root / "n1" / "n2").is_dir()


def test_a_path_with_dot_dot_never_climbs_above_its_root(tree: tuple[Path, Path, Path, Beneath]) -> None:
    root, _other, outside, beneath = tree

    with pytest.raises(AccessDeniedError), beneath.entry(Path(f"{root}/../x/e/h")):
        pass
    assert (outside / "e" / "h").read_text(encoding="utf-8") == "h"


def test_rename_no_replace_refuses_an_existing_target_and_moves_nothing(
    tree: tuple[Path, Path, Path, Beneath],
) -> None:
    root, _other, _outside, beneath = tree
    with (
        beneath.entry(root / "a" / "f") as source,
        beneath.entry(root / "c" / "g") as target,
        pytest.raises(FileExistsError),
    ):
        rename_no_replace(source, target)
    assert (root / "a" / "f").read_text(encoding="utf-8") == "f"
    assert (root / "c" / "g").read_text(encoding="utf-8") == "g"


@given(maze=mazes())
def test_the_walk_pins_what_the_kernel_resolves_inside_the_roots_and_refuses_the_rest(
    tmp_path_factory: pytest.TempPathFactory, maze: Maze
) -> None:
    root, other, _outside = maze.build(tmp_path_factory.mktemp("maze"))
    path = root.joinpath(*maze.walk)
    real = Path(os.path.realpath(path))
    inside = any(real == r or real.is_relative_to(r) for r in (root, other))
    loop = _kernel_errno(path) == errno.ELOOP or _kernel_errno(path.parent) == errno.ELOOP
    beneath = Beneath((root, other))
    held = sorted(Path("/proc/self/fd").iterdir())
    try:
        with beneath.entry(path) as pinned:
            parent = _real_dir(pinned.parent)
            assert any(parent == r or parent.is_relative_to(r) for r in (root, other)), parent
            assert inside, f"pinned {pinned.path}, but {path} really is {real}"
            assert not loop, f"pinned {pinned.path}, but the kernel finds a loop in {path}"
            assert pinned.path == real
    except AccessDeniedError:
        assert loop or not inside, f"refused {path}, which really is {real}"
    except (NotFoundError, NotDirectoryError):
        assert not real.parent.is_dir(), f"{path} really is {real}, whose directory exists"
    finally:
        # The walk closed every directory it opened, and no root's fd (each walk starts on it).
        assert sorted(Path("/proc/self/fd").iterdir()) == held
        beneath.close()


def _kernel_errno(path: Path) -> int | None:
    try:
        path.stat()
    except OSError as exc:
        return exc.errno
    return None
