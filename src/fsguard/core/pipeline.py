"""Pipelines (batch_operations ``pipeline_json``): the request and its results as data.

A pipeline is up to 20 named steps; each runs one of twelve actions on files, often the files an earlier
step produced (``input_from``, ``input_from_all``), may be guarded by a condition on an earlier step, and
may quote earlier results in its params with ``{{step_id.field}}`` templates. The modules:

- :mod:`fsguard.core.pipeline_request` parses a request and refuses it whole, every problem listed;
- :mod:`fsguard.core.pipeline_schedule` holds the pure parts: levels, conditions, templates;
- :mod:`fsguard.core.pipeline_actions` the six reading actions, :mod:`fsguard.core.pipeline_changes` the six
  writing ones (through the single-file engines), :mod:`fsguard.core.pipeline_runner` the run and rollback.

Decisions that differ from the seed, on purpose:

- ``stop_on_error`` defaults to true (the seed's comments meant it; its JSON decoding made it false), and a
  stop rolls back everything the pipeline changed. ``create_backup`` is accepted and has no effect: every
  change is always backed up and recorded in the pipeline's change group.
- Step indexes count from 1 in results and errors; a step without an id is named as the seed named it, by its
  0-based index (``step-0``, ``step-1`` …), since seed pipelines refer to those names: counting them from 1 would
  point a seed's ``input_from: "step-1"`` at the wrong step.
- ``edit`` replaces every occurrence in each file (``replace_all`` defaults to true), as the seed did: a
  pipeline edit across files means "all of them". ``replace_all: false`` asks for one unique match a file, and
  ``occurrence`` (1 the first, -1 the last; ``replace_all`` then defaults to false) for that match in each file.
- ``search`` says how it reads its pattern with ``regex: true|false``; without it, the seed's guess (a pattern
  with regex syntax that compiles is a regex). It is case sensitive unless ``case_sensitive: false``, so that it
  finds what a following ``edit`` will change.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from fsguard.core.confirmation import Binding
from fsguard.core.occ import OccVerdict

MAX_STEPS = 20
StepStatus = Literal["ok", "failed", "skipped", "planned"]
RunStatus = Literal["applied", "dry_run", "partial"]
ACTIONS = (
    "search",
    "read_ranges",
    "edit",
    "multi_edit",
    "count_occurrences",
    "regex_transform",
    "copy",
    "rename",
    "delete",
    "aggregate",
    "diff",
    "merge",
)
DESTRUCTIVE = frozenset({"edit", "multi_edit", "regex_transform", "copy", "rename", "delete"})
"""Actions that write: in a parallel run each has a level of its own, after every earlier step."""
CONDITIONS = (
    "has_matches",
    "no_matches",
    "count_gt",
    "count_lt",
    "count_eq",
    "file_exists",
    "file_not_exists",
    "step_succeeded",
    "step_failed",
)
ALIASES = {"old_str": "old_text", "old_string": "old_text", "new_str": "new_text", "new_string": "new_text"}
"""Spellings of edit params that other tools accept too."""
FILE_PARAMS = ("files", "path")
"""The params through which a step names its own files (besides the files of the steps it reads from)."""
PARAMS: dict[str, frozenset[str]] = {
    "search": frozenset(
        {"pattern", "path", "files", "regex", "case_sensitive", "file_types", "include_content", "include_dependencies"}
    ),
    "read_ranges": frozenset({*FILE_PARAMS, "start_line", "end_line", "ranges"}),
    "edit": frozenset({*FILE_PARAMS, "old_text", "new_text", "replace_all", "occurrence"}),
    "multi_edit": frozenset({*FILE_PARAMS, "edits", "replace_all"}),
    "count_occurrences": frozenset({*FILE_PARAMS, "pattern", "regex", "case_sensitive"}),
    "regex_transform": frozenset({*FILE_PARAMS, "patterns", "pattern", "replacement", "case_sensitive"}),
    "copy": frozenset({*FILE_PARAMS, "destination"}),
    "rename": frozenset({*FILE_PARAMS, "destination"}),
    "delete": frozenset({*FILE_PARAMS, "recursive"}),
    "aggregate": frozenset({*FILE_PARAMS, "separator"}),
    "diff": frozenset({*FILE_PARAMS, "file_a", "file_b"}),
    "merge": frozenset({*FILE_PARAMS, "mode"}),
}


@dataclass(frozen=True)
class Condition:
    """When a step runs: ``type`` on the step ``step_ref`` (or on ``path``), compared with ``value``."""

    type: str
    step_ref: str | None = None
    value: int | None = None
    path: str | None = None


@dataclass(frozen=True)
class Step:
    """One step: an action, where its files come from, its params, and when it runs."""

    index: int  # from 1
    id: str
    action: str
    params: Mapping[str, Any] = field(default_factory=dict)
    input_from: str | None = None
    input_from_all: tuple[str, ...] = ()
    condition: Condition | None = None

    @property
    def destructive(self) -> bool:
        return self.action in DESTRUCTIVE

    @property
    def sources(self) -> tuple[str, ...]:
        """The steps whose files feed this one: ``input_from`` first, then ``input_from_all``, once each."""
        first = (self.input_from,) if self.input_from else ()
        return tuple(dict.fromkeys((*first, *self.input_from_all)))


@dataclass(frozen=True)
class PipelineRequest:
    """A checked pipeline."""

    name: str
    steps: tuple[Step, ...]
    stop_on_error: bool = True
    dry_run: bool = False
    create_backup: bool = True  # accepted for the seed's callers; every change is backed up regardless
    force: bool = False
    verbose: bool = False
    parallel: bool = False
    # Set by the tool once the user confirmed the run: what its delete steps may take (None: nobody was asked).
    confirmed: Binding | None = None


@dataclass(frozen=True)
class NotSearched:
    """What a search step's walk left out, relative to its path (a directory ends in ``/``), as search_files names
    it: a later step acting on the search's files would otherwise take "no match there" for "nothing there"."""

    by_default: tuple[str, ...] = ()  # dependency, cache and build directories, minified files
    too_large: tuple[str, ...] = ()  # above --max-file-size
    binary: tuple[str, ...] = ()  # binary files whose bytes hold the pattern
    unreadable: tuple[str, ...] = ()  # directories the user may not list or enter, files it may not read
    hooked: tuple[str, ...] = ()  # files a pre-search or pre-read hook given by a path glob denied

    def __bool__(self) -> bool:
        return bool(self.by_default or self.too_large or self.binary or self.unreadable or self.hooked)


@dataclass(frozen=True)
class StepOutcome:
    """What one step did (or, in a dry run, would do)."""

    index: int
    id: str
    action: str
    status: StepStatus
    files: tuple[str, ...] = ()
    count: int | None = None
    edits: int | None = None
    risk: str | None = None
    content: str | None = None
    file_counts: Mapping[str, int] | None = None
    not_searched: NotSearched | None = None
    unforeseen: str | None = None  # a dry run's: what it could not plan from the earlier steps' planned changes
    external: tuple[OccVerdict, ...] = ()  # the files it changed that changed on disk since this session saw them
    notes: tuple[str, ...] = ()  # what its writes and the hooks told the agent (Mutation.hook_notes)
    moves: tuple[tuple[str, str], ...] = ()  # a dry run's delete: (where it is now, path) of each file moved there
    denied: int | None = None  # copy: files inside its directories a deny rule hides, left behind (never named)
    skip_reason: str | None = None
    error: str | None = None
    error_code: str | None = None
    error_path: str | None = None  # where the error was met, when it names a path (fsguard's state directory, say)
    duration_ms: float = 0.0
    level: int | None = None
    reached: bool = True  # False: an earlier failure stopped the (dry) run before this step

    @property
    def completed(self) -> bool:
        """Ran and did not fail (a step skipped by its condition counts as completed)."""
        return self.reached and self.status != "failed"

    @property
    def measure(self) -> int:
        """What count conditions and the ``count`` template see: the step's count, else its number of files."""
        return self.count if self.count is not None else len(self.files)


@dataclass(frozen=True)
class PipelineReport:
    """What a pipeline did: each step, and the group id that reverts everything it changed."""

    name: str
    status: RunStatus
    steps: tuple[StepOutcome, ...]
    group_id: str | None
    files_affected: int
    total_edits: int
    risk: str
