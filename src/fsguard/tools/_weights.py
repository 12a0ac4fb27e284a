"""Which calls of a tool that runs on the event loop go to a worker thread instead: those about to read megabytes.

A stdio server runs its quick reads on the event loop (``Catalog.add``'s ``on_loop``), as a thread hop costs more
than they do. A whole read of a 20 MB file held the loop for 0.4 s, in which the server answered nothing else: not a
ping, not the cancellation of that very read. The size is looked up by the path as written (one stat, no pinned
walk): it only decides where the call runs, and the call resolves and checks the path as any other does.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from typing import Any

from fsguard.core.paths import PathPolicy

# About 20 ms of reading, decoding and hashing on this class of machine: far above a thread hop's 0.3 ms.
HEAVY_BYTES = 1 << 20

Weigher = Callable[[dict[str, Any]], bool]


def file_weigher(policy: PathPolicy, *, loaded_below: int | None) -> Weigher:
    """Whether the files a call names (``path``, ``paths``) hold more than :data:`HEAVY_BYTES` it will read.

    ``loaded_below``: only files of at most that many bytes count (--max-file-size for read_file, whose larger files
    are read in streamed ranges, a few pieces each); None: every file counts (get_file_info counts a big file's lines).
    """

    def heavy(arguments: dict[str, Any]) -> bool:
        total = 0
        for size in _sizes(arguments, policy):
            if loaded_below is None or size <= loaded_below:
                total += size
                if total > HEAVY_BYTES:
                    return True
        return False

    return heavy


def _sizes(arguments: dict[str, Any], policy: PathPolicy) -> Iterator[int]:
    """The sizes of the regular files named, as far as a look by the written path finds them: only inside a root,
    and a final symlink not followed, so that how long a refused call takes tells nothing of a file outside."""
    named = arguments.get("paths")
    written = [arguments.get("path"), *(named if isinstance(named, list) else ())]
    roots = [str(root) for root in policy.active_roots()]
    for path in written:
        if not isinstance(path, str) or not path or not roots:
            continue
        # On strings: every read pays for this look, and Paths cost more than the stat (an absolute path stays).
        full = os.path.normpath(os.path.join(roots[0], path))  # noqa: PTH118
        if not any(full == root or full.startswith(root.rstrip(os.sep) + os.sep) for root in roots):
            continue
        try:
            st = os.lstat(full)
        except (OSError, ValueError):  # missing, a C:\ form, a NUL: the call itself says what is wrong
            continue
        if stat.S_ISREG(st.st_mode):
            yield st.st_size
