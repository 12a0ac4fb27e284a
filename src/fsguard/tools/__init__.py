"""Protocol adapters: each tool is a signature, a docstring, annotations and one core call."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from fsguard.services import Services
from fsguard.tools import backup, editing, fileops, files, listing, meta, reading, search, writing
from fsguard.tools._params import Catalog


def register_all(server: MCPServer, services: Services) -> Catalog:
    """Register every tool the settings allow; returns the catalog (examples for help)."""
    catalog = Catalog(server, services)
    for family in (reading, writing, editing, files, fileops, listing, search, backup, meta):
        family.register(catalog)
    return catalog
