"""The pipeline actions that only read: search, read_ranges, count_occurrences, aggregate, diff, merge.

Each action takes the engines and one :class:`StepCall` (its params with templates filled, and its input
files) and returns an :class:`ActionOutput`; it raises a typed error when it cannot do its work. Files are
read through the pinned walk (:mod:`fsguard.core.beneath`) under --max-file-size, as by read_file (in a dry run,
as its earlier steps would leave them: :mod:`fsguard.core.pipeline_preview`), and fire the hooks the tools fire:
pre-/post-read around each file a step reads (read_ranges, aggregate, diff), pre-/post-search around each file a
step counts in (count_occurrences, search among files) or the directory a search walks, so a hook that keeps
read_file or search_files out of a file keeps a pipeline out of it too. The actions that write are in
:mod:`fsguard.core.pipeline_changes`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from fsguard.core.confirmation import plural
from fsguard.core.diff import render_diff
from fsguard.core.errors import FsguardError, InvalidParamsError, NotFoundError
from fsguard.core.hookfilter import denied_files
from fsguard.core.ignore import WalkOptions, normalise_globs
from fsguard.core.linematches import line_matches
from fsguard.core.paths import PathPolicy
from fsguard.core.patterns import compile_re2, compiles
from fsguard.core.pipeline import NotSearched
from fsguard.core.pipeline_calls import Action, ActionOutput, PipelineEngines, StepCall
from fsguard.core.pipeline_overlay import GONE, OnDisk
from fsguard.core.pipeline_preview import decoded_text, overlaid_counts
from fsguard.core.query import word_edges
from fsguard.core.search import ContentRequest, search_content
from fsguard.core.skips import Skips
from fsguard.core.textio import DecodedText, split_lines

MAX_CONTENT_CHARS = 100_000
"""read_ranges, aggregate and diff return at most this much text (the rest is cut, and the cut is said)."""
SHORT_HEAD = SHORT_TAIL = 25
"""Without ``verbose``, content longer than head + tail lines keeps only those."""


def search(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """Files whose text has ``pattern`` (see :func:`reads_as_regex`): under ``path`` (or the file it names), or
    among the input files."""
    params = call.params
    pattern = text(params, "pattern")
    literal = not flag(params, "regex", reads_as_regex(pattern))
    case_sensitive = flag(params, "case_sensitive", True)
    roots = engines.policy.active_roots()
    default = str(roots[0]) if roots else "."
    base = None if call.files else engines.policy.resolve(text(params, "path", default))
    if base is not None and call.overlay.at(base) is GONE:
        raise NotFoundError(
            f"search path does not exist: {base}: an earlier step of this dry run would delete or move it away. "
            "Check the steps' order and paths.",
            path=str(base),
        )
    if base is None or call.overlay.is_file(
        base
    ):  # the input files, or a file as path: its content, as search_files reads it
        named = call.files or (str(base),)
        counts = _counted(
            engines,
            call,
            named,
            pattern,
            regex=not literal,
            case_sensitive=case_sensitive,
            at_end=False,
            action="search",
        )
        found = {file: n for file, n in counts.items() if n}
        return ActionOutput(tuple(found), sum(found.values()), file_counts=found)
    # Copied or moved there, or a directory an earlier step would make by putting files in it
    made = not call.overlay.exists(base) and any(call.overlay.exists(path) for path in call.overlay.below(base))
    if call.overlay.at(base) != OnDisk(base) or made:
        return _put_there(base)
    everything = flag(params, "include_dependencies", False)  # search_files' default skips, and its flag
    options = WalkOptions(
        # A string whole: the glob reader cuts it at commas outside braces and escapes, as search_files does
        globs=normalise_globs(
            file_types if isinstance(file_types := params.get("file_types"), str) else strings(params, "file_types")
        ),
        max_file_size=engines.max_file_size,
        rules_from=engines.policy.root_of(base),
        skip_dependencies=not everything,
        skip_minified=not everything,
    )
    request = ContentRequest(pattern=pattern, literal=literal, case_sensitive=case_sensitive, max_results=0)
    hide = engines.policy.hidden_files()
    skips = Skips()
    asked: dict[str, object] = {"pattern": pattern, "mode": "count"}
    _fire(engines, "pre", "search", base, "search", asked)  # as search_files: once, for the directory it walks
    result = search_content(base, request, options, beneath=engines.beneath, hide=hide, skips=skips)
    _fire(engines, "post", "search", base, "search", {**asked, "total_matches": result.total_matches})
    # As search_files: a file a path-glob pre-search or pre-read hook denies is left out, and named.
    denied = denied_files(
        engines.hooks, result.counts, ("pre-search", "pre-read"), **_as_step("search"), metadata=asked
    )
    files = sorted(file for file in result.counts if file not in denied)
    # As search_files: what the walk named by name is kept only if the pinned walk finds it so now.
    kept = skips.standing(engines.beneath, base, above=options.max_file_size, hide=hide)
    left_out = NotSearched(
        by_default=tuple(kept.by_default),
        too_large=tuple(kept.too_large),
        binary=tuple(os.path.relpath(file, base) for file in result.binary),
        unreadable=tuple(kept.unreadable),
        hooked=tuple(sorted(os.path.relpath(file, base) for file in denied)),
    )
    found = {f: result.counts[f] for f in files}
    count = counter(pattern, regex=not literal, case_sensitive=case_sensitive, at_end=False)
    planned, unforeseen = overlaid_counts(call.overlay, engines, base, options, hide, found, count)
    total = result.total_matches - sum(result.counts[f] for f in denied) if planned is found else sum(planned.values())
    return ActionOutput(
        tuple(planned), total, file_counts=planned, not_searched=left_out or None, unforeseen=unforeseen
    )


def _put_there(base: Path) -> ActionOutput:
    """A dry run's search under a directory an earlier step would copy or move to ``base``."""
    return ActionOutput(
        (),
        0,
        unforeseen=f"an earlier step would put {base} there (a copy or move); this dry run did not search it, as it "
        "cannot tell which files the walk would keep. The real run searches it.",
    )


_REGEX_SYNTAX = frozenset("\\.+*?()|[]{}^$")  # what Go's regexp.QuoteMeta escapes


def reads_as_regex(pattern: str) -> bool:
    """The seed's guess when a search step does not say (no ``regex``): a pattern with regex syntax that compiles
    is a regex (``k|line1`` finds either), any other is plain text. At worst a guessed regex finds a little more
    (``a.b`` also matches ``axb``); a literal guess would silently find nothing."""
    return bool(_REGEX_SYNTAX.intersection(pattern)) and compiles(pattern)


def count_occurrences(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """How often ``pattern`` occurs in each input file (non-overlapping; literal unless ``regex``)."""
    params = call.params
    counts = _counted(
        engines,
        call,
        call.files,
        text(params, "pattern"),
        regex=flag(params, "regex", False),
        case_sensitive=flag(params, "case_sensitive", True),
        at_end=True,  # what a regex_transform step with the pattern replaces
        action="count_occurrences",
    )
    return ActionOutput(tuple(counts), sum(counts.values()), file_counts=counts)


def read_ranges(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """Lines of each input file: ``start_line``..``end_line`` or each of ``ranges``; ranges joined by ``...``."""
    spans = _ranges(call.params)
    parts = []
    for file in call.files:
        path, decoded = read_text(engines, call, file, "read_ranges")
        lines = split_lines(decoded.text)
        pieces = ["".join(lines[start - 1 : end]).rstrip("\r\n") for start, end in spans]
        parts.append(f"==> {engines.policy.label(path)} <==\n" + "\n...\n".join(pieces))
    return ActionOutput(call.files, content=shown("\n\n".join(parts), verbose=call.verbose))


def aggregate(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """The input files once each, and their texts joined by ``separator`` (a newline unless given)."""
    separator = text(call.params, "separator", "\n", empty_ok=True)
    joined = separator.join(read_text(engines, call, file, "aggregate")[1].text for file in call.files)
    return ActionOutput(call.files, content=shown(joined, verbose=call.verbose))


def diff(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """A unified diff from ``file_a`` to ``file_b`` (else the first two input files); count = changed lines."""
    params = call.params
    named = [params.get("file_a"), params.get("file_b")]
    if all(isinstance(name, str) and name for name in named):
        pair = [str(engines.policy.resolve(str(name))) for name in named]
    elif len(call.files) >= 2:
        pair = list(call.files[:2])
    else:
        raise InvalidParamsError(
            f"diff needs two files and got {len(call.files)}: pass params.file_a and params.file_b, or an "
            "input step with at least two files."
        )
    (path_a, before), (path_b, after) = (read_text(engines, call, file, "diff") for file in pair)
    label_a, label_b = engines.policy.label(path_a), engines.policy.label(path_b)
    result = render_diff(label_a, before.text, after.text, "full")
    body = result.text.split("\n")[2:]
    content = "\n".join([f"--- a/{label_a}", f"+++ b/{label_b}", *body]) if body else ""
    changed = max(result.added, result.removed)
    return ActionOutput(tuple(pair), changed, content=shown(content, verbose=call.verbose))


def merge(engines: PipelineEngines, call: StepCall) -> ActionOutput:
    """The union (in first-seen order) or the intersection (in the first step's order) of the input steps' files."""
    sets = list(call.sets) or [call.files]
    mode = text(call.params, "mode", "union")
    if mode == "intersection":
        rest = [set(files) for files in sets[1:]]
        kept = [file for file in sets[0] if all(file in other for other in rest)]
    elif mode == "union":
        kept = list(dict.fromkeys(file for files in sets for file in files))
    else:
        raise InvalidParamsError(f"merge mode must be union or intersection; got {mode!r}.")
    return ActionOutput(tuple(kept))


READERS: dict[str, Action] = {
    "search": search,
    "read_ranges": read_ranges,
    "count_occurrences": count_occurrences,
    "aggregate": aggregate,
    "diff": diff,
    "merge": merge,
}


def read_text(engines: PipelineEngines, call: StepCall, file: str, action: str) -> tuple[Path, DecodedText]:
    """A file's canonical path and decoded text, read through the pinned walk between the read hooks of ``action``
    (in a dry run, as its earlier steps would leave it).

    Raises:
        HookDeniedError: a pre-read hook refused the file.
        FsguardError: outside the roots, missing, a directory, binary, undecodable or above --max-file-size.
    """
    path = engines.policy.resolve(file)
    _fire(engines, "pre", "read", path, action)
    decoded = decoded_text(engines, call.overlay, path)
    _fire(engines, "post", "read", path, action)
    return path, decoded


def _fire(
    engines: PipelineEngines,
    phase: Literal["pre", "post"],
    family: str,
    path: Path,
    action: str,
    metadata: dict[str, object] | None = None,
) -> None:
    engines.hooks.fire(phase, family, **_as_step(action), file_path=str(path), metadata=metadata)


def _as_step(action: str) -> dict[str, str]:
    """The tool and operation hooks see for a step: ``batch_operations:pipeline_<action>``, as a pipeline's edit
    names its steps (EditOptions)."""
    return {"tool_name": "batch_operations", "operation": f"batch_operations:pipeline_{action}"}


def own_files(engines: PipelineEngines, action: str, params: Mapping[str, Any]) -> list[str]:
    """The canonical paths of :func:`named_files`."""
    # delete and rename act on a link itself, as delete_file and move_file do; the others on what it names
    resolve = engines.policy.resolve_entry if action in ("delete", "rename") else engines.policy.resolve
    return [str(resolve(name)) for name in named_files(action, params, engines.policy)]


def named_files(action: str, params: Mapping[str, Any], policy: PathPolicy) -> list[str]:
    """The paths a step names in its own params, as given: ``files`` (a list, or text: split at commas, the seed's
    list, unless the whole text names an entry, since a name may hold a comma) and ``path`` (for every action but
    search, where it is a directory)."""
    files = params.get("files")
    names = [files] if isinstance(files, str) and _names_entry(policy, files) else strings(params, "files")
    if action != "search" and isinstance(params.get("path"), str) and params["path"]:
        names.append(params["path"])
    return names


def _names_entry(policy: PathPolicy, name: str) -> bool:
    try:
        return os.path.lexists(policy.resolve_entry(name))
    except FsguardError:  # refused whole: its pieces are judged one by one
        return False


def shown(content: str, *, verbose: bool) -> str:
    """``content`` cut to :data:`MAX_CONTENT_CHARS`, and without ``verbose`` to its first and last 25 lines."""
    lines = content.split("\n")
    if not verbose and len(lines) > SHORT_HEAD + SHORT_TAIL:
        hidden = len(lines) - SHORT_HEAD - SHORT_TAIL
        note = f"[… {plural(hidden, 'line')} not shown; pass verbose=true to see every line …]"
        content = "\n".join([*lines[:SHORT_HEAD], note, *lines[-SHORT_TAIL:]])
    if len(content) > MAX_CONTENT_CHARS:
        content = content[:MAX_CONTENT_CHARS] + f"\n[… cut at {MAX_CONTENT_CHARS:,} characters …]"
    return content


def text(params: Mapping[str, Any], name: str, default: str | None = None, *, empty_ok: bool = False) -> str:
    """A string param.

    Raises:
        InvalidParamsError: missing (and no default), not a string, or empty where that makes no sense.
    """
    value = params.get(name, default)
    if value is None:
        raise InvalidParamsError(f"params.{name} is missing.")
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise InvalidParamsError(f"params.{name} must be a string; got {type(value).__name__}.")
    value = str(value)
    if not value and not empty_ok:
        raise InvalidParamsError(f"params.{name} is empty.")
    return value


def flag(params: Mapping[str, Any], name: str, default: bool) -> bool:
    """A boolean param: JSON true/false, or the text true/false/1/0/yes/no (a template may have written it)."""
    value = params.get(name)
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "1", "yes", "false", "0", "no"):
        return value.lower() in ("true", "1", "yes")
    raise InvalidParamsError(f"params.{name} must be true or false; got {value!r}.")


def number(params: Mapping[str, Any], name: str, default: int | None = None) -> int | None:
    """A positive integer param, or its text (a template may have written it)."""
    value = params.get(name, default)
    if value is None or (isinstance(value, int) and not isinstance(value, bool) and value > 0):
        return value
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    raise InvalidParamsError(f"params.{name} must be a positive integer; got {value!r}.")


def strings(params: Mapping[str, Any], name: str) -> list[str]:
    """A list-of-strings param; text is split at commas."""
    value = params.get(name)
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item for item in value if item]
    raise InvalidParamsError(f"params.{name} must be a list of strings; got {value!r}.")


def _counted(
    engines: PipelineEngines,
    call: StepCall,
    files: tuple[str, ...],
    pattern: str,
    *,
    regex: bool,
    case_sensitive: bool,
    at_end: bool,
    action: str,
) -> dict[str, int]:
    """Matches per file, each file between the search hooks of ``action``; a regex's in lines
    (:mod:`fsguard.core.linematches`), an empty one at the text's end counted ``at_end`` (as a regex step replaces
    it), not otherwise (as search_files counts)."""
    count = counter(pattern, regex=regex, case_sensitive=case_sensitive, at_end=at_end)
    asked: dict[str, object] = {"pattern": pattern, "mode": "count"}
    counts = {}
    for file in files:
        path = engines.policy.resolve(file)
        _fire(engines, "pre", "search", path, action, asked)
        counts[file] = found = count(decoded_text(engines, call.overlay, path).text)
        _fire(engines, "post", "search", path, action, {**asked, "total_matches": found})
    return counts


def counter(pattern: str, *, regex: bool, case_sensitive: bool, at_end: bool) -> Callable[[str], int]:
    """How :func:`_counted` counts ``pattern`` in a text."""
    if regex:
        compiled = compile_re2(word_edges(pattern), case_sensitive=case_sensitive, what="pattern", advice=" (RE2).")
        return lambda text: sum(1 for _ in line_matches(compiled, pattern, text, at_end=at_end))
    literal = re.compile(re.escape(pattern), 0 if case_sensitive else re.IGNORECASE)
    return lambda text: sum(1 for _ in literal.finditer(text))


def _ranges(params: Mapping[str, Any]) -> list[tuple[int, int | None]]:
    raw = params.get("ranges")
    if raw is None:
        start = number(params, "start_line", 1) or 1
        return [(start, _end(start, number(params, "end_line")))]
    if not isinstance(raw, list) or not raw:
        raise InvalidParamsError('params.ranges must be a non-empty list of {"start": n, "end": m}.')
    spans = []
    for item in raw:
        if not isinstance(item, dict):
            raise InvalidParamsError(f'each of params.ranges must be {{"start": n, "end": m}}; got {item!r}.')
        start = number(item, "start", 1) or 1
        spans.append((start, _end(start, number(item, "end"))))
    return spans


def _end(start: int, end: int | None) -> int | None:
    if end is not None and end < start:
        raise InvalidParamsError(f"a range ends (line {end}) before it starts (line {start}).")
    return end
