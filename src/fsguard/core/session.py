"""What this server has seen: paths it answered for and the hashes it handed out.

The seen set powers the "filesystem mismatch?" hint: when a path the session read or listed before
is suddenly missing, the agent may be looking at another sandbox than this server's.

The hashes handed out (the auto-OCC memory) are kept per client connection (:func:`serving`): two agents on one
HTTP server are two readers, and one's read of a file the other changed since is stale, whoever changed it. A call
that comes with no connection (the 2026 era is stateless) uses the server's own memory, as every call did before.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TypeVar

from fsguard.core.errors import NotFoundError

Key = TypeVar("Key")
Value = TypeVar("Value")
# Paths remembered per kind of memory, the least recently touched dropped first: a server that runs for weeks and
# answers for millions of paths stays within tens of megabytes. A dropped path only loses its hint, or its known
# hash (an edit of it is then treated as one of a file not read in this session).
MAX_PATHS = 100_000
MAX_TEXTS = 100  # failed texts counted per path: the advice is for an agent repeating one of its last tries
MAX_CLIENTS = 16  # connections whose hashes are kept, the least recently served dropped first
# Of each connection's hashes, a quarter of MAX_PATHS: all of them stay within four times one memory's bound, and an
# agent hardly touches 25,000 files within auto-OCC's ten minutes (an older hash is never compared).
_CLIENT_SHARE = 4
_CLIENT: ContextVar[str | None] = ContextVar("fsguard_client", default=None)

MISMATCH_HINT = (
    "Filesystem mismatch? This server answered for this path earlier in the session. If another tool "
    "touched it, verify with get_file_info or list_directory here before retrying or switching tools."
)


@contextmanager
def serving(client: str | None) -> Iterator[None]:
    """Within the block, the hashes handed out and asked for are those of ``client``, a connection's key (None: the
    server's own memory, for a call without a connection)."""
    token = _CLIENT.set(client)
    try:
        yield
    finally:
        _CLIENT.reset(token)


class Session:
    """Canonical paths seen and the content hash last returned for each (keyed by canonical path)."""

    def __init__(self, max_paths: int = MAX_PATHS) -> None:
        self._lock = threading.Lock()
        self._max_paths = max_paths
        self._seen: dict[Path, None] = {}
        self._known_hashes: dict[str | None, dict[Path, tuple[str, float]]] = {}  # per client, then path
        self._hinted: dict[Path, None] = {}
        self._misses: dict[Path, dict[str, int]] = {}  # failed matches per path and text
        # Paths this server deleted or moved away, until it answers for them (or a path below them) again: their
        # absence, and that of anything below them, is no sign of another filesystem.
        self._gone: dict[Path, None] = {}
        # Per client, directory and listing options (by hash), the hash of the directory's stamp and its entry count
        # at its last page: held as numbers, not as the listing's own objects, which would outlive its caches.
        self._pages: dict[int, tuple[int, int]] = {}

    def _put(self, memory: dict[Key, Value], key: Key, value: Value, share: int = 1) -> None:
        """Set ``key`` as the most recently touched entry of ``memory``, dropping the least recent past the bound
        (``1 / share`` of it)."""
        memory.pop(key, None)
        memory[key] = value
        if len(memory) > max(1, self._max_paths // share):
            del memory[next(iter(memory))]

    def _see(self, path: Path) -> None:
        self._put(self._seen, path, None)
        if self._gone:  # it is there again, and so is every directory above it
            for here in (path, *path.parents):
                self._gone.pop(here, None)

    def saw(self, path: Path) -> None:
        """Remember that this server answered for ``path``."""
        with self._lock:
            self._see(path)

    def _hashes(self) -> dict[Path, tuple[str, float]]:
        """The hash memory of the client being served, now its most recently served (made if it has none)."""
        client = _CLIENT.get()
        memory = self._known_hashes.pop(client, None)
        self._known_hashes[client] = memory = {} if memory is None else memory
        if len(self._known_hashes) > MAX_CLIENTS:
            del self._known_hashes[next(iter(self._known_hashes))]
        return memory

    def record_hash(self, path: Path, digest: str) -> None:
        """Remember the hash handed out for ``path`` to the client being served (the auto-OCC memory)."""
        with self._lock:
            self._see(path)
            self._put(self._hashes(), path, (digest, time.monotonic()), _CLIENT_SHARE)

    def known_hash(self, path: Path) -> tuple[str, float] | None:
        """The last hash handed out for ``path`` to the client being served, and when (monotonic seconds)."""
        with self._lock:  # asking makes no memory: a client that never read anything pushes no other out
            return self._known_hashes.get(_CLIENT.get(), {}).get(path)

    def forget(self, path: Path) -> None:
        """Drop the hash memory of ``path``: this server deleted or moved it away. Until it answers for it again,
        a not-found on it or below it gets no mismatch hint (which said "another tool touched it")."""
        with self._lock:
            for memory in self._known_hashes.values():  # every client's: the file they read is gone
                memory.pop(path, None)
            self._put(self._gone, path, None)

    def landed(self, path: Path, digest: str | None = None, *, tree: bool = False) -> None:
        """This server put ``path`` there for the client being served (a copy or a move landed on it): what that
        client read there before (a file another process removed since) is not what it edits next, and the bytes now
        there are its own doing, so its memory of ``path`` (and, for a ``tree``, of everything below) is set to
        ``digest`` or dropped. Other clients keep theirs: to them the path changed."""
        with self._lock:
            memory = self._hashes()
            below = [known for known in memory if known.is_relative_to(path)] if tree else [path]
            for known in below:
                memory.pop(known, None)
            if digest is not None:
                self._put(memory, path, (digest, time.monotonic()), _CLIENT_SHARE)
            self._see(path)

    def _went_away(self, path: Path) -> bool:
        """Whether this server deleted or moved away ``path`` or a directory above it, and has not seen it since."""
        return bool(self._gone) and any(here in self._gone for here in (path, *path.parents))

    def first_hint(self, path: Path) -> bool:
        """True the first time this is asked for ``path``: hints are shown once per file."""
        with self._lock:
            if path in self._hinted:
                return False
            self._put(self._hinted, path, None)
            return True

    def missed(self, path: Path, text: str) -> int:
        """Count a failed match of ``text`` (its first 60 characters, as the seed keyed it) on ``path``."""
        with self._lock:
            counts = self._misses.get(path, {})
            self._put(self._misses, path, counts)
            key = text[:60]
            counts[key] = counts.pop(key, 0) + 1  # the last texts stay; the oldest go past the bound
            if len(counts) > MAX_TEXTS:
                del counts[next(iter(counts))]
            return counts[key]

    def matched(self, path: Path) -> None:
        """An edit of ``path`` placed its text: its failed-match counts start over."""
        with self._lock:
            self._misses.pop(path, None)

    def paged(self, path: Path, options: Hashable, stamp: Hashable, total: int) -> int | None:
        """Remember the ``stamp`` (its identity when read) and entry count of the directory ``path`` the client being
        served was given a page of, listed with ``options``; return the count at its previous page when either
        differs (None: the same, or none known). A later page of a changed directory may repeat or skip entries."""
        state = (hash(stamp), total)
        with self._lock:
            key = hash((_CLIENT.get(), path, options))
            before = self._pages.get(key)
            self._put(self._pages, key, state, _CLIENT_SHARE)
        return None if before is None or before == state else before[1]

    @contextmanager
    def watching(self, path: Path) -> Iterator[None]:
        """Add the mismatch hint to a not-found error on a path seen before; remember ``path`` on success."""
        try:
            yield
        except NotFoundError as exc:
            with self._lock:
                seen = path in self._seen and not self._went_away(path)
            if seen:
                raise NotFoundError(
                    f"{exc.message}\n{MISMATCH_HINT}", path=str(path), hint="filesystem_mismatch"
                ) from exc
            raise
        self.saw(path)
