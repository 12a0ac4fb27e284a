"""list_directory."""

from __future__ import annotations

from typing import Annotated, Literal

from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.errors import InvalidParamsError
from fsguard.models import ListDirectoryResult
from fsguard.tools._errors import bridge
from fsguard.tools._params import Catalog, hints, respond
from fsguard.voice import json_text, listing_text


def register(catalog: Catalog) -> None:
    """Add list_directory to the catalog."""
    services = catalog.services

    @bridge
    def list_directory(
        path: Annotated[str, Field(description="Directory to list; default: the first root.")] = ".",
        output_format: Annotated[
            Literal["compact", "json", "tree", "text"],
            Field(description="compact or text (a listing), json (text block = the JSON), tree (nested to max_depth)."),
        ] = "compact",
        max_depth: Annotated[int, Field(ge=1, le=20, description="Levels shown by output_format=tree.")] = 2,
        include_hidden: Annotated[
            bool, Field(description="Include names starting with '.' (left out: their count is in hidden).")
        ] = True,
        respect_gitignore: Annotated[
            bool, Field(description="Leave out what .gitignore files exclude (their count is in ignored).")
        ] = True,
        offset: Annotated[int, Field(ge=0, description="Skip this many entries (from next_offset).")] = 0,
        limit: Annotated[
            int | None,
            Field(ge=1, description="Entries per page, or nodes of a tree; at most --max-list-items (default 500)."),
        ] = None,
    ) -> Annotated[CallToolResult, ListDirectoryResult]:
        """See one directory (or a tree); to find files by name or content use search_files.

        Pages with offset/limit (truncated and next_offset say when more remain); output_format=tree
        shows nested levels down to max_depth. Symlinks leaving the roots are listed but not followed.
        """
        if output_format == "tree":
            if offset:
                raise InvalidParamsError(
                    "offset pages a flat listing; a tree has no pages. A directory the tree cut says so (cut): list "
                    "it with path=<that directory>, or drop output_format='tree' to page with offset."
                )
            result = services.lister.tree(
                path,
                include_hidden=include_hidden,
                max_depth=max_depth,
                respect_gitignore=respect_gitignore,
                limit=limit,
            )
        else:
            result = services.lister.page(
                path, include_hidden=include_hidden, offset=offset, limit=limit, respect_gitignore=respect_gitignore
            )
            result = result.model_copy(update={"output_format": "json" if output_format == "json" else "compact"})
        text = json_text(result, catalog.compact) if output_format == "json" else listing_text(result, catalog.compact)
        return respond(result, text)

    catalog.add(
        list_directory,
        hints("List Directory", read_only=True),
        [
            ("the first root", {}),
            ("a subdirectory as a tree", {"path": "src", "output_format": "tree", "max_depth": 3}),
            ("next page", {"path": "data", "offset": 500}),
        ],
        on_loop="read",
    )
