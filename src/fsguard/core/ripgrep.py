"""The ripgrep engine of content search: rg walks the tree itself, with flags that give the walk of
:func:`fsguard.core.ignore.walk_files` (:mod:`fsguard.core.rgwalk`).

Two runs. The first, ``--count-matches``, walks and counts: it names every text file with a match (binary
files, with a NUL byte anywhere, are left out) and its output stays small however many matches there are. The
second, ``--json``, reads only the first of those files in walk order, as many as ``max_results`` matches need,
for lines, columns and context.

Files in a legacy code page (not UTF-8, no BOM), which rg reads as raw bytes, are searched in Python as read_file
decodes them (:func:`fsguard.core.haystack.decoded_matches`), their counts and lines replacing rg's. To find them
(see :func:`_hits`), a third run lists the files that are not UTF-8, unless the pattern is ``bytewise``
(:mod:`fsguard.core.query`): then only the files counted can match, and Python checks those. So are the files
shown that hold a lone ``\\r``, a line break for the search (as for read_file) that rg --crlf matches as one but
numbers and shows lines without (:mod:`fsguard.core.haystack`).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from fsguard.core.beneath import Beneath
from fsguard.core.denial import HiddenFiles
from fsguard.core.globs import glob_matcher
from fsguard.core.haystack import Found, Hit, decoded_matches
from fsguard.core.ignore import WalkOptions, gitignore_top
from fsguard.core.query import Query
from fsguard.core.rgmatches import detailed
from fsguard.core.rgprocess import Cwd, Progress, RipgrepFailed, named_batches, run_spooled, ticking
from fsguard.core.rgwalk import glob_literal, only_below, walk_flags

__all__ = [
    "Limits",
    "RipgrepFailed",
    "pinned",
    "ripgrep_file_hits",
    "ripgrep_hits",
    "ripgrep_path",
    "walk_key",
]

# ``--count-matches --null --crlf`` output: ./path NUL count CR LF, where a path may hold anything but NUL
_COUNT_RECORD = re.compile(rb"\./([^\0]*)\0(\d+)\r\n")
_LISTED_NAME = re.compile(rb"\./([^\0]*)\0")  # ``--files-with-matches --null`` output: ./path NUL
_NO_LINES: Mapping[int, bytes] = MappingProxyType({})


def ripgrep_path() -> Path | None:
    """The ``rg`` of the ripgrep wheel next to the interpreter, else ``rg`` on PATH, else None."""
    bundled = Path(sys.executable).parent / "rg"
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return bundled
    found = shutil.which("rg")
    return Path(found) if found else None


@dataclass(frozen=True)
class Limits:
    """How much of a search to detail: lines of context, matches, and files counted one by one."""

    context: int
    max_results: int
    max_files: int | None


def ripgrep_hits(
    rg: Path,
    root: Path,
    query: Query,
    options: WalkOptions,
    limits: Limits,
    *,
    progress: Progress | None,
    beneath: Beneath | None = None,
    binary: bool = False,
    hide: HiddenFiles | None = None,
    meanwhile: Callable[[], None] | None = None,
    binaries: list[str] | None = None,
) -> Iterator[Hit]:
    """Search the tree at ``root`` with ``rg``: the hits of every file with a match, in walk order, with lines for
    the files the first ``max_results`` matches need and counts alone for the others (rg opens them by name: the
    caller confirms them, see :mod:`fsguard.core.provenance`). With ``binary``, files holding a NUL are counted too
    (their raw bytes searched), for a caller that reports them rather than searching them. ``hide`` (absolute path
    -> True) drops the files a deny rule hides before anything is counted or shown, and none is read again.
    ``meanwhile`` runs once while rg counts (on the other core). ``binaries`` gets the binary files holding a match
    (absolute paths, walk order), which are neither counted nor searched: rg counts binary files too, then names
    those holding a NUL.

    Raises:
        RipgrepFailed: rg could not run or reported an error.
    """
    common = [str(rg), "--no-config", "--crlf", "--no-mmap", "-e", query.rust]
    wanted = glob_matcher(options.globs) if options.globs else None
    top = gitignore_top(root, options)  # rg walks from there, so the .gitignore files above root apply
    inside = root.relative_to(top).parts
    lead = b"".join(os.fsencode(part) + b"/" for part in inside)
    with only_below(inside) as narrowing, pinned(beneath, top) as cwd:
        walk = [*walk_flags(options, inside), *narrowing, "--null", "--", "./"]
        count = [*common, *(["--binary"] if binary or binaries is not None else []), "--count-matches", *walk]
        rounds = ticking(progress)
        output = run_spooled(count, cwd, rounds, meanwhile)
        listed = None if query.bytewise else run_spooled([*_suspects(rg), *walk], cwd, rounds)
    # Tens of thousands of records: no per-record work in Python beyond the sort key unless a filter needs it.
    counted: list[tuple[bytes, bytes]] = _COUNT_RECORD.findall(output)
    suspects: list[bytes] | None = None if listed is None else _LISTED_NAME.findall(listed)
    if lead or wanted is not None:

        def kept(relative: bytes) -> bool:
            return relative.startswith(lead) and (wanted is None or wanted(os.fsdecode(relative[len(lead) :])))

        counted = [(relative[len(lead) :], count) for relative, count in counted if kept(relative)]
        suspects = None if suspects is None else [relative[len(lead) :] for relative in suspects if kept(relative)]
    if hide is not None:
        visible = _visible([*{relative for relative, _ in counted}.union(suspects or ())], hide, root)
        counted = [record for record in counted if record[0] in visible]
        suspects = None if suspects is None else [name for name in suspects if name in visible]
    counted.sort(key=_walk_order)
    if binaries is not None and counted:
        with pinned(beneath, root) as cwd:
            held = _holding_nul(rg, cwd, [relative for relative, _ in counted])
        if held:
            counted = [record for record in counted if record[0] not in held]
            suspects = None if suspects is None else [name for name in suspects if name not in held]
            prefix = str(root).rstrip("/") + "/"
            binaries += [prefix + os.fsdecode(relative) for relative in sorted(held, key=walk_key)]
    if suspects is None:  # a bytewise pattern: only the files counted can match once decoded
        suspects = [relative for relative, _ in counted]
    return _hits(common, query, counted, suspects, root, limits, beneath)


def ripgrep_file_hits(
    rg: Path,
    file: Path,
    query: Query,
    limits: Limits,
    *,
    progress: Progress | None,
    beneath: Beneath | None = None,
    binaries: list[str] | None = None,
) -> Iterator[Hit]:
    """:func:`ripgrep_hits` for the one file ``file``, searched whatever .gitignore files, hidden names or default
    skips say: rg walks its directory letting only that name through, so binary files and encodings are read as
    in a tree search (``binaries`` gets the file if it is binary and holds a match).

    Raises:
        RipgrepFailed: rg could not run or reported an error.
    """
    common = [str(rg), "--no-config", "--crlf", "--no-mmap", "-e", query.rust]
    only = ["--no-ignore", "--hidden", "--no-messages", "--max-depth", "1", "--glob", "/" + glob_literal(file.name)]
    binary = ["--binary"] if binaries is not None else []
    with pinned(beneath, file.parent) as cwd:
        output = run_spooled([*common, *only, *binary, "--count-matches", "--null", "--", "./"], cwd, progress)
        counted = _COUNT_RECORD.findall(output)
        if binaries is not None and counted and _holding_nul(rg, cwd, [counted[0][0]]):
            binaries.append(str(file))
            counted = []
    return _hits(common, query, counted, [os.fsencode(file.name)], file.parent, limits, beneath)


def _suspects(rg: Path) -> list[str]:
    """An rg run naming the files that may be in a legacy code page: those that are not UTF-8 (or hold U+FFFD).

    Read as UTF-8 (``-E utf-8``), bytes that are not become U+FFFD, which rg then finds as a literal about as fast
    as a count run finds a word: a byte-class pattern (``(?-u:[\\x80-\\xFF])``) has no literal to skip ahead by
    and took twice as long. A pattern that is ``bytewise`` needs no such run (see :func:`_hits`).
    """
    return [str(rg), "--no-config", "--no-mmap", "--encoding", "utf-8", "--files-with-matches", "-F", "-e", "\ufffd"]


def _holding_nul(rg: Path, cwd: Cwd, files: list[bytes]) -> set[bytes]:
    """Those of ``files`` (relative to ``cwd``) holding a NUL byte: binary, which rg searches only with ``--binary``
    and a search as text leaves out. Only files with a match are asked about, each read up to its first NUL."""
    held: set[bytes] = set()
    for batch in named_batches(files):
        command: list[str | bytes] = [str(rg), "--no-config", "--no-mmap", "--text", "--files-with-matches"]
        output = run_spooled([*command, "--null", "-e", r"\x00", "--", *batch], cwd, None)
        held.update(_LISTED_NAME.findall(output))
    return held


def _visible(names: list[bytes], hide: HiddenFiles, root: Path) -> set[bytes]:
    """Those of ``names`` (relative to ``root``) that no deny rule hides, judged all at once
    (:meth:`fsguard.core.denial.HiddenFiles.shown`): one by one, 500 files took 7 ms."""
    if not names:
        return set()
    decoded = _decoded(names)
    shown = set(hide.shown(decoded, str(root)))
    return {name for name, text in zip(names, decoded, strict=True) if text in shown}


def _hits(
    common: list[str],
    query: Query,
    counted: list[tuple[bytes, bytes]],
    suspects: list[bytes],
    root: Path,
    limits: Limits,
    beneath: Beneath | None,
) -> Iterator[Hit]:
    """The hits of the files ``counted`` (paths relative to ``root`` with their counts, in walk order), with
    lines for as many as the first ``max_results`` matches need: read by rg as the hits are taken, one file's
    lines held at a time (:mod:`fsguard.core.rgmatches`).

    Those of ``suspects`` in a legacy code page, which rg read as raw bytes, and those holding a lone ``\\r``, among
    them and among the files shown, are searched as text in Python instead. For a ``bytewise`` pattern the
    suspects are the files counted: it matches a legacy file's raw bytes wherever it matches its text, so no other
    file can match once decoded.
    """
    with pinned(beneath, root) as cwd:
        decoded = decoded_matches(query, cwd, suspects)
        if decoded:
            counted = _recounted(counted, decoded)
        # rg lists with a count of 0 a file matched only by an empty match at the end of its unterminated last
        # line, which is no match (fsguard.core.haystack.matching_lines)
        counted = [record for record in counted if record[1] != b"0"]
        shown = _shown(counted, limits.max_results)
        # A shown file holding a lone CR is numbered and shown in Python: its counts from rg stand (rg --crlf
        # matches as the Python engine does), so only these few are read, not every file counted.
        listed = set(suspects)
        if also := decoded_matches(query, cwd, [relative for relative in shown if relative not in listed]):
            decoded.update(also)
            counted = _recounted(counted, also)
            shown = _shown(counted, limits.max_results)
    asked = [relative for relative in shown if relative not in decoded]
    details = _details(common, beneath, root, asked, limits)
    return _joined(counted, decoded, set(asked), details, str(root).rstrip("/") + "/")


def _shown(counted: list[tuple[bytes, bytes]], most: int) -> list[bytes]:
    """The first of the files ``counted`` (in walk order), as many as the first ``most`` matches are in."""
    shown: list[bytes] = []
    for relative, count in counted:
        if most <= 0:
            break
        shown.append(relative)
        most -= int(count)
    return shown


def _details(
    common: list[str], beneath: Beneath | None, root: Path, files: list[bytes], limits: Limits
) -> Iterator[tuple[bytes, Found]]:
    if not files:
        return
    with pinned(beneath, root) as cwd:
        yield from detailed(common, cwd, files, limits.context, limits.max_results)


def _joined(
    counted: list[tuple[bytes, bytes]],
    decoded: dict[bytes, Found],
    asked: set[bytes],
    details: Iterator[tuple[bytes, Found]],
    prefix: str,
) -> Iterator[Hit]:
    """Every file's hit, past max_files too: the totals are made of the hits once confirmed
    (fsguard.core.provenance). The details of the files ``asked`` come in their order; one rg no longer names
    (changed since the count) comes with its count alone."""
    names = _decoded([relative for relative, _ in counted]) if counted else []
    upcoming = next(details, None)
    for (relative, count), name in zip(counted, names, strict=True):
        if relative in asked and upcoming is not None and upcoming[0] == relative:
            found, lines = upcoming[1]
            upcoming = next(details, None)
        elif relative in decoded:
            found, lines = decoded[relative]
        else:
            yield prefix + name, int(count), (), _NO_LINES  # shared empties: no garbage per file
            continue
        if found:  # a file that turned binary since the count is left out
            yield prefix + name, int(count), found, lines  # found stops at max_results lines


def _decoded(names: list[bytes]) -> list[str]:
    """``names`` as os.fsdecode reads each, in one decode: os.fsdecode per name cost more than a loop over them."""
    return b"\0".join(names).decode(sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()).split("\0")


def _recounted(counted: list[tuple[bytes, bytes]], decoded: dict[bytes, Found]) -> list[tuple[bytes, bytes]]:
    """``counted`` with the counts of the ``decoded`` files instead of rg's, in walk order, files with none left out."""
    kept = [record for record in counted if record[0] not in decoded]
    for relative, (found, _lines) in decoded.items():
        if found:
            kept.append((relative, str(sum(len(spans) for _, spans in found)).encode()))
    return sorted(kept, key=_walk_order)


def walk_key(relative: bytes) -> bytes:
    """Directories depth first, names byte-wise: the order of ``walk_files``, as NUL sorts before any name byte."""
    return relative.replace(b"/", b"\0")


def _walk_order(record: tuple[bytes, bytes]) -> bytes:
    return walk_key(record[0])


@contextmanager
def pinned(beneath: Beneath | None, directory: Path) -> Iterator[Cwd]:
    """The directory rg starts in, as an fd reached by the pinned walk when there is one (else its path).

    rg itself opens what it walks by name below that point: a search reads, it never writes.
    """
    if beneath is None or not Path("/proc/self/fd").is_dir():
        yield directory
        return
    with beneath.directory(directory, listed=False) as fd:  # rg lists what it walks itself: a cwd to search
        yield fd
