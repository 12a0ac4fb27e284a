"""Per-path locks that hold across threads and across fsguard processes sharing one state directory.

Two clients (Claude Desktop and Claude Code, say) each start their own fsguard on one project: a thread
lock alone would let both read the same bytes, both pass the hash check and both write, losing one
acknowledged edit and forking the undo chain. So each canonical path also has a lock file under
``<state_dir>/locks``, taken with ``flock``, held from reading the bytes through the rename and the
journal append. The thread lock in front keeps threads of one process from queueing on the kernel.
Lock files are never deleted: removing one while another process waits on it would split the lock.

Two fsguards with *different* state directories (one started with ``--state-dir``, or with another
``XDG_STATE_HOME``) would not see each other's lock files: both passed the same ``expected_hash`` and both
wrote, one edit lost. So the same lock is also taken in a directory every fsguard of this user on this machine
shares, ``/dev/shm/fsguard-locks-<uid>`` (``/tmp`` without ``/dev/shm``), when it is this user's alone; the
state directory's lock stays, for processes that share the state directory but not that directory (a
service with a private ``/tmp``, another container).

A path's lock also takes a shared lock on each directory above it, so a call on a directory (delete it to the
trash, move it) waits for the calls changing a file inside it, and they for it: else an edit landing in a
directory while it was copied to a trash on another filesystem was acknowledged, then deleted with the
original. Shared locks are ``flock`` only (one open file description per holder, so threads of one process
exclude each other too); a thread holding a directory's lock skips the shared lock it would take on it again.
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import stat
import threading
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from fsguard.core.oserrors import from_os_error

logger = logging.getLogger(__name__)


class PathLocks:
    """One lock per canonical path, created on demand; the in-process part is dropped when unused.

    Paths are handled as strings inside: an edit takes a lock for its file and each directory above it, and
    pathlib's parsing made that the larger part of the cost.
    """

    def __init__(self, state_dir: Path, roots: Iterable[Path] | None = None) -> None:
        state_locks = state_dir / "locks"
        try:
            state_locks.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise from_os_error(exc, state_locks) from exc
        shared = _user_lock_dir()
        self._dirs = (state_locks,) if shared is None else (state_locks, shared)
        self._prefixes = tuple(f"{directory}/" for directory in self._dirs)
        self._guard = threading.Lock()
        self._locks: dict[str, tuple[threading.Lock, int]] = {}
        # Only directories a call can act on need the shared lock: the roots and what is below them.
        self._roots = tuple(_below(str(root)) for root in roots or ())  # each root as the prefix of what it holds
        self._held = threading.local()  # .paths: the exclusive locks this thread holds
        self._holders = 0  # hold_all blocks open in this process, on any thread
        self._alone: int | None = None  # the thread a call runs on that no other thread's lock may hold up
        self._vacated = threading.Condition(self._guard)

    @contextmanager
    def hold(self, path: Path) -> Iterator[None]:
        """Hold the lock of ``path`` (canonical) for the duration of the block, against every process."""
        with self.hold_all(path):
            yield

    @contextmanager
    def hold_all(self, *paths: Path) -> Iterator[None]:
        """Hold several paths' locks (and the shared locks of the directories above them), taken in one global
        order, directories before what they hold, so two callers can never deadlock."""
        exclusive = {str(path) for path in paths}
        shared = {parent for path in exclusive for parent in self._above(path)} - exclusive - self._mine()
        me = threading.get_ident()
        with self._guard:
            while self._alone not in (None, me):
                self._vacated.wait()
            self._holders += 1
        try:
            with ExitStack() as stack:
                for path in sorted(exclusive | shared, key=_path_order):
                    lock = self._exclusive(path) if path in exclusive else self._file_lock(path, shared=True)
                    stack.enter_context(lock)
                yield
        finally:
            with self._guard:
                self._holders -= 1

    def claim(self) -> bool:
        """Whether this thread may run a call that never waits for another thread of this process: True when no
        thread holds or awaits a lock, and then, until :meth:`release`, every other thread waits before taking one.

        For calls run on the event loop: one waiting there for a lock held by a worker thread stops the loop, and
        the worker may need the loop to go on (a copy's progress report) while it holds that lock.
        """
        with self._guard:
            if self._holders or self._alone is not None:
                return False
            self._alone = threading.get_ident()
            return True

    def release(self) -> None:
        """End what :meth:`claim` began: other threads take locks again."""
        with self._guard:
            self._alone = None
            self._vacated.notify_all()

    def _above(self, path: str) -> list[str]:
        """The directories above ``path`` that a call may delete or move: up to the roots holding it, included (all
        of them for a path no root holds, as --unrestricted allows)."""
        holding = [prefix for prefix in self._roots if _below(path).startswith(prefix)]
        parents = _parents(path)
        if not holding:
            return parents
        return [parent for parent in parents if any(_below(parent).startswith(prefix) for prefix in holding)]

    def _mine(self) -> set[str]:
        """The paths whose exclusive lock this thread holds."""
        mine: set[str] = getattr(self._held, "paths", set())
        return mine

    @contextmanager
    def _exclusive(self, path: str) -> Iterator[None]:
        with self._guard:
            lock, users = self._locks.get(path, (threading.Lock(), 0))
            self._locks[path] = (lock, users + 1)
        mine = self._mine()
        try:
            with lock, self._file_lock(path):
                self._held.paths = mine | {path}
                try:
                    yield
                finally:
                    self._held.paths = mine
        finally:
            with self._guard:
                lock, users = self._locks[path]
                if users == 1:
                    del self._locks[path]
                else:
                    self._locks[path] = (lock, users - 1)

    @contextmanager
    def _file_lock(self, path: str, *, shared: bool = False) -> Iterator[None]:
        name = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".lock"
        with ExitStack() as stack:
            # Always in this order: two processes never wait on each other crosswise.
            for directory, prefix in zip(self._dirs, self._prefixes, strict=True):
                try:
                    fd = os.open(prefix + name, _LOCK_FILE, 0o600)
                except OSError as exc:
                    raise from_os_error(exc, directory / name) from exc
                stack.callback(os.close, fd)  # closing the only fd of this open file description releases the flock
                fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
            yield

    def __len__(self) -> int:
        return len(self._locks)


_LOCK_FILE = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


def _below(path: str) -> str:
    """``path`` with one final ``/``: a path is at or below a root when this form of it starts with the root's."""
    return path.rstrip("/") + "/"


def _parents(path: str) -> list[str]:
    """The directories above the absolute ``path``, nearest first: what ``Path(path).parents`` lists."""
    parents = []
    while (cut := path.rfind("/")) > 0:
        path = path[:cut]
        parents.append(path)
    if path != "/":
        parents.append("/")
    return parents


def _path_order(path: str) -> list[str]:
    """The order of ``Path`` objects (component by component), so a directory comes before what it holds."""
    return path.split("/")


def _user_lock_dir() -> Path | None:
    """This user's lock directory shared by every fsguard on the machine; None when there is none to trust.

    Trusted only when this user owns it and nobody else may write in it: in a sticky ``/dev/shm`` or ``/tmp``
    no one else can then replace it. One another user made first is not used (they could unlock our locks).
    """
    uid = os.geteuid()
    # Fixed names, not TMPDIR: every fsguard of the user must find the same one; trusted only as checked below.
    for base in (Path("/dev/shm"), Path("/tmp")):  # noqa: S108
        path = base / f"fsguard-locks-{uid}"
        try:
            path.mkdir(mode=0o700, exist_ok=True)
            found = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(found.st_mode) and found.st_uid == uid and not found.st_mode & 0o022:
            return path
        logger.warning("not using %s for cross-state-directory locks: not a directory of this user alone", path)
    return None
