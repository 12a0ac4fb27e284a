"""Voices of search_files and project_replace."""

from __future__ import annotations

import itertools

from fsguard.core.shortlist import SHOWN, shortlist
from fsguard.models import ProjectReplaceResult, SearchMatch, SearchResult
from fsguard.voice.notes import ENDINGS_KEPT
from fsguard.voice.paths import shown
from fsguard.voice.sizes import counted

TEXT_CAP = 500_000  # bytes of a text block in UTF-8, as the seed caps its responses
_CUT = (
    "\n[truncated: the response exceeded 500 KB. Use count_only=true, a lower max_results, or a narrower path or"
    " pattern.]"
)


def search_text(result: SearchResult, compact: bool) -> str:
    """Matches (a few as ``path:line:text``, more under one heading per file, root-relative), or names, or counts,
    then what was not searched; cut to hold the whole within :data:`TEXT_CAP` bytes."""
    notes = ""
    if result.excluded_by_gitignore:
        notes += f"\n{shown(result.path)} is excluded by a .gitignore: search it with respect_gitignore=false."
    large = _listed(result.skipped_too_large, result.skipped_too_large_paths)
    if large:
        notes += (
            f"\nNot searched, above the server's --max-file-size: {large}. Ask the user to raise it to search them, or "
            'read one in parts with read_file(path, start_line=..., end_line=...) or mode="tail".'
        )
    if binary := _listed(result.skipped_binary, result.skipped_binary_paths):
        notes += f"\nBinary, not searched as text, yet their bytes hold the pattern: {binary}."
    notes += _unreadable(result.skipped_unreadable, result.skipped_unreadable_paths, "searched")
    if hooked := _listed(result.skipped_by_hook, result.skipped_by_hook_paths):
        notes += f"\nLeft out, as the hooks config denies them: {hooked}. Ask the user if they are needed."
    notes += _skipped(result.default_skipped, result.default_skipped_paths, "searches")
    return _capped(_search_text(result, compact), TEXT_CAP - len(notes.encode("utf-8", "replace"))) + notes


def _listed(count: int | None, paths: list[str] | None) -> str:
    """The first paths and how many more, or nothing for no count."""
    return shortlist(paths or [], total=count) if count else ""


def _unreadable(count: int | None, paths: list[str] | None, done: str) -> str:
    listed = _listed(count, paths)
    if not listed:
        return ""
    return f"\nNot {done}, as the server's user may not read them: {listed}. Ask the user for read access to them."


def _skipped(count: int | None, paths: list[str] | None, verb: str) -> str:
    """The dependency and cache directories by name, the minified bundles and source maps by number: a search
    that names the bundle it skipped reads as a hit in it (the seed's tests pin that the text never names them;
    ``default_skipped_paths`` does)."""
    if not count:
        return ""
    listed = paths or []
    parts = [path for path in listed if path.endswith("/")]
    if files := len(listed) - len(parts):
        parts.append(counted(files, "minified or map file"))
    if unlisted := count - len(listed):
        parts.append(f"{unlisted} more")
    said = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    return f"\nSkipped by default: {said}; include_dependencies=true {verb} them."


def _search_text(result: SearchResult, compact: bool) -> str:
    shown_count = result.returned_matches if result.mode != "count" else len(result.counts)
    more = f"\n[truncated: {result.total_matches - shown_count} more not shown; {_forward(result)}]"
    tail = more if result.truncated and result.mode != "count" else ""
    where = shown(result.path)
    if result.mode == "filename":
        if not result.files:
            meant = f" Did you mean {' or '.join(map(shown, result.did_you_mean))}?" if result.did_you_mean else ""
            return (
                f"No file name matches {result.pattern!r} under {where}.{meant} File contents were not searched: "
                "pass include_content=true to search inside files."
            )
        return "\n".join(shown(f) for f in result.files) + tail
    files = counted(result.files_with_matches or 0, "file")
    in_files = f"{counted(result.total_matches, 'match', 'matches')} in {files}"
    if result.mode == "count":
        rows = [f"{count:>6} {shown(path)}{_lines(result, path)}" for path, count in result.counts.items()]
        in_files += f" for {result.pattern!r}"
        hidden = (result.files_with_matches or 0) - len(rows)
        rest = f"\n[{counted(hidden, 'more file')} not shown: {_forward(result)}]" if hidden > 0 else ""
        if result.lines_cut:
            first = shown(list(result.counts)[-result.lines_cut])
            files = counted(result.lines_cut, "file")
            rest += f"\n[line numbers stop at max_results matches, from {first} on ({files}): {_all_lines(result)}]"
        return in_files + "\n" + "\n".join(rows) + rest
    if not result.matches:
        return f"No matches found for {result.pattern!r} under {where}."
    head = "" if compact else f"{in_files} under {where}:\n"
    if len(result.matches) <= FLAT_MOST and not any(_has_context(m) for m in result.matches):
        # A few matches read best as rg prints them into a pipe, one ``path:line:text`` a line (as the seed did);
        # headings save nothing for so few. Compact drops the indentation, as its grouped rows do.
        lines = {(m.file, m.line_number): m.line_content.strip() if compact else m.line_content for m in result.matches}
        flat = [f"{shown(file)}:{number}:{content}" for (file, number), content in lines.items()]
        return head + "\n".join(flat) + tail
    return head + "\n".join(_grouped(result.matches, compact)) + tail


def _forward(result: SearchResult) -> str:
    """How to see what an answer left out: past max_results, past the server's cap on it, or past the 500 KB
    budget."""
    if not result.budget_cut and result.max_search_results is not None:
        # A larger max_results is cut to the cap without a word: "raise max_results" sent the agent round again.
        cap = f"--max-search-results {result.max_search_results}"
        return f"the server caps max_results at {cap}: narrow the path, pattern or file_types"
    if not result.budget_cut:
        return "narrow the search or raise max_results"
    ways = {
        "content": "count_only=true, a lower max_results or context_lines",
        "count": "return_lines=false or a lower max_results" if result.lines else "a lower max_results",
        "filename": "a lower max_results",
    }[result.mode]
    return f"this answer reached its 500 KB budget. Use {ways}, or a narrower path or pattern."


def _all_lines(result: SearchResult) -> str:
    """How to have the line numbers max_results left out of a count: a search of one file has only its matches."""
    if result.max_search_results is not None:
        cap = f"--max-search-results {result.max_search_results}"
        return f"the server caps max_results at {cap}: search one file by its path, or narrow the pattern"
    return "raise max_results, or search one file by its path"


FLAT_MOST = 5
"""Up to this many matches without context are listed one ``path:line:text`` each, not under per-file headings."""


def _has_context(match: SearchMatch) -> bool:
    return bool(match.context_before or match.context_after)


def _grouped(matches: list[SearchMatch], compact: bool) -> list[str]:
    """Matches under one heading per file, as ``rg --heading`` prints them: ``line:column:text`` (verbose), or
    ``line:text`` with the lines of one file that read the same (indentation aside) on one row:
    ``29,39,49:total += x`` (compact; each match is still in the structured result)."""
    lines: list[str] = []
    for file, group in itertools.groupby(matches, key=lambda m: m.file):
        lines.append(shown(file))
        found = list(group)
        if compact and not any(_has_context(m) for m in found):
            same: dict[str, dict[int, None]] = {}  # a line with two matches is listed once
            for m in found:
                same.setdefault(m.line_content.strip(), {})[m.line_number] = None
            lines.extend(f"{','.join(map(str, numbers))}:{content}" for content, numbers in same.items())
            continue
        lines.extend(_with_context(found, compact))
    return lines


def _with_context(found: list[SearchMatch], compact: bool) -> list[str]:
    """One file's matches and context lines in line order, each line once (as rg prints them): context shared
    by two nearby matches is not repeated, a match line is never shown as context, and ``--`` marks a gap."""
    rows: dict[int, list[str]] = {}
    context: dict[int, str] = {}
    for m in found:
        first = m.line_number - len(m.context_before)
        context.update({first + i: c for i, c in enumerate(m.context_before)})
        context.update({m.line_number + 1 + i: c for i, c in enumerate(m.context_after)})
        where = f"{m.line_number}:" if compact else f"{m.line_number}:{m.column}:"
        rows.setdefault(m.line_number, []).append(f"{where}{m.line_content}")
    lines: list[str] = []
    previous = None
    for number in sorted(rows.keys() | context.keys()):
        if context and previous is not None and number > previous + 1:
            lines.append("--")
        lines.extend(rows.get(number) or [f"{number}-{context[number]}"])
        previous = number
    return lines


def _lines(result: SearchResult, path: str) -> str:
    numbers = (result.lines or {}).get(path)
    return f" at lines: {shortlist(numbers, rest='all in the result')}" if numbers else ""


def _capped(text: str, room: int) -> str:
    """``text`` if it fits in ``room`` bytes, else its lines that fit with the marker saying how to see the rest."""
    if len(text) <= room // 4:  # four bytes at most a character: it fits
        return text
    data = text.encode("utf-8", "replace")
    if len(data) <= room:
        return text
    end = room - len(_CUT.encode())
    cut = data.rfind(b"\n", 0, end)
    return data[: cut if cut > 0 else end].decode("utf-8", "ignore") + _CUT  # a cut inside a character drops it


def replace_text(result: ProjectReplaceResult, compact: bool) -> str:
    """Per-file counts, and how to undo."""
    verb = "Would replace" if result.status == "preview" else "Replaced"
    changes = f"{counted(result.total_replacements, 'occurrence')} in {counted(result.files_changed, 'file')}"
    forced = ""
    if result.status == "applied" and result.files_changed and result.risk_level in ("HIGH", "CRITICAL"):
        # Only a forced run writes a HIGH/CRITICAL change; saying so (as the seed's "applied (force=true)" did)
        # keeps a caller from re-running it with force and applying it twice.
        forced = "; applied because force=true or the user confirmed it"
    head = f"{verb} {changes} (risk {result.risk_level}{forced})."
    rows = [
        f"{f.replacements:>5} {shown(f.path)}" + (f" (skipped: {f.skipped})" if f.skipped else "")
        for f in result.files[:SHOWN]
    ]
    if len(result.files) > SHOWN:
        rows.append(f"  and {counted(len(result.files) - SHOWN, 'more file')}, all in the result's files list")
    hint = _replace_hint(result)
    note = f"\n{result.note}" if result.note else ""
    if result.max_files_reached:
        note += f"\nStopped at max_files ({len(result.files):,}): more files hold the find text and were " + (
            "not counted. Raise max_files to see them all."
            if result.status == "preview"
            else "left alone. Raise max_files (or narrow path or file_types) and run it again."
        )
    if result.excluded_by_gitignore:
        note += "\nThe path is excluded by a .gitignore: run it again with respect_gitignore=false to change its files."
    if raced := [f for f in result.files if f.skipped and f.skipped.startswith("changed on disk during the replace")]:
        note += (
            f"\n{counted(len(raced), 'file')} changed on disk during the replace (another process) and "
            f"{'was' if len(raced) == 1 else 'were'} left as {'it was' if len(raced) == 1 else 'they were'}: "
            "run project_replace again to replace in them too."
        )
    if changed := [shown(f.path) for f in result.files if f.external_change]:
        more = f" and {len(changed) - SHOWN} more" if len(changed) > SHOWN else ""
        listed = ", ".join(changed[:SHOWN])
        note += f"\nChanged on disk since this session last saw them (another process): {listed}{more}."
    note += "".join(f"\n{told}" for f in result.files for told in f.notes or ())
    skipped = _skipped(result.default_skipped, result.default_skipped_paths, "includes")
    if large := _listed(result.skipped_too_large, result.skipped_too_large_paths):
        skipped += (
            f"\nLeft alone, above the server's --max-file-size: {large}. Ask the user to raise it to include them."
        )
    if binary := _listed(result.skipped_binary, result.skipped_binary_paths):
        skipped += f"\nLeft alone as binary or undecodable: {binary}."
    skipped += _unreadable(result.skipped_unreadable, result.skipped_unreadable_paths, "read")
    if kept := _listed(result.line_endings_kept, result.line_endings_kept_paths):
        skipped += (
            f"\nLeft as they are, though they hold find: {kept}. {ENDINGS_KEPT} To convert line endings, replace "
            "find '\\r' with '' (CRLF to LF), or send a whole file with write_file content_base64."
        )
    return head + ("\n" + "\n".join(rows) if rows else "") + hint + note + skipped


def _replace_hint(result: ProjectReplaceResult) -> str:
    """What to do next: apply a preview (with force when its risk asks for it), or undo what was applied."""
    if result.status == "preview" and result.risk_level in ("HIGH", "CRITICAL"):
        # Without force a change this large is refused (risk_blocked): saying only "without preview" sent the caller
        # back and forth between the preview and the refusal.
        risk = result.risk_level
        return f"\nNothing was written. Run again without preview and with force=true to apply (risk {risk})."
    if result.status == "preview":
        return "\nNothing was written. Run again without preview to apply."
    if result.files_changed and result.backup_id:
        return (
            f'\nUndo every file at once: backup(action="restore", backup_id="{result.backup_id}"); one file: '
            'backup(action="undo_last", file_path=...).'
        )
    if result.files_changed:
        return '\nEach file was backed up: undo one with backup(action="undo_last", file_path=...).'
    return ""
