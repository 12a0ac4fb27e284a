"""The Statistics page's numbers: calls per tool over time, errors by code, bytes written, the backup store's size.

Everything is computed from what the servers leave behind (the audit log, the backup store's records, the trash),
so it covers every server that shares the log and state directories, not only one process's counters.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime

from fsguard.core.audit_arguments import CONTENT_KEYS
from fsguard.core.backups import BackupRecord
from fsguard.dashboard.feed import ActivityEntry

# Bucket widths tried in turn until the log's span fits in MAX_BUCKETS of them.
_WIDTHS_S = (1, 5, 15, 60, 300, 900, 3_600, 6 * 3_600, 86_400, 7 * 86_400)
MAX_BUCKETS = 48
TOP_TOOLS = 8
_SIZED = re.compile(r"\((\d+) chars\)")


@dataclass(frozen=True)
class Series:
    """One line or bar set of a chart."""

    label: str
    values: list[float]


@dataclass(frozen=True)
class Statistics:
    """What the Statistics page draws, as plain lists the page hands to its charts."""

    labels: list[str]
    per_tool: list[Series]
    bytes_written: list[float]
    errors_by_code: dict[str, int]
    store_labels: list[str]
    store_bytes: list[float]
    totals: dict[str, str]


def written_bytes(entry: ActivityEntry) -> int:
    """The bytes of content a successful call carried to disk: the line's count, or on a line too old to have one, as
    far as its logged arguments tell (a long one's length in characters)."""
    if entry.status != "ok":
        return 0
    if entry.content_bytes is not None:
        return entry.content_bytes
    total = 0
    for key in CONTENT_KEYS:
        total += _size(entry.args.get(key))
    encoded = entry.args.get("content_base64")
    total += _size(encoded) * 3 // 4
    return total


def bucket_width(first: float, last: float) -> int:
    """The narrowest width (seconds) that puts ``first``…``last`` in at most :data:`MAX_BUCKETS` buckets."""
    for width in _WIDTHS_S:
        if (last - first) / width < MAX_BUCKETS:
            return width
    return _WIDTHS_S[-1]


def statistics(entries: list[ActivityEntry], saved: list[tuple[float, int]], totals: dict[str, str]) -> Statistics:
    """Charts for ``entries`` (oldest first) and the live backups ``saved`` (time, size)."""
    dated = [(entry, stamp) for entry in entries if (stamp := _seconds(entry.ts)) is not None]
    stamps = [stamp for _, stamp in dated]
    width = bucket_width(min(stamps), max(stamps)) if stamps else 3_600
    starts = _buckets(stamps, width)
    index = {start: i for i, start in enumerate(starts)}
    top = [tool for tool, _ in Counter(entry.tool for entry, _ in dated).most_common(TOP_TOOLS)]
    per_tool = {tool: [0.0] * len(starts) for tool in top}
    other = [0.0] * len(starts)
    written = [0.0] * len(starts)
    for entry, stamp in dated:
        slot = index[int(stamp // width * width)]
        per_tool.get(entry.tool, other)[slot] += 1
        written[slot] += written_bytes(entry)
    series = [Series(tool, per_tool[tool]) for tool in top]
    if any(other):
        series.append(Series("other tools", other))
    errors = Counter(entry.error_code or "error" for entry in entries if entry.status == "error")
    store_labels, store_bytes = _store_growth(saved)
    return Statistics(
        labels=[_label(start, width) for start in starts],
        per_tool=series,
        bytes_written=written,
        errors_by_code=dict(errors.most_common()),
        store_labels=store_labels,
        store_bytes=store_bytes,
        totals=totals,
    )


def backup_sizes(records: list[BackupRecord]) -> list[tuple[float, int]]:
    """(time, size) of every live backup: how the store grew, whatever its layout on disk."""
    return [(record.time, record.size) for record in records]


def human_bytes(size: float) -> str:
    """1536 → '1.5 KiB'."""
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(size) < 1024 or unit == "GiB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


def _store_growth(saved: list[tuple[float, int]]) -> tuple[list[str], list[float]]:
    """The store's size over time: the backups it holds now, summed by the time each was saved."""
    if not saved:
        return [], []
    ordered = sorted(saved)
    width = bucket_width(ordered[0][0], ordered[-1][0])
    labels: list[str] = []
    sizes: list[float] = []
    running = 0.0
    for stamp, size in ordered:
        running += size
        label = _label(int(stamp // width * width), width)
        if labels and labels[-1] == label:
            sizes[-1] = running
        else:
            labels.append(label)
            sizes.append(running)
    return labels, sizes


def _buckets(stamps: list[float], width: int) -> list[int]:
    if not stamps:
        return []
    first, last = int(min(stamps) // width * width), int(max(stamps) // width * width)
    return list(range(first, last + 1, width))


def _label(start: int, width: int) -> str:
    moment = datetime.fromtimestamp(start, UTC)
    if width < 60:
        return moment.strftime("%H:%M:%S")
    return moment.strftime("%m-%d %H:%M" if width < 86_400 else "%Y-%m-%d")


def _seconds(ts: str) -> float | None:
    try:
        return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _size(value: object) -> int:
    if not isinstance(value, str):
        return 0
    sized = _SIZED.fullmatch(value)
    return int(sized[1]) if sized else len(value.encode("utf-8", "surrogatepass"))
