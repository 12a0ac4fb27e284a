"""Voices of the file tools: read, list, info, create, delete, move, copy, analyze."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

from fsguard.core.multiread import after_text, left_out_note, shown_files
from fsguard.core.shortlist import shown_rows
from fsguard.models import (
    AnalyzeResult,
    CopyResult,
    CreateDirectoryResult,
    DeletedPath,
    DeleteResult,
    FileFacts,
    GetFileInfoResult,
    ListDirectoryResult,
    MoveResult,
    ReadFileEntry,
    ReadFileResult,
    TreeNode,
)
from fsguard.voice.hints import read_hint
from fsguard.voice.paths import escaped, shortened, shortened_error, shown
from fsguard.voice.sizes import counted, human_size


def read_text(result: ReadFileResult, compact: bool) -> str:
    """The file's text, with the read-more hint after it when lines were left out."""
    if result.media is not None:
        return media_text(result, compact)
    if result.encoding == "base64":
        if compact:
            return result.content
        return f"# File: {shown(result.path)} ({result.size} bytes)\n# Base64 encoded:\n{result.content}"
    if result.files is not None:
        listed, hidden = shown_files(result.files)
        return "\n".join(
            [*(_section(entry, compact) for entry in listed), *([left_out_note(hidden)] if hidden else [])]
        )
    if result.hint is None:
        return result.content
    return after_text(result.content, f"[{read_hint(result, compact)}]")


def _section(entry: ReadFileEntry, compact: bool) -> str:
    """One file of a multi-file read under its root-relative heading (the content field keeps absolute ones),
    with its read-more hint after its lines."""
    body = entry.content or "" if entry.error is None else f"ERROR: {shortened_error(entry.error)}"
    if entry.hint is not None and compact and entry.content is None:  # no room left in the response budget
        body = f'[left out: response budget used; read_file(path="{shown(entry.path)}")]'
    elif entry.hint is not None:
        body = after_text(body, f"[{read_hint(entry, compact)}]")
    return f"=== {shown(entry.path)} ===\n{body}" + ("" if body.endswith("\n") else "\n")


def media_text(result: ReadFileResult, compact: bool) -> str:
    """An image or audio read: what the block next to this text holds, or why it is a link."""
    pixels = f" {result.width}x{result.height}" if result.width and result.height else ""
    size = human_size(result.size or 0)
    # Unhashed above --max-file-size, or (the hint says so) written to while it was hashed: not for its size then.
    unsteady = "written to while it was read" in (result.hint or "")
    why = "written to while read; read again for one" if unsteady else "above --max-file-size"
    digest = f"hash {result.content_hash}" if result.content_hash else f"not hashed ({why})"
    if compact:
        # The hint names the limit that linked it: --max-file-size when it is below the media budget.
        over = "--max-media-bytes" if "--max-media-bytes" in (result.hint or "--max-media-bytes") else "--max-file-size"
        linked = f" | linked {result.uri} (over {over})" if result.uri else ""
        name = shown(result.path)
        return f"{(result.media or '').upper()} {name} | {result.mime_type}{pixels} | {size} | {digest}{linked}"
    head = f"{(result.media or '').capitalize()} {shown(result.path)}: {result.mime_type}{pixels}, {size}, {digest}."
    if result.uri:
        return f"{head}\n[{result.hint}]" if result.hint else head
    return f"{head} The {result.media} is in the next content block."


def listing_text(result: ListDirectoryResult, compact: bool) -> str:
    """A directory page or tree."""
    if result.tree is not None:
        lines = [f"{shown(result.path)}/"]
        if compact:
            _tree_rows(result.tree.children or [], "", lines, result.tree.cut)
        else:
            _tree_lines(result.tree.children or [], "", lines, result.tree.cut)
        if result.truncated:
            lines.append(
                f"[tree cut at {result.total} entries (limit, at most --max-list-items): each '+N more' is left out; "
                "list that directory to see them]"
            )
        if unlisted := _below_depth(result.tree):
            lines.append(_depth_note(unlisted, compact))
        lines += [f"[{note}]" for note in _left_out(result)]
        return "\n".join(lines)
    more = f" | more: offset={result.next_offset}" if result.next_offset is not None else ""
    more += "".join(f" | {note}" for note in _left_out(result))
    more += f"\n[{result.note}]" if result.note else ""
    if compact:
        names = " ".join(
            escaped(e["name"]) + "/"
            if e["type"] == "directory"
            else escaped(e["name"]) + (f"({human_size(size)})" if (size := e.get("size", 0)) > 512 else "")
            for e in result.entries
        )
        first, last = result.offset + 1, result.offset + len(result.entries)
        # A page names the entries it holds, as verbose's "entries 101-200 of 1166" does: "100/1166" left the
        # agent to work out which hundred it was
        paged = last >= first and (result.truncated or result.offset)
        held = f"{first}-{last}/{result.total}" if paged else f"{len(result.entries)}/{result.total}"
        return f"{shown(result.path)} | {names} | {held}{more}"
    lines = []
    dirs = files = links = others = 0
    for entry in result.entries:
        kind, name = entry["type"], escaped(entry["name"])
        if kind == "directory":
            dirs += 1
            lines.append(f"DIR  {name}/")
        elif kind == "file":
            files += 1
            lines.append(f"FILE {name} {human_size(entry.get('size', 0))}")
        else:
            links, others = (links + 1, others) if kind == "symlink" else (links, others + 1)
            lines.append(f"{'LINK' if kind == 'symlink' else 'OTHER'} {name}")  # a dangling or outside link; a device
    if not result.entries and result.offset:  # a page at the end: "0 dirs, 0 files" read as an empty directory
        return f"--- | no entries past the first {result.offset} ({result.total} in all) | {shown(result.path)}{more}"
    first, last = result.offset + 1, result.offset + len(result.entries)
    span = (
        f" | entries {first}-{last} of {result.total}" if last >= first and (result.truncated or result.offset) else ""
    )
    # every entry of the page counted: "2 dirs, 10 files" over 16 rows read as 4 rows too many
    counts = f"{counted(dirs, 'dir')}, {counted(files, 'file')}" + (f", {counted(links, 'link')}" if links else "")
    counts += f", {others} other" if others else ""
    lines.append(f"--- | {counts} | {shown(result.path)}{span}{more}")
    return "\n".join(lines)


def _left_out(result: ListDirectoryResult) -> list[str]:
    """What the listing left out and how to see it, one note per reason."""
    notes = []
    if result.ignored:
        notes.append(f"{result.ignored} gitignored not shown (respect_gitignore=false shows them)")
    if result.hidden:
        notes.append(f"{result.hidden} hidden not shown (include_hidden=true shows them)")
    if result.denied:
        notes.append(f"{result.denied} hidden by deny rules")
    return notes


_UNLISTED = "[the server's user may not list it]"
_BELOW_DEPTH = "…"
"""Marks a directory max_depth stopped at: shown bare it read as an empty one."""


def _depth_note(unlisted: int, compact: bool) -> str:
    """What the marks of the directories max_depth stopped at mean, and how to see inside them."""
    if compact:
        return f"[{_BELOW_DEPTH}: {counted(unlisted, 'dir')} not entered (max_depth); raise it or list_directory one]"
    directories = counted(unlisted, "directory", "directories")
    return f"[{_BELOW_DEPTH} marks {directories} not entered at max_depth: raise it, or list one with list_directory]"


def _below_depth(node: TreeNode) -> int:
    """How many directories under ``node`` the tree did not enter for max_depth (no children, yet listable)."""
    count = 0
    for child in node.children or []:
        if child.children is not None:
            count += _below_depth(child)
        elif child.type == "directory" and child.readable is None:
            count += 1
    return count


def _tree_rows(nodes: list[TreeNode], prefix: str, lines: list[str], cut: int | None) -> None:
    """Compact tree: one row per directory, ``shop/: a.py b.py(4.8 KB)``, sizes above 512 bytes only; a directory
    the node cap cut ends its row with ``+N more``."""
    files = [
        escaped(node.name) + (f"({human_size(node.size)})" if node.size and node.size > 512 else "")
        for node in nodes
        if node.type != "directory"
    ]
    files += [f"+{cut:,} more"] if cut else []
    directories = [node for node in nodes if node.type == "directory"]
    if files or not directories:
        lines.append(f"{prefix or './'}: {' '.join(files)}".rstrip())
    for node in directories:
        if node.readable is False:
            lines.append(f"{prefix}{escaped(node.name)}/: {_UNLISTED}")
        elif node.children is None:
            lines.append(f"{prefix}{escaped(node.name)}/: {_BELOW_DEPTH}")
        else:
            _tree_rows(node.children or [], f"{prefix}{escaped(node.name)}/", lines, node.cut)


def _tree_lines(nodes: list[TreeNode], indent: str, lines: list[str], cut: int | None) -> None:
    for node in nodes:
        suffix = "/" if node.type == "directory" else (f" ({human_size(node.size)})" if node.size is not None else "")
        suffix += f" {_UNLISTED}" if node.readable is False else ""
        if node.type == "directory" and node.children is None and node.readable is None:
            suffix += f" {_BELOW_DEPTH}"
        lines.append(f"{indent}{escaped(node.name)}{suffix}")
        if node.children or node.cut:
            _tree_lines(node.children or [], indent + "  ", lines, node.cut)
    if cut:
        lines.append(f"{indent}+{cut:,} more")


def info_text(path: str, facts: FileFacts, compact: bool) -> str:
    """One entry's facts."""
    if compact:
        parts = [f"{facts.type}: {shown(path)}", human_size(facts.size or 0), facts.modified or ""]
        if facts.content_hash:
            parts.append(f"hash {facts.content_hash}")
        if facts.line_count is not None:
            parts.append(f"{facts.line_count} line{'' if facts.line_count == 1 else 's'}")
        if facts.is_symlink:
            parts.append(f"link -> {shown(facts.symlink_target)}")
        if facts.readable is False:
            parts.append(f"the server's user may not {_read_verb(facts)} it")
        return " | ".join([*parts, *([shortened(facts.note)] if facts.note else [])])
    rows = [
        ("Path", shown(path)),
        ("Type", facts.type),
        ("Size", f"{human_size(facts.size or 0)} ({facts.size} bytes)"),
        ("Permissions", f"{facts.permissions} ({facts.mode})"),
        ("Modified", facts.modified),
        ("Created", facts.created),
        ("Accessed", facts.accessed),
        ("Symlink to", facts.symlink_target and shown(facts.symlink_target)),
        ("Entries", facts.entries),
        ("Content hash", facts.content_hash),
        ("Lines", facts.line_count),
        ("Encoding", facts.encoding),
        ("Readable", None if facts.readable is not False else f"no: the server's user may not {_read_verb(facts)} it"),
        ("Note", facts.note and shortened(facts.note)),
    ]
    return "\n".join(f"{label}: {value}" for label, value in rows if value is not None)


def _read_verb(facts: FileFacts) -> str:
    return "list" if facts.type == "directory" else "read"


def info_many_text(result: GetFileInfoResult, compact: bool) -> str:
    """Several entries, errors in place."""
    blocks = []
    files = result.files or []
    for item in files:
        if item.error is not None:
            blocks.append(f"=== {shown(item.path)} ===\nERROR: {shortened_error(item.error)}")
        else:
            blocks.append(f"=== {shown(item.path)} ===\n{info_text(item.path, item, compact)}")
    failed = [item.error is not None for item in files]
    return "\n\n".join(shown_rows(blocks, failed=failed, rest="every one in the result's files list"))


def create_directory_text(result: CreateDirectoryResult, compact: bool) -> str:
    """Created, or already there."""
    if compact:
        return f"OK: {shown(result.path)} {'created' if result.created else 'exists'}"
    if result.created:
        return f"Created directory {shown(result.path)}"
    # the seed's phrase, though here it is a success: mkdir -p leaves an existing directory as it is
    return f"directory already exists: {shown(result.path)}; nothing to do."


def delete_text(result: DeleteResult, compact: bool) -> str:
    """Per path: trashed (with the restore call), deleted, or why not."""
    lines = []
    for item in result.results:
        if item.status == "trashed":
            restore = f'backup(action="restore_trash", sd_id="{item.sd_id}")'
            lines.append(
                f"D {shown(item.path)} | trash {item.sd_id}"
                if compact
                else f"Moved {shown(item.path)} to the trash. Restore: {restore}"
            )
        elif item.status == "deleted":
            lines.append(_deleted_text(item))
        else:
            lines.append(f"FAILED {shown(item.path)}: {shortened_error(item.error or '')}")
    failed = [item.status not in ("trashed", "deleted") for item in result.results]
    lines = shown_rows(lines, failed=failed, rest="every one in the result's results list")
    if len(result.results) > 1:
        lines.append(f"{result.succeeded}/{len(result.results)} succeeded")
    return "\n".join(lines)


def _deleted_text(item: DeletedPath) -> str:
    """A path deleted for good, and the call that brings it back: a directory's group brings back the whole tree."""
    undo = f' | undo: backup(action="restore", backup_id="{item.backup_id}")' if item.backup_id else ""
    if item.files_backed_up is None:
        return f"Deleted {shown(item.path)} permanently{undo}"
    files = f"{item.files_backed_up} file{'' if item.files_backed_up == 1 else 's'}"
    if item.backup_id is None:  # each file backed up, the group's record not saved
        return (
            f"Deleted {shown(item.path)} permanently; its {files} are backed up one by one: "
            "backup(action='undo_last', file_path=...) brings each back"
        )
    if not item.files_backed_up:
        return f"Deleted {shown(item.path)} permanently (it held no file){undo} makes it again"
    return f"Deleted {shown(item.path)} permanently, its {files} backed up{undo} brings the tree back"


def move_text(result: MoveResult, compact: bool) -> str:
    """Where it went; a rename to the name's other Unicode form, which reads the same, says which forms."""
    source, destination = shown(result.source), shown(result.destination)
    if source != destination and unicodedata.normalize("NFC", source) == unicodedata.normalize("NFC", destination):
        before, after = _form(Path(result.source).name), _form(Path(result.destination).name)
        if compact:
            return f"RENAMED {destination} ({before[0]} -> {after[0]})"
        return (
            f"Renamed {destination} from {before[0]} ({before[1]}) to {after[0]} ({after[1]}): the name reads the "
            "same, its stored characters changed."
        )
    if result.symlink_target is None:
        return f"MOVED {source} -> {destination}" if compact else f"Moved {source} to {destination}."
    return _link_moved(result, source, destination, compact)


def _link_moved(result: MoveResult, source: str, destination: str, compact: bool) -> str:
    """A symlink moved as itself; one with a relative target moved to another directory points elsewhere now."""
    target, now = result.symlink_target, result.link_now_points_to
    missing = ", which does not exist" if result.link_dangles else ""
    if compact:
        where = "" if now is None else f", now {shown(now)}{': missing' if result.link_dangles else ''}"
        return f"MOVED {source} -> {destination} (symlink -> {target}{where})"
    text = f"Moved {source} to {destination}: a symlink to {target}, moved itself."
    if now is not None:
        before = shown(os.path.normpath(Path(result.source).parent / str(target)))
        text += f" Its relative target {target} now points at {shown(now)}{missing} (it pointed at {before})."
    return text


def _form(name: str) -> tuple[str, str]:
    """The Unicode normal form ``name`` is in, and what it means."""
    if unicodedata.is_normalized("NFC", name):
        return "NFC", "composed"
    return ("NFD", "decomposed") if unicodedata.is_normalized("NFD", name) else ("mixed", "partly composed")


def copy_text(result: CopyResult, compact: bool) -> str:
    """What was copied, and the links, special files and hidden files left out."""
    skipped = f"; {counted(len(result.skipped_symlinks), 'symlink')} skipped" if result.skipped_symlinks else ""
    if result.skipped_special:
        skipped += (
            f"; {counted(len(result.skipped_special), 'pipe, socket or device', 'pipes, sockets or devices')} skipped"
        )
    if result.denied:
        skipped += f"; {result.denied} hidden by deny rules, not copied"
    size = human_size(result.bytes_copied)
    source, destination = shown(result.source), shown(result.destination)
    if compact:
        return f"COPIED {source} -> {destination} | {counted(result.files_copied, 'file')}, {size}{skipped}"
    return f"Copied {source} to {destination}: {counted(result.files_copied, 'file')}, {size}{skipped}."


def analyze_text(result: AnalyzeResult, compact: bool) -> str:
    """The plan: risk, factors, advice, diff."""
    verdict = f"would be refused ({result.refused})" if result.refused else f"risk {result.risk_level}"
    head = f"{result.operation} {shown(result.path)}: {verdict}" + ("" if result.exists else " (does not exist)")
    if compact:
        return (
            head
            + "".join(f" | {shortened(f)}" for f in result.risk_factors)
            + (f"\n{result.preview_diff}" if result.preview_diff else "")
        )
    parts = [f"Plan only, nothing was changed. {head}."]
    parts += [f"- {shortened(factor)}" for factor in result.risk_factors]
    parts += [f"Suggestion: {shortened(s)}" for s in result.suggestions]
    if result.preview_diff:
        parts.append(result.preview_diff)
    return "\n".join(parts)
