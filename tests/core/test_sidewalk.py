"""The walk beside rg: a ``.gitignore`` rg would read that is not a regular file stops rg, and the Python engine
answers, as if rg had read it as no rules. Each call runs on a thread bounded by ``run_beside_a_fifo``."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from fsguard.core.errors import FsguardError
from fsguard.core.ignore import WalkOptions
from fsguard.core.names import NameSearch, search_names
from fsguard.core.ripgrep import ripgrep_path
from fsguard.core.search import ContentRequest, ContentSearch, search_content
from fsguard.core.skips import Skips
from tests.core.test_ignore import build
from tests.fifo_stall import run_beside_a_fifo

pytestmark = pytest.mark.skipif(ripgrep_path() is None, reason="rg is not installed")

SKIPS = WalkOptions(skip_dependencies=True, skip_minified=True)
FILES = ["a.py", "app.min.js", "node_modules/m.py", "sub/b.py", "sub/c.log"]


def answered(fifo: Path, call: Callable[[], Any]) -> list[Any]:
    """What ``call`` returned beside a FIFO made at ``fifo``; the test fails if it waited on the FIFO."""
    results: list[Any] = []
    assert run_beside_a_fifo(fifo, lambda: results.append(call())) == (False, [])
    return results


@pytest.mark.parametrize("options", [SKIPS, WalkOptions()], ids=["default-skips", "everything"])
def test_a_name_search_beside_a_fifo_gitignore_is_answered_by_the_python_walk_first_time_and_after(
    root: Path, options: WalkOptions
) -> None:
    build(root, FILES, {"": "*.log\n"})
    python = search_names(root, "*", options, engine="python")

    def twice() -> list[object]:  # a first search looks for the skips before rg starts, a later one while it runs
        return [search_names(root, "*", options) for _ in range(2)]

    [found] = answered(root / "sub" / ".gitignore", twice)
    assert found == [python, python]
    assert python.skipped == (("app.min.js", "node_modules/") if options == SKIPS else ())


def test_a_name_search_forced_onto_ripgrep_beside_a_fifo_gitignore_names_it_and_the_way_out(root: Path) -> None:
    build(root, ["sub/b.py"], {})
    refused: list[str] = []

    def forced() -> None:
        with pytest.raises(FsguardError) as caught:
            search_names(root, "*", WalkOptions(), engine="ripgrep")
        refused.append(caught.value.message)

    answered(root / "sub" / ".gitignore", forced)
    assert f"{root / 'sub' / '.gitignore'} is not a regular file" in refused[0]
    assert "engine='python'" in refused[0]


@pytest.mark.parametrize("asked", [True, False], ids=["with-skips", "without"])
def test_a_content_search_beside_a_fifo_gitignore_is_the_python_engines_with_whole_skip_lists(
    root: Path, asked: bool
) -> None:
    build(root, FILES, {"": "*.log\n"})
    for name in FILES:
        (root / name).write_bytes(b"old\n")
    request = ContentRequest(pattern="old")
    expected = search_content(root, dataclasses.replace(request, engine="python"), SKIPS)
    skips = Skips()

    def search() -> object:  # with skips to fill, as search_files calls it, and without
        return search_content(root, request, SKIPS, skips=skips) if asked else search_content(root, request, SKIPS)

    [found] = answered(root / "sub" / ".gitignore", search)
    assert found == expected
    assert list(found.counts) == [str(root / "a.py"), str(root / "sub" / "b.py")]
    assert skips == (Skips(["app.min.js", "node_modules/"]) if asked else Skips())


def _twins(root: Path, files: list[str], gitignores: dict[str, str], fifo: str) -> tuple[Path, Path]:
    """Two copies of one tree: in the first ``fifo`` is an empty regular file, in the second it is left to be made
    a FIFO (by ``answered``)."""
    empty, piped = root / "empty", root / "piped"
    for tree in (empty, piped):
        build(tree, files, gitignores)
        for name in files:
            (tree / name).write_bytes(b"old\n")
    (empty / fifo).write_bytes(b"")
    return empty, piped


def _relative(tree: Path, found: ContentSearch | NameSearch) -> tuple[object, object]:
    """``found`` with the paths it names relative to ``tree`` (beside it, with no paths nor engine)."""
    if isinstance(found, ContentSearch):
        counts = {Path(file).relative_to(tree).as_posix(): count for file, count in found.counts.items()}
        return dataclasses.replace(found, engine="python", matches=(), counts={}), counts
    files = [Path(file).relative_to(tree).as_posix() for file in found.files]
    return dataclasses.replace(found, engine="python", files=()), files


BARE_ONLY = {  # a directory the walk never enters that a bare rg name-search walk does
    "darcs": (["a.py", "_darcs/x.py", "_darcs/sub/y.py"], {}, "_darcs/sub/.gitignore"),
    "negated-hidden": (["a.py", ".github/x.py", ".github/w/y.py"], {"": "!.github/\n"}, ".github/w/.gitignore"),
}


@pytest.mark.parametrize("case", BARE_ONLY.values(), ids=BARE_ONLY.keys())
@pytest.mark.parametrize("options", [SKIPS, WalkOptions()], ids=["default-skips", "everything"])
def test_a_name_search_beside_a_fifo_gitignore_where_only_a_bare_rg_walk_goes_answers_as_beside_an_empty_one(
    root: Path, case: tuple[list[str], dict[str, str], str], options: WalkOptions
) -> None:
    files, gitignores, fifo = case
    empty, piped = _twins(root, files, gitignores, fifo)
    expected = [_relative(empty, search_names(empty, "*", options)) for _ in range(2)]

    def twice() -> list[tuple[object, object]]:  # a first search looks before rg starts, a later one while rg runs bare
        return [_relative(piped, search_names(piped, "*", options)) for _ in range(2)]

    [found] = answered(piped / fifo, twice)
    assert found == expected
    assert expected[0][1] == ["a.py"]


BESIDE_THE_WAY = {  # a directory beside the way from rules_from that a negation lets rg's narrowed walk enter
    "named": {"": "*.log\n!other/\n"},
    "every-directory": {"": "*\n!*/\n!*.py\n"},
    "below-the-top": {"sub": "!near/\n"},
}


@pytest.mark.parametrize("gitignores", BESIDE_THE_WAY.values(), ids=BESIDE_THE_WAY.keys())
@pytest.mark.parametrize("kind", ["names", "content"])
def test_a_search_below_rules_from_beside_a_fifo_gitignore_rg_reaches_by_a_negation_answers_as_beside_an_empty_one(
    root: Path, gitignores: dict[str, str], kind: str
) -> None:
    files = ["sub/in/b.py", "sub/in/c.log", "sub/near/.hidden/d.py", "other/.git/e.py", "top.py"]
    fifo = "sub/near/.hidden/.gitignore" if "sub" in gitignores else "other/.git/.gitignore"
    empty, piped = _twins(root, files, gitignores, fifo)

    def search(tree: Path) -> tuple[object, object]:
        options = WalkOptions(rules_from=tree)
        if kind == "names":
            return _relative(tree, search_names(tree / "sub" / "in", "*", options))
        return _relative(tree, search_content(tree / "sub" / "in", ContentRequest(pattern="old"), options))

    expected = search(empty)
    [found] = answered(piped / fifo, lambda: search(piped))
    assert found == expected
    assert "sub/in/b.py" in str(expected)


def test_a_name_search_beside_a_fifo_gitignore_in_dependencies_made_since_the_last_search_answers_as_beside_none(
    root: Path,
) -> None:
    files = ["a.py", "node_modules/m/i.js"]
    empty, piped = _twins(root, files, {}, "node_modules/m/.gitignore")
    searched = []
    for tree in (empty, piped):  # searched once without dependencies: the next search walks bare at once
        (tree / "node_modules").rename(tree.parent / f"{tree.name}-later")
        searched.append(search_names(tree, "*", SKIPS).files)
        (tree.parent / f"{tree.name}-later").rename(tree / "node_modules")
    expected = _relative(empty, search_names(empty, "*", SKIPS))
    [found] = answered(
        piped / "node_modules" / "m" / ".gitignore", lambda: _relative(piped, search_names(piped, "*", SKIPS))
    )
    assert found == expected
    assert (expected[1], searched) == (["a.py"], [(str(empty / "a.py"),), (str(piped / "a.py"),)])
