"""The rows of bench_scale.py and the data they run on: big files, huge directories and big trees, in a scratch dir.

A row is one task: the fsguard call, its baseline (the reference server's call, or a raw rg command) and the
target the issue sets for it. Each piece of data is built the first time a row asks for it, so ``--only ROW``
makes only what that row needs. Files are written in large chunks of repeated lines (about 1 GB/s into the page
cache); the trees hold empty files (a name search never reads them), created with one ``os.open`` each.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

NEEDLE = "OldWidgetName"  # the word project_replace renames and content search looks for
TAIL_LINES = 100  # the last lines of the big log are numbered, so a tail read can be checked
TREE_EXTENSIONS = (".py", ".txt", ".md", ".json")  # name search for *.py matches a quarter of a tree
FILES_PER_DIR = 100
Args = dict[str, object]
PYTHON_INSTALL = Path(sys.base_prefix)  # a real tree of about 50,000 files
_CHUNK = 1 << 20
_LOG_LINE = "2026-12-01T12:00:00.000Z INFO  worker-07 request handled in 12 ms status=200 path=/api/items\n"


@dataclass(frozen=True)
class Sizes:
    """How big each generated piece is."""

    log_bytes: int  # the log read by tail/head/info
    line_bytes: int  # the file that is one line
    small_dir: int  # entries of the directory listed whole
    big_dir: int  # entries of the directory listed one page
    tree_files: int  # files of the big name-search tree
    part_files: int  # files of its first part (the smaller name-search tree)
    replace_files: int  # files project_replace previews
    content_bytes: int  # the file content search must find a word in
    store_groups: int  # change groups in the state directory backup(action='list') lists
    store_backups: int  # backups there, of at most 2,000 files
    store_trash: int  # trash entries there


FULL = Sizes(1_000_000_000, 45_000_000, 20_000, 200_000, 200_000, 50_000, 5_000, 200_000_000, 5_000, 20_000, 10_000)
# Big files stay over fsguard's default 50 MiB --max-file-size, so the quick run takes the same code paths.
QUICK = Sizes(64 << 20, 4_000_000, 2_000, 20_000, 20_000, 5_000, 500, 64 << 20, 500, 2_000, 1_000)


def human(size: int) -> str:
    """A byte count as a short label: 1 GB, 45 MB, 64 MiB."""
    if size % (1 << 20) == 0:
        return f"{size >> 20} MiB"
    if size >= 1_000_000_000:
        return f"{size / 1e9:g} GB"
    return f"{size / 1e6:g} MB"


def _repeat(path: Path, unit: bytes, size: int, tail: bytes = b"") -> None:
    """Write ``unit`` repeated to ``size`` bytes (cut at a unit boundary), then ``tail``."""
    chunk = unit * max(1, _CHUNK // len(unit))
    body = max(0, size - len(tail))
    with path.open("wb") as out:
        for _ in range(body // len(chunk)):
            out.write(chunk)
        rest = body % len(chunk)
        out.write(chunk[: rest - rest % len(unit)])
        out.write(tail)


def _empty_files(directory: Path, names: list[str]) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    flags = os.O_CREAT | os.O_WRONLY | os.O_EXCL
    for name in names:
        os.close(os.open(directory / name, flags, 0o644))


class Dataset:
    """The pieces under ``root``, each made on first use."""

    def __init__(self, root: Path, sizes: Sizes) -> None:
        self.root = root
        self.sizes = sizes

    def _dir(self, name: str) -> Path:
        path = self.root / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    @cached_property
    def log(self) -> Path:
        """A log of identical lines ending in ``tail line 001`` … ``tail line 100``."""
        path = self._dir("logs") / "big.log"
        tail = "".join(f"tail line {i:03d}\n" for i in range(1, TAIL_LINES + 1)).encode()
        _repeat(path, _LOG_LINE.encode(), self.sizes.log_bytes, tail)
        return path

    @cached_property
    def one_line(self) -> Path:
        """Minified-style code: one line, no newline at all."""
        path = self._dir("oneline") / "bundle.js"
        _repeat(path, b"var a=1;b(a,2);", self.sizes.line_bytes)
        return path

    def _flat(self, name: str, entries: int) -> Path:
        # One entry in 50 is a directory, so the listing has both kinds to sort.
        path = self._dir(name)
        for i in range(0, entries, 50):
            (path / f"dir{i:06d}").mkdir()
        _empty_files(path, [f"file{i:06d}.txt" for i in range(entries) if i % 50])
        return path

    @cached_property
    def small_dir(self) -> Path:
        return self._flat("flat-small", self.sizes.small_dir)

    @cached_property
    def big_dir(self) -> Path:
        return self._flat("flat-big", self.sizes.big_dir)

    @cached_property
    def tree(self) -> Path:
        """``tree/partN/dNNN/fileNNNNN.ext``: ``tree_files`` empty files, ``part_files`` in each part."""
        path = self._dir("tree")
        made = 0
        while made < self.sizes.tree_files:
            part = path / f"part{made // self.sizes.part_files}"
            count = min(self.sizes.part_files, self.sizes.tree_files - made)
            for start in range(0, count, FILES_PER_DIR):
                batch = range(made + start, made + min(count, start + FILES_PER_DIR))
                names = [f"file{i:06d}{TREE_EXTENSIONS[i % len(TREE_EXTENSIONS)]}" for i in batch]
                _empty_files(part / f"d{start // FILES_PER_DIR:03d}", names)
            made += count
        return path

    @cached_property
    def tree_part(self) -> Path:
        return self.tree / "part0"

    @cached_property
    def project(self) -> Path:
        """``replace_files`` source files of about 2 KB; one in ten contains ``NEEDLE`` (twice)."""
        path = self._dir("project")
        plain = "".join(f"def handler_{i}(request):\n    return render(request, 'page_{i}.html')\n" for i in range(25))
        hit = plain + f"\nclass {NEEDLE}:\n    '''Rename me: {NEEDLE}.'''\n"
        for i in range(self.sizes.replace_files):
            directory = path / f"pkg{i // FILES_PER_DIR:03d}"
            directory.mkdir(exist_ok=True)
            (directory / f"module{i:05d}.py").write_text(hit if i % 10 == 0 else plain, encoding="utf-8")
        return path

    @cached_property
    def store(self) -> Path:
        """A state directory of change groups, backups and trash entries of files under the root, written through
        fsguard's own stores (their fsyncs skipped while they fill it: the same bytes, 35,000 fewer disk flushes)."""
        from fsguard.core.backups import BackupStore
        from fsguard.core.beneath import Pinned
        from fsguard.core.disk import AtomicWriter
        from fsguard.core.groups import Change, GroupStore
        from fsguard.core.trash import Trash

        state, files, s = self._dir("store-state"), self._dir("store-files"), self.sizes
        moment = [0.0]
        start = time.time() - 4 * 86_400  # within the default --backup-max-age, which the server applies at start

        def clock() -> float:
            return moment[0]

        fsync, os.fsync = os.fsync, lambda fd: None
        try:
            backups = BackupStore(state / "backups", max_age_days=7, max_count=100, clock=clock)
            for i in range(s.store_backups):
                moment[0] = start + i * 86_400 / s.store_backups
                data = f"version {i}\n".encode() * 4
                path = files / f"d{i % 50:02d}" / f"file{i % 2_000:04d}.txt"
                backups.snapshot(path, data, 0o644, operation="edit_file:replace", after_hash=None)
            groups = GroupStore(state / "backups" / "groups", AtomicWriter(state), clock=clock)
            for i in range(s.store_groups):
                moment[0] = start + i * 86_400 / s.store_groups
                groups.save("batch_operations", [Change.created(files / f"d{i % 50:02d}" / f"new{i}.txt", "0")])
            trash, doomed = Trash(state / "trash", AtomicWriter(state), clock=clock), self._dir("store-doomed")
            directory = os.open(doomed, os.O_RDONLY | os.O_DIRECTORY)
            try:
                for i in range(s.store_trash):
                    moment[0] = start + i * 86_400 / s.store_trash
                    (doomed / f"gone{i}.txt").write_bytes(b"gone\n")
                    trash.put(Pinned(directory, f"gone{i}.txt", doomed / f"gone{i}.txt"))
            finally:
                os.close(directory)
        finally:
            os.fsync = fsync
        return state

    @cached_property
    def content(self) -> Path:
        """A directory with one big text file, ``NEEDLE`` on its very last line only."""
        path = self._dir("content")
        _repeat(path / "big.txt", _LOG_LINE.encode(), self.sizes.content_bytes, f"found: {NEEDLE}\n".encode())
        return path


@dataclass(frozen=True)
class Target:
    """What a row must meet: fsguard at most ``ratio`` times the baseline, or under ``ms`` (first call if ``cold``)."""

    label: str
    ratio: float | None = None
    ms: float | None = None
    cold: bool = False
    found: bool = False  # content search: the word is found, or the skipped file is named

    def verdict(self, first_ms: float, median_ms: float, ratio: float | None, structured: dict[str, Any]) -> str:
        """yes or no, with the reason when it is not the time; ratio is fsguard's median over the baseline's."""
        if self.found:
            if int(structured.get("total_matches", 0) or 0) > 0:
                return "yes (found)"
            # default_skipped counts dependency directories; a size or binary skip is reported under another name.
            skips = [k for k, v in structured.items() if "skip" in k and not k.startswith("default_skipped") and v]
            return "yes (skip reported)" if skips else "no (0 matches, no skip named)"
        if self.ratio is not None:
            return "?" if ratio is None else ("yes" if ratio <= self.ratio else "no")
        elapsed = first_ms if self.cold else median_ms
        return "yes" if self.ms is not None and elapsed <= self.ms else "no"


@dataclass(frozen=True)
class Row:
    """One task: the fsguard call and its baseline (a reference server call or a raw rg command)."""

    task: str
    tool: str
    args: Args
    target: Target | None = None
    reference: tuple[str, Args] | None = None
    rg: list[str] | None = None
    flags: list[str] = field(default_factory=list)
    roots: list[Path] = field(default_factory=list)
    expect: str | None = None  # text the fsguard answer must contain
    # A directory changed in the last two seconds is never remembered (the racy window, as for fingerprints): one
    # an agent lists has usually stood longer than the bench's data, made just before it is timed.
    settled: bool = False


def rows(data: Dataset) -> dict[str, Callable[[], Row]]:
    """Every row by key; a row builds its data only when called."""
    s = data.sizes
    half = s.big_dir // 2
    return {
        "tail": lambda: Row(
            f"last {TAIL_LINES} lines of a {human(s.log_bytes)} log",
            "read_file",
            {"path": str(data.log), "mode": "tail", "max_lines": TAIL_LINES},
            Target("≤ reference", ratio=1.0),
            ("read_text_file", {"path": str(data.log), "tail": TAIL_LINES}),
            expect=f"tail line {TAIL_LINES:03d}",
        ),
        "head": lambda: Row(
            f"first 10 lines of a {human(s.log_bytes)} file",
            "read_file",
            {"path": str(data.log), "mode": "head", "max_lines": 10},
            reference=("read_text_file", {"path": str(data.log), "head": 10}),
            expect="worker-07",
        ),
        "info": lambda: Row(
            f"get_file_info of a {human(s.log_bytes)} file",
            "get_file_info",
            {"path": str(data.log)},
            Target("about 1 s (first call ≤ 1,500 ms)", ms=1500, cold=True),
            ("get_file_info", {"path": str(data.log)}),
        ),
        "longline": lambda: Row(
            f"read_file of a file that is one {human(s.line_bytes)} line",
            "read_file",
            {"path": str(data.one_line)},
            reference=("read_text_file", {"path": str(data.one_line)}),
        ),
        "list-default": lambda: Row(
            f"list_directory of a {s.small_dir:,}-entry directory, default call (first page, exact totals); "
            "reference: its default call (all names)",
            "list_directory",
            {"path": str(data.small_dir)},
            Target("≤ reference", ratio=1.0),
            ("list_directory", {"path": str(data.small_dir)}),
            settled=True,
        ),
        "list-sizes": lambda: Row(
            f"list_directory of a {s.small_dir:,}-entry directory, all entries with size and time; "
            "reference: list_directory_with_sizes",
            "list_directory",
            {"path": str(data.small_dir), "limit": s.small_dir},
            Target("≤ reference", ratio=1.0),
            ("list_directory_with_sizes", {"path": str(data.small_dir)}),
            flags=["--max-list-items", str(s.small_dir)],
            settled=True,
        ),
        "list": lambda: Row(
            f"list_directory of a {s.small_dir:,}-entry directory, all entries with size and time; "
            "reference: names and types only",
            "list_directory",
            {"path": str(data.small_dir), "limit": s.small_dir},
            reference=("list_directory", {"path": str(data.small_dir)}),
            flags=["--max-list-items", str(s.small_dir)],
            settled=True,
        ),
        "page": lambda: Row(
            f"list_directory, one page (offset {half:,}), of a {s.big_dir:,}-entry directory; reference: all",
            "list_directory",
            {"path": str(data.big_dir), "offset": half},
            Target("< 1 s", ms=1000),
            ("list_directory", {"path": str(data.big_dir)}),
            settled=True,
        ),
        "names": lambda: Row(
            f"file-name search *.py over a generated {s.part_files:,}-file tree",
            "search_files",
            {"pattern": "*.py", "path": str(data.tree_part)},
            Target("≤ 1.5x rg", ratio=1.5),
            rg=["--files", "-g", "*.py", str(data.tree_part)],
        ),
        "names-python": lambda: Row(
            "file-name search *.py over the Python install (sys.base_prefix, about 50,000 files)",
            "search_files",
            {"pattern": "*.py", "path": str(PYTHON_INSTALL)},
            Target("≤ 1.5x rg", ratio=1.5),
            rg=["--files", "-g", "*.py", str(PYTHON_INSTALL)],
            roots=[PYTHON_INSTALL],
        ),
        "names-big": lambda: Row(
            f"file-name search *.py over a {s.tree_files:,}-file tree",
            "search_files",
            {"pattern": "*.py", "path": str(data.tree)},
            Target("≤ 1.5x rg", ratio=1.5),
            rg=["--files", "-g", "*.py", str(data.tree)],
        ),
        "replace": lambda: Row(
            f"project_replace preview over {s.replace_files:,} files (1 in 10 match)",
            "project_replace",
            {"find": NEEDLE, "replace": "NewWidgetName", "path": str(data.project), "preview": True},
            Target("≤ 3x rg -l", ratio=3.0),
            rg=["-l", "-F", NEEDLE, str(data.project)],
        ),
        "backups": lambda: Row(
            f"backup list, limit 20, of {s.store_groups:,} change groups and {s.store_backups:,} backups "
            "(fsguard only: the reference server has no backups)",
            "backup",
            {"action": "list", "limit": 20},
            Target("≤ 100 ms", ms=100),
            flags=["--state-dir", str(data.store)],
            settled=True,
        ),
        "trash": lambda: Row(
            f"backup list_trash, limit 50, of {s.store_trash:,} trash entries (fsguard only)",
            "backup",
            {"action": "list_trash"},
            Target("≤ 100 ms", ms=100),
            flags=["--state-dir", str(data.store)],
            settled=True,
        ),
        "content": lambda: Row(
            f"content search of a {human(s.content_bytes)} file containing the word (last line)",
            "search_files",
            {"pattern": NEEDLE, "path": str(data.content), "include_content": True},
            Target("found, or the skip named", found=True),
            rg=["-l", NEEDLE, str(data.content)],
        ),
    }
