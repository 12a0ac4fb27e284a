"""What a server needs before its first tool call: the roots, the start-up chores, and the call accounting.

A server answers initialize and tools/list with this alone; the rest of the engine (``Services``) is built on
the first tool call. Everything that can refuse a configuration (roots, hooks file, state dir, log dir, WSL
homes) or that must happen at start-up (crash-leftover temp files swept, backup retention) happens here, so a
deferred engine changes neither what start-up refuses nor what it cleans.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from fsguard.config import Settings
from fsguard.core.audit import AuditLog
from fsguard.core.backups import BackupStore
from fsguard.core.beneath import Beneath
from fsguard.core.denial import DenyRules
from fsguard.core.disk import AtomicWriter, remove_by_name
from fsguard.core.gitconfigs import read_by_git
from fsguard.core.locks import PathLocks
from fsguard.core.paths import PathPolicy
from fsguard.core.removal import remove_beneath
from fsguard.core.runs import UnfinishedRun, claim_unfinished
from fsguard.core.stats import CallStats

if TYPE_CHECKING:
    from fsguard.core.hooks import HookRunner

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Groundwork:
    """The engine parts built at start-up; ``Services.assemble`` builds the rest on top of them."""

    settings: Settings
    policy: PathPolicy
    hooks: HookRunner | None  # None: no hooks file (the engine gets a runner without hooks)
    locks: PathLocks
    beneath: Beneath
    atomic: AtomicWriter
    backups: BackupStore
    stats: CallStats
    audit: AuditLog | None
    # The state dir is out of the agents' reach (not under a root, not --unrestricted): what fsguard keeps there
    # for itself, such as the published tool list, cannot have been written through its tools.
    private: bool = True
    # Batches and pipelines a crash or kill cut short, claimed here (their records locked) and ended by the engine
    # before its first call (core/recovery.py).
    unfinished: tuple[UnfinishedRun, ...] = ()

    @classmethod
    def lay(cls, settings: Settings, *, audit: AuditLog | None = None) -> Groundwork:
        """Check the configuration and do the start-up chores: sweep crash leftovers, apply backup retention.

        ``audit``: the writer to log through instead of a server's own (the dashboard's appends lines only); the
        log dir is denied to the tools either way.

        Raises:
            FsguardError: a root, the hooks file, the state or log dir, or a WSL home is unusable.
        """
        policy = PathPolicy.create(
            settings.effective_roots(),
            unrestricted=settings.unrestricted,
            wsl_mount_root=settings.wsl_mount_root,
            read_only_roots=settings.read_only_roots,
            deny=DenyRules.create(settings.deny, defaults=settings.default_deny),
            wsl_distro=os.environ.get("WSL_DISTRO_NAME") or None,
        )
        state = Path(os.path.realpath(settings.state_dir))
        reachable = settings.unrestricted or policy.contains(state)
        policy = _own_places_denied(policy, settings)
        locks = PathLocks(settings.state_dir, policy.roots)
        hooks = None
        if settings.hooks_config is not None:  # the hooks module is imported only by a server that has hooks
            from fsguard.core.hooks import HookRunner

            hooks = HookRunner.load(settings.hooks_config, policy.roots, locks.still_wanted, locks.stop_if_cancelled)
        # --unrestricted lifts containment: a path outside the roots is walked from "/" (as when no root is given),
        # still pinned, links still screened by the deny rules; paths inside a root keep its fd as their start.
        beneath = Beneath((*policy.roots, Path("/")) if settings.unrestricted else policy.roots, policy.screen_link)
        writer = AtomicWriter(settings.state_dir)

        def sweep(temp: Path) -> None:
            # A stray inside a root is removed through the pinned walk, like any other user path.
            (partial(remove_beneath, beneath) if policy.contains(temp) else remove_by_name)(temp)

        backups = BackupStore(
            settings.state_dir / "backups",
            max_age_days=settings.backup_max_age_days,
            max_count=settings.backup_max_count,
        )
        # A --read-only server changes nothing on disk, start-up chores included: the strays and the backups a
        # crashed or over-limit writer left are the next writing server's to clear (they may be another's undo).
        unfinished: list[UnfinishedRun] = []
        if not settings.read_only:
            writer.clean_strays(sweep)
            unfinished = claim_unfinished(settings.state_dir, policy.contains)
            # Retention could drop the backups an interrupted run is rolled back from: it waits for the next start.
            if not unfinished and backups.apply_retention():
                backups.collect_garbage()
        stats = CallStats()
        if audit is None and settings.log_dir is not None:
            audit = AuditLog(settings.log_dir, stats)
        # The WSL integration itself is built with the engine; a bad Windows home is refused now. Only one
        # given (--wsl-windows-home or USERPROFILE) can be refused.
        if settings.wsl_windows_home or os.environ.get("USERPROFILE"):
            from fsguard.core.wsllayout import WslLayout, detect

            WslLayout.create(
                detect(settings.wsl, os.environ),
                policy.wsl_mount_root,
                home=settings.wsl_home,
                windows_home=settings.wsl_windows_home,
                environ=os.environ,
            )
        return cls(
            settings,
            policy,
            hooks,
            locks,
            beneath,
            writer,
            backups,
            stats,
            audit,
            private=not reachable,
            unfinished=tuple(unfinished),
        )


def _own_places(settings: Settings) -> list[tuple[str, Path]]:
    """fsguard's own places, canonical: the state dir, the audit log's dir and the hooks file; and the git config
    files its git reads (:mod:`fsguard.core.gitconfigs`). A file reached through a link is two places: the link
    (which an agent could replace by a file of its own) and its target."""
    places = [
        (label, Path(os.path.realpath(directory)))
        for label, directory in (("state dir", settings.state_dir), ("log dir", settings.log_dir))
        if directory is not None
    ]
    files = [("git config", config) for config in read_by_git(os.environ)]
    if settings.hooks_config is not None:
        files.append(("hooks file", settings.hooks_config.absolute()))
    for label, file in files:
        named = Path(os.path.realpath(file.parent)) / file.name
        places += [(label, place) for place in dict.fromkeys((named, Path(os.path.realpath(file))))]
    return places


def _own_places_denied(policy: PathPolicy, settings: Settings) -> PathPolicy:
    """``policy`` with fsguard's own places (the state dir, the audit log's dir, the hooks file, git's global config
    files) denied where they lie inside a root, or anywhere with --unrestricted, and the records marked forgeable
    where an agent can reach the state dir anyway.

    Not refused: serving one's home directory with the default state dir is common. But the backups, the trash, the
    records the start-up sweep acts on, the audit log, the commands the next start runs and the programs git's
    config names are no agent's to read, forge or delete: each is denied as a secret is, by a rule after the
    operator's (so no "!" rule lets it back in). The trash and the backups hold copies of files other rules hide by
    their path (``--deny /proj/conf/prod.yaml``), which no longer matches where the copy lies.
    """
    hidden: list[str] = []
    # With --unrestricted the rules hide every spelling that resolves into the state dir (they judge canonical
    # paths), but not one realpath cannot tell apart (a bind mount, another mount of the same disk): an agent may
    # still write a record there, which is then judged as typed.
    forgeable = settings.unrestricted
    for label, place in _own_places(settings):
        if not policy.contains(place):  # always True with --unrestricted: every place is within reach
            continue
        # Deepest root first: "" when the place is a root itself; outside every root (--unrestricted), the
        # absolute path without its "/", which an anchored rule names as the operator's absolute rules do.
        views = policy.relatives(place)
        if views[0]:
            logger.info("%s %s is within the tools' reach: it is denied to them", label, place)
            # Relative to the outermost root holding it: deny rules judge a path in every root's view, and the
            # longest view is the least likely to name another path below a nested root.
            hidden.append(views[-1])
        else:  # a root itself: denying it would deny the whole root
            logger.warning("%s %s is a root; agents can reach fsguard's own files", label, place)
            forgeable = forgeable or label == "state dir"
    if hidden:
        policy = replace(policy, deny=DenyRules.create(settings.deny, defaults=settings.default_deny, hidden=hidden))
    return replace(policy, forgeable_records=True) if forgeable else policy
