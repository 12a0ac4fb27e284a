"""server_info help topics: short guides written for the agent, about the tools this server has.

The seed's topics are all here. Where a topic is about tools, it is built from the live registry (the
tools registered, their summaries and their help examples), so a read-only server never advertises a
tool it does not have and a new example shows up without editing this text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from fsguard.core.errors import InvalidParamsError
from fsguard.core.oserrors import quoted
from fsguard.models import ToolExample, ToolSummary


@dataclass(frozen=True)
class Registry:
    """What the running server offers: its tools (sorted by name) and their help examples, and the tools of
    fsguard it left out (``withheld``: the writing ones, under --read-only)."""

    tools: Sequence[ToolSummary]
    examples: Mapping[str, Sequence[ToolExample]]
    withheld: frozenset[str] = frozenset()

    @property
    def names(self) -> set[str]:
        return {tool.name for tool in self.tools}


_OVERVIEW = """fsguard gives typed, safe access to the real host filesystem (not a sandbox) under these roots: {roots}.
Every result has structuredContent (see help(tool=...) for its schema) and a text block.
Paths may be absolute or relative to the first root; C:\\x forms are translated to the WSL mount.{read_only}
Topics: {topics}."""

# Each guide names the tools it is about: their registered examples follow it.
_GUIDES: dict[str, tuple[str, tuple[str, ...]]] = {
    "workflow": (
        """1. list_directory to find your way; get_file_info to check a path, its size and content_hash.
2. search_files (include_content=true) to find where something is, then read_file that line range.
3. Keep the content_hash a read returns: it is the token mutating tools take as expected_hash.
4. Change part of a file with edit_file, several places with multi_edit, the whole file with write_file.
5. If a path you used before is suddenly missing, you may be looking at another sandbox: verify here first.""",
        (),
    ),
    "paths": (
        """Roots: {roots}. Symlinks are followed, and a path whose real location leaves the roots is refused,
even for files that do not exist yet. Control, bidi and zero-width characters, Windows device names
(CON, NUL.txt, COM1 …) and NTFS stream syntax are always refused. Results always show the canonical path.
A root marked (read-only) is read, listed and searched; any change there is refused with read_only. Secrets
(.env, private keys, credentials) and paths the operator hid are refused with access_denied naming the rule,
and listings and searches leave them out (a listing's "denied" count says how many).""",
        (),
    ),
    "read": (
        """read_file returns content and content_hash (FNV-1a of the whole file's bytes, 8 hex digits).
Over 300 lines, the first 300 come back with a hint for the next range. max_lines with mode=head/tail picks
the start or the end; paths=[...] reads several files; encoding="base64" returns raw bytes of any file.
Binary files are refused as text. Encoding (UTF-8, UTF-16, BOM, 8-bit code pages) and line endings are reported.
Images (png, jpeg, gif, webp) and audio (mp3, wav, ogg, flac) come back as an image/audio block you can see,
with mime_type, width/height and content_hash; above --max-media-bytes as a resource_link.""",
        ("read_file", "get_file_info"),
    ),
    "write": (
        """write_file(path, content) creates a file, or replaces its whole content atomically; missing parent
directories are created. An existing file is backed up first (the result gives backup_id and the undo call),
keeps its encoding, BOM and CRLF line endings, and expected_hash refuses the write if the file changed since
your read. content_base64 writes bytes. To change part of a file, use edit_file: it sends only the change.
append=true adds content at the end (logs, notes) in the file's encoding and line endings, backed up and undoable.""",
        ("write_file",),
    ),
    "edit": (
        """edit_file(path, old_text, new_text) swaps one exact place: copy old_text from read_file, with enough
context to be unique (or replace_all=true, occurrence=N). Other modes: search_replace (literal), regex (RE2,
$1 replacements, patterns_json with limit, 0 or -1 = all), insert (anchor + position), replace_range and
delete_range (start_line..end_line). multi_edit applies several edits all or nothing. Every edit keeps the
untouched bytes, encoding and line endings, takes expected_hash and dry_run, returns a diff and the new
content_hash, and is backed up: backup(action="undo_last", file_path=...) takes it back.""",
        ("edit_file", "multi_edit"),
    ),
    "search": (
        """search_files(path, pattern) finds files by name (a glob, or a regex); include_content=true searches
inside files (a regex, literal=true for plain text), with file_types/include, whole_word, include_context,
count_only. Results come in path and line order; .gitignore, hidden files, VCS and dependency directories are
skipped unless asked. project_replace(path, find, replace) changes many files at once: run it with
preview=true first; every changed file is backed up and one backup_id restores them all.""",
        ("search_files", "project_replace"),
    ),
    "batch": (
        """batch_operations runs several operations as one call, validated before anything runs and all or
nothing by default. request_json: a list of write/edit/search_and_replace/copy/move/delete/create_dir/extract
operations. pipeline_json: steps that feed each other (search → edit → count) with conditions and
{{{{step.field}}}} templates. rename_json: rename many files by a rule. The result's backup_id reverts everything
the call changed: backup(action="restore", backup_id=...).""",
        ("batch_operations",),
    ),
    "recovery": (
        """Every change is backed up outside the roots before it is written, and survives restarts.
- backup(action="undo_last", file_path=...) reverts the newest operation on a file; repeat to step back.
  It refuses (undo_conflict) when the file changed since that operation: compare first, then force=true.
- backup(action="restore", backup_id=...) puts any saved version back, even after later edits; the bytes it
  replaces get their own backup, so the restore is undoable too. A group id (batch, project_replace)
  restores every file of that call.
- backup(action="list", filter_path=..., filter_operation="edit_file"), undo_chain and compare find a version;
  dry_run=true or preview=true shows what a restore would do.
- Deleted files go to the trash: backup(action="list_trash") then restore_trash with the sd_id.""",
        ("backup",),
    ),
    "errors": (
        """Errors are isError results with a readable message naming the next step, and a stable code in
_meta["fsguard/error"].code: access_denied, not_found, is_directory, not_a_directory, already_exists,
invalid_params, unknown_param, too_large, binary_file, encoding_error, read_only, stale_edit, disk_full,
name_too_long, read_only_filesystem (the full list is in the README). internal_error means a bug in fsguard.
Unknown parameters are refused with the closest valid name; "description" is accepted and ignored.
A missing path is refused naming the existing paths it likely meant (_meta did_you_mean).
declined: the user was asked to confirm the call (a permanent delete, a trash purge, a large change) and did not;
nothing changed. Ask the user before trying it again.""",
        (),
    ),
    "tips": (
        """- Search, then read a line range, then edit: reading whole large files costs the most tokens.
- Pass the content_hash of your last read as expected_hash: an edit on a file changed meanwhile is refused.
- Prefer edit_file or multi_edit over write_file for small changes: they send and show only the change.
- dry_run=true shows the diff of any edit without writing; project_replace has preview=true.
- A no_match error shows the closest lines: copy old_text from there, never retype it from memory.
- Every change is undoable: see the recovery topic before reaching for git or a rewrite.""",
        (),
    ),
}
# "tools" and "examples" are generated from the registry alone.
TOPICS = ("overview", "workflow", "tools", *(t for t in _GUIDES if t != "workflow"), "examples", "all")


def topic_text(topic: str, roots: str, read_only: bool, registry: Registry) -> str:
    """The text of ``topic``; ``all`` joins every topic.

    Raises:
        InvalidParamsError: an unknown topic (the message lists the valid ones).
    """
    name = topic.strip().lower()
    note = " This server is read-only: only reading tools are registered." if read_only else ""
    if name == "overview":
        return _OVERVIEW.format(roots=roots, read_only=note, topics=", ".join(TOPICS))
    if name == "all":
        return "\n\n".join(f"## {each}\n{topic_text(each, roots, read_only, registry)}" for each in TOPICS[:-1])
    if name == "tools":
        return _tools_text(registry)
    if name == "examples":
        return _examples_text(registry, [tool.name for tool in registry.tools])
    if name not in _GUIDES:
        raise InvalidParamsError(f"no help topic {quoted(topic)}. Topics: {', '.join(TOPICS)}.", topic=topic)
    guide, about = _GUIDES[name]
    missing = [tool for tool in about if tool not in registry.names] + _mentioned(guide, registry.withheld - {*about})
    # Formatted after the look for names: a root's path may hold one (/home/me/git).
    text = guide.format(roots=roots)
    if missing:
        text = f"Not registered on this server{' (read-only)' if read_only else ''}: {', '.join(missing)}.\n" + text
    present = [tool for tool in about if tool in registry.names]
    return text + ("\n\n" + _examples_text(registry, present) if present else "")


def _mentioned(text: str, tools: Iterable[str]) -> list[str]:
    """The ``tools`` ``text`` names as words, in the order it first names them: a guide is written for a server with
    every tool, and one without some must say which of those it advises are not there."""
    found = {tool: hit.start() for tool in tools if (hit := re.search(rf"\b{re.escape(tool)}\b", text))}
    return sorted(found, key=found.__getitem__)


def _tools_text(registry: Registry) -> str:
    rows = [f"- {tool.name}{'' if tool.read_only else ' (writes)'}: {tool.summary}" for tool in registry.tools]
    return f"{len(rows)} tools registered; help(tool=NAME) gives one's parameters and examples:\n" + "\n".join(rows)


def _examples_text(registry: Registry, tools: Sequence[str]) -> str:
    rows = [
        f"{tool}({json.dumps(example.arguments, ensure_ascii=False)})  # {example.description}"
        for tool in tools
        for example in registry.examples.get(tool, ())
    ]
    return "Examples:\n" + "\n".join(rows) if rows else "No examples registered."
