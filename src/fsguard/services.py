"""The engine objects one server instance shares between its tools, built from Settings."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from fsguard.config import Settings
from fsguard.core.analysis import Analyzer
from fsguard.core.artifacts import ArtifactHolder
from fsguard.core.audit import AuditLog
from fsguard.core.backups import BackupStore
from fsguard.core.beneath import Beneath
from fsguard.core.deletion import Deleter
from fsguard.core.directories import DirectoryMaker
from fsguard.core.disk import AtomicWriter, remove_by_name
from fsguard.core.editing import Editor
from fsguard.core.hashing import FingerprintCache
from fsguard.core.hooks import HookRunner
from fsguard.core.listing import DirectoryLister
from fsguard.core.locks import PathLocks
from fsguard.core.metadata import MetadataReader
from fsguard.core.moving import Mover
from fsguard.core.occ import ConcurrencyGuard
from fsguard.core.paths import PathPolicy
from fsguard.core.reading import FileReader
from fsguard.core.replacing import ProjectReplacer
from fsguard.core.risk import RiskPolicy
from fsguard.core.safeguards import Safeguards
from fsguard.core.session import Session
from fsguard.core.stats import CallStats
from fsguard.core.structure import StructureChecker
from fsguard.core.transfer import remove_beneath
from fsguard.core.trash import Trash
from fsguard.core.undo import Restorer
from fsguard.core.writing import FileWriter

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Services:
    """Everything a tool may call; one per server, so tests get isolated servers for free."""

    settings: Settings
    policy: PathPolicy
    beneath: Beneath
    cache: FingerprintCache
    locks: PathLocks
    reader: FileReader
    lister: DirectoryLister
    metadata: MetadataReader
    directories: DirectoryMaker
    artifacts: ArtifactHolder
    stats: CallStats
    backups: BackupStore
    editor: Editor
    writer: FileWriter
    restorer: Restorer
    trash: Trash
    deleter: Deleter
    mover: Mover
    analyzer: Analyzer
    audit: AuditLog | None
    replacer: ProjectReplacer

    @classmethod
    def create(cls, settings: Settings) -> Services:
        """Build the services, cleaning temp files a crashed run left behind."""
        policy = PathPolicy.create(
            settings.effective_roots(), unrestricted=settings.unrestricted, wsl_mount_root=settings.wsl_mount_root
        )
        state = Path(os.path.realpath(settings.state_dir))
        if not settings.unrestricted and policy.contains(state):
            # Not refused: serving one's home directory with the default state dir is common.
            logger.warning("state dir %s lies inside a root; agents can see fsguard's own files", state)
        hooks = HookRunner.load(settings.hooks_config, policy.roots)
        session = Session()
        cache = FingerprintCache()
        locks = PathLocks(settings.state_dir)
        beneath = Beneath(policy.roots)
        writer = AtomicWriter(settings.state_dir)

        def sweep(temp: Path) -> None:
            # A stray inside a root is removed through the pinned walk, like any other user path.
            (partial(remove_beneath, beneath) if policy.contains(temp) else remove_by_name)(temp)

        writer.clean_strays(sweep)
        backups = BackupStore(
            settings.state_dir / "backups",
            max_age_days=settings.backup_max_age_days,
            max_count=settings.backup_max_count,
        )
        if backups.apply_retention():
            backups.collect_garbage()
        guard = ConcurrencyGuard(session, settings.auto_occ)
        risk = RiskPolicy(
            medium_pct=settings.risk_threshold_medium,
            high_pct=settings.risk_threshold_high,
            occurrences_medium=settings.risk_occurrences_medium,
            occurrences_high=settings.risk_occurrences_high,
        )
        trash = Trash(settings.state_dir / "trash", writer)
        safe = Safeguards(
            policy=policy,
            beneath=beneath,
            locks=locks,
            session=session,
            guard=guard,
            backups=backups,
            atomic=writer,
            hooks=hooks,
            max_file_size=settings.max_file_size,
        )
        stats = CallStats()
        return cls(
            settings=settings,
            policy=policy,
            beneath=beneath,
            cache=cache,
            locks=locks,
            reader=FileReader(
                policy,
                beneath,
                cache,
                session,
                hooks,
                max_file_size=settings.max_file_size,
                truncate_lines=settings.read_truncate_lines,
            ),
            lister=DirectoryLister(policy, beneath, session, max_items=settings.max_list_items),
            metadata=MetadataReader(policy, beneath, cache, session, max_file_size=settings.max_file_size),
            directories=DirectoryMaker(policy, beneath, locks, session, hooks),
            artifacts=ArtifactHolder(safe),
            stats=stats,
            backups=backups,
            editor=Editor(safe, StructureChecker(), risk),
            writer=FileWriter(safe),
            restorer=Restorer(safe),
            trash=trash,
            deleter=Deleter(safe, trash),
            mover=Mover(safe),
            analyzer=Analyzer(policy, beneath, risk, max_file_size=settings.max_file_size),
            audit=AuditLog(settings.log_dir, stats) if settings.log_dir else None,
            replacer=ProjectReplacer(safe),
        )
