"""build_server(settings) -> MCPServer: services, tools, and the per-call argument and error handling."""

from __future__ import annotations

import gc
import logging
import time
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp import MCPError
from mcp.server._otel import OpenTelemetryMiddleware
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import INVALID_PARAMS, METHOD_NOT_FOUND, CallToolResult, InputRequiredResult
from opentelemetry import trace
from pydantic import ValidationError

from fsguard import __version__
from fsguard.config import Settings
from fsguard.core.clientroots import scoped
from fsguard.core.errors import FsguardError
from fsguard.core.nearby import NearPaths
from fsguard.core.session import serving
from fsguard.core.spelling import closest
from fsguard.groundwork import Groundwork
from fsguard.requestids import RunningRequests, session_key
from fsguard.tools import _published
from fsguard.tools._arguments import normalize
from fsguard.tools._audit_lines import CANCELLED, audit_entry
from fsguard.tools._connections import client_key
from fsguard.tools._errors import (
    error_code,
    error_result,
    result_for,
    state_dir_error,
    with_near_paths,
)
from fsguard.tools._roots import ROOTS_REQUEST_KEY, ClientRootsAsker, roots_changes

if TYPE_CHECKING:
    from mcp.types import Tool as MCPTool

    from fsguard.services import Services

logger = logging.getLogger(__name__)


# MCPServer always registers prompt and resource handlers, and the capabilities follow the handlers.
UNOFFERED_FAMILIES = ("prompts", "resources")
_ADVERTISING_METHODS = frozenset({"initialize", "server/discover"})
# What the SDK answers, with empty data, both for a request before initialize and for params that fail its models.
_BLANK_REFUSAL = "Invalid request parameters"
# The error code and text of the audit line of a call cancelled before it answered (by its client, or by the server
# shutting down).
CANCELLED_MESSAGE = "Cancelled before it finished: what it had already changed stays changed."


async def tools_only(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Middleware: fsguard serves tools only, so prompts and resources are neither advertised nor answered.

    Their requests get the standard -32601, like any method a server does not have (without this an
    unknown prompt answers JSON-RPC code 0 on 2025 connections and -32603 on 2026 ones).
    """
    if ctx.method.split("/", 1)[0] in UNOFFERED_FAMILIES:
        raise MCPError(code=METHOD_NOT_FOUND, message="Method not found", data=ctx.method)
    result = await call_next(ctx)
    if ctx.method in _ADVERTISING_METHODS and isinstance(result, dict):
        capabilities = result.get("capabilities")
        if isinstance(capabilities, dict):
            offered = {key: value for key, value in capabilities.items() if key not in UNOFFERED_FAMILIES}
            result = {**result, "capabilities": offered}
    return result


async def worded_refusals(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
    """Middleware: say what is wrong where the SDK answers -32602 "Invalid request parameters" with no data.

    It does so for an initialize missing clientInfo or capabilities and for any request sent before initialize,
    which left a client's developer searching their params. The code stays -32602; only the message names the
    fields (never pydantic's dump of the models) or the missing handshake.
    """
    try:
        return await call_next(ctx)
    except ValidationError as exc:
        if any(ROOTS_REQUEST_KEY in map(str, error["loc"]) for error in exc.errors()):
            # The SDK tries the answer as every kind of result: its errors list sampling's fields, not the roots'.
            fields = (
                f'inputResponses["{ROOTS_REQUEST_KEY}"] is no roots/list result: send '
                '{"roots": [{"uri": "file:///path/to/folder"}]}, every root a file:// URI'
            )
        else:
            fields = "; ".join(
                f"{'.'.join(map(str, error['loc'])) or 'params'}: {error['msg']}" for error in exc.errors()[:5]
            )
        raise MCPError(
            code=INVALID_PARAMS, message=f"Invalid params for {ctx.method}: {fields}. Nothing was done."
        ) from exc
    except MCPError as exc:
        if (exc.code, exc.message, exc.error.data) != (
            INVALID_PARAMS,
            _BLANK_REFUSAL,
            "",
        ) or ctx.method == "initialize":
            raise
        raise MCPError(
            code=INVALID_PARAMS,
            message=f"Server not initialized: {ctx.method} came before initialize. Send initialize, then "
            "notifications/initialized, then your requests.",
        ) from exc


class FsguardServer(MCPServer):
    """MCPServer whose calls get strict argument names and coded errors, and are counted.

    Given the stored tool list (``published``), it answers tools/list from it and builds the engine and the
    tools on the first tool call; without one it builds them at once (``build_tools``).
    """

    def __init__(
        self, groundwork: Groundwork, published: list[_published.PublishedTool] | None = None, **kwargs: Any
    ) -> None:
        self.running = RunningRequests()
        super().__init__(middleware=[worded_refusals, tools_only, roots_changes, self._tracked], **kwargs)
        if not traced():
            # The SDK wraps every message in an OpenTelemetry span, a no-op without a tracer provider that still
            # costs each call tens of microseconds; it says to drop it to opt out.
            self.middleware[:] = [step for step in self.middleware if not isinstance(step, OpenTelemetryMiddleware)]
        self.groundwork = groundwork
        self._near_paths = NearPaths(groundwork.policy, groundwork.beneath)
        self.client_roots = ClientRootsAsker(groundwork.policy, enabled=groundwork.settings.client_roots)
        self._input_schemas: dict[str, dict[str, Any]] | None = None
        self._published = published
        self._services: Services | None = None
        self._built = False
        self.withheld: frozenset[str] = frozenset()  # the tools --read-only left out, once they are built
        # The CLI sets it: the tools and engine built on the first call join what start-up kept out of the
        # cyclic collector (gc.freeze), as they did when they were built at start-up.
        self.freeze_when_built = False

    @property
    def services(self) -> Services:
        """The engine, built on first use (the first tool call, or a test reaching into it)."""
        if self._services is None:
            from fsguard.services import Services  # the engine's modules load here, not at start-up

            self._services = Services.assemble(self.groundwork)
        return self._services

    def build_tools(self) -> None:
        """Register the real tools, once, and store what they publish unless a stored list was used.

        A stored list is checked against the real tools: the key makes a difference impossible unless
        fsguard or the SDK changed on disk while this server ran (an upgrade under a running server); then
        the error is logged (this client already holds the old list) and the fresh list stored for the next
        start.
        """
        if self._built:
            return
        from fsguard.tools import register_all

        self.withheld = frozenset(register_all(self, self.services).withheld)
        self._built = True
        if self.freeze_when_built:
            gc.freeze()
        fresh = _published.of_tools(self.groundwork.settings, self._tool_manager.list_tools())
        stored, self._published = self._published, None
        if stored is not None and fresh != stored:
            logger.error("the tools differ from the tool list this server published at start-up; restart it")
        if stored != fresh and self.groundwork.private:
            _published.store(self.groundwork.settings, self.groundwork.atomic, fresh)

    async def list_tools(self) -> list[MCPTool]:
        if self._published is not None:
            return [_published.listed(tool) for tool in self._published]
        return await super().list_tools()

    async def _tracked(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        """Middleware: a request of a 2025-11-25 HTTP session (or a 2024-11-05 one) is in :attr:`running` while it
        runs, its client there or not."""
        request = ctx.request  # the HTTP request that carried it: none on stdio
        if request is None or ctx.request_id is None or not hasattr(request, "headers"):
            return await call_next(ctx)
        session = session_key(request.headers.get("mcp-session-id"), request.query_params.get("session_id"))
        if not session:
            return await call_next(ctx)
        self.running.started(session, str(ctx.request_id))
        try:
            return await call_next(ctx)
        finally:
            self.running.ended(session, str(ctx.request_id))

    def _tool_input_schema(self, name: str) -> dict[str, Any] | None:
        if self._published is not None:
            return next((tool.input_schema for tool in self._published if tool.name == name), None)
        return super()._tool_input_schema(name)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        started = time.perf_counter()
        try:
            return await self._answered(name, arguments, context, started)
        except anyio.get_cancelled_exc_class():
            # A cancelled call gets no answer, but what it did before it stopped (a file changed and backed up) is
            # done: it is counted and audited as any other call. _account awaits nothing, so it runs to the end.
            self._account(name, arguments, error_result(CANCELLED, CANCELLED_MESSAGE), started)
            raise

    async def _answered(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None, started: float
    ) -> CallToolResult | InputRequiredResult:
        schemas = await self._schemas()
        if name not in schemas:
            # The spec makes an unknown tool a protocol error, not a tool result; it is still counted and audited.
            if self.groundwork.settings.read_only:
                self.build_tools()  # which tools --read-only withheld is known once they are registered
            error = unknown_tool(name, sorted(schemas), withheld=self.withheld)
            self._account(name, arguments, error_result("unknown_tool", error.message, error.data), started)
            raise error
        try:
            asked = await self.client_roots.scope(context)
        except FsguardError as exc:  # roots the client named and fsguard cannot read: nothing is served
            refused = error_result(exc.code, exc.message, exc.fields)
            self._account(name, arguments, refused, started)
            return refused
        if asked.ask is not None:  # 2026: the round asking for the client's roots; the call comes back with them
            return asked.ask
        self.build_tools()
        # Imported with the tools, not at start-up: fsguard.voice loads every voice and result model.
        from fsguard.tools._wire import wire_result
        from fsguard.voice.paths import naming_under, shortened_error

        with (
            scoped(asked.scope),
            serving(client_key(context)),  # the auto-OCC memory of this connection
            naming_under(self.groundwork.policy.active_roots()),
        ):  # texts: paths from the first root
            try:
                result: CallToolResult | InputRequiredResult = await super().call_tool(
                    name, normalize(name, arguments, schemas[name]), context
                )
            except FsguardError as exc:
                result = error_result(exc.code, shortened_error(exc.message), exc.fields)
            except ToolError as exc:
                result = result_for(exc, name)
            # A guess offered to a delete would invite deleting another file: delete_file's miss stays plain.
            if isinstance(result, CallToolResult) and error_code(result) == "not_found" and name != "delete_file":
                result = await anyio.to_thread.run_sync(with_near_paths, result, self._near_paths)  # a listing or two
            if isinstance(result, CallToolResult) and result.is_error:
                result = state_dir_error(result, self.groundwork.settings.state_dir)
            if isinstance(result, InputRequiredResult):
                # 2026: a round asking the user (a confirmation) must ask for the roots again too, or its retry,
                # which answers only what this round asks, would be asked for the roots, and round after round.
                result = self.client_roots.asking_again(result, context)
        # Accounted before the wire's scrub: the audit line escapes a name's bytes that are not UTF-8, where the
        # answer can only show U+FFFD.
        self._account(name, arguments, result, started)
        return wire_result(result) if isinstance(result, CallToolResult) else result

    def _account(
        self, name: str, arguments: dict[str, Any], result: CallToolResult | InputRequiredResult, started: float
    ) -> None:
        """Count the call in the stats and write its audit line."""
        if isinstance(result, InputRequiredResult):
            return  # a round that asks the user (2026-07-28): the call is counted once, by the round that ends it
        code = error_code(result) if isinstance(result, CallToolResult) else None
        if code:
            logger.info("%s failed: %s", name, code)
        self.groundwork.stats.record(name, code)
        if self.groundwork.audit is not None and isinstance(result, CallToolResult):
            self.groundwork.audit.record(audit_entry(name, arguments, result, code, time.perf_counter() - started))

    async def serve_streams(self, read_stream: Any, write_stream: Any) -> None:
        """Serve one connection over already-framed streams (what ``stdio_server`` yields)."""
        # MCPServer only exposes this pairing through run_stdio_async, which insists on its own stdio.
        await self._lowlevel_server.run(
            read_stream, write_stream, self._lowlevel_server.create_initialization_options()
        )

    async def _schemas(self) -> dict[str, dict[str, Any]]:
        if self._input_schemas is None:
            self._input_schemas = {tool.name: tool.input_schema for tool in await self.list_tools()}
        return self._input_schemas


def traced() -> bool:
    """Whether OpenTelemetry has a tracer provider (set in code, by ``opentelemetry-instrument`` or by
    ``OTEL_PYTHON_TRACER_PROVIDER``) when the server is built: only then do the SDK's spans reach an exporter."""
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


def unknown_tool(name: str, offered: list[str], *, withheld: frozenset[str] = frozenset()) -> MCPError:
    """JSON-RPC -32602 "Unknown tool: NAME"; ``data`` names the closest offered tool when one is near, or why a tool
    fsguard has is not offered (``withheld`` by --read-only)."""
    if name in withheld:
        return MCPError(
            code=INVALID_PARAMS,
            message=f"Unknown tool: {name}: {_published.READ_ONLY_ADVICE}",
            data={"name": name, "reason": "read_only"},
        )
    suggestion = _tool_like(name, offered)
    data: dict[str, Any] = {"name": name}
    if suggestion:
        data["did_you_mean"] = suggestion
    return MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name}", data=data)


def _tool_like(name: str, offered: list[str]) -> str | None:
    """The offered tool ``name`` most likely meant: the only one it starts (``edit`` is edit_file, ``list_dir``
    list_directory), else the only one it is a word of, else the closest by spelling (``edit`` is two letters from
    ``git``, which no one calling ``edit`` meant)."""
    folded = name.lower().strip("_")
    starting = [tool for tool in offered if folded and tool.startswith(folded)]
    worded = [tool for tool in offered if folded and folded in tool.split("_")]
    for found in (starting, worded):
        if len(found) == 1:
            return found[0]
    return closest(name, offered)


def instructions(groundwork: Groundwork) -> str:
    """Server instructions: scope and where to start, no rule block."""
    scope = "read-only access" if groundwork.settings.read_only else "access"
    return (
        f"fsguard gives {scope} to the real host filesystem (not a sandbox) under these roots: "
        f"{groundwork.policy.describe_roots()}. "
        "Relative paths, in calls and in result texts, start at the first root. Call help() for the tool catalog."
    )


def build_server(settings: Settings) -> FsguardServer:
    """A ready server for ``settings``; run it with any transport, or hand it to an in-memory Client."""
    groundwork = Groundwork.lay(settings)
    # A list an agent could have written (a state dir it can reach) is never published: its descriptions would
    # be text an agent chose, read by the next client as the server's own.
    stored = _published.load(settings) if groundwork.private else None
    server = FsguardServer(
        groundwork, stored, name="fsguard", version=__version__, instructions=instructions(groundwork)
    )
    # Runs a kill cut short are ended (rolled back) by the engine: built now, before anything is served.
    if stored is None or groundwork.unfinished:
        server.build_tools()
    return server
