"""The existing paths a missing one likely meant (core/nearby.py): respelt one component at a time, only inside
the roots, never a name a deny rule hides, never through a link."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given

from fsguard.core.beneath import Beneath
from fsguard.core.denial import DenyRules
from fsguard.core.nearby import NearPaths
from fsguard.core.paths import PathPolicy
from tests.strategies import LookalikeTree, lookalike_trees


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    for name in ("src/app", "docs", "Tests"):
        (root / name).mkdir(parents=True)
    for name in ("src/app/main.py", "src/app/models.py", "docs/README.md", "secret.pem", "notes.txt"):
        (root / name).write_bytes(b"x\n")
    return root


def near_of(root: Path, *, deny: tuple[str, ...] = ()) -> Iterator[NearPaths]:
    beneath = Beneath((root,))
    try:
        yield NearPaths(PathPolicy.create([root], deny=DenyRules.create(deny)), beneath)
    finally:
        beneath.close()


@pytest.fixture
def near(project: Path) -> Iterator[NearPaths]:
    yield from near_of(project)


@pytest.mark.parametrize(
    ("asked", "meant"),
    [
        ("src/app/mian.py", ["src/app/main.py"]),
        ("src/appp/main.py", ["src/app/main.py"]),
        ("src/ap/main.py", []),  # a name this short is respelt by its case only
        ("Src/App/main.py", ["src/app/main.py"]),
        ("srcc/app/modles.py", ["src/app/models.py"]),
        ("docs/readme.md", ["docs/README.md"]),
        ("tests", ["Tests"]),
        ("notes", ["notes.txt"]),
        ("src/app/main.py/extra", []),  # below a file: nothing to respell
        ("src/app/unrelated.py", []),
        ("scr/ap/mian.py", []),  # three components respelt: too far to guess
    ],
)
def test_a_missing_path_is_respelt_into_the_existing_ones_it_likely_meant(
    project: Path, near: NearPaths, asked: str, meant: list[str]
) -> None:
    assert near.near(project / asked) == [project / path for path in meant]


def test_an_existing_path_or_one_outside_the_roots_gets_no_suggestion(project: Path, near: NearPaths) -> None:
    outside = project.parent / "elsewhere"
    (outside / "main.py").parent.mkdir()
    (outside / "main.py").write_bytes(b"x\n")
    assert near.near(project / "src/app/main.py") == []
    assert near.near(outside / "mian.py") == []
    assert near.near(Path("src/app/mian.py")) == []  # relative: the error's path was not a canonical one


def test_a_name_a_deny_rule_hides_is_never_offered(project: Path) -> None:
    (project / "private").mkdir()
    (project / "private" / "plan.md").write_bytes(b"x\n")
    for near in near_of(project, deny=("notes.txt", "private/")):
        assert near.near(project / "secret.pen") == []  # *.pem: hidden by the default rules
        assert near.near(project / "notes.tx") == []
        assert near.near(project / "privat/plan.md") == []
        assert near.near(project / "private/plan.mdd") == []


def test_a_link_is_offered_by_name_but_never_walked_through(project: Path, near: NearPaths) -> None:
    outside = project.parent / "outside"
    outside.mkdir()
    (outside / "main.py").write_bytes(b"x\n")
    (project / "linked").symlink_to(outside)
    (project / "link.txt").symlink_to(outside / "main.py")
    assert near.near(project / "linkd/main.py") == []
    assert near.near(project / "linked/mian.py") == []
    assert near.near(project / "lnik.txt") == [project / "link.txt"]


def test_a_huge_directory_is_compared_only_up_to_its_first_names(tmp_path: Path) -> None:
    root = tmp_path / "many"
    root.mkdir()
    for index in range(10_050):
        (root / f"file{index:05d}.txt").touch()
    for near in near_of(root):
        found = near.near(root / "file0000.txt")
        assert 0 < len(found) <= 3
        assert all(path.exists() for path in found)


@given(tree=lookalike_trees())
def test_every_path_offered_exists_inside_the_root_and_differs_from_the_one_asked(
    tmp_path_factory: pytest.TempPathFactory, tree: LookalikeTree
) -> None:
    base = tmp_path_factory.mktemp("lookalike")
    root, outside = base / "root", base / "outside"
    for directory in (root, outside / "module", outside / "modules"):
        directory.mkdir(parents=True)
    (outside / "module" / "models.py").write_bytes(b"x\n")
    for kind, below in tree.entries:
        with contextlib.suppress(OSError):  # its place, or a directory on its way, is taken by what came before
            make(root / below, kind, outside / "module")
    asked = root / tree.asked
    for near in near_of(root):
        found = near.near(asked)
        assert len(found) <= 3
        for path in found:
            assert path != asked
            assert path.is_relative_to(root)
            assert os.path.lexists(path)
            assert Path(os.path.realpath(path.parent)).is_relative_to(root), path


def make(path: Path, kind: str, outside: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "dir":
        path.mkdir()
    elif kind == "file":
        with path.open("xb") as file:
            file.write(b"x\n")
    else:
        path.symlink_to(outside)


def test_a_path_missing_under_its_root_is_offered_where_another_root_holds_it(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "lib").mkdir(parents=True)
    (second / "lib").mkdir(parents=True)
    (second / "lib" / "x.py").write_bytes(b"x\n")
    (second / "lib" / "key.pem").write_bytes(b"secret\n")
    beneath = Beneath((first, second))
    try:
        near = NearPaths(PathPolicy.create([first, second], deny=DenyRules.create(())), beneath)
        assert near.near(first / "lib" / "x.py") == [second / "lib" / "x.py"]
        assert near.near(first / "second" / "lib" / "x.py") == [second / "lib" / "x.py"]
        assert near.near(first / "lib" / "y.py") == []
        assert near.near(first / "lib" / "key.pem") == []  # hidden by the default deny rules
    finally:
        beneath.close()


def test_a_name_no_path_may_hold_is_never_offered(project: Path, near: NearPaths) -> None:
    (project / "memo\ntxt").write_bytes(b"x\n")
    (project / "rep\u202eort.md").write_bytes(b"x\n")
    assert near.near(project / "memo_txt") == []
    assert near.near(project / "report.md") == []
