"""fsguard: an MCP server that gives AI agents safe, typed access to a filesystem."""

__version__ = "0.1.0"

__all__ = ["__version__"]
