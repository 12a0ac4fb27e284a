"""A search says nothing of the files a deny rule hides, in both engines and both eras: not their names, not their
contents, not how many of them hold a match. A count of the hidden files a pattern matched answered, one query at
a time, what a secret holds ("TOKEN=A", "TOKEN=B", … until the count turns 1) or what it is called."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import structured, text_of
from tests.tools.test_least_privilege import tree

pytestmark = pytest.mark.anyio

SECRET = {".env": "TOKEN=S3CR3T\n", "keys/prod-2026.pem": "-----BEGIN KEY----- S3CR3T\n", "notes.txt": "TOKEN=\n"}


def without_pattern(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key != "pattern"}


async def answers(client: Client, pattern: str, **arguments: Any) -> tuple[dict[str, Any], str]:
    found = await client.call_tool("search_files", {"pattern": pattern, "include_hidden": True, **arguments})
    return without_pattern(structured(found)), text_of(found).replace(pattern, "<pattern>")


@pytest.mark.parametrize(
    ("arguments", "hit", "miss"),
    [
        ({"include_content": True}, "TOKEN=S", "TOKEN=X"),
        ({"include_content": True, "regex": True}, r"TOKEN=S3", r"TOKEN=S4"),
        ({"include_content": True, "count_only": True}, "S3CR3T", "S3CR4T"),
        ({"include_content": True, "regex": True}, r"BEGIN KEY-+ S", r"BEGIN KEY-+ X"),
        ({"include_content": True, "regex": True, "max_results": 1}, r"TOKEN=(S|$)", r"TOKEN=(X|$)"),
        ({"include_content": True, "regex": True, "count_only": True}, r"TOKEN=(S|$)", r"TOKEN=(X|$)"),
        ({}, "prod-2*.pem", "prod-3*.pem"),
        ({}, "*.pem", "*.pen"),
    ],
)
async def test_a_search_answers_the_same_whatever_a_hidden_file_holds_or_is_called(
    client: Client, root: Path, tool_engine: str, arguments: dict[str, Any], hit: str, miss: str
) -> None:
    before = tree(root, SECRET)
    matching, not_matching = await answers(client, hit, **arguments), await answers(client, miss, **arguments)
    assert matching == not_matching
    assert "S3CR3T" not in str(matching)
    assert tree(root, {}) == before


@pytest.mark.parametrize(
    ("arguments", "hit", "miss"),
    [({"include_content": True}, "TOKEN=S", "TOKEN=X"), ({}, "prod-2*.pem", "prod-3*.pem")],
)
async def test_a_search_reports_progress_alike_whatever_a_hidden_file_holds_or_is_called(
    client: Client, root: Path, tool_engine: str, arguments: dict[str, Any], hit: str, miss: str
) -> None:
    tree(root, SECRET)
    reports: dict[str, list[float]] = {hit: [], miss: []}
    for pattern, seen in reports.items():

        async def on_progress(
            progress: float, total: float | None, message: str | None, seen: list[float] = seen
        ) -> None:
            seen.append(progress)

        await client.call_tool(
            "search_files", {"pattern": pattern, "include_hidden": True, **arguments}, progress_callback=on_progress
        )
    # rg's reports counted the files it named, the hidden one holding the pattern too: one report against none
    assert bool(reports[hit]) == bool(reports[miss])
    assert all(seen == sorted(seen) for seen in reports.values())
