"""Protocol adapters: each tool is a signature, a docstring, annotations and one core call."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from fsguard.services import Services
    from fsguard.tools._params import Catalog


def register_all(server: MCPServer, services: Services) -> Catalog:
    """Register every tool the settings allow; returns the catalog (examples for help)."""
    # Imported here, not at the top: a server answers tools/list from its stored list and builds the tools
    # (these modules, the models and the engine they import) on the first call; see tools/_published.py.
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
        replacing,
        search,
        writing,
        wsl,
    )
    from fsguard.tools._params import Catalog

    catalog = Catalog(server, services)
    families = (
        reading,
        writing,
        editing,
        files,
        fileops,
        listing,
        search,
        replacing,
        backup,
        batch,
        git,
        minify,
        wsl,
        meta,
    )
    for family in families:
        family.register(catalog)
    return catalog
