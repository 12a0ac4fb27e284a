"""A search's results without the files a path-glob hook keeps the agent out of.

A pre-search hook fired once, for the folder searched, so a glob ``secret/**`` refused searching ``secret`` and let
a search of the root return ``secret/s.txt:1:SECRETDATA``. Each file in the results that a pre-search (and, for a
content search, a pre-read) hook's path glob matches has that hook fired with it, once; a file denied is left out
and named among the skipped. A file no glob matches costs the matching only, never a hook process.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from fsguard.core.errors import HookDeniedError
from fsguard.core.hooks import HookEvent
from fsguard.core.pathforms import names_below, within

if TYPE_CHECKING:
    from fsguard.core.hooks import HookRunner
    from fsguard.models import SearchResult


def hooked_out(
    hooks: HookRunner, result: SearchResult, *, tool_name: str, named: bool, metadata: Mapping[str, object], sample: int
) -> SearchResult:
    """``result`` without the files a hook denies, the first ``sample`` of them named. ``named``: the search named
    the one file it searched, whose pre-search fired already (its pre-read has not)."""
    events: tuple[str, ...] = ("pre-read",) if result.mode != "filename" else ()
    events += () if named else ("pre-search",)
    files = [*result.files, *(match.file for match in result.matches)]
    denied = denied_files(hooks, files, events, tool_name=tool_name, operation=tool_name, metadata=metadata)
    if not denied:
        return result
    matches = [match for match in result.matches if match.file not in denied]
    counts = {file: count for file, count in result.counts.items() if file not in denied}
    # The matches a file held: its count (the returned lines may be fewer), else the lines returned.
    removed = sum(result.counts.get(file, 0) for file in denied) or len(result.matches) - len(matches)
    cut = sorted(_relative(file, result.path) for file in denied)
    update: dict[str, object] = {
        "matches": matches,
        "files": [file for file in result.files if file not in denied],
        "counts": counts,
        "returned_matches": len(matches) if result.mode != "filename" else result.returned_matches - len(denied),
        "total_matches": max(0, result.total_matches - (removed if result.mode != "filename" else len(denied))),
        "skipped_by_hook": len(cut),
        "skipped_by_hook_paths": cut[:sample],
    }
    if result.files_with_matches is not None:
        update["files_with_matches"] = max(0, result.files_with_matches - len(denied))
    if result.lines is not None:
        update["lines"] = {file: lines for file, lines in result.lines.items() if file not in denied}
    return result.model_copy(update=update)


def denied_files(
    hooks: HookRunner,
    files: Iterable[str],
    events: tuple[str, ...],
    *,
    tool_name: str,
    operation: str,
    metadata: Mapping[str, object],
) -> set[str]:
    """Those of ``files`` (absolute paths) that a hook of ``events`` given by a path glob denies, each file's hooks
    fired once; none when no hook of ``events`` has a path glob."""
    events = tuple(event for event in events if hooks.globbed(event))
    if not events:
        return set()
    return {file for file in dict.fromkeys(files) if _denied(hooks, events, file, tool_name, operation, metadata)}


def _denied(
    hooks: HookRunner,
    events: tuple[str, ...],
    file: str,
    tool_name: str,
    operation: str,
    metadata: Mapping[str, object],
) -> bool:
    try:
        for event in events:
            asked = dict(metadata)
            hooks.run_globbed(HookEvent(event, tool_name, file, operation, metadata=asked))
    except HookDeniedError:
        return True
    return False


def _relative(file: str, base: str) -> str:
    return "/".join(names_below(file, Path(base))) if within(file, Path(base)) and file != base else file


def gate_reads(hooks: HookRunner, paths: Iterable[Path], operation: str, within: Path) -> None:
    """Fire, once per file of ``paths`` (each a file under ``within`` that a call shows without naming it), the
    pre-read hooks whose path glob matches it, as the tool ``operation`` names before a ``:`` (``x:preview``).

    Raises:
        HookDeniedError: a hook denied one of them; the call shows nothing.
    """
    if hooks.globbed("pre-read"):
        for path in dict.fromkeys(paths):
            event = HookEvent("pre-read", operation.partition(":")[0], str(path), operation)
            hooks.run_globbed(event, within=str(within))
