"""search_files reports nothing of a directory a racing swap made the engine read in place of an inside one.

rg (and the Python walk) open what they search by name, so a swap of ``root/d`` for a way out of the root, made
while rg walks and undone before fsguard looks, makes rg read an outside tree under the inside names. The race is
made deterministic at a seam: for as long as the engine runs, the outside tree itself stands at ``root/d`` (moved
in by renames, as a swap leaves it for the instant rg passes), and the inside ``d`` is back in place before the
findings are confirmed. Whatever rg read there (its counts and totals, the files it names, the names of a name
search, binary, large and default-skipped files) must stay out of every result; what is inside still comes back.

The Python engine, which walks by name too, reads every file through the pinned walk: a directory swapped for a
link out while it walks gives it nothing. The last tests check the fast confirmation of
:mod:`fsguard.core.provenance` on its own: a tree older than the search is taken as rg read it, without reading a
file again, and an entry renamed after the search began is never taken on trust.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import fsguard.core.entries
import fsguard.core.ignore
import fsguard.core.names
import fsguard.core.provenance
import fsguard.core.ripgrep
import fsguard.core.search
from fsguard.core.beneath import Beneath
from fsguard.core.ignore import WalkOptions
from fsguard.core.provenance import Provenance
from fsguard.core.search import ContentRequest, search_content, search_names
from tests.conftest import ClientFactory, structured

pytestmark = pytest.mark.anyio

SECRET = "TOPSECRET"
MAX_FILE_SIZE = 4096
CLOCK_WAIT_S = 5  # bound on waiting for the file system's clock to pass a moment (one tick: milliseconds)


@contextmanager
def swapped_in(inside: Path, outside: Path) -> Iterator[None]:
    """``outside`` stands at ``inside``'s name, and the inside tree aside, until the block ends."""
    parked = inside.with_name(".parked")
    inside.rename(parked)
    outside.rename(inside)
    try:
        yield
    finally:
        inside.rename(outside)
        parked.rename(inside)


def twin_trees(root: Path, outside: Path) -> None:
    """``root/d`` and ``outside`` hold the same names; only the outside files hold the secret, and only outside
    are there a secret-named file, a binary file, a large file, default skips and a file a deny rule hides."""
    (root / "d").mkdir()
    outside.mkdir()
    for number in range(5):
        (root / "d" / f"f{number}.txt").write_bytes(b"nothing here\n" * 3)
        (outside / f"f{number}.txt").write_bytes(f"{SECRET} line\n".encode() * 3)
    (outside / f"only_{SECRET}.txt").write_bytes(b"x\n")
    (outside / "blob.bin").write_bytes(f"\0{SECRET}\n".encode())
    (outside / "big.txt").write_bytes(f"{SECRET}\n".encode() * 1000)
    (outside / "node_modules").mkdir()
    (outside / "node_modules" / "x.js").write_bytes(f"{SECRET}\n".encode())
    (outside / "app.min.js").write_bytes(f"{SECRET}\n".encode())
    (outside / "cert.pem").write_bytes(f"{SECRET}\n".encode())  # a deny rule hides it: counted as hidden if seen
    (root / "keep.txt").write_bytes(f"{SECRET} kept\n".encode())
    (root / f"inside_{SECRET}.txt").write_bytes(b"x\n")


@pytest.fixture
def raced(monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path) -> list[str]:
    """The seam: every rg engine run sees the outside tree at ``root/d``; returns what rg itself found, per run
    (as text), so a test can show the race reached rg."""
    outside = tmp_path / "outside"
    twin_trees(root, outside)
    seen: list[str] = []

    def during(real: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            with swapped_in(root / "d", outside):
                found = real(*args, **kwargs)
                if isinstance(found, Iterator):  # rg reads the lines it shows as they are taken
                    found = list(found)
            seen.append(repr(found))
            return found

        return run

    for module, name in [
        (fsguard.core.search, "ripgrep_hits"),
        (fsguard.core.search, "ripgrep_file_hits"),
        (fsguard.core.names, "_ripgrep_names"),
    ]:
        monkeypatch.setattr(module, name, during(getattr(module, name)))
    return seen


def rg_read_outside(seen: list[str]) -> bool:
    """Whether rg itself found the secret files of the outside tree under the inside names."""
    return any("/d/f0.txt'" in found or f"d/only_{SECRET}" in found for found in seen)


@pytest.mark.parametrize(
    "arguments",
    [
        {"pattern": SECRET, "count_only": True},
        {"pattern": SECRET, "count_only": True, "return_lines": True},
        {"pattern": SECRET, "include_content": True},
        {"pattern": SECRET, "include_content": True, "max_results": 1},
        {"pattern": SECRET, "whole_word": True, "include_context": True},
    ],
    ids=["count_only", "return_lines", "content", "content_capped", "whole_word"],
)
async def test_a_content_search_reports_nothing_of_a_tree_swapped_in_while_rg_read(
    connect: ClientFactory, root: Path, raced: list[str], arguments: dict[str, Any]
) -> None:
    async with connect(max_file_size=MAX_FILE_SIZE) as client:
        found = structured(await client.call_tool("search_files", arguments))
    assert rg_read_outside(raced)
    keep = str(root / "keep.txt")
    assert (found["total_matches"], found["files"], found["counts"]) == (1, [keep], {keep: 1}), found
    assert [match["file"] for match in found["matches"]] == ([] if arguments.get("count_only") else [keep])
    assert found.get("lines") in (None, {keep: [1]})
    assert found.get("skipped_binary") is None
    assert found.get("skipped_too_large") is None, found.get("skipped_too_large_paths")
    assert found.get("default_skipped") is None, found.get("default_skipped_paths")
    assert found.get("denied") is None
    assert "/d/" not in json.dumps(found)


async def test_a_search_of_one_file_counts_only_what_the_file_inside_holds(
    connect: ClientFactory, root: Path, raced: list[str]
) -> None:
    async with connect() as client:
        found = structured(await client.call_tool("search_files", {"pattern": SECRET, "path": "d/f0.txt"}))
    assert rg_read_outside(raced)
    assert (found["total_matches"], found["files"], found["counts"], found["matches"]) == (0, [], {}, [])


async def test_a_name_search_lists_only_names_inside_and_counts_only_those(
    connect: ClientFactory, root: Path, raced: list[str]
) -> None:
    async with connect() as client:
        found = structured(await client.call_tool("search_files", {"pattern": SECRET}))
        every = structured(await client.call_tool("search_files", {"pattern": "*"}))
    assert rg_read_outside(raced)
    assert (found["total_matches"], found["files"]) == (1, [str(root / f"inside_{SECRET}.txt")])
    inside = sorted(str(path) for path in root.rglob("*") if path.is_file())
    assert (every["total_matches"], sorted(every["files"])) == (len(inside), inside)
    assert every.get("default_skipped") is None, every.get("default_skipped_paths")
    assert every.get("denied") is None


async def test_matches_inside_a_directory_the_race_touched_are_still_found(
    connect: ClientFactory, root: Path, raced: list[str]
) -> None:
    (root / "d" / "f1.txt").write_bytes(f"{SECRET} inside too\n".encode())
    async with connect() as client:
        found = structured(await client.call_tool("search_files", {"pattern": SECRET, "include_content": True}))
    assert rg_read_outside(raced)
    files = [str(root / "d" / "f1.txt"), str(root / "keep.txt")]
    assert (found["total_matches"], found["files"]) == (2, files)
    assert [match["line_content"] for match in found["matches"]] == [f"{SECRET} inside too", f"{SECRET} kept"]


def test_the_python_engine_reads_nothing_through_a_directory_swapped_for_a_link_while_it_walks(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    twin_trees(root, outside)
    listing = fsguard.core.entries.entries_of

    def swapped_when_listed(directory: str, *, dirs_only: bool, entered_by: int | None = None) -> Any:
        if directory == str(root / "d"):  # the walk took d for a directory; it is a way out by now
            (root / "d").rename(root / ".parked")
            (root / "d").symlink_to(outside, target_is_directory=True)
        return listing(directory, dirs_only=dirs_only, entered_by=entered_by)

    monkeypatch.setattr(fsguard.core.ignore, "entries_of", swapped_when_listed)
    beneath = Beneath((root,))
    request = ContentRequest(pattern=SECRET, engine="python")
    found = search_content(root, request, WalkOptions(max_file_size=MAX_FILE_SIZE), beneath=beneath)
    beneath.close()
    assert (root / "d").is_symlink()  # the walk went through it
    keep = str(root / "keep.txt")
    assert (found.total_matches, found.counts, found.binary) == (1, {keep: 1}, ())


# -- the fast confirmation: settled since the search began, or confirmed through the pinned walk ------------


def clocked(directory: Path) -> bool:
    """Whether ``directory`` is on a file system whose ctimes the fast confirmation trusts."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        return fsguard.core.provenance._clocked(fd)
    finally:
        os.close(fd)


def after_the_file_system_clock_passes(moment_ns: int, scratch: Path) -> None:
    """Return once a change made now is stamped later than ``moment_ns``: the kernel stamps from a clock that
    lags by up to a tick. Bounded."""
    deadline = time.monotonic() + CLOCK_WAIT_S
    scratch.touch()
    while scratch.stat().st_ctime_ns <= moment_ns:
        assert time.monotonic() < deadline, "the file system's clock did not move"
        os.utime(scratch)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths the confirmation reads again through the pinned walk."""
    done: list[str] = []
    real = Provenance.read

    def read(self: Provenance, path: str, max_size: int | None = None) -> bytes | None:
        done.append(path)
        return real(self, path, max_size)

    monkeypatch.setattr(Provenance, "read", read)
    return done


@pytest.fixture
def old_tree(monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path) -> Path:
    """``root`` holding ``d/f0.txt`` … ``d/f4.txt`` (each with the secret), all stamped before any search: no
    margin, and the file system's clock past the tree's last change."""
    if not clocked(tmp_path):
        pytest.skip("the temporary directory is not on a file system whose ctimes are trusted")
    monkeypatch.setattr(fsguard.core.provenance, "_MARGIN_NS", 0)
    (root / "d").mkdir()
    for number in range(5):
        (root / "d" / f"f{number}.txt").write_bytes(f"{SECRET}\n".encode())
    newest = max(os.lstat(path).st_ctime_ns for path in [root, *root.rglob("*")])
    after_the_file_system_clock_passes(newest, tmp_path / "scratch")
    while time.time_ns() <= newest:  # a search starts later by the clock it reads, too
        pass
    return root


def test_a_tree_settled_before_the_search_is_taken_as_rg_read_it_without_reading_again(
    old_tree: Path, reads: list[str]
) -> None:
    beneath = Beneath((old_tree,))
    found = search_content(old_tree, ContentRequest(pattern=SECRET, max_results=0), WalkOptions(), beneath=beneath)
    names = search_names(old_tree, "*.txt", WalkOptions(), beneath=beneath)
    beneath.close()
    assert (found.total_matches, found.files_with_matches, names.total) == (5, 5, 5)
    assert reads == []


def test_a_directory_renamed_after_the_search_began_is_read_again_through_the_pinned_walk(
    old_tree: Path, tmp_path: Path, reads: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    for number in range(5):
        (outside / f"f{number}.txt").write_bytes(f"{SECRET} {SECRET}\n".encode())
    real = fsguard.core.ripgrep.ripgrep_hits

    def swapping(*args: Any, **kwargs: Any) -> Any:
        after_the_file_system_clock_passes(time.time_ns(), tmp_path / "scratch")
        with swapped_in(old_tree / "d", outside):
            return real(*args, **kwargs)

    monkeypatch.setattr(fsguard.core.search, "ripgrep_hits", swapping)
    beneath = Beneath((old_tree,))
    found = search_content(old_tree, ContentRequest(pattern=SECRET, max_results=0), WalkOptions(), beneath=beneath)
    beneath.close()
    assert (found.total_matches, found.files_with_matches) == (5, 5)  # one match a file, as inside
    assert reads == [str(old_tree / "d" / f"f{number}.txt") for number in range(5)]
