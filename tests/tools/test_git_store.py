"""git's object stores under the deny rules: a committed file's bytes are in them, a hidden file's too, so no tool
reads, lists or finds anything there; a folder named objects anywhere else reads as usual. Both protocol eras."""

from __future__ import annotations

import base64
import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, text_of
from tests.tools.test_git import git, make_repo

pytestmark = pytest.mark.anyio

SECRET = "API_KEY=do-not-print\n"


@pytest.fixture
def repo(root: Path) -> Path:
    """A repository with a committed .env, which the default deny rules hide."""
    made = make_repo(root)
    (made / ".env").write_text(SECRET, encoding="utf-8")
    git(made, "add", "-f", ".env")
    git(made, "commit", "-q", "-m", "env")
    return made


def loose_object(store: Path, revision: str, cwd: Path) -> Path:
    name = git(cwd, "rev-parse", revision).strip()
    return store / "objects" / name[:2] / name[2:]


async def test_no_tool_reads_the_loose_object_holding_a_hidden_files_bytes(client: Client, repo: Path) -> None:
    found = loose_object(repo / ".git", "HEAD:.env", repo)
    assert found.is_file()
    for tool, arguments in (
        ("read_file", {"path": str(found), "encoding": "base64"}),
        ("read_file", {"path": str(found)}),
        ("get_file_info", {"path": str(found)}),
        ("list_directory", {"path": str(found.parent)}),
        ("list_directory", {"path": str(repo / ".git" / "objects")}),
        ("copy_file", {"source_path": str(found), "dest_path": str(repo / "copied")}),
    ):
        result = await client.call_tool(tool, arguments)
        assert error_code(result) == "access_denied", (tool, text_of(result))
    assert not (repo / "copied").exists()


async def test_a_pack_is_unread_as_loose_objects_are(client: Client, repo: Path) -> None:
    git(repo, "gc", "-q")
    packs = sorted((repo / ".git" / "objects" / "pack").glob("*.pack"))
    assert packs
    result = await client.call_tool("read_file", {"path": str(packs[0]), "encoding": "base64"})
    assert error_code(result) == "access_denied"


async def test_a_bare_repository_keeps_its_objects_from_reads_and_searches(
    client: Client, repo: Path, root: Path, tool_engine: str
) -> None:
    # Named like any folder, and storing objects uncompressed: pushed into, it holds the hidden file's bytes as text.
    stash = root / "stash"
    subprocess.run(["git", "init", "-q", "--bare", str(stash)], check=True)
    git(stash, "config", "core.looseCompression", "0")
    git(repo, "push", "-q", str(stash), "main")
    found = loose_object(stash, "HEAD:.env", repo)
    assert b"do-not-print" in found.read_bytes()
    read = await client.call_tool("read_file", {"path": str(found), "encoding": "base64"})
    assert error_code(read) == "access_denied"
    searched = await client.call_tool(
        "search_files", {"pattern": "do-not-print", "path": str(stash), "include_content": True}
    )
    assert not searched.is_error, text_of(searched)
    answer = text_of(searched) + json.dumps(searched.structured_content)
    assert "objects" not in answer
    assert (searched.structured_content or {})["total_matches"] == 0
    replaced = await client.call_tool(
        "project_replace", {"find": "do-not-print", "replace": "x", "path": str(stash), "preview": True}
    )
    assert "objects" not in text_of(replaced) + json.dumps(replaced.structured_content)
    named = await client.call_tool("search_files", {"pattern": "*", "path": str(stash)})
    assert found.name not in text_of(named) + json.dumps(named.structured_content)
    assert b"do-not-print" in found.read_bytes()


async def test_taking_head_out_of_a_bare_repository_leaves_its_objects_unread(
    client: Client, repo: Path, root: Path
) -> None:
    stash = root / "stash"
    subprocess.run(["git", "init", "-q", "--bare", str(stash)], check=True)
    git(repo, "push", "-q", str(stash), "main")
    found = loose_object(stash, "HEAD:.env", repo)
    for name in ("HEAD", "refs"):
        deleted = await client.call_tool("delete_file", {"path": str(stash / name), "recursive": True})
        assert not deleted.is_error, text_of(deleted)
    assert not (stash / "HEAD").exists()
    read = await client.call_tool("read_file", {"path": str(found), "encoding": "base64"})
    assert error_code(read) == "access_denied"
    planted = await client.call_tool("write_file", {"path": str(stash / "objects" / "notes.txt"), "content": "x"})
    assert error_code(planted) == "access_denied"  # a name git never makes there would unmake the store
    assert not (stash / "objects" / "notes.txt").exists()


async def test_no_tool_reads_or_finds_gits_lists_of_the_tracked_files_which_name_hidden_ones(
    client: Client, repo: Path, tool_engine: str
) -> None:
    # The index names .env and holds its object id (short bytes are guessed from one); so do a split index's shared
    # part and a linked worktree's index, and a message git drafted lists the files a commit changed.
    git(repo, "worktree", "add", "-q", str(repo.parent / "linked"))
    git(repo, "update-index", "--split-index")
    dot_git = repo / ".git"
    (dot_git / "COMMIT_EDITMSG").write_text("env\n# Changes to be committed:\n#\tnew file:   .env\n", encoding="utf-8")
    records = [dot_git / "index", dot_git / "worktrees" / "linked" / "index", dot_git / "COMMIT_EDITMSG"]
    records += sorted(dot_git.glob("sharedindex.*"))
    assert len(records) == 4
    assert all(b".env" in each.read_bytes() for each in records[1:])  # split, the index itself holds none
    searched = await client.call_tool(
        "search_files", {"pattern": "new file", "path": str(dot_git), "include_content": True, "include_hidden": True}
    )
    assert not searched.is_error, text_of(searched)
    assert "COMMIT_EDITMSG" not in text_of(searched) + json.dumps(searched.structured_content)
    assert (searched.structured_content or {})["total_matches"] == 0
    for record in records:
        for encoding in ("base64", "utf-8"):
            read = await client.call_tool("read_file", {"path": str(record), "encoding": encoding})
            assert error_code(read) == "access_denied", (record, text_of(read))
            assert 'git(action="status")' in text_of(read)
    listed = await client.call_tool("list_directory", {"path": str(dot_git), "include_hidden": True})
    assert "index" in text_of(listed)  # its name alone is git's, not the repository's


async def test_a_folder_named_objects_or_lfs_outside_any_repository_reads_as_usual(client: Client, root: Path) -> None:
    for folder in ("objects", "lfs", "src/objects"):
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / "model.txt").write_text("plain\n", encoding="utf-8")
        result = await client.call_tool("read_file", {"path": str(root / folder / "model.txt")})
        assert not result.is_error, text_of(result)
        assert (result.structured_content or {})["content"] == "plain\n"


async def test_reading_a_file_through_base64_still_works_beside_a_repository(client: Client, repo: Path) -> None:
    result = await client.call_tool("read_file", {"path": str(repo / "a.txt"), "encoding": "base64"})
    assert base64.b64decode((result.structured_content or {})["content"]) == b"alpha\n"
