"""Content and name search over a tree, with ripgrep when available and a pure-Python engine otherwise.

Both engines return identical results (the ``engine`` field aside); the rules they share:

- Files: exactly those of :func:`fsguard.core.ignore.walk_files`. ripgrep is handed that list in batches of
  paths rather than left to walk with its own flags: ``-g`` globs override its ignore rules (a ``*.py`` glob
  would bring back gitignored ``.py`` files) and its gitignore dialect differs from pathspec's in corners, so
  only an explicit list makes the two sets equal. Runs of 500 paths cost ~10 ms each; once ``max_results``
  matches are in, later runs use ``--count-matches`` instead of ``--json``.
- Binary: a file whose first 8 KiB hold a NUL byte is skipped, unless it starts with a UTF-16 BOM; UTF-32
  files are skipped too (ripgrep cannot decode them). ripgrep runs with ``-a`` (for explicit paths it would
  otherwise print binary matches with NULs turned into line breaks) and files it reports are sniffed the same way.
- Text: UTF-16 (by BOM) is transcoded, a UTF-8 BOM dropped, other bytes searched as UTF-8 as they are
  (RE2 and Rust both in UTF-8 mode; invalid bytes show as U+FFFD in reported text).
  Lines end at ``\\n`` only; a ``\\r`` before it is dropped (``rg --crlf``), a lone ``\\r`` ends nothing.
- Pattern: RE2 syntax, or literal text with ``literal``; case-insensitive unless ``case_sensitive``. ``\\w \\d
  \\s \\b`` and their negations are ASCII as in RE2 (rewritten to explicit classes for ripgrep). ``whole_word``
  is ``rg -w``: the match must not follow or precede a Unicode word character. Several matches per line are
  found as ripgrep finds them (an empty match right after a match is skipped).
- Columns and offsets count characters; line and context text is cut to 500 characters (offsets are not).
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import re2

from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.ignore import (
    NameSearch,
    WalkOptions,
    check_directory,
    is_text_file,
    is_text_head,
    search_names,
    searched_bytes,
    walk_files,
)
from fsguard.core.textio import BINARY_SNIFF_BYTES

__all__ = ["ContentMatch", "ContentSearch", "NameSearch", "ripgrep_path", "search_content", "search_names"]

logger = logging.getLogger(__name__)

MAX_LINE_CHARS = 500
PROGRESS_EVERY = 100
_BATCH_FILES = 500  # paths per rg run: ~50 KB of arguments for typical paths
# Rust's Unicode \w (Alphabetic, M, Nd, Pc, Join_Control) as RE2 can spell it; Other_Alphabetic symbols listed.
_WORD = (
    r"\p{L}\p{Nl}\p{M}\p{Nd}\p{Pc}\x{200C}\x{200D}"
    r"\x{24B6}-\x{24E9}\x{1F130}-\x{1F149}\x{1F150}-\x{1F169}\x{1F170}-\x{1F189}"
)
# Multi-line whole-file search can miss a line's match only through \A, \z or a flag turned off, e.g. (?-m).
_NO_PREFILTER = re.compile(r"\\[Az]|\(\?[a-zA-Z]*-")
_ASCII_CLASSES = {"w": "0-9A-Za-z_", "d": "0-9", "s": r"\t\n\f\r "}
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


@dataclass(frozen=True)
class ContentSearch:
    """Matches in walk order, then line and column; counts cover every match, even past ``max_results``."""

    matches: tuple[ContentMatch, ...]
    counts: dict[str, int]
    total_matches: int
    truncated: bool
    files_searched: int
    engine: Literal["ripgrep", "python"]


@dataclass(frozen=True)
class _Query:
    regex: Any  # re2 pattern; the match is group 1 for whole words, else group 0
    rest: Any  # the same, for searches that start past the line's start
    group: int
    prefilter: Any | None  # the same pattern over a whole file, multi-line; None when that could miss a match
    rust: str


class _RipgrepFailed(Exception):
    pass


def ripgrep_path() -> Path | None:
    """The ``rg`` of the ripgrep wheel next to the interpreter, else ``rg`` on PATH, else None."""
    bundled = Path(sys.executable).parent / "rg"
    if bundled.is_file() and os.access(bundled, os.X_OK):
        return bundled
    found = shutil.which("rg")
    return Path(found) if found else None


def _compile(pattern: str) -> Any:
    """An RE2 regex over UTF-8 bytes (offsets are byte offsets, as ripgrep reports them)."""
    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern.encode("utf-8", "surrogateescape"), options)
    except re2.error as exc:
        message = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        hint = "Pass literal=true to search plain text."
        raise InvalidParamsError(f"invalid regex {pattern!r}: {message}. {hint}", pattern=pattern) from exc


def _escape(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" or not ch.isascii() else f"\\x{{{ord(ch):x}}}" for ch in text)


def _prepare(pattern: str, literal: bool, case_sensitive: bool, whole_word: bool) -> _Query:
    if not pattern:
        raise InvalidParamsError("the search pattern is empty.")
    if "\n" in pattern:
        raise InvalidParamsError("the pattern contains a line break; searches match within one line.")
    body = _escape(pattern) if literal else pattern
    _compile(body)  # reports the user's own syntax errors, not those of the wrapper below
    flags = "" if case_sensitive else "(?i)"
    if whole_word:
        python = f"{flags}(?:^|[^{_WORD}])({body})(?:[^{_WORD}]|$)"
        rest = f"{flags}[^{_WORD}]({body})(?:[^{_WORD}]|$)"
        rust = rf"{flags}\b{{start-half}}(?:{_to_rust(body)})\b{{end-half}}"
    else:
        python, rust = f"{flags}(?:{body})", f"{flags}(?:{_to_rust(body)})"
        rest = python
    prefilter = None if _NO_PREFILTER.search(body) else _compile("(?m)" + python)
    regex = _compile(python)
    return _Query(regex, regex if rest == python else _compile(rest), 1 if whole_word else 0, prefilter, rust)


def _to_rust(pattern: str) -> str:
    """Rewrite RE2's ASCII-only ``\\w \\d \\s \\b`` (and negations) into classes Rust's regex reads the same way."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        nxt = pattern[i + 1] if i + 1 < len(pattern) else ""
        if ch == "\\" and nxt == "Q":
            end = pattern.find(r"\E", i + 2)
            out.append(_escape(pattern[i + 2 : end if end >= 0 else len(pattern)]))
            i = end + 2 if end >= 0 else len(pattern)
            continue
        if ch == "\\" and nxt.lower() in _ASCII_CLASSES:
            chars = _ASCII_CLASSES[nxt.lower()]
            negate = "^" if nxt.isupper() else ""
            out.append(f"[{negate}{chars}]" if negate or not in_class else chars)
        elif ch == "\\" and nxt in "bB":
            out.append(f"(?-u:\\{nxt})")
        elif ch == "\\":
            out.append(ch + nxt)
        elif ch == "[" and in_class and nxt == ":":
            end = pattern.find(":]", i + 2)
            end = end + 2 if end >= 0 else len(pattern)
            out.append(pattern[i:end])
            i = end
            continue
        elif ch == "[" and not in_class:
            in_class = True
            start = i + 1 + (nxt == "^")
            start += pattern[start : start + 1] == "]"  # a leading ] is a literal
            out.append(pattern[i:start])
            i = start
            continue
        elif in_class and ch in "[&~":
            out.append("\\" + ch)  # literal in RE2, nesting or set operators in Rust
        else:
            in_class = in_class and ch != "]"
            out.append(ch)
            i += 1
            continue
        i += 2
    return "".join(out)


def _find_all(query: _Query, line: bytes) -> list[tuple[int, int]]:
    """Byte spans of the matches in ``line``, iterated as ripgrep's grep-matcher does."""
    spans: list[tuple[int, int]] = []
    at, last = 0, -1
    while at <= len(line):
        # Whole words: the character before ``at`` is read as the boundary, and only the line's start is ``^``.
        back = at - query.group if at else 0
        while query.group and back > 0 and 0x80 <= line[back] < 0xC0:
            back -= 1
        found = (query.regex if at == 0 else query.rest).search(line, back)
        if found is None:
            break
        start, end = found.span(query.group)
        at = end + 1 if start == end else end
        if start == end == last:
            continue
        last = end
        spans.append((start, end))
    return spans


def _cut(line: bytes) -> str:
    return line.decode("utf-8", "replace")[:MAX_LINE_CHARS]


# Per file with matches, in walk order: (path, match count, [(line number, byte spans)], the lines by number).
# Once ``max_results`` matches are in, later files may come with their count only.
Hits = Iterator[tuple[str, int, list[tuple[int, list[tuple[int, int]]]], dict[int, bytes]]]


def search_content(
    root: Path,
    pattern: str,
    options: WalkOptions,
    *,
    literal: bool = False,
    case_sensitive: bool = False,
    whole_word: bool = False,
    context_lines: int = 0,
    max_results: int = 1000,
    engine: Engine = "auto",
    progress: Callable[[int], None] | None = None,
) -> ContentSearch:
    """Search the text of the files :func:`walk_files` selects (rules in the module docstring).

    ``progress`` gets the number of files searched so far (every ~100 files with Python, per batch of paths
    with ripgrep); an exception it raises stops the search. ``engine="auto"`` prefers ripgrep and falls back
    to Python, with a logged warning, if ripgrep fails.

    Raises:
        InvalidParamsError: the pattern or a glob is invalid.
        NotFoundError, NotDirectoryError: ``root`` is not a directory.
        FsguardError: ``engine="ripgrep"`` and ripgrep is missing or failed.
    """
    check_directory(root)
    query = _prepare(pattern, literal, case_sensitive, whole_word)
    files = [str(path) for path in walk_files(root, options)]
    context = max(context_lines, 0)
    rg = ripgrep_path()
    if engine == "ripgrep" and rg is None:
        raise FsguardError("ripgrep is not installed. Retry with engine='python'.")
    if engine != "python" and rg is not None:
        try:
            hits = _ripgrep_hits(rg, query, files, context, max_results, progress)
            return _collect(hits, len(files), max_results, context)
        except _RipgrepFailed as exc:
            if engine == "ripgrep":
                raise FsguardError(f"ripgrep failed: {exc}. Retry with engine='python'.") from exc
            logger.warning("ripgrep failed (%s); searching with the Python engine", exc)
    found = _collect(_python_hits(query, files, progress), len(files), max_results, context)
    return dataclasses.replace(found, engine="python")


def _collect(hits: Hits, files: int, max_results: int, context: int) -> ContentSearch:
    """Matches from per-file hits, with character offsets and context lines, up to ``max_results``."""
    matches: list[ContentMatch] = []
    counts: dict[str, int] = {}
    for file, count, found, lines in hits:
        counts[file] = count
        for number, spans in found:
            room = max_results - len(matches)
            if room <= 0:
                continue
            near = {k: _cut(lines[k]) for k in range(number - context, number + context + 1) if k in lines}
            before = tuple(text for k, text in near.items() if k < number)
            after = tuple(text for k, text in near.items() if k > number)
            raw = lines[number]
            for start, end in spans[:room]:
                first, last = _chars(raw, start), _chars(raw, end)
                matches.append(ContentMatch(file, number, first + 1, first, last, near[number], before, after))
    total = sum(counts.values())
    return ContentSearch(tuple(matches), counts, total, total > max_results, files, "ripgrep")


def _python_hits(query: _Query, files: list[str], progress: Callable[[int], None] | None) -> Hits:
    for done, file in enumerate(files, 1):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done)
        try:
            data = Path(file).read_bytes()
        except OSError:
            continue  # vanished or unreadable since the walk: skipped, as ripgrep does
        if not is_text_head(data[:BINARY_SNIFF_BYTES]):
            continue
        text = searched_bytes(data).replace(b"\r\n", b"\n")
        found: list[tuple[int, list[tuple[int, int]]]] = []
        start, number = 0, 1
        while start < len(text):
            if query.prefilter is not None:  # no line before the first whole-text match can match
                hit = query.prefilter.search(text, start)
                line_start = text.rfind(b"\n", 0, hit.start()) + 1 if hit else len(text)
                if line_start >= len(text):
                    break
                number += text.count(b"\n", start, line_start)
                start = line_start
            end = text.find(b"\n", start)
            end = len(text) if end < 0 else end
            if spans := _find_all(query, text[start:end]):
                found.append((number, spans))
            start, number = end + 1, number + 1
        if found:
            lines = text.split(b"\n")
            lines_by_number = dict(enumerate(lines[:-1] if text.endswith(b"\n") else lines, 1))
            yield file, sum(len(spans) for _, spans in found), found, lines_by_number
    if progress is not None:
        progress(len(files))


def _data(field: dict[str, str]) -> bytes:
    return field["text"].encode() if "text" in field else base64.b64decode(field["bytes"])


def _ripgrep_hits(
    rg: Path, query: _Query, files: list[str], context: int, max_results: int, progress: Callable[[int], None] | None
) -> Hits:
    common = [str(rg), "--no-config", "-a", "--crlf", "--no-ignore", "--hidden", "--no-messages", "-e", query.rust]
    done = collected = 0
    for batch in (files[i : i + _BATCH_FILES] for i in range(0, len(files), _BATCH_FILES)):
        if collected >= max_results:  # only counts are needed now: much less output to parse
            for file, count in _run([*common, "--count-matches", "--null", "-H", "--", *batch], counted=True):
                if is_text_file(file):
                    yield file, count, [], {}
            done += len(batch)
            if progress is not None:
                progress(done)
            continue
        lines: dict[str, dict[int, bytes]] = {}
        hits: dict[str, list[tuple[int, list[tuple[int, int]]]]] = {}
        for message in _run([*common, "--json", "-C", str(context), "--", *batch]):
            data = message["data"]
            file, number, raw = os.fsdecode(_data(data["path"])), data["line_number"], _data(data["lines"])
            raw = raw[:-2] if raw.endswith(b"\r\n") else raw[:-1] if raw.endswith(b"\n") else raw
            lines.setdefault(file, {})[number] = raw
            if spans := [(sub["start"], sub["end"]) for sub in data.get("submatches", [])]:
                hits.setdefault(file, []).append((number, spans))
        order = {file: index for index, file in enumerate(batch)}
        for file in sorted(hits, key=order.__getitem__):
            if is_text_file(file):
                count = sum(len(spans) for _, spans in hits[file])
                collected += count
                yield file, count, sorted(hits[file]), lines[file]
        done += len(batch)
        if progress is not None:
            progress(done)


def _chars(raw: bytes, offset: int) -> int:
    return len(raw[:offset].decode("utf-8", "replace"))


def _run(command: list[str], counted: bool = False) -> Iterator[Any]:
    """ripgrep's match and context messages, or ``(path, count)`` pairs with ``counted``.

    Raises:
        _RipgrepFailed: ripgrep could not start or stopped without finishing its search.
    """
    try:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as exc:  # e.g. E2BIG: the batch of paths is too long for one command line
        raise _RipgrepFailed(str(exc)) from exc
    finished = False
    try:
        assert process.stdout is not None
        for raw in process.stdout:
            if counted:
                path, _, count = raw.rstrip(b"\n").rpartition(b"\0")
                yield os.fsdecode(path), int(count)
            elif raw.startswith((b'{"type":"match"', b'{"type":"context"')):
                yield json.loads(raw)
            finished = finished or raw.startswith(b'{"type":"summary"')
    except (OSError, ValueError) as exc:
        raise _RipgrepFailed(str(exc)) from exc
    finally:
        process.kill()
        _, stderr = process.communicate()
    if process.returncode not in (0, 1) and (not finished if not counted else bool(stderr.strip())):
        raise _RipgrepFailed(stderr.decode("utf-8", "replace").strip() or f"exit status {process.returncode}")
