"""The audit log (``--log-dir``): one JSON line per tool call, and a metrics file, in one directory::

    operations.jsonl                        one line per call, mode 0600, appended
    operations-YYYYMMDD-HHMMSS[-N].jsonl    rotated when the current file would pass ``max_bytes``
    metrics.json                            the CallStats counters, replaced atomically

The protocol layer counts the call in :class:`CallStats` first, then hands the audit log one :class:`AuditEntry`::

    stats.record(name, code)
    audit.record(AuditEntry(name, arguments, duration_ms, "error" if code else "ok", code, ...))

There is no background thread: ``metrics.json`` is rewritten from :meth:`AuditLog.record` once
``metrics_interval_s`` has passed since the last write, and from :meth:`AuditLog.flush` at shutdown.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from fsguard.core.audit_arguments import ARGS_LIMIT, SUMMARY_LIMIT, clipped, content_bytes, summarise_arguments
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import FsguardError, InvalidParamsError
from fsguard.core.stats import CallStats, resident_memory_mb

logger = logging.getLogger(__name__)

CURRENT_NAME = "operations.jsonl"
METRICS_NAME = "metrics.json"
PATH_LIMIT = 4_096  # characters the paths of a line share: PATH_MAX, which no real path passes, for a call naming one
LINE_LIMIT = 10_240  # bytes of a line, its newline included, whatever a call sends or names
ERROR_LIMIT = 300  # characters of an error's text kept in its line: what went wrong, not a wall of advice
LISTED = 10  # paths and backup ids a line lists; its count says how many there were
_ROTATED = re.compile(r"operations-(\d{8}-\d{6})(?:-\d+)?\.jsonl")
_STAMP = "%Y%m%d-%H%M%S"
_FILE_MODE = 0o600


@dataclass(frozen=True)
class AuditEntry:
    """One finished tool call, as the protocol layer saw it.

    Attributes:
        tool: The tool name as called.
        arguments: The call's arguments; summarised before they are written.
        duration_ms: Wall time of the call.
        status: ``ok`` or ``error``.
        error_code: The stable error code when ``status`` is ``error``.
        path: The canonical path the call resolved; when None, the ``path`` argument as given is logged.
        bytes_out: Size of the result text.
        backup_id: The backup the call took, if any.
        risk: The result's ``risk_level``, if it has one.
        error: What the error said (its first :data:`ERROR_LIMIT` characters) when ``status`` is ``error``.
        via: Who made the call when it was not an MCP client (``dashboard``); set by the caller's code, never from
            the call's arguments, which an agent writes.
        paths: Every canonical path the call acted on, when its answer names more than one; the line lists the
            first :data:`LISTED` in ``paths`` and counts them in ``path_count``.
        backup_ids: Every backup it took, when no one id covers them (a permanent delete of several files); the
            line lists the first :data:`LISTED` in ``backup_ids`` and counts them in ``backup_count``.
    """

    tool: str
    arguments: dict[str, object]
    duration_ms: float
    status: Literal["ok", "error"]
    error_code: str | None = None
    path: str | None = None
    bytes_out: int = 0
    backup_id: str | None = None
    risk: str | None = None
    error: str | None = None
    via: str | None = None
    paths: tuple[str, ...] = ()
    backup_ids: tuple[str, ...] = ()


class AuditLog:
    """Thread-safe writer of ``operations.jsonl`` and ``metrics.json``; creates the directory (0700 when new).

    Each line is a single ``os.write`` on an ``O_APPEND`` descriptor, so concurrent records never
    interleave; a lock orders the size check, rotation and write. A failing write is logged, never
    raised: the audit must not turn a finished tool call into an error.

    Args:
        directory: Where the log and metrics files live.
        stats: The server's counters; ``metrics.json`` is their snapshot.
        max_bytes: Rotate before a line would take the current file past this size.
        metrics_interval_s: Least time between two metrics writes triggered by :meth:`record`.
        keep_days: Rotated files older than this are deleted when the log rotates.
        clock: Seconds since the epoch; injectable for tests.

    Raises:
        InvalidParamsError: ``directory`` cannot be made or written to (a file is there, a directory on its way
            cannot be created, no permission): said at start-up, not as a warning on every call.
    """

    def __init__(
        self,
        directory: Path,
        stats: CallStats,
        *,
        max_bytes: int = 10 * 1024 * 1024,
        metrics_interval_s: float = 30.0,
        keep_days: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        try:
            directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not os.access(directory, os.W_OK | os.X_OK):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(directory))
            self._writer = AtomicWriter(directory / ".audit")
            self._writer.clean_strays()  # temp files of a metrics write interrupted by a crash
        except (OSError, FsguardError) as exc:
            raise _unusable(directory, exc) from exc
        self._directory = directory
        self._current = directory / CURRENT_NAME
        self._stats = stats
        self._max_bytes = max_bytes
        self._interval_s = metrics_interval_s
        self._keep_s = keep_days * 86_400.0
        self._clock = clock
        self._lock = threading.Lock()
        self._metrics_lock = threading.Lock()
        self._metrics_at = clock()

    def record(self, entry: AuditEntry) -> None:
        """Append the line for ``entry``, rotating first if needed; rewrite the metrics when due.

        Args:
            entry: The finished call; count it in ``CallStats`` before, so the metrics include it.
        """
        now = self._clock()
        try:
            self._append(_line(entry, now), now)
        except (OSError, FsguardError) as exc:
            logger.warning("audit log: could not record %s: %s", entry.tool, exc)
        # Whoever holds the lock is already writing fresh metrics; the others need not wait for it.
        if now - self._metrics_at >= self._interval_s and self._metrics_lock.acquire(blocking=False):
            try:
                if now - self._metrics_at >= self._interval_s:
                    self._write_metrics(now)
            except (OSError, FsguardError) as exc:
                logger.warning("audit log: could not write %s: %s", METRICS_NAME, exc)
            finally:
                self._metrics_lock.release()

    def flush(self) -> None:
        """Write ``metrics.json`` now, whatever the interval; call it at shutdown.

        Raises:
            FsguardError: The file could not be written (unlike :meth:`record`, this does raise).
        """
        with self._metrics_lock:
            self._write_metrics(self._clock())

    def _append(self, line: bytes, now: float) -> None:
        with self._lock:
            try:
                size = self._current.stat().st_size
            except FileNotFoundError:
                size = 0
            if size and size + len(line) > self._max_bytes:
                self._rotate(now)
            # Opened per line: no descriptor to close at shutdown, and a removed file is simply recreated.
            # O_NOFOLLOW: a link planted at the log's name would have had another file appended to and chmod'ed.
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
            fd = os.open(self._current, flags, _FILE_MODE)
            try:
                found = os.fstat(fd)
                if found.st_mode & 0o777 != _FILE_MODE:
                    os.fchmod(fd, _FILE_MODE)  # an older file, or a umask that took our own bits
                # No fsync: the audit is a record for people, not worth a disk flush per tool call.
                if os.write(fd, line) < len(line):  # a full disk: the cut line would take the next one with it
                    os.ftruncate(fd, found.st_size)
                    raise OSError(errno.ENOSPC, "the audit line was cut short (disk full); left out")
            finally:
                os.close(fd)

    def _rotate(self, now: float) -> None:
        stamp = datetime.fromtimestamp(now, UTC).strftime(_STAMP)
        target = self._directory / f"operations-{stamp}.jsonl"
        counter = 0
        while target.exists():
            counter += 1
            target = self._directory / f"operations-{stamp}-{counter}.jsonl"
        self._current.rename(target)
        # Age comes from the name, which records the rotation time on the same clock as ``now``.
        for path in self._directory.glob("operations-*.jsonl"):
            match = _ROTATED.fullmatch(path.name)
            if match and now - datetime.strptime(match[1], _STAMP).replace(tzinfo=UTC).timestamp() > self._keep_s:
                path.unlink(missing_ok=True)

    def _write_metrics(self, now: float) -> None:
        by_tool, errors = self._stats.snapshot()
        uptime = self._stats.uptime_s
        total = sum(by_tool.values())
        metrics = {
            "updated_at": _iso(now),
            "uptime_s": uptime,
            "ops_total": total,
            "ops_per_sec": round(total / uptime, 3) if uptime > 0 else 0.0,
            "errors_total": sum(errors.values()),
            "by_tool": dict(sorted(by_tool.items())),
            "errors_by_code": dict(sorted(errors.items())),
            "memory_mb": resident_memory_mb(),
        }
        self._writer.write(self._directory / METRICS_NAME, (json.dumps(metrics, indent=2) + "\n").encode())
        self._metrics_at = now


def _unusable(directory: Path, exc: OSError | FsguardError) -> InvalidParamsError:
    if isinstance(exc, FileExistsError):
        why = "something other than a directory is there"
    elif isinstance(exc, FsguardError):
        why = exc.message
    else:
        why = (exc.strerror or type(exc).__name__).lower()
    return InvalidParamsError(
        f"--log-dir {directory} cannot hold the audit log ({why}). Pass a directory this user may create or "
        "write to, or leave --log-dir out.",
        path=str(directory),
    )


# While a line would pass LINE_LIMIT (paths of characters JSON escapes or UTF-8 takes several bytes for, arguments
# whose summary is mostly such characters or short keys), it is made again with its paths and arguments cut shorter;
# the last level names a path by its first 100 characters and counts the arguments, which keeps any line far below.
_BUDGETS = ((PATH_LIMIT, ARGS_LIMIT), (PATH_LIMIT // 4, ARGS_LIMIT // 4), (SUMMARY_LIMIT, 0))


def _line(entry: AuditEntry, now: float) -> bytes:
    """The JSON line for ``entry``, newline included: at most :data:`LINE_LIMIT` bytes."""
    stamp, carried = _iso(now), content_bytes(entry.arguments)
    for paths, arguments in _BUDGETS:
        text = json.dumps(
            _event(entry, stamp, carried, paths, arguments), ensure_ascii=False, separators=(",", ":"), default=str
        )
        # Undecodable path bytes arrive as lone surrogates; escaped, the line stays valid UTF-8 and JSON.
        line = (text + "\n").encode("utf-8", "backslashreplace")
        if len(line) <= LINE_LIMIT:
            break
    return line


def _event(entry: AuditEntry, stamp: str, carried: int | None, paths: int, arguments: int) -> dict[str, object]:
    """The fields of ``entry``'s line; the paths it names share ``paths`` characters, its arguments ``arguments``."""
    path = entry.path if entry.path is not None else entry.arguments.get("path")
    listed = entry.paths[:LISTED] if len(entry.paths) > 1 else ()
    share = paths // (1 + len(listed))  # path is the first of them again: read beside the list, it need not be whole
    event: dict[str, object] = {
        "ts": stamp,
        "tool": clipped(entry.tool, SUMMARY_LIMIT),  # an unknown tool's name is the client's
        "path": clipped(path, share) if isinstance(path, str) else None,
        "duration_ms": round(entry.duration_ms, 3),
        "status": entry.status,
    }
    if entry.status == "error":
        event["error_code"] = entry.error_code
        if entry.error:
            event["error"] = clipped(entry.error, ERROR_LIMIT)
    if listed:
        event.update(paths=[clipped(p, share) for p in listed], path_count=len(entry.paths))
    event.update(bytes_out=entry.bytes_out, backup_id=entry.backup_id, risk=entry.risk)
    if len(entry.backup_ids) > 1:
        event.update(backup_ids=list(entry.backup_ids[:LISTED]), backup_count=len(entry.backup_ids))
    if carried is not None:
        event["content_bytes"] = carried
    if entry.via is not None:
        event["via"] = entry.via
    event["args"] = summarise_arguments(entry.arguments, arguments)
    return event


def _iso(timestamp: float) -> str:
    """ISO 8601 in UTC with milliseconds, e.g. ``2026-05-01T12:00:00.123Z``."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
