"""Pipeline templates filled into step params, in both protocol eras. The bytes on disk are the oracle."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import structured

pytestmark = pytest.mark.anyio


async def test_a_files_list_holding_a_steps_files_template_edits_each_of_those_files(
    client: Client, root: Path
) -> None:
    # "{{find.files}}" as a list item became one item, the paths joined at commas: a path that does not exist,
    # and the pipeline failed with "a.py, does not exist" as soon as the search found two files.
    (root / "a.py").write_bytes(b"old_api\n")
    (root / "b.py").write_bytes(b"x = old_api\n")
    (root / "c.txt").write_bytes(b"nothing\n")
    steps = [
        {"id": "find", "action": "search", "params": {"pattern": "old_api", "path": "."}},
        {
            "id": "fix",
            "action": "edit",
            "params": {"files": ["{{find.files}}"], "old_text": "old_api", "new_text": "new"},
        },
    ]
    result = structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": steps}}))
    assert (result["status"], result["steps"][1]["count"]) == ("applied", 2)
    assert (root / "a.py").read_bytes() == b"new\n"
    assert (root / "b.py").read_bytes() == b"x = new\n"
    assert (root / "c.txt").read_bytes() == b"nothing\n"


async def test_a_files_text_template_edits_the_files_the_search_found_even_one_with_a_comma_in_its_name(
    client: Client, root: Path
) -> None:
    # "files": "{{find.files}}" (the seed's form) was filled with the paths joined at commas, then split at commas:
    # "sub/notes, draft.md" edited the bystanders sub/notes and draft.md, and the file it found stayed as it was.
    (root / "sub").mkdir()
    (root / "sub" / "notes, draft.md").write_bytes(b"TODO fix\n")
    (root / "sub" / "plain.md").write_bytes(b"TODO fix too\n")
    (root / "sub" / "notes").write_bytes(b"TODO keep\n")
    (root / "draft.md").write_bytes(b"TODO keep\n")
    steps = [
        {"id": "find", "action": "search", "params": {"pattern": "TODO fix", "path": "sub"}},
        {"id": "fix", "action": "edit", "params": {"files": "{{find.files}}", "old_text": "TODO", "new_text": "DONE"}},
    ]
    result = structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": steps}}))
    assert (result["status"], result["steps"][1]["count"]) == ("applied", 2)
    assert (root / "sub" / "notes, draft.md").read_bytes() == b"DONE fix\n"
    assert (root / "sub" / "plain.md").read_bytes() == b"DONE fix too\n"
    assert (root / "sub" / "notes").read_bytes() == b"TODO keep\n"
    assert (root / "draft.md").read_bytes() == b"TODO keep\n"


async def test_a_files_text_naming_one_file_with_a_comma_edits_it_and_a_comma_list_still_names_each_file(
    client: Client, root: Path
) -> None:
    # Text was always split at commas: "notes, draft.md" failed with "notes does not exist". The whole text now
    # names the file when one is there; otherwise it is the seed's comma list.
    (root / "notes, draft.md").write_bytes(b"TODO\n")
    (root / "a.md").write_bytes(b"TODO a\n")
    (root / "b.md").write_bytes(b"TODO b\n")
    for files in ("notes, draft.md", "a.md, b.md"):
        steps = [{"id": "fix", "action": "edit", "params": {"files": files, "old_text": "TODO", "new_text": "DONE"}}]
        structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "t", "steps": steps}}))
    assert (root / "notes, draft.md").read_bytes() == b"DONE\n"
    assert (root / "a.md").read_bytes() == b"DONE a\n"
    assert (root / "b.md").read_bytes() == b"DONE b\n"
