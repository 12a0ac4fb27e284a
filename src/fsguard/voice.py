"""The text block of each result, in the seed's two voices: verbose (default) and compact.

Both voices carry the same facts; compact drops the labels and layout.
"""

from __future__ import annotations

import json

from fsguard.models import (
    Artifact,
    CreateDirectoryResult,
    FileFacts,
    GetFileInfoResult,
    HelpResult,
    ListDirectoryResult,
    ReadFileResult,
    Stats,
    TreeNode,
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
