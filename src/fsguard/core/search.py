"""Content and name search over a tree, with ripgrep when available and a pure-Python engine otherwise.

Both engines return identical results (the ``engine`` field aside); the rules they share:

- Files: those of :func:`fsguard.core.ignore.walk_files`. ripgrep walks the tree itself with flags that give
  the same walk (see :mod:`fsguard.core.ripgrep`); the walker agrees with it on generated ``.gitignore`` trees.
  A search of a file searches that file, whatever .gitignore files, hidden names, globs or default skips say.
- Binary: a file whose searched text holds a NUL anywhere is skipped whole, as ripgrep skips files it walks.
- Text (:func:`fsguard.core.haystack.searched_text`): a UTF-8 BOM is dropped and a UTF-16 one (``FF FE``,
  ``FE FF``) transcodes the file; bytes that are not UTF-8 are searched as the text read_file shows, in the
  legacy code page :func:`fsguard.core.textio.decode` reads them in (Latin-1, cp1252, cp1251, Shift-JIS…): ``très``
  is found in a Latin-1 file, its lines come back decoded and its columns count its characters. A deliberate
  departure from the seed, whose tests pinned "mixed encodings: only UTF-8 files match" (it searched raw bytes):
  search and read_file agree on what a file says. UTF-8 after a BOM is searched as it is (invalid bytes show as
  U+FFFD); a UTF-32 file reads as binary, in both engines.
  Lines are read_file's (:data:`fsguard.core.textio.LINE_BREAK`): ``\\n``, ``\\r\\n`` and a lone ``\\r`` each end
  one, and no line holds a ``\\r`` (``^gamma`` and ``needle$`` match in ``beta\\rgamma needle\\r``, ``beta.gamma``
  does not); line numbers are read_file's. rg --crlf matches so; a file holding a lone ``\\r`` is shown from
  Python (:mod:`fsguard.core.haystack`). An empty match at the end of a last line that no line break ends is
  none, as in rg: ``$`` matches once in ``one\\ntwo``, twice in ``one\\ntwo\\n``.
- Pattern: RE2 syntax, or literal text with ``literal``; case-insensitive unless ``case_sensitive``. ``\\w \\d
  \\s \\b`` and their negations are ASCII as in RE2 (rewritten to explicit classes for ripgrep). ``whole_word``
  is ``rg -w``: the match must not follow or precede a Unicode word character. ``\\A``, ``\\z`` and ``^``/``$``
  under ``(?-m)`` are a line's edges, ``\\<`` and ``\\>`` are ``\\b``, a class's ``--`` is literal
  (:mod:`fsguard.core.query`). Several matches per line are found as ripgrep finds them (an empty match right after
  a match is skipped).
- Columns and offsets count characters; line and context text is cut to 500 characters and `` …`` (offsets are
  not); a match further into a long line is shown with the 496 characters around it, between ``… `` and `` …``.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from fsguard.core.beneath import Beneath
from fsguard.core.denial import HiddenFiles
from fsguard.core.errors import FsguardError, NotDirectoryError, NotFoundError, TooLargeError
from fsguard.core.haystack import Hit, binary_match, matching_lines, searched_text
from fsguard.core.ignore import WalkOptions, gitignore_top, walk_files
from fsguard.core.names import NameSearch, name_matcher, search_names
from fsguard.core.oserrors import check_readable, followed_os_error
from fsguard.core.provenance import Provenance
from fsguard.core.query import Query, prepare_query
from fsguard.core.ripgrep import Limits, RipgrepFailed, ripgrep_file_hits, ripgrep_hits, ripgrep_path
from fsguard.core.sidewalk import walk_beside
from fsguard.core.skips import Skips

__all__ = [
    "ContentMatch",
    "ContentSearch",
    "NameSearch",
    "name_matcher",
    "ripgrep_path",
    "search_content",
    "search_names",
    "searched_file",
]

logger = logging.getLogger(__name__)

MAX_LINE_CHARS = 500
CUT_MARK = " …"
PROGRESS_EVERY = 100
Engine = Literal["auto", "ripgrep", "python"]


@dataclass(frozen=True)
class ContentMatch:
    """One match: where it is and the line around it."""

    file: str
    line_number: int
    column: int
    match_start: int
    match_end: int
    line_content: str
    context_before: tuple[str, ...] = ()
    context_after: tuple[str, ...] = ()
    line_content_offset: int | None = None  # where line_content's text (after "… ") starts in a long line


@dataclass(frozen=True)
class ContentSearch:
    """Matches in walk order, then line and column. ``counts`` (per file, walk order) stops at ``max_files``
    files; ``total_matches`` and ``files_with_matches`` cover every match, even past ``max_results``."""

    matches: tuple[ContentMatch, ...]
    counts: dict[str, int]
    total_matches: int
    files_with_matches: int
    truncated: bool
    engine: Literal["ripgrep", "python"]
    binary: tuple[str, ...] = ()  # binary files holding a match (a NUL byte: not searched as text), walk order


@dataclass(frozen=True, kw_only=True)
class ContentRequest:
    """One content search: the pattern, how it matches, and how much comes back.

    ``max_files`` bounds ``counts``, not the totals. ``engine="auto"`` prefers ripgrep and falls back to
    Python, with a logged warning, if ripgrep fails.
    """

    pattern: str
    literal: bool = False
    case_sensitive: bool = False
    whole_word: bool = False
    context_lines: int = 0
    max_results: int = 1000
    max_files: int | None = None
    engine: Engine = "auto"


def search_content(
    root: Path,
    request: ContentRequest,
    options: WalkOptions,
    *,
    progress: Callable[[int], None] | None = None,
    beneath: Beneath | None = None,
    hide: HiddenFiles | None = None,
    skips: Skips | None = None,
) -> ContentSearch:
    """Search the text of the files :func:`walk_files` selects (rules in the module docstring), or of the file
    ``root`` itself, whatever ``options`` say but its size.

    ``progress`` is called as the search goes, with a count that never decreases (files walked, every 100,
    with Python; rounds of 0.1 s with ripgrep, never what it found: see :func:`~fsguard.core.rgprocess.run_spooled`);
    an exception it raises stops the search.
    With ``beneath``, every match, count, total and binary file returned comes from a file confirmed inside the
    roots through the pinned walk (:mod:`fsguard.core.provenance`); the Python engine reads through it. ``hide``
    (absolute path -> True) drops the files a deny rule hides, before the totals are made, in both engines, and
    the Python engine never reads them; nothing says how many there were, as a count of the hidden files holding
    a match would answer, one pattern at a time, what a secret holds.
    ``skips`` gets the default skips, the files above ``max_file_size`` and the directories the user may not list
    or enter (which both engines skip) of a directory's search (see :func:`fsguard.core.ignore.default_skips`), from
    a walk run while ripgrep counts (on the other core), else before the search. That walk also looks at each
    ``.gitignore`` rg reads: one rg would read otherwise than git (a FIFO it would wait on for ever, braces) makes
    the Python engine answer (:mod:`fsguard.core.sidewalk`).

    Raises:
        InvalidParamsError: the pattern or a glob is invalid.
        NotFoundError, NotDirectoryError: ``root`` is neither a directory nor a regular file.
        TooLargeError: ``root`` is a file above ``options.max_file_size``.
        FsguardError: ``engine="ripgrep"`` and ripgrep is missing or failed.
    """
    is_file = searched_file(root, options.max_file_size)
    query = prepare_query(request.pattern, request.literal, request.case_sensitive, request.whole_word)
    limits = Limits(max(request.context_lines, 0), request.max_results, request.max_files)
    rg = ripgrep_path()
    if request.engine == "ripgrep" and rg is None:
        raise FsguardError("ripgrep is not installed. Retry with engine='python'.")
    # Binary files holding a match are named for a pattern whose matches are ASCII (most words and names, any
    # case, whole words too): in their bytes both engines find it alike (RE2 confirms rg's whole words), rg reading
    # a NUL as a line break. Other patterns would match the undecodable bytes of a binary file differently in each.
    binary: list[str] = []
    binaries = binary if query.rawwise else None
    found_by_name = (None, None, None) if skips is None else (skips.by_default, skips.too_large, skips.unreadable)
    skipped, large, unreadable = found_by_name
    walked = is_file  # a file's search walks nothing, and rg reads no .gitignore for it

    def beside(*, screen: bool = True) -> None:  # once: while rg counts, else before the Python walk
        nonlocal walked
        if not walked:
            walked = True
            walk_beside(root, options, skipped, large, screen=screen, unreadable=unreadable)

    # rg and the Python walk open files by name: what they find is confirmed through the pinned walk (see
    # fsguard.core.provenance), whose checks start before they do.
    with ExitStack() as held:
        start = root.parent if is_file else gitignore_top(root, options)  # where rg starts reading
        provenance = None if beneath is None else held.enter_context(Provenance(beneath, start))
        # rg reaches a one-file search's file by walking its directory: one its user may not list (mode -wx) hides
        # the file from it, so the Python engine, which opens the file by name, reads it
        hidden = is_file and request.engine == "auto" and not os.access(root.parent, os.R_OK, effective_ids=True)
        if request.engine != "python" and rg is not None and not hidden:
            try:
                if is_file:
                    found = ripgrep_file_hits(
                        rg, root, query, limits, progress=progress, beneath=beneath, binaries=binaries
                    )
                else:
                    found = ripgrep_hits(
                        rg,
                        root,
                        query,
                        options,
                        limits,
                        progress=progress,
                        beneath=beneath,
                        hide=hide,
                        binaries=binaries,
                        meanwhile=beside,
                    )
                binary = _binary(binary, provenance, query)
                hits = _confirmed(iter(found), provenance, query, request.max_results)
                return _collect(hits, limits, "ripgrep", tuple(binary))
            except RipgrepFailed as exc:
                if request.engine == "ripgrep":
                    raise FsguardError(f"ripgrep failed: {exc}. Retry with engine='python'.") from exc
                logger.warning("ripgrep failed (%s); searching with the Python engine", exc)
        binary.clear()  # what a failed rg run found is found again
        beside(screen=False)
        read = _read if provenance is None else provenance.read  # read through the pinned walk: nothing to confirm
        files = iter([root]) if is_file else walk_files(root, options)
        if hide is not None and not is_file:  # never read: what a hidden file holds must not shape the answer
            files = (path for path in files if not hide(str(path)))
        hits = _python_hits(query, files, progress, binaries, read)
        result = _collect(hits, limits, "python")
    if hide is not None and not is_file:
        binary = [file for file in binary if not hide(file)]
    return dataclasses.replace(result, binary=tuple(binary))


def searched_file(root: Path, max_file_size: int | None = None) -> bool:
    """True if ``root`` is a regular file a search may read, False if it is a directory.

    Raises:
        NotFoundError: ``root`` does not exist.
        NotDirectoryError: ``root`` is something else (a device, a pipe).
        AccessDeniedError: a file the server's user may not read.
        TooLargeError: a file above ``max_file_size``.
    """
    try:
        found = root.stat()
    except FileNotFoundError as exc:
        raise NotFoundError(f"{root} does not exist. Check the path with list_directory.", path=str(root)) from exc
    except OSError as exc:
        raise followed_os_error(exc, root) from exc
    if stat.S_ISDIR(found.st_mode):
        return False
    if not stat.S_ISREG(found.st_mode):
        raise NotDirectoryError(
            f"{root} is neither a file nor a directory; search a directory holding it.", path=str(root)
        )
    check_readable(root)
    if max_file_size is not None and found.st_size > max_file_size:
        raise TooLargeError(
            f"{root} is {found.st_size:,} bytes, above the {max_file_size:,}-byte limit (--max-file-size), so it "
            'is not searched. Read it in parts with read_file(path, start_line=..., end_line=...) or mode="tail".',
            path=str(root),
        )
    return True


def _confirmed(hits: Iterator[Hit], provenance: Provenance | None, query: Query, room: int) -> Iterator[Hit]:
    """The hits of files settled since the search began as they are; the others made again from the file the
    pinned walk reaches at that path now (left out if it has no match there). Lines come with a hit where rg read
    them, and, once a hit with lines was dropped or cut, with the next ones while the first ``room`` matches still
    want them: a race costs no inside line."""
    if provenance is None:
        yield from hits
        return
    short = False
    for hit in hits:
        file, count, found, _lines = hit
        wanted = bool(found) or (short and room > 0)
        if provenance.settled(file) and (found or not wanted):
            room -= count if found else 0
            yield hit
            continue
        data = provenance.read(file)
        text = None if data is None else searched_text(data)
        again, lines = matching_lines(query, text) if text is not None else ([], {})
        number = sum(len(spans) for _, spans in again)
        short = short or (bool(found) and number < count)
        if not again:
            continue
        if wanted:
            room -= number
            yield file, number, again, lines
        else:
            yield file, number, (), {}


def _binary(files: list[str], provenance: Provenance | None, query: Query) -> list[str]:
    """Those of the binary ``files`` rg named that are binary files holding a match as the pinned walk finds them,
    and for whole words as RE2 finds them: rg reads some undecodable bytes beside a word as no word character."""
    if provenance is None and not query.whole_word:
        return files
    kept = []
    for file in files:
        if provenance is None or query.whole_word or not provenance.settled(file):
            data = _read(file) if provenance is None else provenance.read(file)
            if data is None or searched_text(data) is not None:
                continue
            if not binary_match(query, data):
                continue
        kept.append(file)
    return kept


def _cut(line: bytes) -> str:
    """A line as shown: its first :data:`MAX_LINE_CHARS` characters, and `` …`` when there are more (as the seed)."""
    text = line.decode("utf-8", "replace")
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + CUT_MARK


def _around(line: str, first: int, last: int) -> tuple[str, int | None]:
    """The matched line as shown, and where its shown text starts in the line when it is a window (None: from the
    start). A match past the first :data:`MAX_LINE_CHARS` characters (an identifier deep in a minified bundle) is
    shown with the characters around it, behind ``… ``; the start of the line would not show it at all."""
    if last <= MAX_LINE_CHARS or len(line) <= MAX_LINE_CHARS:
        return line, None
    width = MAX_LINE_CHARS - 2 * len(CUT_MARK)  # marks included, a window is no longer than a cut line's text
    start = max(min(first - width // 3, len(line) - width), 0)
    if not start:  # nothing before it to leave out: the cut line shows the same text and a little more
        return line, None
    end = start + width
    return "… " + line[start:end] + (CUT_MARK if end < len(line) else ""), start


def _collect(
    hits: Iterator[Hit],
    limits: Limits,
    engine: Literal["ripgrep", "python"],
    binary: tuple[str, ...] = (),
) -> ContentSearch:
    """Matches from per-file hits (every file with a match), with character offsets and context lines, up to
    ``max_results``; the totals count them all."""
    max_results, max_files, context = limits.max_results, limits.max_files, limits.context
    matches: list[ContentMatch] = []
    counts: dict[str, int] = {}
    total = files = 0
    for file, count, found, lines in hits:
        total, files = total + count, files + 1
        if max_files is None or files <= max_files:
            counts[file] = count
        for number, spans in found:
            room = max_results - len(matches)
            if room <= 0:
                continue
            near = {k: _cut(lines[k]) for k in range(number - context, number + context + 1) if k in lines}
            before = tuple(text for k, text in near.items() if k < number)
            after = tuple(text for k, text in near.items() if k > number)
            raw = lines[number]
            whole = raw.decode("utf-8", "replace") if len(raw) > MAX_LINE_CHARS else ""
            for start, end in spans[:room]:
                first, last = _chars(raw, start), _chars(raw, end)
                window, offset = _around(whole, first, last) if whole else ("", None)
                shown = near[number] if offset is None else window
                matches.append(ContentMatch(file, number, first + 1, first, last, shown, before, after, offset))
    return ContentSearch(tuple(matches), counts, total, files, total > max_results, engine, binary)


def _python_hits(
    query: Query,
    files: Iterator[Path],
    progress: Callable[[int], None] | None,
    binary: list[str] | None,
    read: Callable[[str], bytes | None],
) -> Iterator[Hit]:
    """The hits of the text files among ``files``, as ``read`` gives their bytes; ``binary`` gets the binary ones
    holding a match."""
    walked = 0
    for walked, path in enumerate(files, 1):
        if progress is not None and walked % PROGRESS_EVERY == 0:
            progress(walked)
        data = read(str(path))
        if data is None:
            continue  # vanished or unreadable since the walk: skipped, as ripgrep does
        text = searched_text(data)
        if text is None:
            if binary is not None and binary_match(query, data):
                binary.append(str(path))
            continue
        found, lines = matching_lines(query, text)
        if found:
            yield str(path), sum(len(spans) for _, spans in found), found, lines
    if progress is not None:
        progress(walked)


def _read(path: str) -> bytes | None:
    try:
        return Path(path).read_bytes()
    except OSError:
        return None


def _chars(raw: bytes, offset: int) -> int:
    return len(raw[:offset].decode("utf-8", "replace"))
