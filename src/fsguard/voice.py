"""The text block of each result, in the seed's two voices: verbose (default) and compact.

Both voices carry the same facts; compact drops the labels and layout.
"""

from __future__ import annotations

import json

from fsguard.models import (
    Artifact,
    BackupResult,
    CreateDirectoryResult,
    EditFileResult,
    FileFacts,
    GetFileInfoResult,
    HelpResult,
    ListDirectoryResult,
    MultiEditResult,
    ReadFileResult,
    Stats,
    TreeNode,
    WriteFileResult,
)


def human_size(size: int) -> str:
    """1234 → '1.2 KB'."""
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{size} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def read_text(result: ReadFileResult, compact: bool) -> str:
    """The file's text, with the read-more hint after it when lines were left out."""
    if result.encoding == "base64":
        if compact:
            return result.content
        return f"# File: {result.path} ({result.size} bytes)\n# Base64 encoded:\n{result.content}"
    if result.hint is None:
        return result.content
    separator = "" if result.content.endswith("\n") or not result.content else "\n"
    return f"{result.content}{separator}\n[{result.hint}]"


def listing_text(result: ListDirectoryResult, compact: bool) -> str:
    """A directory page or tree."""
    if result.tree is not None:
        lines = [f"{result.path}/"]
        _tree_lines(result.tree.children or [], "", lines)
        if result.truncated:
            lines.append(f"[tree cut at {result.total} entries (--max-list-items); list a subdirectory to see more]")
        return "\n".join(lines)
    more = f" | more: offset={result.next_offset}" if result.next_offset is not None else ""
    if compact:
        names = " ".join(
            e.name
            + ("/" if e.type == "directory" else "")
            + (f"({human_size(e.size)})" if e.size and e.size > 512 else "")
            for e in result.entries
        )
        return f"{result.path} | {names} | {len(result.entries)}/{result.total}{more}"
    lines = []
    for entry in result.entries:
        if entry.type == "directory":
            lines.append(f"DIR  {entry.name}/")
        elif entry.type == "file":
            lines.append(f"FILE {entry.name} {human_size(entry.size or 0)}")
        else:
            lines.append(f"{entry.type.upper()[:4]:<4} {entry.name}")
    dirs = sum(e.type == "directory" for e in result.entries)
    files = sum(e.type == "file" for e in result.entries)
    first, last = result.offset + 1, result.offset + len(result.entries)
    shown = (
        f" | entries {first}-{last} of {result.total}" if last >= first and (result.truncated or result.offset) else ""
    )
    lines.append(f"--- | {dirs} dirs, {files} files | {result.path}{shown}{more}")
    return "\n".join(lines)


def _tree_lines(nodes: list[TreeNode], indent: str, lines: list[str]) -> None:
    for node in nodes:
        suffix = "/" if node.type == "directory" else (f" ({human_size(node.size)})" if node.size is not None else "")
        lines.append(f"{indent}{node.name}{suffix}")
        if node.children:
            _tree_lines(node.children, indent + "  ", lines)


def info_text(path: str, facts: FileFacts, compact: bool) -> str:
    """One entry's facts."""
    if compact:
        parts = [f"{facts.type}: {path}", human_size(facts.size or 0), facts.modified or ""]
        if facts.content_hash:
            parts.append(f"hash {facts.content_hash}")
        if facts.line_count is not None:
            parts.append(f"{facts.line_count} lines")
        if facts.is_symlink:
            parts.append(f"link -> {facts.symlink_target}")
        return " | ".join(parts)
    rows = [
        ("Path", path),
        ("Type", facts.type),
        ("Size", f"{human_size(facts.size or 0)} ({facts.size} bytes)"),
        ("Permissions", f"{facts.permissions} ({facts.mode})"),
        ("Modified", facts.modified),
        ("Created", facts.created),
        ("Accessed", facts.accessed),
        ("Symlink to", facts.symlink_target),
        ("Entries", facts.entries),
        ("Content hash", facts.content_hash),
        ("Lines", facts.line_count),
        ("Encoding", facts.encoding),
    ]
    return "\n".join(f"{label}: {value}" for label, value in rows if value is not None)


def info_many_text(result: GetFileInfoResult, compact: bool) -> str:
    """Several entries, errors in place."""
    blocks = []
    for item in result.files or []:
        if item.error is not None:
            blocks.append(f"=== {item.path} ===\nERROR: {item.error}")
        else:
            blocks.append(f"=== {item.path} ===\n{info_text(item.path, item, compact)}")
    return "\n\n".join(blocks)


def create_directory_text(result: CreateDirectoryResult, compact: bool) -> str:
    """Created, or already there."""
    if compact:
        return f"OK: {result.path} {'created' if result.created else 'exists'}"
    if result.created:
        return f"Created directory {result.path}"
    return f"Directory {result.path} already exists; nothing to do."


def help_text(result: HelpResult, compact: bool) -> str:
    """The catalog, or one tool with its schemas and examples."""
    if result.tools is not None:
        lines = [f"- {tool.name}: {tool.summary}" for tool in result.tools]
        header = "" if compact else f'{len(result.tools)} tools. Call help(tool="name") for parameters and examples.\n'
        return header + "\n".join(lines)
    parts = [f"## {result.name}", result.description or ""]
    if not compact:
        parts.append("### Parameters\n" + json.dumps(result.input_schema, indent=2))
        parts.append("### Result\n" + json.dumps(result.output_schema, indent=2))
    parts.extend(
        f"Example — {example.description}:\n{result.name}({json.dumps(example.arguments)})"
        for example in result.examples or []
    )
    return "\n\n".join(parts)


def stats_text(stats: Stats, compact: bool) -> str:
    """Counters since start-up."""
    if compact:
        return (
            f"fsguard {stats.version} up:{stats.uptime_s:.0f}s ops:{stats.operations} err:{stats.errors} "
            f"hit:{stats.cache_hit_rate:.0%} mem:{stats.memory_mb} MB backups:{stats.backups.count}"
        )
    by_tool = ", ".join(f"{name} {count}" for name, count in sorted(stats.by_tool.items())) or "none"
    by_code = ", ".join(f"{code} {count}" for code, count in sorted(stats.errors_by_code.items())) or "none"
    return "\n".join(
        [
            f"fsguard {stats.version}, up {stats.uptime_s:.0f} s",
            f"Calls: {stats.operations} ({by_tool})",
            f"Errors: {stats.errors} ({by_code})",
            f"Hash cache hit rate: {stats.cache_hit_rate:.0%}",
            f"Memory: {stats.memory_mb} MB",
            f"Backups: {stats.backups.count} ({human_size(stats.backups.bytes)}) in {stats.backups.dir}",
        ]
    )


def artifact_text(artifact: Artifact, sub_action: str, compact: bool) -> str:
    """What the artifact holds, or where it was written."""
    size = f"{artifact.bytes} bytes, {artifact.lines} lines"
    if sub_action == "write":
        return f"Wrote artifact ({size}) to {artifact.path}"
    if sub_action == "capture":
        return f"Captured artifact: {size}"
    return f"Artifact: {size}" if artifact.captured else "No artifact captured"


def _undo_line(path: str, backup_id: str | None, parent: str | None) -> str:
    if backup_id is None:
        return ""
    chain = f" (previous step {parent})" if parent else ""
    return f'\nUndo: backup(action="undo_last", file_path="{path}") · backup {backup_id}{chain}'


def _notes(*notes: str | None) -> str:
    return "".join(f"\n{note}" for note in notes if note)


def _diff_block(diff: str | None, compact: bool) -> str:
    if not diff:
        return ""
    if compact:
        body = diff.split("\n", 2)[2] if diff.startswith("--- ") else diff
        return f"\n{body}"
    return f"\n\n{diff}"


def write_text(result: WriteFileResult, compact: bool) -> str:
    """A whole-file write."""
    verb = "UNCHANGED" if result.unchanged else "CREATED" if result.created else "WRITTEN"
    if compact:
        undo = f" | undo:{result.backup_id}" if result.backup_id else ""
        return f"{verb} {result.path} | {result.bytes_written}B | hash {result.content_hash}{undo}" + _notes(
            result.feedback, result.external_change
        )
    if result.unchanged:
        head = f"{result.path} already holds exactly this content; nothing was written (hash {result.content_hash})."
    else:
        what = "Created" if result.created else "Wrote"
        check = "verified" if result.verified else "NOT verified: read the file back before relying on it"
        size = f"{result.bytes_written} bytes, {result.encoding}"
        head = f"{what} {result.path} ({size}), {check}, hash {result.content_hash}."
    return (
        head
        + _undo_line(result.path, result.backup_id, result.parent_backup_id)
        + _notes(result.feedback, result.external_change)
    )


def edit_text(result: EditFileResult, compact: bool) -> str:
    """One edit (or its dry run)."""
    count = f"{result.replacements}@+{result.lines_added}-{result.lines_removed}"
    if compact:
        if result.dry_run:
            head = f"DRY RUN {result.path} | {count} | nothing written"
        else:
            undo = f" | undo:{result.backup_id}" if result.backup_id else ""
            head = f"M {result.path} | {count} | {result.total_lines}L{undo}"
        integrity = f"integrity {result.integrity}: {result.integrity_detail}" if result.integrity else None
        notes = _notes(
            result.risk_warning, integrity, result.structure_warning, result.external_change, result.feedback
        )
        return head + notes + _diff_block(result.diff, compact=True)
    plural = "" if result.replacements == 1 else "s"
    tier = f" ({result.match_tier})" if result.match_tier else ""
    counts = f"{result.replacements} replacement{plural}{tier} | +{result.lines_added} -{result.lines_removed}"
    if result.dry_run:
        head = f"DRY RUN, nothing written: {result.path} | {counts} would change"
    elif result.backup_id is None:
        head = f"{result.path} already has this content; nothing was written."
    else:
        head = f"M {result.path} | {counts} | {result.total_lines} lines"
        head += _undo_line(result.path, result.backup_id, result.parent_backup_id)
    integrity = f"integrity {result.integrity}: {result.integrity_detail}" if result.integrity else None
    notes = _notes(result.risk_warning, integrity, result.structure_warning, result.external_change, result.feedback)
    return head + notes + _diff_block(result.diff, compact=False)


def multi_edit_text(result: MultiEditResult, compact: bool) -> str:
    """A batch of edits on one file."""
    counts = f"{result.successful_edits}/{result.total_edits} edits | +{result.lines_added} -{result.lines_removed}"
    skipped = f" | {result.skipped_edits} already present" if result.skipped_edits else ""
    if compact:
        undo = f" | undo:{result.backup_id}" if result.backup_id else ""
        prefix = "DRY RUN " if result.dry_run else "M "
        head = f"{prefix}{result.path} | {counts}{skipped} | {result.total_lines}L{undo}"
        notes = _notes(result.risk_warning, result.structure_warning, result.external_change, result.feedback)
        return head + notes + _diff_block(result.diff, True)
    head = ("DRY RUN, nothing written: " if result.dry_run else "M ") + f"{result.path} | {counts}{skipped}"
    head += _undo_line(result.path, result.backup_id, result.parent_backup_id)
    details = "\n".join(
        f"  edit {e.index}: {e.status.replace('_', ' ')}" + (f" ({e.match_tier}, line {e.line})" if e.line else "")
        for e in result.edits
    )
    notes = _notes(result.risk_warning, result.structure_warning, result.external_change, result.feedback)
    return f"{head}\n{details}{notes}" + _diff_block(result.diff, compact=False)


def backup_text(result: BackupResult, compact: bool) -> str:
    """Each backup action in a few lines."""
    rows = [
        f"{b.backup_id} | {b.time} | {b.operation} | {b.files[0]} | {human_size(b.size)}" for b in result.backups or []
    ]
    if result.action == "list":
        return f"{result.total} backup(s)" + ("\n" + "\n".join(rows) if rows else "")
    if result.action == "undo_chain":
        if not rows:
            return "No undo chain: no operation through fsguard is left to undo for this file."
        return "Undo chain, newest first (undo_last reverts the first):\n" + "\n".join(rows)
    if result.action == "cleanup":
        verb = "Would remove" if result.dry_run else "Removed"
        hint = " Run with dry_run=false to remove them." if result.dry_run and result.removed else ""
        return f"{verb} {result.removed} backup(s), {human_size(result.freed_bytes or 0)}.{hint}"
    backup = result.backup
    assert backup is not None
    if result.action == "info":
        return (
            f"Backup {backup.backup_id} of {backup.files[0]}: {backup.operation} at {backup.time}, "
            f"{human_size(backup.size)}, hash {backup.content_hash}"
            + (
                f", previous step {backup.parent_backup_id}."
                if backup.parent_backup_id
                else ", first step of its chain."
            )
        )
    if result.action == "compare":
        return f"From backup {backup.backup_id} to the file now:\n{result.diff}"
    assert result.restored
    done = result.restored[0]
    if result.dry_run:
        text = f"DRY RUN, nothing written: {result.action} would put backup {backup.backup_id} back into {done.path}."
        return text + (f"\n{result.diff}" if result.diff else "")
    if done.safety_backup_id is None and done.previous_hash == done.content_hash:
        return f"{done.path} already holds backup {backup.backup_id}'s content; nothing was written."
    redo = f'\nRedo: backup(action="restore", backup_id="{done.safety_backup_id}")' if done.safety_backup_id else ""
    head = f" Next undo_last reverts {result.head_backup_id}." if result.head_backup_id else " No earlier step."
    if compact:
        return f"RESTORED {done.path} <- {backup.backup_id} | hash {done.content_hash}{redo}"
    check = "verified" if done.verified else "NOT verified: read the file back"
    return f"Restored {done.path} from backup {backup.backup_id} ({check}, hash {done.content_hash}).{head}{redo}"
