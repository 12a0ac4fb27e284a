"""Voices of help and server_info."""

from __future__ import annotations

import json
from typing import Any

from fsguard.models import Artifact, HelpResult, Stats
from fsguard.voice.paths import shown
from fsguard.voice.sizes import human_size


def help_text(result: HelpResult, compact: bool) -> str:
    """The catalog, or one tool with its schemas and examples."""
    if result.tools is not None:
        lines = [f"- {tool.name}: {tool.summary}" for tool in result.tools]
        header = (
            f'{len(result.tools)} tools on the real host filesystem; help(tool="name"): parameters, examples.\n'
            if compact
            else f'{len(result.tools)} tools on the real host filesystem. Call help(tool="name") for parameters and '
            "examples.\n"
        )
        if result.read_only:
            header = "Read-only server (--read-only): the tools that change files are not registered.\n" + header
        return header + "\n".join(lines)
    parts = [f"## {result.name}", result.description or ""]
    if compact:
        parts.append(_parameters(result.input_schema or {}))
    else:
        # Unindented: indentation was a third of a large tool's help, and a model reads JSON without it.
        parts.append("### Parameters\n" + json.dumps(result.input_schema, separators=(",", ":")))
        parts.append("### Result\n" + json.dumps(result.output_schema, separators=(",", ":")))
    parts.extend(
        f"Example — {example.description}:\n{result.name}({json.dumps(example.arguments)})"
        for example in result.examples or []
    )
    return "\n\n".join(parts)


def _parameters(schema: dict[str, Any]) -> str:
    """Each parameter's name and type on one line, the required ones starred: what a call needs, without the
    descriptions and the result schema the verbose voice prints whole."""
    required = set(schema.get("required") or ())
    properties: dict[str, dict[str, Any]] = schema.get("properties") or {}
    listed = [f"{name}{'*' if name in required else ''}: {_type(spec)}" for name, spec in properties.items()]
    return "Parameters (* required): " + (", ".join(listed) or "none")


_TYPES = {"string": "str", "integer": "int", "boolean": "bool", "number": "number", "object": "object"}


def _type(spec: dict[str, Any]) -> str:
    """A JSON schema's type in a few characters: ``str``, ``int[]``, ``a|b`` for an enum, null left out (an
    optional parameter is one the star does not mark)."""
    if "enum" in spec:
        return "|".join(map(str, spec["enum"]))
    if "anyOf" in spec:
        kinds = [_type(option) for option in spec["anyOf"] if option.get("type") != "null"]
        return "|".join(dict.fromkeys(kinds)) or "null"
    kind = spec.get("type")
    if kind == "array":
        return f"{_type(spec.get('items') or {})}[]"
    if isinstance(kind, str):
        return _TYPES.get(kind, kind)
    return "object" if "$ref" in spec else "any"


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
            *_roots_lines(stats),
        ]
    )


def _roots_lines(stats: Stats) -> list[str]:
    """The session's effective roots with their origins, and the client roots that grant nothing."""
    if stats.client_roots is None and not any(root.read_only for root in stats.roots):
        return []  # the command-line roots, as the server's instructions name them
    shown = [f"{root.path} ({root.origin}{', read-only' if root.read_only else ''})" for root in stats.roots]
    lines = [f"Roots: {'; '.join(shown) or 'none (every client root lies outside the server roots)'}"]
    if stats.client_roots_ignored:
        lines.append(f"Client roots granting nothing: {', '.join(stats.client_roots_ignored)}")
    return lines


def artifact_text(artifact: Artifact, sub_action: str, compact: bool) -> str:
    """What the artifact holds, or where it was written."""
    size = f"{artifact.bytes} bytes, {artifact.lines} line{'' if artifact.lines == 1 else 's'}"
    if sub_action == "write":
        return f"Wrote artifact ({size}) to {shown(artifact.path)}"
    if sub_action == "capture":
        return f"Captured artifact: {size}"
    return f"Artifact: {size}" if artifact.captured else "No artifact captured"
