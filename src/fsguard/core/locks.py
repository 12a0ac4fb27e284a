"""Per-path locks that hold across threads and across fsguard processes sharing one state directory.

Two clients (Claude Desktop and Claude Code, say) each start their own fsguard on one project: a thread
lock alone would let both read the same bytes, both pass the hash check and both write, losing one
acknowledged edit and forking the undo chain. So each canonical path also has a lock file under
``<state_dir>/locks``, taken with ``flock``, held from reading the bytes through the rename and the
journal append. The thread lock in front keeps threads of one process from queueing on the kernel.

Lock files are deleted only by a holder of their exclusive lock, by unlink (never rename), and only when no one
else holds them: a sweep (:meth:`PathLocks.sweep`) tries ``LOCK_EX | LOCK_NB`` on each, and marks the file
(makes it one byte long) before it unlinks it. An acquirer that opened the file before it was unlinked gets its
lock on the unlinked inode, so after every ``flock`` it checks the file is empty, or else still linked, and
otherwise opens the name again (creating the live file). Not on each release: creating and unlinking files in
the state dir would add journal metadata to every edit's fsyncs; a process sweeps the names it used once it has
used ``SWEEP_AT`` of them, and at shutdown, with the older leftovers of crashed processes. An fsguard from
before this check, opening or queued on the same file at the instant of a sweep, could still lose exclusion.

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
exclude each other too); a thread holding a directory's lock skips the shared lock it would take on it again,
and one holding a path's lock takes it again at once (a batch rollback holds all its files, then reverts each).
"""

from __future__ import annotations

import fcntl
import hashlib
import logging
import os
import resource
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from fsguard.core.locksweep import old_entries, remove_if_free
from fsguard.core.oserrors import from_os_error

logger = logging.getLogger(__name__)

MOST_HELD = 10_000  # paths one call may hold at once, whatever the open-file limit (see PathLocks.most_held)
SWEEP_AT = 4096  # lock-file names used since the last sweep that make the next release sweep them
LEFTOVER_AGE_S = 86_400.0  # a lock file created this long ago is a leftover to try
# A cancellable call waiting for another process's lock tries again after these pauses, doubling: the first tries
# come a millisecond or two apart (an edit holds its lock a few), and a call cancelled during a long hold stops
# within 50 ms.
POLL_FIRST_S, POLL_MOST_S = 0.0005, 0.05


class LockBusy(Exception):
    """The first lock of a call running on the event loop is held by another process: nothing was done yet, so the
    call can run again on a worker thread and wait there, where the wait stops no other call."""


class PathLocks:
    """One lock per canonical path, created on demand; the in-process part is dropped when unused, the lock files
    by :meth:`sweep`.

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
        self._fresh = False  # that call has not yet asked for a lock: its first may not wait (LockBusy)
        self._vacated = threading.Condition(self._guard)
        self._used: set[str] = set()  # lock-file names released since the last sweep
        self._sweeping = threading.Lock()
        self._sweep_due = False  # a sweeper thread is started and has not yet taken the names
        self.sweeper: threading.Thread | None = None  # the last sweeper thread started

    @contextmanager
    def hold(self, path: Path, *, changing: bool = True) -> Iterator[None]:
        """Hold the lock of ``path`` (canonical) for the duration of the block, against every process. Without
        ``changing``, nothing changes under it before the call's next lock (see :meth:`cancellable`)."""
        with self.hold_all(path, changing=changing):
            yield

    @contextmanager
    def hold_all(self, *paths: Path, changing: bool = True) -> Iterator[None]:
        """Hold several paths' locks (and the shared locks of the directories above them), taken in one global
        order, directories before what they hold, so two callers can never deadlock."""
        exclusive = {str(path) for path in paths}
        shared = {parent for path in exclusive for parent in self._above(path)} - exclusive - self._mine()
        me = threading.get_ident()
        with self._guard:
            while self._alone not in (None, me):
                self._vacated.wait()
            wait = not (self._alone == me and self._fresh)
            self._fresh = False
            self._holders += 1
        try:
            with ExitStack() as stack:
                for path in sorted(exclusive | shared, key=_path_order):
                    lock = (
                        self._exclusive(path, wait)
                        if path in exclusive
                        else self._file_lock(path, shared=True, wait=wait)
                    )
                    stack.enter_context(lock)
                check = getattr(self._held, "check", None)
                if check is not None:
                    if changing:
                        self._held.check = None
                        stack.callback(setattr, self._held, "window", None)
                        self._held.window = check  # until this hold ends: see still_wanted
                    check()
                yield
        finally:
            with self._guard:
                self._holders -= 1
                due = len(self._used) > SWEEP_AT and not self._sweep_due
                self._sweep_due |= due
            if due:
                self._start_sweeper()

    def most_held(self) -> int:
        """How many paths one call may hold at once within the open-file limit: a held lock keeps a descriptor open in
        each lock place, and its directories' shared locks some more, so a quarter of the limit per place, less a
        reserve for everything else the server has open (192 paths at the common 1,024 with two places; fsguard lifts
        its limit to the hard one at start-up). Capped at ``MOST_HELD``."""
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            return MOST_HELD
        return max(0, min(MOST_HELD, (soft - 256) // (2 * len(self._prefixes))))

    @contextmanager
    def cancellable(self, check: Callable[[], None]) -> Iterator[None]:
        """Run ``check`` (which raises if the call was cancelled) once this thread has taken its first locks in the
        block: a call may wait long for a lock, and its client may give up meanwhile. Every change is made under a
        lock, so nothing has changed yet at that point; later locks do not check, so a cancellation cannot cut
        short what must finish (an atomic batch's rollback). A lock under which nothing changes before the call's next
        one (``changing=False``: an input read under its own lock, a repository's lock taken before its files') checks
        and leaves the next lock its check: a call that then waits for its output's lock stops there. A call that
        changes files one after another gives each step its own check with :meth:`step`."""
        self._held.check = self._held.armed = check
        try:
            yield
        finally:
            self._held.check = self._held.armed = None

    def still_wanted(self) -> None:
        """Ask again the check the first lock of this call (or of this step) ran, while that lock is held: a pre-hook
        may run for seconds after it, and a call cancelled meanwhile must stop before its change, not make it and
        answer "cancelled". Outside that hold (a rollback, a later lock) it asks nothing."""
        window = getattr(self._held, "window", None)
        if window is not None:
            window()

    def stop_if_cancelled(self) -> None:
        """Ask the check :meth:`cancellable` armed, wherever the call this thread runs is: for a wait that takes no
        lock and may be long (a hook's process, which is killed when this raises). Outside such a call it asks
        nothing."""
        armed = getattr(self._held, "armed", None)
        if armed is not None:
            armed()

    @contextmanager
    def step(self) -> Iterator[None]:
        """Ask again, at the first lock taken in the block, the check :meth:`cancellable` armed: a call changing files
        one at a time (each file of a project_replace, each operation of a batch) that is cancelled while it waits for
        a later file's lock changes that file, and every later one, no more. The block ends with no check armed,
        whatever it took: a rollback after it is never cut short, so keep it around the step alone."""
        self._held.check = getattr(self._held, "armed", None)
        try:
            yield
        finally:
            self._held.check = None

    def claim(self) -> bool:
        """Whether this thread may run a call that never waits for another thread of this process: True when no
        thread holds or awaits a lock, and then, until :meth:`release`, every other thread waits before taking one.

        For calls run on the event loop: one waiting there for a lock held by a worker thread stops the loop, and
        the worker may need the loop to go on (a copy's progress report) while it holds that lock. Nor does the
        call's first lock wait for another process: :class:`LockBusy` says to run it on a worker thread instead.
        """
        with self._guard:
            if self._holders or self._alone is not None:
                return False
            self._alone = threading.get_ident()
            self._fresh = True
            return True

    def release(self) -> None:
        """End what :meth:`claim` began: other threads take locks again."""
        with self._guard:
            self._alone = None
            self._fresh = False
            self._vacated.notify_all()

    def sweep(self, *, leftovers: bool = False) -> int:
        """Delete the lock files this process used that nobody holds now; returns how many it deleted.

        With ``leftovers`` (at shutdown), also try the first ``LEFTOVERS_EXAMINED`` entries of each lock directory
        (any process's) created more than a day ago: what crashed processes left. Never waits for a lock, never
        raises: what is held or unreadable stays. Waits only for a sweep already under way.
        """
        with self._sweeping:
            with self._guard:
                names, self._used, self._sweep_due = self._used, set(), False
            paths = [prefix + name for name in names for prefix in self._prefixes]
            if leftovers:
                born_before = time.time() - LEFTOVER_AGE_S
                paths += [path for prefix in self._prefixes for path in old_entries(prefix, born_before)]
            return sum(map(remove_if_free, paths))

    def _start_sweeper(self) -> None:
        # On a thread of its own: thousands of unlinks would hold this call up for a tenth of a second.
        sweeper = threading.Thread(target=self.sweep, name="fsguard-lock-sweep", daemon=True)
        try:
            sweeper.start()
        except RuntimeError:  # no thread to be had: the call is done all the same, the next release tries again
            with self._guard:
                self._sweep_due = False
            return
        self.sweeper = sweeper

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
    def _exclusive(self, path: str, wait: bool) -> Iterator[None]:
        mine = self._mine()
        if path in mine:  # this thread holds it already (a rollback holding all its files): nothing to take
            yield
            return
        with self._guard:
            lock, users = self._locks.get(path, (threading.Lock(), 0))
            self._locks[path] = (lock, users + 1)
        try:
            with lock, self._file_lock(path, shared=False, wait=wait):
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
    def _file_lock(self, path: str, *, shared: bool, wait: bool) -> Iterator[None]:
        name = hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:32] + ".lock"
        operation = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | (0 if wait else fcntl.LOCK_NB)
        try:
            with ExitStack() as stack:
                # Always in this order: two processes never wait on each other crosswise.
                # A call that may still be cancelled waits by polling, asking between tries (see _locked).
                check = getattr(self._held, "check", None) if wait else None
                for directory, prefix in zip(self._dirs, self._prefixes, strict=True):
                    try:
                        fd = _locked(directory, prefix + name, operation, check)
                    except BlockingIOError as exc:  # not waiting, and another process (or a sweep) holds it
                        raise LockBusy(path) from exc
                    # Closing the only fd of this open file description releases the flock.
                    stack.callback(os.close, fd)
                yield
        finally:
            with self._guard:  # a sweep swaps the set under it
                self._used.add(name)  # after the release: a name held during a sweep is swept by the next one

    def __len__(self) -> int:
        return len(self._locks)


_LOCK_FILE = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC


def _locked(directory: Path, path: str, operation: int, check: Callable[[], None] | None = None) -> int:
    """An fd of the lock file at ``path`` (created if missing) holding ``operation``'s flock on the linked file.

    With ``check`` (which raises when the call was cancelled), a lock another process holds is waited for by trying
    again, ``check`` asked between tries, instead of blocking in flock: a call cancelled while another fsguard held
    the file for minutes went on waiting, and a stdio server told to stop (its stdin closed, SIGTERM) did not end
    until that lock was let go.

    A lock taken on a file a sweep unlinked after our open is nobody's lock: a later acquirer creates a new file
    and holds that. Only a holder of the exclusive lock unlinks, and nothing renames or links lock files, so a
    file still linked once we hold its lock is the one at ``path``; so is an empty one, as a sweep marks a file
    before it unlinks it.
    """
    while True:
        try:
            fd = os.open(path, _LOCK_FILE, 0o600)
        except OSError as exc:
            raise from_os_error(exc, directory / path.rpartition("/")[2]) from exc
        try:
            if check is None:
                fcntl.flock(fd, operation)
            else:
                _flock_asking(fd, operation, check)
            # The size, not fstat: with fstat a hold of a five-level path took 14-22% longer than before, with it 4-6%.
            # fstat only for a marked file, still linked if its sweep died between the mark and the unlink.
            if not os.lseek(fd, 0, os.SEEK_END) or os.fstat(fd).st_nlink:
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _flock_asking(fd: int, operation: int, check: Callable[[], None]) -> None:
    """``flock(fd, operation)``, waiting by tries ``POLL_FIRST_S`` apart, doubling up to ``POLL_MOST_S``; ``check``
    is asked before each wait and may raise (the fd is then closed by the caller)."""
    pause = POLL_FIRST_S
    while True:
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            check()
            time.sleep(pause)
            pause = min(pause * 2, POLL_MOST_S)


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
