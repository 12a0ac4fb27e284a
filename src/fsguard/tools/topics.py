"""server_info help topics: short guides written for the agent, about the tools this server has."""

from __future__ import annotations

from fsguard.core.errors import InvalidParamsError

_OVERVIEW = """fsguard gives typed, safe access to the host filesystem under these roots: {roots}.
Every result has structuredContent (see help(tool=...) for its schema) and a text block.
Paths may be absolute or relative to the first root; C:\\x forms are translated to the WSL mount.{read_only}
Topics: {topics}."""

_TOPICS = {
    "workflow": """1. list_directory to find your way; get_file_info to check a path, its size and content_hash.
2. read_file a line range (start_line/end_line) instead of whole large files; the answer says how to read more.
3. Keep the content_hash a read returns: it is the token mutating tools take as expected_hash.
4. If a path you used before is suddenly missing, you may be looking at another sandbox: verify here first.""",
    "paths": """Roots: {roots}. Symlinks are followed, and a path whose real location leaves the roots is refused,
even for files that do not exist yet. Control, bidi and zero-width characters, Windows device names
(CON, NUL.txt, COM1 …) and NTFS stream syntax are always refused. Results always show the canonical path.""",
    "read": """read_file returns content and content_hash (FNV-1a of the whole file's bytes, 8 hex digits).
Over 300 lines, the first 300 come back with a hint for the next range. max_lines with mode=head/tail picks
the start or the end; paths=[...] reads several files; encoding="base64" returns raw bytes of any file.
Binary files are refused as text. Encoding (UTF-8, UTF-16, BOM, 8-bit code pages) and line endings are reported.""",
    "errors": """Errors are isError results with a readable message naming the next step, and a stable code in
_meta["fsguard/error"].code: access_denied, not_found, is_directory, not_a_directory, already_exists,
invalid_params, unknown_param, too_large, binary_file, encoding_error, read_only, stale_edit, disk_full,
name_too_long, read_only_filesystem (the full list is in the README). internal_error means a bug in fsguard.
Unknown parameters are refused with the closest valid name; "description" is accepted and ignored.""",
}
TOPICS = ("overview", *_TOPICS, "all")


def topic_text(topic: str, roots: str, read_only: bool) -> str:
    """The text of ``topic``; ``all`` joins every topic.

    Raises:
        InvalidParamsError: an unknown topic (the message lists the valid ones).
    """
    note = " This server is read-only: only reading tools are registered." if read_only else ""
    if topic == "overview":
        return _OVERVIEW.format(roots=roots, read_only=note, topics=", ".join(TOPICS))
    if topic == "all":
        return "\n\n".join(f"## {name}\n{topic_text(name, roots, read_only)}" for name in TOPICS[:-1])
    if topic not in _TOPICS:
        raise InvalidParamsError(f"no help topic {topic!r}. Topics: {', '.join(TOPICS)}.", topic=topic)
    return _TOPICS[topic].format(roots=roots)
