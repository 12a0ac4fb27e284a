"""The smallest MCPServer the SDK allows, one tool, over stdio: the floor for start-up time and idle memory."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("one-tool")


@server.tool()
def echo(text: str) -> str:
    """Return the text."""
    return text


if __name__ == "__main__":
    server.run()
