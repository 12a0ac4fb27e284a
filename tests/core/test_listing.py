"""The lister's pages: a scan of names, sorted and filtered on strings, then only the page stat'ed."""

from __future__ import annotations

import gc
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import listing, remembered
from fsguard.core.beneath import Beneath
from fsguard.core.denial import DenyRules
from fsguard.core.ignore import IgnoreRules
from fsguard.core.listing import DirectoryLister
from fsguard.core.paths import PathPolicy
from fsguard.core.remembered import Remembered
from fsguard.core.session import Session
from fsguard.models import DirectoryEntry, ListDirectoryResult
from tests.strategies import ListedDirectory, ListingChange, listed_directories, listing_changes

MAX_ITEMS = 50


LATER = 10**30  # a clock far past every timestamp: every directory is old enough for its scan to be remembered


@contextmanager
def lister_for(
    root: Path, max_items: int = MAX_ITEMS, clock: Callable[[], int] = time.time_ns, deny: tuple[str, ...] = ()
) -> Iterator[DirectoryLister]:
    policy = PathPolicy.create([root], deny=DenyRules.create(deny) if deny else None)
    beneath = Beneath(policy.roots)
    try:
        yield DirectoryLister(policy, beneath, Session(), max_items=max_items, clock=clock)
    finally:
        beneath.close()


def build(root: Path, case: ListedDirectory) -> Path:
    """The case's directory under ``root``, with the files and directories its links lead to beside it."""
    directory = root / "sub" / "dir"
    directory.mkdir(parents=True)
    (root / "target-file").write_text("t", encoding="utf-8")
    (root / "target-dir").mkdir()
    targets = {"link_file": "../../target-file", "link_dir": "../../target-dir", "dangling": "missing"}
    for name, kind in case.entries:
        if kind == "file":
            (directory / name).write_bytes(b"x" * len(name))
        elif kind == "dir":
            (directory / name).mkdir()
        else:
            (directory / name).symlink_to(targets[kind])
    if case.root_ignore is not None:
        (root / ".gitignore").write_text(case.root_ignore, encoding="utf-8")
    if case.own_ignore is not None:
        (directory / ".gitignore").write_text(case.own_ignore, encoding="utf-8")
    return directory


def expected(root: Path, directory: Path, include_hidden: bool, respect_gitignore: bool) -> tuple[list[str], int, int]:
    """The names in listing order and the hidden and ignored counts, worked out one path at a time."""
    rules = IgnoreRules(root)
    names = [path.name for path in directory.iterdir()]
    shown = [name for name in names if include_hidden or not name.startswith(".")]
    kept = [
        name
        for name in shown
        if not (respect_gitignore and rules.ignored(directory / name, (directory / name).is_dir()))
    ]
    kept.sort(key=lambda name: (not (directory / name).is_dir(), name.casefold(), name))
    return kept, len(names) - len(shown), len(shown) - len(kept)


def all_pages(lister: DirectoryLister, directory: Path, page_size: int, **flags: bool) -> list[ListDirectoryResult]:
    pages = [lister.page(str(directory), offset=0, limit=page_size, **flags)]
    while pages[-1].next_offset is not None:
        pages.append(lister.page(str(directory), offset=pages[-1].next_offset, limit=page_size, **flags))
    return pages


@given(listed_directories(), st.booleans(), st.booleans(), st.sampled_from([1, 2, 3, 7, MAX_ITEMS]))
def test_pages_put_together_are_the_full_sorted_listing_with_exact_totals(
    case: ListedDirectory, include_hidden: bool, respect_gitignore: bool, page_size: int
) -> None:
    flags = {"include_hidden": include_hidden, "respect_gitignore": respect_gitignore}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch).resolve()
        directory = build(root, case)
        names, hidden, ignored = expected(root, directory, include_hidden, respect_gitignore)
        with lister_for(root) as lister:
            full = lister.page(str(directory), offset=0, limit=None, **flags)
            pages = all_pages(lister, directory, page_size, **flags)
    assert [entry["name"] for entry in full.entries] == names
    assert (full.total, full.hidden, full.ignored, full.truncated) == (len(names), hidden, ignored, False)
    assert [entry for page in pages for entry in page.entries] == full.entries
    assert [page.offset for page in pages] == list(range(0, max(len(names), 1), page_size))
    assert all((page.total, page.hidden, page.ignored) == (full.total, hidden, ignored) for page in pages)
    assert [page.truncated for page in pages] == [True] * (len(pages) - 1) + [False]


def test_links_are_sorted_and_typed_by_what_they_lead_to(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    case = ListedDirectory((("a", "file"), ("b", "link_dir"), ("c", "link_file"), ("d", "dangling")), None, None)
    directory = build(root, case)
    with lister_for(root) as lister:
        entries = lister.page(str(directory), include_hidden=True, offset=0, limit=None).entries
    assert [(e["name"], e["type"], e.get("size"), e["is_symlink"]) for e in entries] == [
        ("b", "directory", None, True),
        ("a", "file", 1, False),
        ("c", "file", 1, True),
        ("d", "symlink", None, True),
    ]


def removed_when_stated(root: Path, name: str) -> Callable[..., os.stat_result]:
    """``os.stat`` that removes ``root/name`` just before it stats that name: gone between the scan and the stat."""
    real_stat = os.stat

    def stat(entry: str, **kwargs: object) -> os.stat_result:
        if entry == name:
            (root / name).unlink(missing_ok=True)
        return real_stat(entry, **kwargs)  # type: ignore[arg-type]

    return stat


def test_an_entry_removed_after_the_scan_is_left_out_and_the_offsets_hold(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    for name in "abcde":
        (root / name).write_text(name, encoding="utf-8")
    with lister_for(root) as lister:
        monkeypatch.setattr("fsguard.core.listing.os.stat", removed_when_stated(root, "b"))
        page = lister.page(str(root), include_hidden=True, offset=0, limit=3)
    assert [entry["name"] for entry in page.entries] == ["a", "c"]
    assert (page.total, page.next_offset) == (5, 3)


@pytest.mark.parametrize("as_tree", [False, True])
def test_a_link_removed_while_the_scan_looks_at_it_is_left_out_and_the_directory_still_lists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, as_tree: bool
) -> None:
    root = tmp_path.resolve()
    (root / "a").write_text("a", encoding="utf-8")
    (root / "gone").symlink_to("missing")  # a dangling link: the scan stats the link itself
    with lister_for(root) as lister:
        monkeypatch.setattr("fsguard.core.listing.os.stat", removed_when_stated(root, "gone"))
        if as_tree:
            tree = lister.tree(str(root), include_hidden=True, max_depth=1).tree
            assert tree is not None
            assert [node.name for node in tree.children or []] == ["a"]
        else:
            page = lister.page(str(root), include_hidden=True, offset=0, limit=None)
            assert ([entry["name"] for entry in page.entries], page.total) == (["a"], 1)


def test_a_tree_stops_at_the_item_cap_without_visiting_the_rest(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    for index in range(30):
        (root / f"d{index:02}").mkdir()
        (root / f"d{index:02}" / "inner").write_text("x", encoding="utf-8")
    with lister_for(root, max_items=5) as lister:
        result = lister.tree(str(root), include_hidden=True, max_depth=3)
    assert result.tree is not None
    shown = [(node.name, [child.name for child in node.children or []]) for node in result.tree.children or []]
    assert shown == [("d00", ["inner"]), ("d01", ["inner"]), ("d02", [])]
    assert (result.total, result.truncated) == (5, True)


def test_directory_entries_carry_size_only_for_files(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    (root / "f").write_bytes(b"12345")
    (root / "d").mkdir()
    with lister_for(root) as lister:
        entries = lister.page(str(root), include_hidden=True, offset=0, limit=None).entries
    assert entries == [
        {"name": "d", "type": "directory", "modified": entries[0]["modified"], "is_symlink": False},
        {"name": "f", "type": "file", "size": 5, "modified": entries[1]["modified"], "is_symlink": False},
    ]
    assert all(entry["modified"].endswith("Z") for entry in entries)
    # Keys in the schema's order: the page is built, not validated, so nothing reorders them.
    assert list(entries[1]) == list(DirectoryEntry.__annotations__)
    assert list(entries[0]) == [key for key in DirectoryEntry.__annotations__ if key != "size"]


def scandir_calls(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    calls: list[object] = []
    real = os.scandir

    def counting(path: int) -> object:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(os, "scandir", counting)
    return calls


def test_a_big_unchanged_directory_is_read_once_however_many_pages_are_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    for index in range(1_000):
        (root / f"f{index:04}").write_bytes(b"x" * (index % 7))
    with lister_for(root, clock=lambda: LATER) as lister, lister_for(root) as fresh:
        calls = scandir_calls(monkeypatch)
        pages = all_pages(lister, root, 300, include_hidden=True)
        assert len(calls) == 1
        assert pages == all_pages(fresh, root, 300, include_hidden=True)
    assert [entry["name"] for page in pages for entry in page.entries] == [f"f{index:04}" for index in range(1_000)]


def test_a_small_directory_is_read_for_every_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path.resolve()
    for name in "abc":
        (root / name).write_text(name, encoding="utf-8")
    with lister_for(root, clock=lambda: LATER) as lister:
        calls = scandir_calls(monkeypatch)
        all_pages(lister, root, 2, include_hidden=True)
    assert len(calls) == 2


@pytest.fixture
def remembering(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every scan is remembered, however small the directory."""
    monkeypatch.setattr("fsguard.core.listing._REMEMBERED_FROM", 0)


@pytest.mark.usefixtures("remembering")
def test_a_remembered_directory_shows_each_entry_as_it_is_now(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path.resolve()
    (root / "log.txt").write_bytes(b"12")
    with lister_for(root, clock=lambda: LATER) as lister:
        calls = scandir_calls(monkeypatch)
        lister.page(str(root), include_hidden=True, offset=0, limit=None)
        with (root / "log.txt").open("ab") as log:  # in place: the directory does not change
            log.write(b"345")
        entries = lister.page(str(root), include_hidden=True, offset=0, limit=None).entries
    assert len(calls) == 1
    assert [(entry["name"], entry.get("size")) for entry in entries] == [("log.txt", 5)]


@pytest.mark.usefixtures("remembering")
@pytest.mark.parametrize("where", ["own", "root"])
def test_a_gitignore_rewritten_in_place_applies_to_a_remembered_directory_at_once(tmp_path: Path, where: str) -> None:
    root = tmp_path.resolve()
    directory = root / "sub"
    directory.mkdir()
    for name in ("a.log", "b.txt"):
        (directory / name).write_text(name, encoding="utf-8")
    ignore = (directory if where == "own" else root) / ".gitignore"
    ignore.write_text("*.txt\n", encoding="utf-8")
    with lister_for(root, clock=lambda: LATER) as lister:
        before = lister.page(str(directory), include_hidden=False, offset=0, limit=None, respect_gitignore=True)
        with ignore.open("r+", encoding="utf-8") as rewritten:  # same inode, same directory times
            rewritten.write("*.log\n")
        after = lister.page(str(directory), include_hidden=False, offset=0, limit=None, respect_gitignore=True)
    assert [entry["name"] for entry in before.entries] == ["a.log"]
    assert [entry["name"] for entry in after.entries] == ["b.txt"]
    assert (before.ignored, after.ignored) == (1, 1)


def listed_with_a_link(root: Path) -> Path:
    """``root/listed``, holding the file ``a`` and the link ``z`` to the directory ``root/target``."""
    directory = root / "listed"
    directory.mkdir()
    (directory / "a").write_text("a", encoding="utf-8")
    (root / "target").mkdir()
    (directory / "z").symlink_to("../target")
    return directory


def target_becomes_a_file(root: Path) -> None:
    (root / "target").rmdir()
    (root / "target").write_text("now a file", encoding="utf-8")


@pytest.mark.usefixtures("remembering")
def test_a_link_sorts_by_its_target_as_it_is_now_in_a_remembered_directory(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    directory = listed_with_a_link(root)
    with lister_for(root, clock=lambda: LATER) as lister:
        before = lister.page(str(directory), include_hidden=True, offset=0, limit=None).entries
        target_becomes_a_file(root)  # the listed directory is untouched
        after = lister.page(str(directory), include_hidden=True, offset=0, limit=None).entries
    assert [(entry["name"], entry["type"]) for entry in before] == [("z", "directory"), ("a", "file")]
    assert [(entry["name"], entry["type"]) for entry in after] == [("a", "file"), ("z", "file")]


@pytest.mark.usefixtures("remembering")
@pytest.mark.parametrize("left_out_by", ["gitignore", "deny"])
def test_a_link_left_out_as_a_directory_shows_once_its_target_is_a_file(tmp_path: Path, left_out_by: str) -> None:
    root = tmp_path.resolve()
    directory = listed_with_a_link(root)
    if left_out_by == "gitignore":
        (directory / ".gitignore").write_text("z/\n", encoding="utf-8")
    flags = {"include_hidden": False, "respect_gitignore": left_out_by == "gitignore"}
    deny = ("listed/z/",) if left_out_by == "deny" else ()
    with lister_for(root, clock=lambda: LATER, deny=deny) as lister:
        before = lister.page(str(directory), offset=0, limit=None, **flags)
        target_becomes_a_file(root)  # the rules name directories only; the listed directory is untouched
        after = lister.page(str(directory), offset=0, limit=None, **flags)
    assert (root / "target").read_text(encoding="utf-8") == "now a file"
    assert [entry["name"] for entry in before.entries] == ["a"]
    assert [(entry["name"], entry["type"]) for entry in after.entries] == [("a", "file"), ("z", "file")]
    assert (after.total, after.ignored + after.denied) == (2, 0)


def apply(root: Path, directory: Path, change: ListingChange, step: int) -> None:
    """Make ``change``; one that adds or removes an entry also sets the directory's mtime to a value of its own, as
    a change in a later clock tick would (one in the same tick is what the racy window is for)."""
    targets = {"link_file": "../../target-file", "link_dir": "../../target-dir", "dangling": "missing"}
    path = directory / change.name
    if change.action in ("own_ignore", "root_ignore"):
        ignore = (directory if change.action == "own_ignore" else root) / ".gitignore"
        if ignore.exists():
            with ignore.open("r+", encoding="utf-8") as rewritten:  # in place: no directory changes
                rewritten.write(change.text)
                rewritten.truncate()
            return
        ignore.write_text(change.text, encoding="utf-8")
    elif change.action == "remove":
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink(missing_ok=True)
    elif os.path.lexists(path):
        return
    elif change.kind == "file":
        path.write_text("x", encoding="utf-8")
    elif change.kind == "dir":
        path.mkdir()
    else:
        path.symlink_to(targets[change.kind])
    os.utime(directory, ns=(step, step))


@pytest.mark.usefixtures("remembering")
@given(listed_directories(), listing_changes(), st.booleans(), st.booleans())
def test_a_remembered_listing_is_the_fresh_listing_after_any_changes(
    case: ListedDirectory, changes: list[ListingChange], include_hidden: bool, respect_gitignore: bool
) -> None:
    flags = {"include_hidden": include_hidden, "respect_gitignore": respect_gitignore}
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch).resolve()
        directory = build(root, case)
        with lister_for(root, clock=lambda: LATER) as lister:
            lister.page(str(directory), offset=0, limit=None, **flags)
            for step, change in enumerate(changes, start=1):
                apply(root, directory, change, step)
                remembered = lister.page(str(directory), offset=0, limit=None, **flags)
                with lister_for(root) as fresh:
                    assert remembered == fresh.page(str(directory), offset=0, limit=None, **flags)


def held_after_listing(
    lister: DirectoryLister,
    directories: list[Path],
    allocated_in: tuple[str, ...] = (),
    respect_gitignore: bool = False,
) -> int:
    """Bytes still allocated once each of ``directories`` is listed (hidden names left out), by the modules
    ``allocated_in`` if given."""
    tracemalloc.start()
    try:
        for directory in directories:
            lister.page(str(directory), include_hidden=False, offset=0, limit=None, respect_gitignore=respect_gitignore)
        gc.collect()
        if not allocated_in:
            return tracemalloc.get_traced_memory()[0]
        kept = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, name) for name in allocated_in])
        return sum(statistic.size for statistic in kept.statistics("filename"))
    finally:
        tracemalloc.stop()


@pytest.mark.usefixtures("remembering")
def test_remembered_scans_do_not_hold_copies_of_a_big_gitignore(tmp_path: Path) -> None:
    root = tmp_path.resolve()
    comment = "#" + "x" * 999 + "\n"
    (root / ".gitignore").write_text("*.log\n" + comment * 1_000, encoding="utf-8")  # about 1 MB
    directories = [root / f"d{index}" for index in range(10)]
    for directory in directories:
        directory.mkdir()
        (directory / "a.txt").write_text("a", encoding="utf-8")
    with lister_for(root, clock=lambda: LATER) as lister:
        held = held_after_listing(lister, directories, respect_gitignore=True)
        names = [
            entry["name"]
            for entry in lister.page(str(directories[0]), include_hidden=False, offset=0, limit=None).entries
        ]
    assert names == ["a.txt"]
    assert held < 1_000_000  # ten remembered scans of one name each: not ten copies of the rules' text


@pytest.mark.usefixtures("remembering")
def test_a_remembered_scan_is_weighed_by_the_bytes_its_names_take(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    names = [f"{index:03}" + "n" * 200 for index in range(20)] + ["\u00e9t\u00e9" * 50]
    for name in names:
        (root / name).write_text("x", encoding="utf-8")
    weights: list[int] = []
    real = Remembered.keep

    def weighed(
        self: Remembered[object, object],
        key: object,
        identity: Hashable,
        value: object,
        stat: os.stat_result,
        *,
        taken: int,
        weight: int = 1,
    ) -> None:
        weights.append(weight)
        real(self, key, identity, value, stat, taken=taken, weight=weight)

    monkeypatch.setattr(Remembered, "keep", weighed)
    with lister_for(root, clock=lambda: LATER) as lister:
        entries = lister.page(str(root), include_hidden=True, offset=0, limit=None).entries
    assert [entry["name"] for entry in entries] == names
    held = sum(map(sys.getsizeof, names)) + 8 * len(names)  # the names and the list's pointers to them
    assert len(weights) == 1
    assert held <= weights[0] <= 2 * held


class CoarseTimes:
    """A directory's stat on a file system whose times stay at ``tick`` (every change lands in the tick)."""

    def __init__(self, real: os.stat_result, tick: int) -> None:
        self._real = real
        self.st_mtime_ns = self.st_ctime_ns = tick

    def __getattr__(self, name: str) -> object:
        return getattr(self._real, name)


@pytest.mark.usefixtures("remembering")
def test_a_change_during_a_slow_read_in_the_racy_window_is_not_remembered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path.resolve()
    (root / "a").write_text("a", encoding="utf-8")
    tick = 10**18
    now = [tick + 1_500_000_000]  # the read starts 1.5 s after the directory's last change: inside the window
    real_fstat, real_scandir = os.fstat, os.scandir

    @contextmanager
    def read_slowly(fd: int) -> Iterator[Iterator[os.DirEntry[str]]]:
        with real_scandir(fd) as items:
            read = list(items)
        if not (root / "b").exists():
            (root / "b").write_text("b", encoding="utf-8")  # added after its name would have been read
            now[0] += 1_000_000_000  # the read took a second: it ends outside the window
        yield iter(read)

    monkeypatch.setattr(os, "fstat", lambda fd: CoarseTimes(real_fstat(fd), tick))
    monkeypatch.setattr(os, "scandir", read_slowly)
    with lister_for(root, clock=lambda: now[0]) as lister:
        first = lister.page(str(root), include_hidden=True, offset=0, limit=None)
        second = lister.page(str(root), include_hidden=True, offset=0, limit=None)
    assert (root / "b").read_text(encoding="utf-8") == "b"
    assert [entry["name"] for entry in first.entries] == ["a"]
    assert [entry["name"] for entry in second.entries] == ["a", "b"]


@pytest.mark.usefixtures("remembering")
def test_remembered_scans_that_show_no_name_still_count_against_the_memory_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("fsguard.core.listing._REMEMBERED_BYTES", 100_000)
    root = tmp_path.resolve()
    directories = [root / f"d{index:04}" for index in range(1_000)]
    for directory in directories:
        directory.mkdir()
        (directory / ".hidden").write_text("h", encoding="utf-8")
    with lister_for(root, clock=lambda: LATER) as lister:
        # What the scans' cache holds, not the session's.
        held = held_after_listing(lister, directories, allocated_in=(listing.__file__, remembered.__file__))
        hidden = lister.page(str(directories[0]), include_hidden=False, offset=0, limit=None).hidden
    assert (directories[0] / ".hidden").read_text(encoding="utf-8") == "h"
    assert hidden == 1
    assert held < 150_000  # about the bound, 100 kB: not a thousand scans' worth
