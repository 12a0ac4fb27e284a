"""A one-tool MCPServer on fsguard's SDK whose answer is as large as asked: the floor under an fsguard call of that
size (the SDK's request handling, validation, dumps and a stdio transport), with no file work at all.

    .venv/bin/python benchmarks/floor_server.py                  # the SDK's own stdio; the tool is text(size)
    .venv/bin/python benchmarks/floor_server.py --fsguard-stdio  # fsguard's stdio transport, as fsguard serves
    .venv/bin/python benchmarks/floor_server.py --fsguard-stdio --on-loop  # the tool a coroutine, as fsguard's are

The SDK runs a plain function's call on a worker thread, a coroutine's on the event loop; fsguard's tools run on
the loop (tools/_params.py), so ``--on-loop`` is the floor under its calls, without the thread hop.
"""

import sys
from typing import Any

import anyio
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from fsguard.stdio import serve_stdio


class FloorServer(MCPServer):
    """An MCPServer that fsguard's stdio transport can serve."""

    async def serve_streams(self, read_stream: Any, write_stream: Any) -> None:
        lowlevel = self._lowlevel_server
        await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


server = FloorServer("floor")


class Text(BaseModel):
    """The structured copy of the text, as fsguard's read sends the content twice (text block and structure)."""

    content: str


def text(size: int) -> Text:
    """Return ``size`` characters in lines of 50, as the harness's generated files are."""
    line = "x" * 49 + "\n"
    return Text(content=(line * (size // 50 + 1))[:size])


async def text_on_loop(size: int) -> Text:
    """Return ``size`` characters in lines of 50, as the harness's generated files are."""
    return text(size)


server.tool(name="text")(text_on_loop if "--on-loop" in sys.argv[1:] else text)


if __name__ == "__main__":
    if "--fsguard-stdio" in sys.argv[1:]:
        anyio.run(serve_stdio, server)
    else:
        server.run()
