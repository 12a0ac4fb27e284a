"""Counters for server_info stats: calls by tool, errors by code, uptime, memory, backup store size."""

from __future__ import annotations

import os
import resource
import threading
import time
from collections import Counter
from pathlib import Path


class CallStats:
    """Thread-safe counts of tool calls and error codes since start-up."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started = time.monotonic()
        self._by_tool: Counter[str] = Counter()
        self._errors: Counter[str] = Counter()

    def record(self, tool: str, error_code: str | None) -> None:
        """Count one finished call of ``tool``; ``error_code`` is None for a success."""
        with self._lock:
            self._by_tool[tool] += 1
            if error_code is not None:
                self._errors[error_code] += 1

    @property
    def uptime_s(self) -> float:
        return round(time.monotonic() - self._started, 3)

    def snapshot(self) -> tuple[dict[str, int], dict[str, int]]:
        """Calls by tool and errors by code, as plain dicts."""
        with self._lock:
            return dict(self._by_tool), dict(self._errors)


def resident_memory_mb() -> float:
    """Current resident set size of this process in MiB (peak RSS where /proc is missing)."""
    try:
        pages = int(Path("/proc/self/statm").read_text(encoding="ascii").split()[1])
        return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)
    except (OSError, ValueError, IndexError):
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
