"""Protocol adapters: each tool is a signature, a docstring, annotations and one core call."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from fsguard.services import Services
from fsguard.tools import (
    backup,
    batch,
    editing,
    fileops,
    files,
    git,
    listing,
    meta,
    minify,
    reading,
    search,
    writing,
    wsl,
)
from fsguard.tools._params import Catalog


def register_all(server: MCPServer, services: Services) -> Catalog:
    """Register every tool the settings allow; returns the catalog (examples for help)."""
    catalog = Catalog(server, services)
    families = (reading, writing, editing, files, fileops, listing, search, backup, batch, git, minify, wsl, meta)
    for family in families:
        family.register(catalog)
    return catalog
