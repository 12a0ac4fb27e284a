"""The pure parts of running a pipeline: which steps may run together, whether a step runs, and its params.

**Levels.** A step depends on the steps it reads files from (``input_from``, ``input_from_all``), the step
its condition looks at, and the earlier steps its params quote in templates. A destructive step (one that
writes) also depends on every earlier step, and every later step depends on it: so it runs alone, after all
that comes before it and before all that comes after, and a parallel run sees the filesystem exactly as the
sequential run does. Levels are Kahn's: a level holds the steps whose dependencies all ran in earlier
levels; the steps of one level run concurrently.

**Conditions.** ``has_matches`` / ``no_matches``: the step's count (else its number of files) is above 0 / is
0; ``count_gt`` / ``count_lt`` / ``count_eq`` compare that with ``value``; ``file_exists`` /
``file_not_exists`` look at a path; ``step_succeeded`` / ``step_failed`` at the step's status (a skipped
step counts as succeeded). A false condition skips the step, which counts as success.

**Templates.** ``{{step_id.field}}`` in any string of a step's params (nested objects and lists too) becomes
that earlier step's ``count`` (its count, else its number of files), ``files_count``, ``files`` (comma
joined; as a whole item of a list, or in the text of a ``files`` param, one item a file), ``risk`` (LOW when it
has none) or ``edits``. An unknown step or field, or a later step, is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from fsguard.core.pipeline import Condition, Step, StepOutcome

TEMPLATE = re.compile(r"\{\{\s*([A-Za-z0-9_-]{1,64})\.([A-Za-z_]+)\s*\}\}")
FIELDS = ("count", "files_count", "files", "risk", "edits")


def template_references(value: object) -> set[str]:
    """The step ids quoted by templates anywhere in ``value`` (strings, nested in dicts and lists)."""
    found: set[str] = set()
    for text in _strings(value):
        found.update(match.group(1) for match in TEMPLATE.finditer(text))
    return found


def dependencies(steps: Sequence[Step]) -> dict[int, set[int]]:
    """Each step's index → the indexes of the steps it must run after (see the module docstring)."""
    index_of = {step.id: step.index for step in steps}
    needs: dict[int, set[int]] = {}
    for step in steps:
        named = set(step.sources) | template_references(step.params)
        if step.condition is not None:
            named |= {step.condition.step_ref} if step.condition.step_ref else template_references(step.condition.path)
        needs[step.index] = {index_of[name] for name in named if index_of.get(name, step.index) < step.index}
    for barrier in (step for step in steps if step.destructive):
        for step in steps:
            if step.index < barrier.index:
                needs[barrier.index].add(step.index)
            elif step.index > barrier.index:
                needs[step.index].add(barrier.index)
    return needs


def kahn_levels(needs: Mapping[int, set[int]]) -> list[list[int]]:
    """Levels of a dependency graph: each holds (sorted) the nodes whose dependencies are all in earlier levels.

    Raises:
        ValueError: the graph has a cycle, or names a node it does not list.
    """
    waiting = {node: set(deps) for node, deps in needs.items()}
    unknown = set().union(*waiting.values()) - waiting.keys() if waiting else set()
    if unknown:
        raise ValueError(f"dependencies on unknown steps {sorted(unknown)}")
    levels: list[list[int]] = []
    while waiting:
        ready = sorted(node for node, deps in waiting.items() if not deps)
        if not ready:
            raise ValueError(f"dependency cycle among steps {sorted(waiting)}")
        levels.append(ready)
        for node in ready:
            del waiting[node]
        for deps in waiting.values():
            deps.difference_update(ready)
    return levels


def plan_levels(steps: Sequence[Step], *, parallel: bool) -> list[list[int]]:
    """The levels to run ``steps`` in: one step a level, in order, unless ``parallel``."""
    if not parallel:
        return [[step.index] for step in steps]
    return kahn_levels(dependencies(steps))


def condition_holds(
    condition: Condition | None, earlier: Mapping[str, StepOutcome], exists: Callable[[str], bool]
) -> tuple[bool, str]:
    """Whether a step with ``condition`` runs, and why (the skip reason when it does not).

    ``earlier`` holds the outcomes of the steps before it, by id; ``exists`` answers file_exists.
    """
    if condition is None:
        return True, "no condition"
    kind = condition.type
    if kind in ("file_exists", "file_not_exists"):
        path = condition.path or ""
        present = exists(path)
        holds = present if kind == "file_exists" else not present
        return holds, f"{kind} {path}: it {'exists' if present else 'does not exist'}"
    ref = condition.step_ref or ""
    outcome = earlier.get(ref)
    if outcome is None:
        return False, f"{kind}: step {ref!r} has not run"
    if kind in ("step_succeeded", "step_failed"):
        holds = (outcome.status == "failed") == (kind == "step_failed")
        return holds, f"{kind} on {ref!r}: it {'failed' if outcome.status == 'failed' else 'succeeded'}"
    if outcome.status == "failed":
        # A failed step has no count: read as 0, no_matches held after a search that never ran and a delete it
        # guarded went ahead.
        return False, f"{kind} on {ref!r}: it failed, so it has no count to compare (step_failed tests for that)"
    measure = outcome.measure
    value = condition.value or 0
    holds = {
        "has_matches": measure > 0,
        "no_matches": measure == 0,
        "count_gt": measure > value,
        "count_lt": measure < value,
        "count_eq": measure == value,
    }[kind]
    compared = f" (value {value})" if kind.startswith("count_") else ""
    return holds, f"{kind} on {ref!r}{compared}: its count is {measure}"


def failed_reference(step: Step, earlier: Mapping[str, StepOutcome]) -> str | None:
    """Why ``step`` cannot run after a failure it depends on (its input files or a template come from a step that
    failed), else None. A failed step leaves no files and no count: run anyway, the step acted on an empty set, or
    wrote a 0 the failed step never counted, and answered "ok"."""
    for ref in step.sources:
        if ref in earlier and earlier[ref].status == "failed":
            return f"its input step {ref!r} failed, so it has no files to act on"
    for ref in sorted(template_references(step.params)):
        if ref in earlier and earlier[ref].status == "failed":
            return f"it quotes step {ref!r} in a template, and that step failed, so there is no value to fill in"
    return None


def render(value: Any, earlier: Mapping[str, StepOutcome]) -> Any:
    """``value`` with every ``{{step_id.field}}`` in its strings filled from ``earlier`` (outcomes by id)."""
    if isinstance(value, str):
        return TEMPLATE.sub(lambda match: _field(match, earlier), value)
    if isinstance(value, dict):
        return {key: render(_pieces(item) if key == "files" else item, earlier) for key, item in value.items()}
    if isinstance(value, list):
        return [filled for item in value for filled in _listed(item, earlier)]
    return value


def _listed(item: Any, earlier: Mapping[str, StepOutcome]) -> list[Any]:
    """A list item rendered: one that is a whole ``{{step.files}}`` stands for that step's files, one item each.
    Joined at commas into one item, two files made one path that does not exist (``files: ["{{find.files}}"]``)."""
    whole = TEMPLATE.fullmatch(item.strip()) if isinstance(item, str) else None
    if whole is not None and whole.group(2) == "files" and whole.group(1) in earlier:
        return list(earlier[whole.group(1)].files)
    return [render(item, earlier)]


def _pieces(value: Any) -> Any:
    """A text ``files`` that quotes templates, split at its commas before they are filled, so each
    ``{{step.files}}`` becomes that step's files one item each: joined at commas and split again, a file whose name
    holds a comma was taken for two others (``sub/notes, draft.md`` edited ``sub/notes`` and ``draft.md``)."""
    if isinstance(value, str) and TEMPLATE.search(value):
        return [piece.strip() for piece in value.split(",") if piece.strip()]
    return value


def _field(match: re.Match[str], earlier: Mapping[str, StepOutcome]) -> str:
    outcome = earlier.get(match.group(1))
    name = match.group(2)
    if outcome is None or name not in FIELDS:
        return match.group(0)
    values = {
        "count": outcome.measure,
        "files_count": len(outcome.files),
        "files": ",".join(outcome.files),
        "risk": outcome.risk or "LOW",
        "edits": outcome.edits or 0,
    }
    return str(values[name])


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
