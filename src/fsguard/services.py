"""The engine objects one server instance shares between its tools, built from Settings."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass

from fsguard.config import Settings
from fsguard.core.analysis import Analyzer
from fsguard.core.artifacts import ArtifactHolder
from fsguard.core.audit import AuditLog
from fsguard.core.backups import BackupStore
from fsguard.core.batch import BatchRunner
from fsguard.core.batchops import Engines
from fsguard.core.beneath import Beneath
from fsguard.core.deletion import Deleter
from fsguard.core.directories import DirectoryMaker
from fsguard.core.editing import Editor
from fsguard.core.git import GitRunner
from fsguard.core.groups import GroupStore
from fsguard.core.hashing import FingerprintCache
from fsguard.core.hooks import HookRunner
from fsguard.core.listing import DirectoryLister
from fsguard.core.locks import PathLocks
from fsguard.core.metadata import MetadataReader
from fsguard.core.minify import Minifier
from fsguard.core.moving import Mover
from fsguard.core.occ import ConcurrencyGuard
from fsguard.core.paths import PathPolicy
from fsguard.core.pipeline_calls import PipelineEngines
from fsguard.core.pipeline_runner import PipelineRunner
from fsguard.core.reading import FileReader
from fsguard.core.recovery import Recovery
from fsguard.core.renaming import Renamer
from fsguard.core.replacing import ProjectReplacer
from fsguard.core.reverting import Reverter
from fsguard.core.risk import RiskPolicy
from fsguard.core.runs import RunRecords
from fsguard.core.safeguards import Safeguards
from fsguard.core.session import Session
from fsguard.core.stats import CallStats
from fsguard.core.structure import StructureChecker
from fsguard.core.trash import Trash
from fsguard.core.undo import Restorer
from fsguard.core.writing import FileWriter
from fsguard.core.wsl import WslIntegration, WslSettings
from fsguard.groundwork import Groundwork

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
    minifier: Minifier
    groups: GroupStore
    reverter: Reverter
    renamer: Renamer
    wsl: WslIntegration
    git: GitRunner
    batch: BatchRunner
    pipelines: PipelineRunner
    hooks: HookRunner

    @classmethod
    def create(cls, settings: Settings) -> Services:
        """Build the services, cleaning temp files a crashed run left behind."""
        return cls.assemble(Groundwork.lay(settings))

    @classmethod
    def assemble(cls, groundwork: Groundwork, *, via: str = "restart") -> Services:
        """The whole engine on top of the parts built (and the chores done) at start-up; ``via``: who is starting, as
        the audit line of an interrupted run it ends names it (``restart``: a server)."""
        settings, policy, locks = groundwork.settings, groundwork.policy, groundwork.locks
        hooks = groundwork.hooks if groundwork.hooks is not None else HookRunner.load(None, policy.roots)
        beneath, writer, backups, stats = groundwork.beneath, groundwork.atomic, groundwork.backups, groundwork.stats
        session = Session()
        cache = FingerprintCache()
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
        groups = GroupStore(settings.state_dir / "backups" / "groups", writer)
        runs = RunRecords(settings.state_dir, groups)
        restorer = Restorer(safe, trash)
        deleter = Deleter(safe, trash, groups)
        mover = Mover(safe)
        reverter = Reverter(safe, restorer, deleter, mover)
        editor = Editor(safe, StructureChecker(), risk)
        file_writer = FileWriter(safe)
        directories = DirectoryMaker(policy, beneath, locks, session, hooks)
        # Before any call changes a file: the interrupted runs' files are judged as they left them.
        Recovery(reverter, backups, groups, groundwork.audit, via=via).end(groundwork.unfinished)
        return cls(
            hooks=hooks,
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
                response_budget=settings.max_response_bytes,
                media_budget=settings.max_media_bytes,
            ),
            lister=DirectoryLister(policy, beneath, session, max_items=settings.max_list_items),
            metadata=MetadataReader(policy, beneath, cache, session, max_file_size=settings.max_file_size),
            directories=directories,
            artifacts=ArtifactHolder(safe),
            stats=stats,
            backups=backups,
            editor=editor,
            writer=file_writer,
            restorer=restorer,
            trash=trash,
            deleter=deleter,
            mover=mover,
            analyzer=Analyzer(policy, beneath, risk, max_file_size=settings.max_file_size, hooks=hooks),
            audit=groundwork.audit,
            replacer=ProjectReplacer(safe, groups),
            minifier=Minifier(safe, StructureChecker()),
            groups=groups,
            reverter=reverter,
            renamer=Renamer(safe, mover, reverter, runs),
            wsl=WslIntegration.create(safe, _wsl_settings(settings), os.environ),
            git=GitRunner(safe, run_hooks=settings.git_hooks),
            batch=BatchRunner(safe, Engines(editor, file_writer, mover, deleter, directories, reverter), runs),
            pipelines=PipelineRunner(
                PipelineEngines(
                    policy=policy,
                    beneath=beneath,
                    editor=editor,
                    mover=mover,
                    deleter=deleter,
                    max_file_size=settings.max_file_size,
                    locks=locks,
                    hooks=hooks,
                ),
                reverter,
                runs,
            ),
        )


def _wsl_settings(settings: Settings) -> WslSettings:
    return WslSettings(
        forced=settings.wsl,
        home=settings.wsl_home,
        windows_home=settings.wsl_windows_home,
        autosync_config=settings.wsl_autosync_config,
        autosync_forced=settings.wsl_autosync,
    )
