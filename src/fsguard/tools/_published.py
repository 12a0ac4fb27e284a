"""The published tool list, kept on disk so a restarted server answers tools/list without building its tools.

Building the 20 tools (importing their modules, the SDK's argument models and JSON schemas) is most of what
fsguard adds to an MCPServer's start-up. What tools/list publishes is a pure function of fsguard's source, the
SDK and pydantic that turn it into schemas, the Python running them, and the few settings that change the list
(``PUBLISHING_SETTINGS``). The stored list is keyed by a digest of all of them and carries a digest of its own
content, so a list from other code, other versions or other settings is never found, and a damaged one is
refused; both are rebuilt from the real tools. Never edited by hand: a file only ever holds what a server
built and published itself.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import pydantic
import pydantic_core
from mcp.server.mcpserver.tools.base import Tool
from mcp.types import Icon, ToolAnnotations
from mcp.types import Tool as MCPTool
from pydantic import BaseModel

import fsguard
from fsguard.config import Settings
from fsguard.core.disk import AtomicWriter
from fsguard.core.errors import FsguardError

logger = logging.getLogger(__name__)

# Why a tool fsguard has is missing on a --read-only server (it can change files): a call of one and help say it.
READ_ONLY_ADVICE = (
    "this server runs with --read-only, so no tool that can change files (this one included) is offered. Ask the "
    "user to restart fsguard without --read-only if it is needed."
)


# The Settings fields that change what tools/list says: read_only drops the writing tools (and flips
# server_info's read-only hint), backup_max_age_days is quoted in backup's description (sweep_age_days).
# tests/test_published.py varies every other field and checks the list does not move; a new field must be
# given a variant there, or be named here.
PUBLISHING_SETTINGS = ("read_only", "backup_max_age_days")
# The distributions that turn fsguard's source into the published schemas.
BUILDERS = ("mcp", "mcp-types")  # with pydantic and pydantic-core
# Bump when the stored layout changes.
LAYOUT = 1
DIRECTORY = "cache"
KEPT = 8
# The lists this process has built or read, by key.
_KNOWN: dict[str, list[PublishedTool]] = {}
# The lists this process built from its own tools, by key: the same code in memory publishes the same list again.
_BUILT: dict[str, list[PublishedTool]] = {}


@dataclass(frozen=True)
class PublishedTool:
    """What the SDK's list_tools copies from one registered tool into tools/list, as JSON values."""

    name: str
    title: str | None
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None
    annotations: dict[str, Any] | None
    icons: list[dict[str, Any]] | None
    meta: dict[str, Any] | None


def of_tool(tool: Tool) -> PublishedTool:
    """What ``MCPServer.list_tools`` publishes for ``tool``, as the JSON values a stored list holds."""
    fields = {
        "name": tool.name,
        "title": tool.title,
        "description": tool.description,
        "input_schema": tool.parameters,
        "output_schema": tool.output_schema,
        "annotations": _json(tool.annotations),
        "icons": None if tool.icons is None else [_dumped(icon) for icon in tool.icons],
        "meta": tool.meta,
    }
    # Through JSON, so a fresh list compares equal to a stored one exactly when they publish the same.
    return PublishedTool(**json.loads(json.dumps(fields)))


def of_tools(settings: Settings, tools: list[Tool]) -> list[PublishedTool]:
    """What ``tools`` (registered under ``settings``) publish, built once per process and key (a process building
    several servers, as the tests do, would otherwise turn the same 130 KB of schemas into JSON for each)."""
    digest = key(settings)
    if digest not in _BUILT:
        _BUILT[digest] = [of_tool(tool) for tool in tools]
    return _BUILT[digest]


def listed(tool: PublishedTool) -> MCPTool:
    """The tools/list entry, built as ``MCPServer.list_tools`` builds it."""
    return MCPTool(
        name=tool.name,
        title=tool.title,
        description=tool.description,
        input_schema=tool.input_schema,
        output_schema=tool.output_schema,
        annotations=None if tool.annotations is None else ToolAnnotations.model_validate(tool.annotations),
        icons=None if tool.icons is None else [Icon.model_validate(icon) for icon in tool.icons],
        meta=tool.meta,
    )


def _json(model: BaseModel | None) -> dict[str, Any] | None:
    return None if model is None else _dumped(model)


def _dumped(model: BaseModel) -> dict[str, Any]:
    # exclude_unset: the rebuilt model has the same fields set, so it serialises the same on every path.
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


@cache
def source_digest() -> str:
    """sha256 over the path and bytes of every module of the installed fsguard package (about 3 ms)."""
    package = str(Path(fsguard.__file__).parent)
    digest = hashlib.sha256()
    # os.walk and plain strings: half the time of Path.rglob, and this runs at every start.
    for directory, _, files in sorted(os.walk(package)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = f"{directory}/{name}"
                digest.update(path[len(package) :].encode() + b"\0")
                with open(path, "rb") as source:
                    digest.update(hashlib.sha256(source.read()).digest())
    return digest.hexdigest()


@cache
def builder_versions() -> tuple[str, ...]:
    # pydantic's own version attributes are free; a metadata look-up costs ~0.7 ms each.
    return (sys.version, pydantic.VERSION, pydantic_core.__version__, *(metadata.version(name) for name in BUILDERS))


def key(settings: Settings) -> str:
    """The digest of everything the published list is built from."""
    published = {name: getattr(settings, name) for name in PUBLISHING_SETTINGS}
    parts = [f"layout {LAYOUT}", fsguard.__version__, source_digest(), *builder_versions(), repr(published)]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def location(settings: Settings, digest: str) -> Path:
    return settings.state_dir / DIRECTORY / f"tools-{digest[:32]}.json"


def load(settings: Settings) -> list[PublishedTool] | None:
    """The stored list for these settings and this code, or None when there is none or it cannot be trusted."""
    digest = key(settings)
    if digest in _KNOWN:  # a process building several servers (the tests) reads and builds each list once
        return _KNOWN[digest]
    path = location(settings, digest)
    try:
        # Two lines: a header naming the key and the sha256 of the second line, the tools themselves.
        header, listed = path.read_bytes().split(b"\n", 1)
        stored = json.loads(header)
        if stored["key"] != digest or stored["content"] != hashlib.sha256(listed).hexdigest():
            raise ValueError("the stored key or content digest does not match")
        found = _KNOWN[digest] = [PublishedTool(**tool) for tool in json.loads(listed)]
        return found
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("ignoring the stored tool list %s (%s); building the tools instead", path, exc)
        return None


def store(settings: Settings, atomic: AtomicWriter, tools: list[PublishedTool]) -> None:
    """Keep ``tools`` for the next start: written whole by rename, so a concurrent server reads old or new."""
    digest = key(settings)
    _KNOWN[digest] = tools
    path = location(settings, digest)
    listed = json.dumps([tool.__dict__ for tool in tools], ensure_ascii=False, separators=(",", ":")).encode()
    header = json.dumps({"key": digest, "content": hashlib.sha256(listed).hexdigest()}).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic.write(path, header + b"\n" + listed)
    except (OSError, FsguardError) as exc:  # a read-only or full state dir only costs the next start its speed
        logger.warning("could not store the tool list in %s: %s", path, exc)
        return
    _prune(path.parent)


def _prune(directory: Path) -> None:
    """Keep the most recent lists: servers with other settings share the state dir; older code's lists go."""
    try:
        stored = sorted(directory.glob("tools-*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in stored[KEPT:]:
            old.unlink(missing_ok=True)
    except OSError as exc:  # another server pruning at the same moment
        logger.debug("pruning %s: %s", directory, exc)
