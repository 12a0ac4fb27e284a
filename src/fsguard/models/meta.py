"""Results of help and server_info."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from fsguard.models.base import Result


class ToolSummary(Result):
    """One line of the tool catalog."""

    name: str
    title: str
    summary: str = Field(description="First sentence of the description.")
    read_only: bool = Field(description="True when the tool never changes the filesystem.")


class ToolExample(Result):
    """A worked call of a tool."""

    description: str
    arguments: dict[str, Any]


class HelpResult(Result):
    """What help returns: the catalog, or one tool in detail."""

    tools: list[ToolSummary] | None = Field(None, description="Every registered tool (no tool argument).")
    read_only: bool | None = Field(
        None, description="True on a --read-only server: the tools that change files are not registered."
    )
    name: str | None = Field(None, description="Tool described (with tool).")
    title: str | None = None
    description: str | None = None
    input_schema: dict[str, Any] | None = Field(None, description="JSON schema of the tool's arguments.")
    output_schema: dict[str, Any] | None = Field(None, description="JSON schema of the tool's structured result.")
    annotations: dict[str, Any] | None = Field(None, description="readOnlyHint, destructiveHint, idempotentHint.")
    examples: list[ToolExample] | None = None


class BackupStoreStats(Result):
    """Size of the backup store."""

    dir: str = Field(description="Directory holding backups (outside the roots).")
    count: int = Field(description="Stored backups.")
    bytes: int = Field(description="Bytes they occupy.")


class ServedRoot(Result):
    """A root the calling session may use, and where it came from."""

    path: str
    origin: Literal["command_line", "client", "both"] = Field(
        description="command_line: a server root; client: a client root inside one (narrowing it); both: named by each."
    )
    read_only: bool = Field(
        description="True where nothing can be changed (read, list and search only): a --read-only-root, or any "
        "root of a --read-only server."
    )


class Stats(Result):
    """Counters since the server started."""

    version: str
    uptime_s: float
    operations: int = Field(description="Tool calls answered.")
    by_tool: dict[str, int]
    errors: int = Field(description="Calls that ended in an error result.")
    errors_by_code: dict[str, int]
    cache_hit_rate: float = Field(description="Share of hash lookups answered without reading the file.")
    memory_mb: float = Field(description="Resident memory of the server process.")
    backups: BackupStoreStats
    roots: list[ServedRoot] = Field(
        default_factory=list, description="The effective roots of this session: command-line roots ∩ client roots."
    )
    client_roots: list[str] | None = Field(None, description="The roots (URIs) the client named; None: none.")
    client_roots_ignored: list[str] | None = Field(
        None, description="Client roots granting nothing: outside every command-line root, missing, or not file://."
    )
    deny_rules: list[str] = Field(default_factory=list, description="Deny rules in force, in order (last match wins).")


class Artifact(Result):
    """The text held by server_info artifact."""

    captured: bool
    bytes: int
    lines: int
    path: str | None = Field(None, description="Where it was written, for sub_action=write.")


class ServerInfoResult(Result):
    """What server_info returns, by action."""

    action: Literal["help", "stats", "artifact"]
    topic: str | None = Field(None, description="Help topic shown.")
    topics: list[str] | None = Field(None, description="Every help topic.")
    text: str | None = Field(None, description="Help text.")
    stats: Stats | None = None
    artifact: Artifact | None = None
