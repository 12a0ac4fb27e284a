"""help and server_info: what the server offers and how it is doing."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Annotated, Any, Literal

from mcp.types import CallToolResult, Tool
from pydantic import Field

from fsguard import __version__
from fsguard.core.clientroots import Origin, current_scope
from fsguard.core.errors import InvalidParamsError, ReadOnlyError
from fsguard.core.oserrors import quoted
from fsguard.core.spelling import closest
from fsguard.core.stats import resident_memory_mb
from fsguard.models import BackupStoreStats, HelpResult, ServedRoot, ServerInfoResult, Stats, ToolSummary
from fsguard.services import Services
from fsguard.tools._errors import CodedToolError, bridge
from fsguard.tools._params import Catalog, hints, respond
from fsguard.tools._published import READ_ONLY_ADVICE
from fsguard.tools.topics import TOPICS, Registry, topic_text
from fsguard.voice import artifact_text, help_text, stats_text

InfoAction = Literal["help", "stats", "artifact"]
ArtifactStep = Literal["capture", "write", "info"]


def register(catalog: Catalog) -> None:
    """Add help and server_info to the catalog."""
    services = catalog.services
    server = catalog.server

    async def help(
        tool: Annotated[
            str | None, Field(description="A tool name, for its parameters, result schema and examples.")
        ] = None,
    ) -> Annotated[CallToolResult, HelpResult]:
        """List the tools, or describe one (parameters, result schema, examples)."""
        tools = {t.name: t for t in await server.list_tools()}
        if tool is None or not tool.strip():  # "" is a blank form field, as for every optional parameter
            result = HelpResult(tools=summaries(tools.values()), read_only=services.settings.read_only or None)
            return respond(result, help_text(result, catalog.compact))
        found = tools.get(tool)
        if found is None:
            suggestion = closest(tool, sorted(tools))
            hint = f" Did you mean {suggestion!r}?" if suggestion else ""
            if tool in catalog.withheld:
                hint = f" {tool} is one of fsguard's tools, but {READ_ONLY_ADVICE}"
            raise CodedToolError(
                InvalidParamsError(
                    # double-quoted as the seed wrote it: 'no tool named "x" registered on this server'
                    f"no tool named {quoted(tool, double=True)} registered on this server.{hint} "
                    "Call help() for the catalog.",
                    tool=tool,
                )
            )
        result = HelpResult(
            name=found.name,
            title=found.title,
            description=found.description,
            input_schema=found.input_schema,
            output_schema=found.output_schema,
            annotations=found.annotations.model_dump(by_alias=True, exclude_none=True) if found.annotations else None,
            examples=catalog.examples.get(found.name, []),
        )
        return respond(result, help_text(result, catalog.compact))

    async def server_info(
        action: Annotated[InfoAction, Field(description="What to report.")] = "help",
        topic: Annotated[str | None, Field(description=f"Help topic: {', '.join(TOPICS)}.")] = None,
        sub_action: Annotated[
            ArtifactStep | None,
            Field(
                description="artifact: capture content, write it (content sent with it, else the text held) to a new "
                "file at path (missing directories are created), or info; default: what content and path imply."
            ),
        ] = None,
        content: Annotated[str | None, Field(description="Text to capture (artifact capture).")] = None,
        path: Annotated[str | None, Field(description="New file to write the artifact to (artifact write).")] = None,
    ) -> Annotated[CallToolResult, ServerInfoResult]:
        """Usage guides by topic, counters since start-up (stats), or keep and save a text (artifact).

        The help topics about tools are built from the tools this server registered. artifact write only
        creates a new file; it never replaces one.
        """
        if action == "help":
            registry = Registry(summaries(await server.list_tools()), catalog.examples, frozenset(catalog.withheld))
            return _help_topic(services, registry, topic)
        if action == "stats":
            return _stats(services, catalog.compact)
        return _artifact(services, sub_action, content, path, catalog.compact)

    catalog.add(
        help,
        hints("Server Help", read_only=True),
        [("the catalog", {}), ("one tool in detail", {"tool": "read_file"})],
    )
    # Truthful hints: artifact write creates files, so the tool is read-only only under --read-only.
    catalog.add(
        server_info,
        hints("Server Info", read_only=services.settings.read_only, destructive=False, idempotent=True),
        [
            ("usage guide", {"action": "help", "topic": "workflow"}),
            ("counters", {"action": "stats"}),
            ("save a text", {"action": "artifact", "sub_action": "capture", "content": "# Notes\n"}),
        ],
    )


def summaries(tools: Iterable[Tool]) -> list[ToolSummary]:
    """One catalog line per tool, sorted by name."""
    return [
        ToolSummary(
            name=t.name,
            title=t.title or t.name,
            summary=summary_of(t.description),
            read_only=bool(t.annotations and t.annotations.read_only_hint),
        )
        for t in sorted(tools, key=lambda t: t.name)
    ]


def summary_of(description: str | None) -> str:
    """The first sentence of a description's first paragraph, on one line, ending with a period.

    A docstring's first line usually ends with "." and a newline, so cutting at ". " alone would run on into
    the next paragraph.
    """
    paragraph = (description or "").strip().split("\n\n")[0]
    sentence = " ".join(paragraph.split()).split(". ")[0]
    return sentence.rstrip(".") + "."


@bridge
def _help_topic(services: Services, registry: Registry, topic: str | None) -> CallToolResult:
    name = (topic or "overview").strip().lower() or "overview"
    text = topic_text(name, services.policy.describe_roots(), services.settings.read_only, registry)
    return respond(ServerInfoResult(action="help", topic=name, topics=list(TOPICS), text=text), text)


def served_roots(services: Services) -> dict[str, Any]:
    """The Stats fields of this session's roots: effective roots with origins, client roots, deny rules."""
    policy = services.policy
    scope = current_scope()
    if scope is None:
        origins: list[tuple[Path, Origin]] = [(root, "command_line") for root in policy.roots]
    else:
        origins = [(root.path, root.origin) for root in scope.roots]
    # A --read-only server registers no tool that changes files: none of its roots can be changed.
    everywhere = services.settings.read_only
    return {
        "roots": [
            ServedRoot(path=str(path), origin=origin, read_only=everywhere or policy.is_read_only(path))
            for path, origin in origins
        ],
        "client_roots": list(scope.client_uris) if scope is not None else None,
        "client_roots_ignored": list(scope.ignored) if scope is not None and scope.ignored else None,
        "deny_rules": list(policy.deny.patterns),
    }


@bridge
def _stats(services: Services, compact: bool) -> CallToolResult:
    by_tool, by_code = services.stats.snapshot()
    count, size = services.backups.stats()
    stats = Stats(
        version=__version__,
        uptime_s=services.stats.uptime_s,
        operations=sum(by_tool.values()),
        by_tool=by_tool,
        errors=sum(by_code.values()),
        errors_by_code=by_code,
        cache_hit_rate=round(services.cache.hit_rate, 3),
        memory_mb=resident_memory_mb(),
        backups=BackupStoreStats(dir=str(services.backups.root), count=count, bytes=size),
        **served_roots(services),
    )
    return respond(ServerInfoResult(action="stats", stats=stats), stats_text(stats, compact))


@bridge
def _artifact(
    services: Services, step: ArtifactStep | None, content: str | None, path: str | None, compact: bool
) -> CallToolResult:
    # The arguments say what to do: content is captured, a path written (after the content, when both come). A
    # step they contradict is refused: write once wrote the text held before, not the content sent with it.
    step = step or ("write" if path is not None else "capture" if content is not None else "info")
    if step == "info" and (content is not None or path is not None):
        raise InvalidParamsError(
            "artifact info takes no content or path. Send sub_action='capture' with content to hold a text, or "
            "sub_action='write' with path (and content) to save it."
        )
    if step == "capture" and path is not None:
        raise InvalidParamsError(
            "artifact capture only holds the text; path is for sub_action='write'. Send sub_action='write' with "
            "content and path to hold and save it in one call."
        )
    if step == "capture" and content is None:
        raise InvalidParamsError("artifact capture needs content: the text to hold.")
    if step == "write":
        if services.settings.read_only:
            raise ReadOnlyError("fsguard runs with --read-only; artifact write is disabled. Restart without it.")
        if path is None:
            raise InvalidParamsError("artifact write needs path: a new file to create.")
    artifact = services.artifacts.capture(content) if content is not None else services.artifacts.info()
    if step == "write" and path is not None:
        artifact = services.artifacts.write(path)
    return respond(ServerInfoResult(action="artifact", artifact=artifact), artifact_text(artifact, step, compact))
