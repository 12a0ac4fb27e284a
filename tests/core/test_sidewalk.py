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
from fsguard.core.names import search_names
from fsguard.core.ripgrep import ripgrep_path
from fsguard.core.search import ContentRequest, search_content
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
    skips: tuple[list[str], list[str]] = ([], [])

    def search() -> object:  # without skips, as a pipeline's search step calls it
        return search_content(root, request, SKIPS, skips=skips) if asked else search_content(root, request, SKIPS)

    [found] = answered(root / "sub" / ".gitignore", search)
    assert found == expected
    assert list(found.counts) == [str(root / "a.py"), str(root / "sub" / "b.py")]
    assert skips == ((["app.min.js", "node_modules/"], []) if asked else ([], []))
