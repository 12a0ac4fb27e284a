"""What a pipeline action is handed and what it hands back: the engines, one step's call, its output.

Every action (:mod:`fsguard.core.pipeline_actions` reads, :mod:`fsguard.core.pipeline_changes` writes) is an
:data:`Action`: it takes the engines and a :class:`StepCall` and returns an :class:`ActionOutput`, or raises a typed
error when it cannot do its work.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fsguard.core.beneath import Beneath
from fsguard.core.confirmation import Entry
from fsguard.core.deletion import Deleter
from fsguard.core.editing import Editor
from fsguard.core.errors import RiskBlockedError
from fsguard.core.groups import Change
from fsguard.core.hooks import HookRunner
from fsguard.core.locks import PathLocks
from fsguard.core.moving import Mover
from fsguard.core.occ import OccVerdict
from fsguard.core.paths import PathPolicy
from fsguard.core.pipeline import NotSearched
from fsguard.core.pipeline_overlay import Overlay


@dataclass(frozen=True, kw_only=True)
class PipelineEngines:
    """What the actions act through: the path policy, the pinned walk, and the single-file engines."""

    policy: PathPolicy
    beneath: Beneath
    editor: Editor
    mover: Mover
    deleter: Deleter
    max_file_size: int
    locks: PathLocks  # each file a writing step changes is a step of its own (see PathLocks.step)
    hooks: HookRunner


@dataclass(frozen=True)
class StepCall:
    """One step's work: its params (templates filled), its input files, and how carefully to act."""

    params: Mapping[str, Any]
    files: tuple[str, ...] = ()  # canonical paths: the files of the steps it reads from, then its own
    sets: tuple[tuple[str, ...], ...] = ()  # the files of each step it reads from, for merge
    dry_run: bool = False
    force: bool = False
    verbose: bool = False
    changes: list[Change] = field(default_factory=list)  # what it changed so far, in order
    # A confirmed run's delete step: the entries (st_dev, st_ino) the question measured, the only non-empty
    # directories it may trash (None: nobody was asked, or the step was asked about as written).
    confirmed: frozenset[Entry] | None = None
    # A dry run's: what the earlier steps would have changed, read instead of the disk (a real run's stays empty).
    overlay: Overlay = field(default_factory=Overlay)


@dataclass(frozen=True)
class ActionOutput:
    """What an action produced: the files it found or acted on, and what it counted."""

    files: tuple[str, ...]
    count: int | None = None
    edits: int | None = None
    risk: str | None = None
    content: str | None = None
    file_counts: Mapping[str, int] | None = None
    not_searched: NotSearched | None = None
    # A dry run's step over the risk threshold without force: what it would do, and the refusal the real run makes.
    blocked: RiskBlockedError | None = None
    unforeseen: str | None = None  # a dry run's: what it could not plan from what the earlier steps would change
    external: tuple[OccVerdict, ...] = ()  # files changed on disk since this session saw them (--auto-occ warn)
    notes: tuple[str, ...] = ()  # what the writes and the hooks told the agent (Mutation.hook_notes)
    # A dry run's delete: (where it is on disk now, the path deleted) of each file an earlier step would move there,
    # whatever names the steps used (a template's value too): what the confirmation measures.
    moves: tuple[tuple[str, str], ...] = ()
    denied: int | None = None  # copy: files inside its directories a deny rule hides, left behind (never named)


Action = Callable[[PipelineEngines, StepCall], ActionOutput]
