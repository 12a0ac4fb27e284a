"""Shared parameter types, annotation sets and the registration helper every tool module uses."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools.base import Tool
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp.types import CallToolResult, InputRequiredResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

from fsguard.core.locks import LockBusy, PathLocks
from fsguard.models import ToolExample
from fsguard.services import Services
from fsguard.tools._weights import Weigher

M = TypeVar("M", bound=BaseModel)
OnLoop = Literal["read", "edit"]

PathArg = Annotated[
    str,
    Field(description="File or directory path: absolute, or relative to the first root. C:\\x forms are translated."),
]
PathsArg = Annotated[
    list[str] | None,
    Field(description='Several paths as an array (or JSON text), e.g. ["a.txt", "src/b.py"].'),
]

ExpectedHash = Annotated[
    str | None, Field(description="content_hash from your last read; the call is refused if the file changed since.")
]


def hints(title: str, *, read_only: bool, destructive: bool = False, idempotent: bool = True) -> ToolAnnotations:
    """Annotations stated in full: clients must not have to guess the spec's defaults."""
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


def voiced(result: M, render: Callable[[M, bool], str], compact: bool) -> CallToolResult:
    """A success whose text block, and the result's ``message`` field, are ``render``'s text in this voice."""
    text = render(result, compact)
    return respond(result.model_copy(update={"message": text}), text)


def respond(model: BaseModel, text: str) -> CallToolResult:
    """A success: the model as structuredContent, and the text block."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=model.model_dump(mode="json", exclude_none=True),
    )


@dataclass
class Catalog:
    """Registers tools on a server and keeps what help() shows beyond the schemas: examples."""

    server: MCPServer
    services: Services
    examples: dict[str, list[ToolExample]] = field(default_factory=dict)
    withheld: set[str] = field(default_factory=set)  # the writing tools a --read-only server does not register

    @property
    def compact(self) -> bool:
        return self.services.settings.compact_mode

    def add(
        self,
        fn: Callable[..., Any],
        hints: ToolAnnotations,
        examples: list[tuple[str, dict[str, Any]]],
        *,
        on_loop: OnLoop | None = None,
        weigh: Weigher | None = None,
    ) -> None:
        """Register ``fn`` unless the server is read-only and the tool writes.

        The SDK runs a sync tool on a worker thread: 0.3 ms a call when idle, over a millisecond on a busy
        machine, more than a small read costs. On a stdio server (one client, which waits for each answer
        anyway) ``on_loop`` tools without hooks of their family run on the event loop instead: quick reads ("read")
        always, and edits ("edit") while no lock they may wait for is taken in this process, and no other thread
        takes one until they end (PathLocks.claim). An HTTP server keeps every tool on worker threads, so its other
        clients never wait for a read or an fsync. A call ``weigh`` finds heavy (megabytes to read) runs on a worker
        thread all the same: the loop would answer nothing else meanwhile, not even its cancellation.
        """
        if self.services.settings.read_only and not hints.read_only_hint:
            self.withheld.add(fn.__name__)
            return
        manager = getattr(self.server, "_tool_manager", None)
        tools = getattr(manager, "_tools", None)
        if isinstance(tools, dict):
            # A coroutine function (help) runs on the loop as it is; a sync one on a worker thread, cancellable.
            off_loop = fn if inspect.iscoroutinefunction(fn) else _cancellable(fn, self.services.locks)
            # A hook is a process that may run for seconds: on the loop, the server would answer nothing meanwhile,
            # not even the cancellation of the very call it runs for.
            hooked = on_loop is not None and self.services.hooks.configured(*_HOOKED[on_loop])
            if on_loop is not None and self.services.settings.transport == "stdio" and not hooked:
                gate = None if on_loop == "read" else self.services.locks
                tool = _built(fn, hints, _on_loop(fn, off_loop, gate, weigh), is_async=True)
            else:
                tool = _built(fn, hints, off_loop)
            tools[tool.name] = tool
        else:  # an SDK without the tool table this relies on: let it build the tool itself
            self.server.add_tool(
                fn, title=hints.title, description=inspect.cleandoc(fn.__doc__ or ""), annotations=hints
            )
        self.examples[fn.__name__] = [ToolExample(description=d, arguments=a) for d, a in examples]


_BUILT: dict[tuple[object, ...], Tool] = {}
# The hook families an on-loop tool may fire.
_HOOKED: dict[OnLoop, tuple[str, ...]] = {"read": ("read", "search"), "edit": ("write", "edit")}


def _cancellable(fn: Callable[..., Any], locks: PathLocks) -> Callable[..., Any]:
    """``fn`` for a worker thread: a call its client cancelled while it waits for a lock (another fsguard's edit of
    the same file, say) stops waiting, or stops once it has the lock, before it changes anything. The thread learns
    of the cancellation only when it asks anyio (PathLocks.cancellable asks for it)."""

    @functools.wraps(fn)
    def call(**kwargs: Any) -> Any:
        with locks.cancellable(_cancelled):
            return fn(**kwargs)

    return call


def _cancelled() -> None:
    """Raise the cancellation of the call this thread runs, if its client cancelled it."""
    try:
        anyio.from_thread.check_cancelled()
    except anyio.NoEventLoopError:  # not an anyio worker thread (a direct call in a test): nothing to cancel
        return


def _on_loop(
    fn: Callable[..., Any], off_loop: Callable[..., Any], gate: PathLocks | None, weigh: Weigher | None = None
) -> Callable[..., Any]:
    """``fn`` as a coroutine function, which the SDK awaits: run on the event loop (always without a ``gate``, else
    while it lets no other thread of this process hold a lock ``fn`` could wait for, and no other process holds the
    first lock it takes), else ``off_loop`` on a worker thread as the SDK would: a stdio server waiting on its loop
    for another fsguard's lock answered nothing else meanwhile, not even a ping or a read of another file."""

    @functools.wraps(fn)
    async def call(**kwargs: Any) -> Any:
        if weigh is not None and weigh(kwargs):
            return await anyio.to_thread.run_sync(functools.partial(off_loop, **kwargs))
        if gate is None:
            return fn(**kwargs)
        if gate.claim():
            try:
                return fn(**kwargs)
            except LockBusy:
                pass  # nothing was done yet: wait for that lock on a worker thread
            finally:
                gate.release()
        return await anyio.to_thread.run_sync(functools.partial(off_loop, **kwargs))

    return call


def _built(
    fn: Callable[..., Any], hints: ToolAnnotations, runs: Callable[..., Any], *, is_async: bool | None = None
) -> Tool:
    """The SDK's Tool for ``fn``, calling ``runs`` (``fn`` wrapped); its schemas are built once per process and
    signature.

    Every server builds its tool functions anew (they close over its services), and the SDK derives a pydantic
    argument model and two JSON schemas from each: about 4 ms a tool, 80 ms a server. Two functions with the
    same code, docstring, signature (annotations, descriptions, defaults) and hints get the same schemas, so a
    copy of the first Tool, bound to the new function, is the Tool the SDK would build.
    """
    # The code object is shared by every function one ``def`` makes; with the annotations and defaults it fixes the
    # signature (whose text took 0.2 ms a tool to build).
    signature = (repr(fn.__annotations__), repr(fn.__defaults__), repr(fn.__kwdefaults__))
    key = (fn.__code__, fn.__doc__ or "", *signature, hints.model_dump_json())
    template = _BUILT.get(key)
    if template is None:
        # cleandoc: on Python < 3.13 a docstring keeps its source indentation, which every tools/list and
        # help(tool) would otherwise send (8 spaces a line) to the model.
        description = inspect.cleandoc(fn.__doc__ or "")
        built = Tool.from_function(fn, title=hints.title, description=description, annotations=hints)
        texts_kept = _TextKept(**dict(built.fn_metadata))
        template = _BUILT[key] = built.model_copy(update={"fn_metadata": texts_kept})
    return template.model_copy(update={"fn": runs} if is_async is None else {"fn": runs, "is_async": is_async})


class _TextKept(FuncMetadata):
    """The SDK's argument handling, except that a string sent for a parameter that takes text stays that text.

    The SDK reads a string argument as JSON whenever the parameter's type is not exactly ``str`` (clients send
    lists as JSON text), ``str | None`` too: a write_file of a package.json reached the tool as a dict and was
    refused, and the content "null" became none. Parameters that take no text (lists, objects) are read so still.
    """

    def pre_parse_json(self, data: dict[str, Any]) -> dict[str, Any]:
        texts, choices = _text_keys(self.arg_model), _choices(self.arg_model)
        # A value already among a Literal's choices (mode="tail") is not JSON to try: the try raised on every call.
        kept = {
            key
            for key, value in data.items()
            if key in texts or (isinstance(value, str) and value in choices.get(key, ()))
        }
        parsed = super().pre_parse_json({key: value for key, value in data.items() if key not in kept})
        return {key: data[key] if key in kept else parsed[key] for key in data}

    def convert_result(self, result: Any) -> CallToolResult | InputRequiredResult:
        """The tool's answer as it is: fsguard's tools answer a CallToolResult whose structured content is a dump of
        their output model (:func:`respond`), which the SDK validated against that same model again, on every call
        (20 µs of a tail's 280; 22 ms of a 20,000-entry listing's 160). Clients check it against the published
        schema, the test suite's on every call."""
        if isinstance(result, CallToolResult):
            return result
        return super().convert_result(result)


@functools.cache
def _text_keys(model: type[BaseModel]) -> frozenset[str]:
    """The argument names (and aliases) of ``model``'s fields that take a string: ``str``, or a union with ``str``
    among its members (not a list of strings, nor a Literal)."""
    keys: set[str] = set()
    for name, info in model.model_fields.items():
        if any(member is str for member in _members(info.annotation)):
            keys.update((name, info.alias) if info.alias else (name,))
    return frozenset(keys)


@functools.cache
def _choices(model: type[BaseModel]) -> dict[str, frozenset[str]]:
    """The string choices of ``model``'s Literal fields (``Literal[...] | None`` too), by argument name (and alias)."""
    found: dict[str, frozenset[str]] = {}
    for name, info in model.model_fields.items():
        members = _members(info.annotation)
        literals = (arg for member in members if get_origin(member) is Literal for arg in get_args(member))
        choices = frozenset(arg for arg in literals if isinstance(arg, str))
        if choices:
            found.update(dict.fromkeys((name, info.alias) if info.alias else (name,), choices))
    return found


def _members(annotation: Any) -> list[Any]:
    """The types ``annotation`` admits, read through ``Annotated`` and unions."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin in (Union, UnionType):
        return [member for arg in get_args(annotation) for member in _members(arg)]
    return [annotation]
