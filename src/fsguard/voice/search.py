"""Voices of search_files and project_replace."""

from __future__ import annotations

from fsguard.models import ProjectReplaceResult, SearchResult

TEXT_CAP = 500_000  # characters of a text block, as the seed caps its responses
LINES_SHOWN = 20  # line numbers listed per file by return_lines


def search_text(result: SearchResult, compact: bool) -> str:
    """Matches as path:line:column: text, or names, or counts; cut at :data:`TEXT_CAP` characters."""
    text = _capped(_search_text(result, compact))
    if result.excluded_by_gitignore:
        text += f"\n{result.path} is excluded by a .gitignore: search it with respect_gitignore=false."
    large = _listed(result.skipped_too_large, result.skipped_too_large_paths)
    if large:
        text += (
            f"\nNot searched, above the server's --max-file-size: {large}. Ask the user to raise it to search them, or "
            'read one in parts with read_file(path, start_line=..., end_line=...) or mode="tail".'
        )
    if result.denied:
        text += f"\n{result.denied} file(s) hidden by deny rules (secrets, --deny): never shown."
    return text + _skipped(result.default_skipped, result.default_skipped_paths, "searches")


def _listed(count: int | None, paths: list[str] | None) -> str:
    """The first paths and how many more, or nothing for no count."""
    if not count:
        return ""
    more = f" and {count - len(paths or [])} more" if count > len(paths or []) else ""
    return ", ".join(paths or []) + more


def _skipped(count: int | None, paths: list[str] | None, verb: str) -> str:
    listed = _listed(count, paths)
    return f"\nSkipped by default: {listed}; include_dependencies=true {verb} them." if listed else ""


def _search_text(result: SearchResult, compact: bool) -> str:
    shown = result.returned_matches if result.mode != "count" else len(result.counts)
    more = f"\n[{result.total_matches - shown} more not shown: narrow the search or raise max_results]"
    tail = more if result.truncated and result.mode != "count" else ""
    if result.mode == "filename":
        if not result.files:
            return (
                f"No file name matches {result.pattern!r} under {result.path}. File contents were not searched: "
                "pass include_content=true to search inside files."
            )
        return "\n".join(result.files) + tail
    in_files = f"{result.total_matches} match(es) in {result.files_with_matches} file(s)"
    if result.mode == "count":
        rows = [f"{count:>6} {path}{_lines(result, path)}" for path, count in result.counts.items()]
        hidden = (result.files_with_matches or 0) - len(rows)
        rest = f"\n[{hidden} more file(s) not shown: narrow the search or raise max_results]" if hidden > 0 else ""
        return in_files + "\n" + "\n".join(rows) + rest
    if not result.matches:
        return f"No match for {result.pattern!r} under {result.path}."
    lines: list[str] = []
    for m in result.matches:
        lines.extend(
            f"{m.file}-{m.line_number - len(m.context_before) + i}- {c}" for i, c in enumerate(m.context_before)
        )
        lines.append(f"{m.file}:{m.line_number}:{m.column}: {m.line_content}")
        lines.extend(f"{m.file}-{m.line_number + 1 + i}- {c}" for i, c in enumerate(m.context_after))
    head = "" if compact else in_files + ":\n"
    return head + "\n".join(lines) + tail


def _lines(result: SearchResult, path: str) -> str:
    numbers = (result.lines or {}).get(path)
    if not numbers:
        return ""
    listed = ", ".join(map(str, numbers[:LINES_SHOWN]))
    more = f" ... (+{len(numbers) - LINES_SHOWN} more)" if len(numbers) > LINES_SHOWN else ""
    return f" at lines: {listed}{more}"


def _capped(text: str) -> str:
    if len(text) <= TEXT_CAP:
        return text
    cut = text.rfind("\n", 0, TEXT_CAP)
    return (
        text[: cut if cut > 0 else TEXT_CAP]
        + "\n[truncated: the response exceeded 500 KB. Use count_only=true, a lower max_results, or a narrower"
        " path or pattern.]"
    )


def replace_text(result: ProjectReplaceResult, compact: bool) -> str:
    """Per-file counts, and how to undo."""
    verb = "Would replace" if result.status == "preview" else "Replaced"
    counted = f"{result.total_replacements} occurrence(s) in {result.files_changed} file(s)"
    head = f"{verb} {counted} (risk {result.risk_level})."
    rows = [f"{f.replacements:>5} {f.path}" + (f" (skipped: {f.skipped})" if f.skipped else "") for f in result.files]
    hint = ""
    if result.status == "preview":
        hint = "\nNothing was written. Run again without preview to apply."
    elif result.files_changed:
        hint = '\nEach file was backed up: undo one with backup(action="undo_last", file_path=...).'
    note = f"\n{result.note}" if result.note else ""
    skipped = _skipped(result.default_skipped, result.default_skipped_paths, "includes")
    if large := _listed(result.skipped_too_large, result.skipped_too_large_paths):
        skipped += (
            f"\nLeft alone, above the server's --max-file-size: {large}. Ask the user to raise it to include them."
        )
    if binary := _listed(result.skipped_binary, result.skipped_binary_paths):
        skipped += f"\nLeft alone as binary or undecodable: {binary}."
    return head + ("\n" + "\n".join(rows) if rows else "") + hint + note + skipped
