"""An edit whose result would pass --max-file-size is refused while it is planned, dry runs and previews too."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, text_of

pytestmark = pytest.mark.anyio

LIMIT = 1000
SEED = "x\n" * 100  # 200 bytes, 100 matches of "x"


@pytest.mark.parametrize(
    "edit",
    [
        {"old_text": "x", "new_text": "y" * 50, "replace_all": True},
        {"mode": "regex", "pattern": "x", "replacement": "y" * 50},
        {"mode": "search_replace", "pattern": "x", "replacement": "y" * 50},
    ],
    ids=["replace_all", "regex", "search_replace"],
)
async def test_a_dry_run_edit_whose_result_passes_the_limit_is_too_large(
    connect: ClientFactory, root: Path, edit: dict[str, object]
) -> None:
    (root / "f.txt").write_text(SEED, encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool("edit_file", {"path": "f.txt", **edit, "dry_run": True})
    assert error_code(result) == "too_large"
    assert (root / "f.txt").read_text(encoding="utf-8") == SEED


@pytest.mark.parametrize("literal", [True, False])
async def test_a_project_replace_preview_whose_result_passes_the_limit_is_too_large(
    connect: ClientFactory, root: Path, literal: bool
) -> None:
    (root / "f.txt").write_text(SEED, encoding="utf-8")
    async with connect(max_file_size=LIMIT) as client:
        result = await client.call_tool(
            "project_replace",
            {"find": "x", "replace": "y" * 50, "path": ".", "literal": literal, "preview": True},
        )
    assert error_code(result) == "too_large"
    assert "--max-file-size" in text_of(result)
    assert (root / "f.txt").read_text(encoding="utf-8") == SEED
