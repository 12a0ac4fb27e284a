"""The collaborators every mutation goes through, gathered once instead of passed one by one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from fsguard.core.backups import BackupStore
from fsguard.core.beneath import Beneath
from fsguard.core.disk import AtomicWriter
from fsguard.core.hooks import HookRunner
from fsguard.core.locks import PathLocks
from fsguard.core.occ import ConcurrencyGuard
from fsguard.core.paths import PathPolicy
from fsguard.core.session import Session

# Called with (canonical path, hook family "write"/"edit", tool name) once a file's new bytes are in place.
CommitListener = Callable[[Path, str, str], None]


@dataclass(frozen=True, kw_only=True)
class Safeguards:
    """Path policy and pinning, per-path locks, hash memory and OCC, backups, atomic writes and hooks, the size limit.

    Built with keywords only: several fields share a type, and a swap must not type-check.
    """

    policy: PathPolicy
    beneath: Beneath
    locks: PathLocks
    session: Session
    guard: ConcurrencyGuard
    backups: BackupStore
    atomic: AtomicWriter
    hooks: HookRunner
    max_file_size: int
    # Filled after construction (autosync needs the Safeguards it listens to); a listener must never raise.
    committed: list[CommitListener] = field(default_factory=list)
