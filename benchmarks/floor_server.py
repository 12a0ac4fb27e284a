"""A one-tool MCPServer on fsguard's SDK whose answer is as large as asked: the floor under an fsguard call of that
size (the SDK's request handling, validation, dumps and the stdio transport), with no file work at all.

    .venv/bin/python benchmarks/floor_server.py        # stdio; the tool is text(size)
"""

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

server = MCPServer("floor")


class Text(BaseModel):
    """The structured copy of the text, as fsguard's read sends the content twice (text block and structure)."""

    content: str


@server.tool()
def text(size: int) -> Text:
    """Return ``size`` characters in lines of 50, as the harness's generated files are."""
    line = "x" * 49 + "\n"
    return Text(content=(line * (size // 50 + 1))[:size])


if __name__ == "__main__":
    server.run()
