"""User hooks: shell commands run before and after file operations, configured in one JSON file.

The file maps the :data:`HOOK_EVENTS` (``pre_write`` spellings accepted) to lists of matcher entries ``{"pattern",
"path", "hooks": [{"type": "command", "command", "timeout", "failOnError", "description", "enabled"}]}``. An entry
applies when its ``pattern`` matches the tool name (``*``, exact, ``fnmatch`` wildcard, or ``re:<regex>`` found by
:func:`re.search`) OR its ``path`` glob matches ``file_path``, ``source_path`` or ``dest_path``: a glob without ``/``
matches the basename, one with ``/`` the root-relative path (``*`` within a directory, ``**`` across any number, so
``**/*.py`` matches ``a.py`` and ``src/a.py``; a leading ``/`` changes nothing). Neither matches every call. A
``pattern`` holding ``.`` or ``/``, which no tool name does, is a path glob: the seed's shipped examples put file
globs there (``"pattern": "*.go"``), and its server matched them against tool names only, so they never fired. A
step of ``batch_operations`` also answers to ``batch_<family>`` (``batch_write``), as the seed named it.

Hooks run as ``sh -c <command>`` in the first root (:mod:`fsguard.core.hookprocess`), the event as JSON on stdin.
Stdout may be JSON ``{decision, reason, modified_content, additional_context}``; without a decision, exit 0 allows, 2
denies (stderr is the reason), anything else, or a timeout (60 s unless set, an hour at most; the process group is
killed), continues unless ``failOnError`` is set. A call cancelled while its hooks run (by its client, or by a server
told to stop) has them killed too. Matching hooks run in parallel, once per command. Only pre-hooks deny; only
pre-write/pre-edit replace content.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from pathlib import Path, PurePath
from typing import Any, Literal

from fsguard.core.errors import HookConfigError, HookDeniedError
from fsguard.core.hookprocess import Hook, HookResult, run_hook

logger = logging.getLogger(__name__)

_FAMILIES = ("write", "edit", "delete", "create", "move", "copy", "read", "search")
# What a denied pre-hook kept from happening, in its message: "Nothing was deleted", not "written", for a delete.
_UNDONE = {
    "read": "read",
    "search": "read",
    "delete": "deleted",
    "create": "created",
    "move": "moved",
    "copy": "copied",
}
HOOK_EVENTS: tuple[str, ...] = tuple(f"{phase}-{family}" for phase in ("pre", "post") for family in _FAMILIES)
_Schema = dict[str, type | tuple[type, ...]]
_ENTRY_SCHEMA: _Schema = {"pattern": str, "path": str, "hooks": list}
_HOOK_SCHEMA: _Schema = {"type": str, "command": str, "timeout": (int, float), "description": str}
_HOOK_SCHEMA.update(failOnError=bool, enabled=bool)
_KINDS = {"hooks": "a list", "timeout": "a number", "failOnError": "true or false", "enabled": "true or false"}
_LONGEST_TIMEOUT = 3600  # seconds: a longer one is a typo (or NaN, infinity), and would hold its call for ever
_POLL_SECONDS = 0.05  # how often a call waiting on its hooks is asked whether it was cancelled
Predicate = Callable[[str], bool]


@dataclass(frozen=True)
class HookEvent:
    """One operation as the hooks see it; ``None`` fields are left out of the JSON on stdin."""

    event: str
    tool_name: str
    file_path: str
    operation: str
    content: str | None = None
    old_content: str | None = None
    new_content: str | None = None
    source_path: str | None = None
    dest_path: str | None = None
    metadata: dict[str, object] | None = None


@dataclass(frozen=True)
class HookOutcome:
    """What the hooks of one event changed: replacement content, notes for the agent, how many ran."""

    modified_content: str | None
    notes: tuple[str, ...]
    ran: int
    modified_by: str | None = None  # the label of the hook whose modified_content that is


_EMPTY = HookOutcome(None, (), 0)


@dataclass(frozen=True)
class _Entry:
    tool: Predicate | None
    path: Predicate | None
    hooks: tuple[Hook, ...]

    def matches(self, event: HookEvent) -> bool:
        paths = (event.file_path, event.source_path, event.dest_path)
        by_path = self.path is not None and any(self.path(path) for path in paths if path)
        return by_path or (self.tool is not None and any(self.tool(name) for name in _tool_names(event)))


def _shown(path: Path, roots: tuple[Path, ...]) -> str:
    """``path`` relative to the root holding it (as the agent names it), or whole outside every root."""
    inside = [path.relative_to(root).as_posix() for root in roots if path.is_relative_to(root) and path != root]
    return min(inside, key=len) if inside else str(path)


def _tool_names(event: HookEvent) -> tuple[str, ...]:
    """The names a tool pattern may match: the tool's, and for a batch_operations step also ``batch_<family>``
    (``batch_write``, ``batch_edit``, ``batch_move``, …), the name the seed's hooks saw for it."""
    if event.tool_name != "batch_operations":
        return (event.tool_name,)
    return event.tool_name, "batch_" + event.event.partition("-")[2]


class HookRunner:
    """The hooks of one config file, grouped by event; with no file it is a near-free no-op."""

    def __init__(
        self,
        by_event: dict[str, tuple[_Entry, ...]],
        roots: tuple[Path, ...],
        still_wanted: Callable[[], None] | None = None,
        stop_if_cancelled: Callable[[], None] | None = None,
    ) -> None:
        self._by_event = by_event
        self._roots = roots
        self._cwd = roots[0] if roots else None
        # Raises if the call was cancelled while its pre-hooks ran (PathLocks.still_wanted).
        self._still_wanted = still_wanted
        # Raises once the call the hooks run for is cancelled, wherever it is (PathLocks.stop_if_cancelled).
        self._stop_if_cancelled = stop_if_cancelled

    @classmethod
    def load(
        cls,
        config_path: Path | None,
        roots: tuple[Path, ...],
        still_wanted: Callable[[], None] | None = None,
        stop_if_cancelled: Callable[[], None] | None = None,
    ) -> HookRunner:
        """Read and validate ``config_path``; ``None`` gives a runner with no hooks. ``still_wanted`` raises when
        the call a pre-hook ran for was cancelled meanwhile, under the lock of its change; ``stop_if_cancelled``
        raises once it is cancelled at all, and its hooks are then killed.

        Raises:
            HookConfigError: the file is unreadable, not JSON, or not in the documented shape.
        """
        if config_path is None:
            return cls({}, roots, still_wanted, stop_if_cancelled)
        where = ""

        def bad(problem: str) -> HookConfigError:
            return HookConfigError(f"hooks config {config_path}: {where}{problem}.", path=str(config_path))

        try:
            data = json.loads(config_path.read_text(encoding="utf-8"), object_pairs_hook=_unique_keys)
        except _DuplicateKeyError as exc:  # json keeps the last silently: a whole "hooks" object was dropped
            raise bad(f"the key {exc.key!r} appears twice in one object; keep one") from exc
        except (OSError, ValueError) as exc:  # ValueError covers bad JSON and bad UTF-8
            raise bad(f"cannot be read as JSON ({exc})") from exc
        if not isinstance(data, dict) or not isinstance(data.get("hooks"), dict):
            raise bad('the top level must be an object with a "hooks" object')
        if extra := sorted(set(data) - {"hooks"}):  # a misspelt or misplaced key, refused as an entry's is
            raise bad(f'unknown top-level key {extra[0]!r}; the only one is "hooks"')
        by_event: dict[str, list[_Entry]] = {}
        for name, entries in data["hooks"].items():
            event = name.strip().lower().replace("_", "-")
            if event not in HOOK_EVENTS:
                raise bad(f"unknown event {name!r}; known events: {', '.join(HOOK_EVENTS)}")
            for number, raw in enumerate(entries if isinstance(entries, list) else [entries], 1):
                where = f"{name} entry {number}: "
                entry = _parse_entry(raw, roots, bad)
                if entry.hooks:
                    by_event.setdefault(event, []).append(entry)
        return cls(
            {event: tuple(entries) for event, entries in by_event.items()}, roots, still_wanted, stop_if_cancelled
        )

    @property
    def enabled(self) -> bool:
        """Whether any enabled hook is configured."""
        return bool(self._by_event)

    def configured(self, *families: str) -> bool:
        """Whether any hook is configured for an event of ``families`` (``read``, ``edit``…), before or after."""
        return any(f"{phase}-{family}" in self._by_event for phase in ("pre", "post") for family in families)

    def fire(self, phase: Literal["pre", "post"], family: str, **fields: Any) -> HookOutcome:
        """Run ``{phase}-{family}`` hooks, building the :class:`HookEvent` only when hooks are configured."""
        return self.run(HookEvent(event=f"{phase}-{family}", **fields)) if self._by_event else _EMPTY

    def run(self, event: HookEvent) -> HookOutcome:
        """Run the hooks matching ``event`` (its ``event`` one of :data:`HOOK_EVENTS`) in parallel and combine them.

        Raises:
            HookDeniedError: a pre-hook denied the operation (post-hooks never raise).
        """
        if not self._by_event or (entries := self._by_event.get(event.event)) is None:
            return _EMPTY
        return self._run(event, [entry for entry in entries if entry.matches(event)])

    def globbed(self, event: str) -> bool:
        """Whether an entry of ``event`` (``pre-delete``…) has a path glob: only then is a tree walked for it."""
        return any(entry.path is not None for entry in self._by_event.get(event, ()))

    def run_inside(self, event: HookEvent, below: Iterable[tuple[str, str | None]], within: str) -> None:
        """Fire ``event`` (a pre-event of a tree ``within``: a directory deleted, moved or copied) once more for each
        file of ``below`` (its path, and where it lands) that an entry's path glob matches, with only those entries:
        a glob ``**/*.lock`` keeps a lock file from going with its folder as from going alone. A file no glob matches
        costs the matching only, never a process.

        Raises:
            HookDeniedError: a hook denied one file; it is named, and nothing was done.
        """
        for source, landing in below if self.globbed(event.event) else ():
            inner = replace(event, file_path=source)
            if landing:
                inner = replace(inner, source_path=source, dest_path=landing)
            self.run_globbed(inner, within=within)

    def run_globbed(self, event: HookEvent, within: str | None = None) -> HookOutcome:
        """Run only the entries of ``event`` whose path glob matches one of its paths: ``event`` is a file a call
        reaches without naming it (inside a folder it names, ``within``), which a tool pattern judged already.

        Raises:
            HookDeniedError: a hook denied the file; it is named.
        """
        paths = [path for path in (event.file_path, event.source_path, event.dest_path) if path]
        entries = self._by_event.get(event.event, ())
        matching = [entry for entry in entries if entry.path is not None and any(map(entry.path, paths))]
        return self._run(event, matching, within=within) if matching else _EMPTY

    def _run(self, event: HookEvent, entries: list[_Entry], within: str | None = None) -> HookOutcome:
        # Config order decides which deny is reported and which modified_content wins; the first duplicate stays.
        unique: dict[str, Hook] = {}
        for hook in (hook for entry in entries for hook in entry.hooks):
            unique.setdefault(hook.command, hook)
        if not unique:
            return _EMPTY
        fields = {key: value for key, value in event.__dict__.items() if value is not None}
        fields |= {"timestamp": datetime.now(UTC).isoformat(), "working_dir": str(self._cwd or Path.cwd())}
        payload = json.dumps(fields)
        pre = event.event.startswith("pre-")
        stop = threading.Event()
        with ThreadPoolExecutor(max_workers=len(unique), thread_name_prefix="fsguard-hook") as pool:
            running = [pool.submit(run_hook, hook, payload, self._cwd, stop) for hook in unique.values()]
            self._awaited(running, stop, pre=pre)  # leaving the block waits for the hooks it stopped
            results = [hook.result() for hook in running]
        failed = [r for r in results if r.failure or (not pre and r.decision == "deny")]
        for r in failed:
            logger.warning("%s hook %s %s", event.event, r.hook.label, r.failure or f"denied afterwards: {r.reason}")
        notes = [r.context for r in results if r.context]
        notes += [f"{event.event} hook {r.hook.label} {r.failure}; went on without it." for r in failed if pre]
        denied = next((r for r in results if r.decision == "deny"), None)
        if denied is not None and pre:
            undone = _UNDONE.get(event.event.removeprefix("pre-"), "written")
            # The file named: one refused among many (project_replace, a pipeline step) is otherwise found by guess.
            name = _shown(Path(event.file_path), self._roots)
            what = (
                f"{event.tool_name} on {name}"
                if within is None
                else f"{event.tool_name} of {within}, for {name} inside"
            )
            message = f"{event.event} hook denied {what}: {denied.reason}. Nothing was {undone}."
            advice = f"The hook {denied.hook.label} refused it; satisfy it or ask the user to change the hooks config."
            raise HookDeniedError(f"{message} {advice}", path=event.file_path, hook=denied.hook.command)
        if pre and self._still_wanted is not None:
            self._still_wanted()  # a hook may take seconds: a call cancelled meanwhile changes nothing
        replaced = [r for r in results if r.modified_content and event.event in ("pre-write", "pre-edit")]
        winner = replaced[-1] if replaced else None
        if winner is None:
            return HookOutcome(None, tuple(notes), len(results))
        return HookOutcome(winner.modified_content, tuple(notes), len(results), winner.hook.label)

    def _awaited(self, running: list[Future[HookResult]], stop: threading.Event, *, pre: bool) -> None:
        """Wait for the hooks ``running``; once their call is cancelled, ``stop`` them (each is killed).

        A hook may run for its whole timeout (60 s by default), and a server told to stop waited for it: the call's
        thread is waiting here. A pre-hook's call then stops, its change not made; a post-hook's goes on (its change
        is made, and the record of it must be too) and stops at its next step.
        """
        if self._stop_if_cancelled is None:
            wait(running)
            return
        while wait(running, timeout=_POLL_SECONDS).not_done:
            try:
                self._stop_if_cancelled()
            except BaseException:  # the cancellation, of whatever kind the event loop raises
                stop.set()
                if pre:
                    raise
                return


def _glob_match(glob: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    if not glob:
        return not parts
    if glob[0] == "**":
        return any(_glob_match(glob[1:], parts[i:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatchcase(parts[0], glob[0]) and _glob_match(glob[1:], parts[1:])


def _path_matcher(glob: str, roots: tuple[Path, ...]) -> Predicate:
    if "/" not in glob:
        return lambda raw: fnmatchcase(PurePath(raw).name, glob)
    # Read as the operator plainly meant it ("./sub/*.py" and "sub//*.py" are "sub/*.py"), and an absolute glob
    # against the absolute path: each was matched against root-relative parts as written, so never fired.
    segments = tuple(part for part in glob.split("/") if part not in ("", "."))
    if glob.startswith("/"):
        return lambda raw: _glob_match(segments, PurePath(raw).parts[1:])

    def relative(raw: str) -> bool:
        path = PurePath(raw)
        inside = [path.relative_to(root).parts for root in roots if path.is_relative_to(root)]
        return any(_glob_match(segments, parts) for parts in inside or [path.parts[1:] if path.anchor else path.parts])

    return relative


def _tool_matcher(pattern: str, bad: Callable[[str], HookConfigError]) -> Predicate:
    if pattern.startswith("re:"):
        try:
            regex = re.compile(pattern[3:])
        except re.error as exc:
            raise bad(f"pattern {pattern!r} is not a valid regular expression ({exc})") from exc
        return lambda name: regex.search(name) is not None
    return lambda name: name == pattern or fnmatchcase(name, pattern)


def _parse_entry(raw: object, roots: tuple[Path, ...], bad: Callable[[str], HookConfigError]) -> _Entry:
    entry, hooks = _object(raw, _ENTRY_SCHEMA, bad), []
    if "hooks" not in entry:
        raise bad('a matcher entry needs a "hooks" list')
    for item in entry["hooks"]:
        hook = _object(item, _HOOK_SCHEMA, bad)
        command, timeout, description = hook.get("command", ""), hook.get("timeout", 60), hook.get("description")
        if hook.get("type", "command") != "command" or not command.strip():
            raise bad('each hook needs "type": "command" (the only type) and a non-empty "command"')
        if "\0" in command:  # valid JSON ("\u0000"), but no process can be started with it
            raise bad(f'"command" {command!r} holds a NUL character, which no command can; remove it')
        if isinstance(timeout, bool) or not 0 < timeout <= _LONGEST_TIMEOUT:  # NaN compares false: refused too
            raise bad(f'"timeout" must be a positive number of seconds, at most {_LONGEST_TIMEOUT}, not {timeout!r}')
        label = f'"{description}" ({command})' if description else f"({command})"
        if hook.get("enabled", True):
            hooks.append(Hook(command, float(timeout), hook.get("failOnError", False), label))
    pattern = entry.get("pattern") or (None if entry.get("path") else "*")  # an entry with neither matches all
    file_glob = pattern is not None and _names_files(pattern)
    globs = [glob for glob in (entry.get("path"), pattern if file_glob else None) if glob]
    tool = _tool_matcher(pattern, bad) if pattern and not file_glob else None
    return _Entry(tool, _any_path([_path_matcher(glob, roots) for glob in globs]) if globs else None, tuple(hooks))


def _any_path(matchers: list[Predicate]) -> Predicate:
    return lambda raw: any(match(raw) for match in matchers)


def _names_files(pattern: str) -> bool:
    """Whether ``pattern`` can only be a file glob: it holds ``.`` or ``/``, which no tool name does (a regex is a
    tool-name pattern whatever it holds)."""
    return not pattern.startswith("re:") and ("." in pattern or "/" in pattern)


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object's pairs as a dict, refusing a key given twice (json.loads keeps the last one silently).

    Raises:
        _DuplicateKeyError: a key appears twice.
    """
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKeyError(key)
        found[key] = value
    return found


def _object(raw: object, schema: _Schema, bad: Callable[[str], HookConfigError]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        raise bad(f"expected an object with keys {sorted(schema)}, got {raw!r}")
    for key, value in raw.items():
        if key not in schema:
            raise bad(f"unknown key {key!r}; allowed: {', '.join(schema)}")
        if not isinstance(value, schema[key]):
            raise bad(f"{key!r} must be {_KINDS.get(key, 'a string')}, not {value!r}")
    return raw
