"""get_file_info and create_directory."""

from __future__ import annotations

from typing import Annotated

from mcp.types import CallToolResult
from pydantic import Field

from fsguard.core.errors import InvalidParamsError
from fsguard.models import CreateDirectoryResult, GetFileInfoResult
from fsguard.tools._errors import bridge, missing_path
from fsguard.tools._params import Catalog, PathArg, PathsArg, hints, respond, voiced
from fsguard.tools._weights import file_weigher
from fsguard.voice import create_directory_text, info_many_text, info_text


def register(catalog: Catalog) -> None:
    """Add get_file_info and create_directory to the catalog."""
    services = catalog.services

    @bridge
    def get_file_info(
        path: Annotated[str | None, Field(description="File or directory to inspect.")] = None,
        paths: PathsArg = None,
    ) -> Annotated[CallToolResult, GetFileInfoResult]:
        """A path's facts (type, size, times, hash, lines) without reading it; content: read_file.

        `paths` inspects several at once and reports failures per path. A symlink is followed and reported.
        """
        if paths is not None:
            if path is not None:
                raise InvalidParamsError("pass path or paths, not both.")
            files = services.metadata.describe_many(paths)
            result = GetFileInfoResult(files=files)
            return respond(result, info_many_text(result, catalog.compact))
        if path is None:
            raise missing_path("get_file_info", 'get_file_info(path="README.md")')
        canonical, facts = services.metadata.describe(path)
        result = GetFileInfoResult(path=str(canonical), **facts.model_dump(exclude_none=True))
        return respond(result, info_text(str(canonical), facts, catalog.compact))

    @bridge
    def create_directory(path: PathArg) -> Annotated[CallToolResult, CreateDirectoryResult]:
        """Create a directory and its parents (write_file makes a file's parents itself). An existing directory is
        success with created=false."""
        canonical, created = services.directories.create(path)
        result = CreateDirectoryResult(path=str(canonical), created=created, message="")
        return voiced(result, create_directory_text, catalog.compact)

    catalog.add(
        get_file_info,
        hints("File Info", read_only=True),
        [("one file", {"path": "README.md"}), ("several", {"paths": ["src", "README.md"]})],
        on_loop="read",
        weigh=file_weigher(services.policy, loaded_below=None),
    )
    catalog.add(
        create_directory,
        hints("Create Directory", read_only=False, destructive=False, idempotent=True),
        [("nested directories", {"path": "build/reports/2026"})],
    )
