"""The collaborators every mutation goes through, gathered once instead of passed one by one."""

from __future__ import annotations

from dataclasses import dataclass

from fsguard.core.backups import BackupStore
from fsguard.core.hooks import HookRunner
from fsguard.core.locks import PathLocks
from fsguard.core.occ import ConcurrencyGuard
from fsguard.core.paths import PathPolicy
from fsguard.core.session import Session
from fsguard.core.textio import AtomicWriter


@dataclass(frozen=True)
class Safeguards:
    """Path policy, per-path locks, hash memory and OCC, backups, atomic writes and hooks, with the size limit."""

    policy: PathPolicy
    locks: PathLocks
    session: Session
    guard: ConcurrencyGuard
    backups: BackupStore
    writer: AtomicWriter
    hooks: HookRunner
    max_file_size: int
