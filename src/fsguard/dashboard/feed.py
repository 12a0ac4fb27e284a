"""The audit log (``--log-dir``) as the dashboard reads it: every call's line, newest first, and a tail of new ones.

Only ever reads: servers keep appending to ``operations.jsonl`` and rotate it to ``operations-<stamp>.jsonl``
while the dashboard runs. A torn last line (a write in progress) is left for the next read.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from fsguard.core.audit import CURRENT_NAME

_TOOL = re.compile(rb'"tool":\s*"([^"\\]*)"')
# ASCII without quotes, backslashes or control characters: JSON writes it as it is, and bytes.lower() folds it.
_PLAIN = re.compile(r"[\x20-\x21\x23-\x5b\x5d-\x7e]+")


@dataclass(frozen=True)
class ActivityEntry:
    """One tool call as the audit log recorded it."""

    ts: str
    tool: str
    path: str | None
    status: str
    duration_ms: float
    error_code: str | None = None
    risk: str | None = None
    backup_id: str | None = None
    bytes_out: int = 0
    args: dict[str, object] = field(default_factory=dict)
    content_bytes: int | None = None  # the content the call carried, in bytes; None on lines written before it was
    via: str | None = None  # the dashboard's own acts: a field of the line, never an argument (an agent's to send)
    hidden: bool = False  # its path is one a deny rule hides: shown as "a hidden path", and no path filter finds it


def screened(entry: ActivityEntry, hides: Callable[[str], bool]) -> ActivityEntry:
    """``entry`` without its path when ``hides`` says a deny rule hides it: the pages show no name of a hidden file,
    an agent's refused attempt at one included, and a path filter that found it would tell its name letter by
    letter."""
    if entry.path is None or not hides(entry.path):
        return entry
    return replace(entry, path=None, hidden=True)


@dataclass(frozen=True)
class ActivityFilter:
    """Which entries a view shows: all conditions given must hold (an empty string is no condition)."""

    tool: str = ""
    path: str = ""
    status: str = ""

    def admits(self, entry: ActivityEntry) -> bool:
        """Whether ``entry`` meets every condition; the path matches as a substring in any case."""
        return (
            (not self.tool or entry.tool == self.tool)
            and (not self.path or self.path.lower() in (entry.path or "").lower())
            and (not self.status or entry.status == self.status)
        )


def parse_line(raw: bytes) -> ActivityEntry | None:
    """The entry of one audit line, or None for a torn or foreign line."""
    try:
        event = json.loads(raw)
    except (ValueError, RecursionError):  # RecursionError: nesting deeper than the parser goes
        return None
    if not isinstance(event, dict) or not isinstance(event.get("tool"), str) or not isinstance(event.get("ts"), str):
        return None
    # A number of another type (a string, a list, 1e400) is no line of fsguard's: taken, it failed the whole page.
    duration_ms, bytes_out = _amount(event.get("duration_ms")), _amount(event.get("bytes_out"))
    carried = _amount(event.get("content_bytes"))
    if duration_ms is None or bytes_out is None or carried is None:
        return None
    args = event.get("args")
    path = event.get("path")
    return ActivityEntry(
        ts=event["ts"],
        tool=event["tool"],
        path=path if isinstance(path, str) else None,
        status="error" if event.get("status") == "error" else "ok",
        duration_ms=duration_ms,
        error_code=_text(event.get("error_code")),
        risk=_text(event.get("risk")),
        backup_id=_text(event.get("backup_id")),
        bytes_out=int(bytes_out),
        args=args if isinstance(args, dict) else {},
        via=_text(event.get("via")),
        content_bytes=int(carried) if "content_bytes" in event else None,
    )


def log_files(log_dir: Path) -> list[Path]:
    """The rotated files oldest first (their names sort by rotation time), then the current one."""
    rotated = sorted(log_dir.glob("operations-*.jsonl"))
    current = log_dir / CURRENT_NAME
    return [*rotated, current] if current.exists() else rotated


Cursor = tuple[int, int]  # (inode of operations.jsonl, offset just past the last whole line read)


def raw_log(log_dir: Path | None) -> tuple[list[bytes], Cursor]:
    """Every whole line of the log, oldest first, and the cursor a tail must start from to miss none after them."""
    if log_dir is None:
        return [], (0, 0)
    lines: list[bytes] = []
    cursor: Cursor = (0, 0)
    for path in log_files(log_dir):
        try:
            with path.open("rb") as handle:
                inode, data = os.fstat(handle.fileno()).st_ino, handle.read()
        except FileNotFoundError:
            continue  # rotated away and expired between the listing and the read
        lines.extend(_complete_lines(data))
        if path.name == CURRENT_NAME:
            cursor = (inode, data.rfind(b"\n") + 1)
    return lines, cursor


def read_log(log_dir: Path | None) -> tuple[list[ActivityEntry], Cursor]:
    """Every entry of the log, oldest first, and the cursor after them (see :func:`raw_log`)."""
    lines, cursor = raw_log(log_dir)
    return [entry for line in lines if (entry := parse_line(line)) is not None], cursor


@dataclass(frozen=True)
class FeedPage:
    """What the Activity page shows: the newest matching entries, and what the whole log holds."""

    entries: list[ActivityEntry]  # newest first
    total: int  # lines in the log
    tools: list[str]  # every tool name in the log, sorted
    cursor: Cursor


def feed_page(
    log_dir: Path | None, wanted: ActivityFilter, limit: int, hides: Callable[[str], bool] | None = None
) -> FeedPage:
    """The newest ``limit`` entries ``wanted`` admits, parsing from the end only as far as needed, each
    :func:`screened` by ``hides`` when given.

    A log of a hundred thousand calls takes seconds to parse whole; the page needs two hundred of them, and the
    tool names, which a byte search finds without parsing. Lines that cannot hold the wanted tool or path are
    skipped unparsed.
    """
    lines, cursor = raw_log(log_dir)
    tools = sorted({found[1].decode("utf-8", "replace") for line in lines if (found := _TOOL.search(line))})
    needles = _needles(wanted)
    shown: list[ActivityEntry] = []
    for line in reversed(lines):
        if any(needle not in line.lower() for needle in needles):
            continue
        entry = parse_line(line)
        if entry is not None and hides is not None:
            entry = screened(entry, hides)
        if entry is not None and wanted.admits(entry):
            shown.append(entry)
            if len(shown) >= limit:
                break
    return FeedPage(shown, len(lines), tools, cursor)


def _needles(wanted: ActivityFilter) -> list[bytes]:
    """Byte strings every admitted line holds (lower-cased); only where JSON leaves the text as it is."""
    needles: list[bytes] = []
    if wanted.tool and _PLAIN.fullmatch(wanted.tool):
        needles.append(f'"{wanted.tool}"'.lower().encode())
    if wanted.path and _PLAIN.fullmatch(wanted.path):
        needles.append(wanted.path.lower().encode())
    return needles


def read_all(log_dir: Path | None) -> list[ActivityEntry]:
    """Every entry of the log, oldest first; an empty list without a log directory."""
    return read_log(log_dir)[0]


class AuditTail:
    """New entries of ``operations.jsonl`` since the last :meth:`poll`, following the file through a rotation."""

    def __init__(self, log_dir: Path, cursor: Cursor | None = None) -> None:
        self._dir = log_dir
        self._inode, self._offset = self._end() if cursor is None else cursor

    @property
    def cursor(self) -> Cursor:
        """Where the next poll starts: a tail made from it misses and repeats nothing."""
        return self._inode, self._offset

    def poll(self) -> list[ActivityEntry]:
        """The entries appended since the last call (or since construction), oldest first."""
        return [entry for entry, _ in self.follow()]

    def follow(self) -> list[tuple[ActivityEntry, Cursor]]:
        """As :meth:`poll`, each entry with the cursor just past its line (a live stream's event id)."""
        current = self._dir / CURRENT_NAME
        try:
            found = current.stat()
        except FileNotFoundError:
            return []
        lines: list[tuple[bytes, Cursor]] = []
        if found.st_ino != self._inode:
            # Rotated: finish the old file (now under its rotated name), then read the new one from its start.
            old = next((p for p in self._dir.glob("operations-*.jsonl") if _inode(p) == self._inode), None)
            if old is not None:
                lines += [(line, (self._inode, end)) for line, end in _lines_from(old, self._offset)[0]]
            self._inode, self._offset = found.st_ino, 0
        elif found.st_size < self._offset:
            self._offset = 0  # truncated by hand
        fresh, self._offset = _lines_from(current, self._offset)
        lines += [(line, (self._inode, end)) for line, end in fresh]
        return [(entry, cursor) for line, cursor in lines if (entry := parse_line(line)) is not None]

    def _end(self) -> tuple[int, int]:
        try:
            found = (self._dir / CURRENT_NAME).stat()
        except FileNotFoundError:
            return 0, 0
        return found.st_ino, found.st_size


def _lines_from(path: Path, offset: int) -> tuple[list[tuple[bytes, int]], int]:
    """The whole lines from ``offset`` on, each with the offset just past it, and the offset past the last one (a
    torn last line is not read)."""
    try:
        with path.open("rb") as handle:
            handle.seek(offset)
            data = handle.read()
    except FileNotFoundError:
        return [], offset
    lines: list[tuple[bytes, int]] = []
    start = 0
    while (newline := data.find(b"\n", start)) >= 0:
        if data[start:newline].strip():
            lines.append((data[start:newline], offset + newline + 1))
        start = newline + 1
    return lines, offset + start


def _complete_lines(data: bytes) -> list[bytes]:
    end = data.rfind(b"\n") + 1
    return [line for line in data[:end].split(b"\n") if line.strip()]


def _inode(path: Path) -> int:
    try:
        return path.stat().st_ino
    except FileNotFoundError:
        return -1


def _amount(value: object) -> float | None:
    """A logged duration or size: 0 when absent, None when it is not a finite number from 0 up."""
    if value is None:
        return 0.0
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        return None
    return number if 0 <= number < math.inf else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None
