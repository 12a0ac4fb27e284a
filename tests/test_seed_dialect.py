"""Every tool called as agents and prompts written for the seed server call it, and the effect the seed documents.

The shapes come from the seed server's catalog (its tool-by-tool reference, §1, and the behaviours its
tests pin, §4): the seed's parameter names and aliases (``old_str``, ``edits_json`` as JSON text, ``type`` for a
pipeline step's action), booleans as strings, lists as JSON text or comma lists, and its optional flags. At least one
case per tool; each checks the bytes on disk where a file changes. Both protocol eras, through the ``client`` fixture.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def tree(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_bytes(b"def old_name():\r\n    return 1\r\n")
    (root / "src" / "util.py").write_bytes(b"from app import old_name\n")
    (root / "notes.txt").write_bytes(b"alpha\nbeta\ngamma\n")
    return root


async def test_read_file_takes_a_line_range_and_paths_as_json_text(client: Client, tree: Path) -> None:
    ranged = structured(await client.call_tool("read_file", {"path": "notes.txt", "start_line": 2, "end_line": 3}))
    assert ranged["content"] == "beta\ngamma\n"
    many = structured(await client.call_tool("read_file", {"paths": '["notes.txt", "src/util.py"]'}))
    assert [f["content"] for f in many["files"]] == ["alpha\nbeta\ngamma\n", "from app import old_name\n"]


async def test_write_file_takes_content_base64(client: Client, tree: Path) -> None:
    structured(await client.call_tool("write_file", {"path": "bin/blob.dat", "content_base64": "AAEC/w=="}))
    assert (tree / "bin" / "blob.dat").read_bytes() == b"\x00\x01\x02\xff"


async def test_edit_file_takes_old_str_and_new_str_and_keeps_crlf(client: Client, tree: Path) -> None:
    result = await client.call_tool("edit_file", {"path": "src/app.py", "old_str": "old_name", "new_str": "new_name"})
    assert structured(result)["replacements"] == 1
    assert (tree / "src" / "app.py").read_bytes() == b"def new_name():\r\n    return 1\r\n"


async def test_edit_file_search_replace_mode_with_string_booleans(client: Client, tree: Path) -> None:
    arguments = {"path": "notes.txt", "mode": "search_replace", "pattern": "beta", "replacement": "BETA"}
    dry = structured(await client.call_tool("edit_file", {**arguments, "dry_run": "true"}))
    assert dry["dry_run"] is True
    assert (tree / "notes.txt").read_bytes() == b"alpha\nbeta\ngamma\n"
    structured(await client.call_tool("edit_file", {**arguments, "dry_run": "false"}))
    assert (tree / "notes.txt").read_bytes() == b"alpha\nBETA\ngamma\n"


async def test_edit_file_accepts_the_seeds_force_and_create_backup(client: Client, tree: Path) -> None:
    arguments = {"path": "notes.txt", "old_text": "gamma", "new_text": "GAMMA", "force": True, "create_backup": True}
    result = structured(await client.call_tool("edit_file", arguments))
    assert result["backup_id"]
    assert (tree / "notes.txt").read_bytes() == b"alpha\nbeta\nGAMMA\n"


async def test_multi_edit_takes_edits_json_as_text_with_old_string_keys(client: Client, tree: Path) -> None:
    edits = json.dumps([{"old_string": "alpha", "new_string": "ALPHA"}, {"old_str": "gamma", "new_str": "GAMMA"}])
    result = structured(await client.call_tool("multi_edit", {"path": "notes.txt", "edits_json": edits}))
    assert result["successful_edits"] == 2
    assert (tree / "notes.txt").read_bytes() == b"ALPHA\nbeta\nGAMMA\n"


async def test_list_directory_takes_output_format_json_and_max_depth(client: Client, tree: Path) -> None:
    result = structured(
        await client.call_tool("list_directory", {"path": ".", "output_format": "tree", "max_depth": 2})
    )
    names = {child["name"] for child in result["tree"]["children"]}
    assert {"src", "notes.txt"} <= names


async def test_search_files_takes_file_types_as_a_comma_list(client: Client, tree: Path) -> None:
    arguments = {"path": ".", "pattern": "old_name", "include_content": True, "file_types": ".py,.txt"}
    result = structured(await client.call_tool("search_files", arguments))
    assert sorted(Path(m["file"]).name for m in result["matches"]) == ["app.py", "util.py"]


async def test_search_files_on_a_file_path_searches_that_file(client: Client, tree: Path) -> None:
    arguments = {"path": "notes.txt", "pattern": "beta", "count_only": "true"}
    result = structured(await client.call_tool("search_files", arguments))
    assert result["total_matches"] == 1


async def test_analyze_operation_plans_an_edit_without_writing(client: Client, tree: Path) -> None:
    arguments = {"operation": "edit", "path": "notes.txt", "old_text": "beta", "new_text": "BETA"}
    result = structured(await client.call_tool("analyze_operation", arguments))
    assert result["exists"] is True
    assert (tree / "notes.txt").read_bytes() == b"alpha\nbeta\ngamma\n"


async def test_create_directory_makes_parents(client: Client, tree: Path) -> None:
    structured(await client.call_tool("create_directory", {"path": "a/b/c"}))
    assert (tree / "a" / "b" / "c").is_dir()


async def test_delete_file_soft_deletes_and_takes_permanent_as_a_string(client: Client, tree: Path) -> None:
    trashed = structured(await client.call_tool("delete_file", {"path": "notes.txt", "permanent": "false"}))
    assert trashed["results"][0]["sd_id"]
    assert not (tree / "notes.txt").exists()
    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": trashed["results"][0]["sd_id"]}))
    assert (tree / "notes.txt").read_bytes() == b"alpha\nbeta\ngamma\n"


async def test_move_file_and_copy_file_take_source_path_and_dest_path(client: Client, tree: Path) -> None:
    structured(await client.call_tool("copy_file", {"source_path": "notes.txt", "dest_path": "copy.txt"}))
    structured(await client.call_tool("move_file", {"source_path": "copy.txt", "dest_path": "moved/copy.txt"}))
    assert (tree / "moved" / "copy.txt").read_bytes() == b"alpha\nbeta\ngamma\n"
    refused = await client.call_tool("move_file", {"source_path": "notes.txt", "dest_path": "moved/copy.txt"})
    assert error_code(refused) == "already_exists"


async def test_get_file_info_takes_paths(client: Client, tree: Path) -> None:
    result = structured(await client.call_tool("get_file_info", {"paths": ["notes.txt", "src"]}))
    assert [f["type"] for f in result["files"]] == ["file", "directory"]


async def test_batch_operations_takes_request_json_text_with_the_seeds_aliases(client: Client, tree: Path) -> None:
    request = {
        "operations": [
            {"type": "create_directory", "path": "out"},
            {"type": "write", "path": "out/a.txt", "content": "one two\n"},
            {"type": "edit", "path": "out/a.txt", "search": "two", "replace": "2"},
            {"type": "search_and_replace", "path": "notes.txt", "find": "beta", "replacement": "BETA"},
        ],
        "atomic": True,
        "create_backup": True,
    }
    result = structured(await client.call_tool("batch_operations", {"request_json": json.dumps(request)}))
    assert result["completed"] == 4
    assert (tree / "out" / "a.txt").read_bytes() == b"one 2\n"
    assert (tree / "notes.txt").read_bytes() == b"alpha\nBETA\ngamma\n"


async def test_a_pipeline_step_may_say_type_and_leave_out_its_id(client: Client, tree: Path) -> None:
    pipeline = {
        "name": "rename",
        "steps": [
            {"type": "search", "params": {"pattern": "old_name", "path": "src"}},
            {"type": "edit", "input_from": "step-0", "params": {"old_text": "old_name", "new_text": "new_name"}},
        ],
    }
    result = structured(await client.call_tool("batch_operations", {"pipeline_json": json.dumps(pipeline)}))
    assert [step["id"] for step in result["steps"]] == ["step-0", "step-1"]
    assert (tree / "src" / "app.py").read_bytes() == b"def new_name():\r\n    return 1\r\n"
    assert (tree / "src" / "util.py").read_bytes() == b"from app import new_name\n"


async def test_rename_json_adds_a_prefix(client: Client, tree: Path) -> None:
    rename = {"path": "src", "mode": "add_prefix", "prefix": "old_", "file_pattern": "*.py"}
    structured(await client.call_tool("batch_operations", {"rename_json": json.dumps(rename)}))
    assert sorted(p.name for p in (tree / "src").iterdir()) == ["old_app.py", "old_util.py"]


async def test_project_replace_takes_file_types_as_a_string_and_include_paths_as_json_text(
    client: Client, tree: Path
) -> None:
    arguments = {
        "path": ".",
        "find": "old_name",
        "replace": "new_name",
        "file_types": ".py",
        "include_paths": '["src/*"]',
        "create_backup": True,
    }
    result = structured(await client.call_tool("project_replace", arguments))
    assert result["files_changed"] == 2
    assert (tree / "src" / "util.py").read_bytes() == b"from app import new_name\n"


async def test_backup_undo_last_takes_file_path(client: Client, tree: Path) -> None:
    structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "alpha", "new_text": "A"}))
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "notes.txt"}))
    assert (tree / "notes.txt").read_bytes() == b"alpha\nbeta\ngamma\n"


async def test_backup_restore_of_an_older_backup_after_later_edits_restores_it(client: Client, tree: Path) -> None:
    first = structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "alpha", "new_text": "A"}))
    structured(await client.call_tool("edit_file", {"path": "notes.txt", "old_text": "beta", "new_text": "B"}))
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": first["backup_id"]}))
    assert (tree / "notes.txt").read_bytes() == b"alpha\nbeta\ngamma\n"


async def test_wsl_status_answers_on_any_machine(client: Client, tree: Path) -> None:
    result = structured(await client.call_tool("wsl", {"action": "status"}))
    assert isinstance(result["is_wsl"], bool)


async def test_server_info_stats_and_the_help_topics(client: Client, tree: Path) -> None:
    stats = structured(await client.call_tool("server_info", {"action": "stats"}))
    assert "stats" in stats
    for topic in ("overview", "workflow", "tools", "edit", "search", "batch", "recovery"):
        result = await client.call_tool("server_info", {"action": "help", "topic": topic})
        assert not result.is_error, (topic, text_of(result))


async def test_git_takes_paths_as_a_native_array(client: Client, tree: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=tree, check=True)
    result = structured(await client.call_tool("git", {"action": "add", "path": str(tree), "paths": ["notes.txt"]}))
    assert result["action"] == "add"
    staged = subprocess.run(
        ["git", "diff", "--cached", "--name-only"], cwd=tree, capture_output=True, text=True, encoding="utf-8"
    )
    assert staged.stdout.split() == ["notes.txt"]


async def test_minify_js_takes_the_seeds_flags(client: Client, tree: Path) -> None:
    (tree / "a.js").write_bytes(b"// c\nvar  x = 1 ;\n")
    arguments = {"path": "a.js", "remove_comments": True, "collapse_whitespace": True, "single_line": True}
    result = structured(await client.call_tool("minify_js", {**arguments, "create_backup": True}))
    assert result["bytes_after"] < result["bytes_before"]
    assert (tree / "a.js").read_bytes() == b"var x=1;"


async def test_help_with_a_tool_shows_its_schema_and_examples(client: Client, tree: Path) -> None:
    result = structured(await client.call_tool("help", {"tool": "git"}))
    assert result["input_schema"]["properties"]["paths"]
    assert result["examples"]
