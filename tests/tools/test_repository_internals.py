"""The file tools never create, delete or move a repository's internals (.git), in any spelling, in both eras.

git runs what hooks and config inside .git name; and a .git it cannot read (an empty one, one missing its HEAD)
makes git take the directory around it for the repository instead, whose config any file tool can write. So no
file tool makes, removes or carries away a .git or anything in it.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core.trashentries import TrashEntry, new_sd_id
from tests.conftest import error_code, structured, text_of
from tests.tools.test_batch_request import snapshot
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio


def planting(root: Path, marker: Path) -> list[tuple[str, dict[str, Any]]]:
    """File-tool calls that turn ``root`` itself into a git directory whose clean filter writes ``marker``."""
    config = f'[core]\n\tbare = false\n\tworktree = {root}\n[filter "x"]\n\tclean = "id > {marker} && cat"\n'
    return [
        ("create_directory", {"path": str(root / "objects")}),
        ("create_directory", {"path": str(root / "refs")}),
        ("write_file", {"path": str(root / "HEAD"), "content": "ref: refs/heads/main\n"}),
        ("write_file", {"path": str(root / "config"), "content": config}),
        ("write_file", {"path": str(root / ".gitattributes"), "content": "* filter=x\n"}),
        ("write_file", {"path": str(root / "a.txt"), "content": "hi\n"}),
    ]


async def test_create_directory_refuses_a_git_directory_in_any_spelling_and_creates_nothing(
    client: Client, root: Path
) -> None:
    for path in ("sub/.git", ".git", "sub/.GIT", "deep/.Git/hooks"):
        result = await client.call_tool("create_directory", {"path": path})
        assert error_code(result) == "access_denied", path
        assert ".git" in text_of(result)
    made = await client.call_tool("batch_operations", {"request_json": [{"type": "create_dir", "path": "x/.git"}]})
    assert made.is_error
    assert list(root.iterdir()) == []


async def test_git_internals_are_never_deleted_or_moved_away(client: Client, root: Path) -> None:
    make_repo(root)
    before = snapshot(root)

    def pipeline(action: str, **params: Any) -> dict[str, Any]:
        return {"pipeline_json": {"name": "git", "steps": [{"action": action, "params": params}]}}

    attempts: list[tuple[str, dict[str, Any]]] = [
        ("delete_file", {"path": ".git/HEAD"}),
        ("delete_file", {"path": ".git/HEAD", "permanent": True}),
        ("delete_file", {"path": ".git", "recursive": True}),
        ("delete_file", {"path": ".GIT", "recursive": True, "permanent": True}),
        ("move_file", {"source_path": ".git/HEAD", "dest_path": "HEAD"}),
        ("move_file", {"source_path": ".git", "dest_path": "git-was-here"}),
        ("batch_operations", {"request_json": [{"type": "delete", "path": ".git/config"}]}),
        ("batch_operations", {"request_json": [{"type": "move", "source": ".git", "destination": "g"}]}),
        ("batch_operations", pipeline("delete", files=[".git/HEAD"])),
        ("batch_operations", pipeline("rename", files=[".git/config"], destination="out")),
    ]
    for tool, arguments in attempts:
        result = await client.call_tool(tool, arguments)
        assert result.is_error, (tool, arguments, text_of(result))
        assert ".git" in text_of(result), (tool, arguments)
    several = await client.call_tool("delete_file", {"paths": [".git/HEAD", ".git/index"]})
    assert error_code(several) == "access_denied"
    assert (several.meta or {})["fsguard/error"]["failed_codes"] == ["access_denied", "access_denied"]
    assert snapshot(root) == before
    assert git(root, "rev-parse", "--git-dir").strip() == ".git"


async def test_restore_trash_never_puts_an_entry_back_inside_git(client: Client, root: Path, state_dir: Path) -> None:
    make_repo(root)
    hook = root / ".git" / "hooks" / "pre-commit"
    now = 1_700_000_000.0
    entry = TrashEntry(new_sd_id(now), str(hook), "file", 10, 1, "0" * 64, now)  # trashed before this rule held
    home = state_dir / "trash" / entry.sd_id
    home.mkdir(parents=True)
    (home / "meta.json").write_text(json.dumps(asdict(entry)), encoding="utf-8")
    (home / "item").write_text("#!/bin/sh\n", encoding="utf-8")
    refused = await client.call_tool("backup", {"action": "restore_trash", "sd_id": entry.sd_id})
    assert error_code(refused) == "access_denied"
    assert ".git" in text_of(refused)
    assert not hook.exists()
    assert (home / "item").read_text(encoding="utf-8") == "#!/bin/sh\n"


async def test_an_empty_git_directory_cannot_be_made_to_run_a_planted_filter(
    client: Client, root: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "pwned"
    sub = root / "sub"
    refused = await client.call_tool("create_directory", {"path": "sub/.git"})
    assert error_code(refused) == "access_denied"
    for tool, arguments in planting(sub, marker):
        structured(await client.call_tool(tool, arguments))
    await client.call_tool("git", {"action": "add", "path": "sub", "paths": ["a.txt"]})
    assert not (sub / ".git").exists()
    assert not marker.exists()


async def test_a_repository_cannot_lose_its_head_to_run_a_planted_filter(
    client: Client, root: Path, tmp_path: Path
) -> None:
    make_repo(root)
    marker = tmp_path / "pwned"
    refused = await client.call_tool("delete_file", {"path": ".git/HEAD"})
    assert error_code(refused) == "access_denied"
    for tool, arguments in planting(root, marker):
        await client.call_tool(tool, arguments)
    await client.call_tool("git", {"action": "add", "paths": ["a.txt"]})
    assert (root / ".git" / "HEAD").read_text(encoding="utf-8") == "ref: refs/heads/main\n"
    assert not marker.exists()
