"""The seed's own words in fsguard's refusals of the other tools (catalog Appendix A, "Other tools").

A caller written against the seed matches on its phrase ("destination already exists: ", "Unknown action: X.
Valid: …"); fsguard refuses for the same reason, so its message holds that phrase (first, where the phrase names
the refusal) and goes on with fsguard's details and next action. Each case: the phrase, the stable code, and the
files untouched. Both eras. Each phrase was missing before its rewording.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_git import make_repo

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Refusal:
    tool: str
    arguments: dict[str, Any]
    phrase: str
    code: str
    extra: dict[str, bytes] = field(default_factory=dict)  # files made before the call


REFUSALS = {
    "delete_the_root": Refusal(
        "delete_file", {"path": "."}, "access denied: cannot delete allowed-path root '", "access_denied"
    ),
    "delete_a_missing_file": Refusal("delete_file", {"path": "nope.txt"}, "file does not exist: nope.txt", "not_found"),
    "move_onto_an_existing_file": Refusal(
        "move_file",
        {"source_path": "a.txt", "dest_path": "b.txt"},
        "destination already exists: b.txt",
        "already_exists",
    ),
    "copy_onto_an_existing_file": Refusal(
        "copy_file",
        {"source_path": "a.txt", "dest_path": "b.txt"},
        "destination already exists: b.txt",
        "already_exists",
    ),
    "move_a_missing_source": Refusal(
        "move_file", {"source_path": "nope", "dest_path": "c.txt"}, "source does not exist: nope", "not_found"
    ),
    "copy_a_missing_source": Refusal(
        "copy_file", {"source_path": "nope", "dest_path": "c.txt"}, "source does not exist: nope", "not_found"
    ),
    "move_the_root": Refusal(
        "move_file",
        {"source_path": ".", "dest_path": "sub/moved"},
        "access denied: cannot move allowed-path root '",
        "access_denied",
    ),
    "create_a_directory_over_a_file": Refusal(
        "create_directory", {"path": "a.txt"}, "a file with that name already exists: a.txt", "already_exists"
    ),
    "restore_without_a_backup_id": Refusal(
        "backup", {"action": "restore"}, "backup_id is required: ", "invalid_params"
    ),
    "info_without_a_backup_id": Refusal("backup", {"action": "info"}, "backup_id is required: ", "invalid_params"),
    "undo_chain_without_a_file": Refusal(
        "backup", {"action": "undo_chain"}, "file_path is required for undo_chain action", "invalid_params"
    ),
    "undo_last_with_nothing_to_undo": Refusal(
        "backup", {"action": "undo_last", "file_path": "a.txt"}, "No backups found. Nothing to undo.", "nothing_to_undo"
    ),
    "restore_a_backup_id_with_a_slash": Refusal(
        "backup",
        {"action": "restore", "backup_id": "../a.txt"},
        "invalid backup ID: contains illegal character '.'",
        "invalid_params",
    ),
    "restore_an_unknown_trash_entry": Refusal(
        "backup",
        {"action": "restore_trash", "sd_id": "sd-20260101-000000-0123456789abcdef"},
        "trash entry not found: sd-20260101-000000-0123456789abcdef",
        "not_found",
    ),
    "git_outside_a_repository": Refusal(
        "git", {"action": "status", "path": "sub"}, "path is not inside a git repository: sub", "not_a_repository"
    ),
    "git_restore_without_force": Refusal(
        "git",
        {"action": "restore", "path": "repo", "paths": ["a.txt"]},
        "destructive git operation 'restore' requires force:true",
        "risk_blocked",
    ),
    "git_rev_that_reads_as_an_option": Refusal(
        "git",
        {"action": "show", "path": "repo", "rev": "--output=x"},
        "invalid rev \"--output=x\": value must not start with '-'",
        "invalid_params",
    ),
    "git_show_without_a_rev": Refusal(
        "git", {"action": "show", "path": "repo"}, "missing 'rev' parameter (required for show)", "invalid_params"
    ),
    "git_add_without_paths": Refusal(
        "git", {"action": "add", "path": "repo"}, "git add requires explicit 'paths'", "invalid_params"
    ),
    "git_commit_without_a_message": Refusal(
        "git",
        {"action": "commit", "path": "repo"},
        "missing 'message' parameter (required for commit)",
        "invalid_params",
    ),
    "git_restore_without_paths": Refusal(
        "git",
        {"action": "restore", "path": "repo", "force": True},
        "git restore requires explicit 'paths'",
        "invalid_params",
    ),
    "batch_without_a_form": Refusal(
        "batch_operations", {}, "One of request_json, pipeline_json, or rename_json is required", "invalid_params"
    ),
    "batch_request_that_is_not_json": Refusal(
        "batch_operations", {"request_json": "{bad"}, "Invalid request JSON: ", "invalid_params"
    ),
    "batch_without_operations": Refusal(
        "batch_operations",
        {"request_json": json.dumps({"operations": []})},
        "operations array is required and cannot be empty",
        "invalid_params",
    ),
    "batch_edit_of_a_missing_file": Refusal(
        "batch_operations",
        {
            "request_json": json.dumps(
                {"operations": [{"type": "edit", "path": "nope.txt", "old_text": "a", "new_text": "b"}]}
            )
        },
        "file does not exist: nope.txt",
        "invalid_params",
    ),
    "batch_operation_of_an_unknown_type": Refusal(
        "batch_operations",
        {"request_json": {"operations": [{"type": "mkdirs", "path": "d"}]}},
        "unknown operation type 'mkdirs'",
        "invalid_params",
    ),
    "batch_that_fails_midway_and_rolls_back": Refusal(
        "batch_operations",
        {
            "request_json": {
                "operations": [
                    {"type": "write", "path": "n.txt", "content": "x"},
                    {"type": "edit", "path": "b.txt", "old_text": "ZZZ", "new_text": "y"},
                ]
            }
        },
        "rollback completed",
        "batch_failed",
    ),
    "pipeline_that_is_not_json": Refusal(
        "batch_operations", {"pipeline_json": "{bad"}, "Invalid pipeline JSON: ", "invalid_params"
    ),
    "pipeline_without_a_name": Refusal(
        "batch_operations",
        {"pipeline_json": {"name": "", "steps": [{"id": "a", "action": "search", "params": {"pattern": "A"}}]}},
        "pipeline name is required",
        "invalid_params",
    ),
    "pipeline_of_21_steps": Refusal(
        "batch_operations",
        {"pipeline_json": {"name": "p", "steps": [{"action": "search", "params": {"pattern": "A"}}] * 21}},
        "too many steps (max 20, got 21)",
        "invalid_params",
    ),
    "pipeline_with_an_unknown_action": Refusal(
        "batch_operations",
        {"pipeline_json": {"name": "p", "steps": [{"id": "a", "action": "x", "params": {}}]}},
        "unsupported action 'x'",
        "invalid_params",
    ),
    "pipeline_with_a_forward_reference": Refusal(
        "batch_operations",
        {
            "pipeline_json": {
                "name": "p",
                "steps": [
                    {"id": "b", "action": "count_occurrences", "input_from": "c", "params": {"pattern": "A"}},
                    {"id": "c", "action": "search", "params": {"pattern": "A"}},
                ],
            }
        },
        "forward reference to step 'c'",
        "invalid_params",
    ),
    "rename_that_is_not_json": Refusal(
        "batch_operations", {"rename_json": "{bad"}, "Invalid rename JSON: ", "invalid_params"
    ),
    "rename_with_an_unknown_mode": Refusal(
        "batch_operations",
        {"rename_json": {"path": ".", "mode": "x"}},
        "invalid mode 'x'. Valid modes: ",
        "invalid_params",
    ),
    "project_replace_with_an_invalid_regex": Refusal(
        "project_replace",
        {"path": ".", "find": "(", "replace": "x", "literal": False},
        "invalid regex pattern",
        "invalid_params",
    ),
    "minify_with_every_step_off": Refusal(
        "minify_js",
        {"path": "a.js", "remove_comments": False, "collapse_whitespace": False, "single_line": False},
        "all of remove_comments, collapse_whitespace, and single_line are false — nothing to do.",
        "invalid_params",
        extra={"a.js": b"var a = 1; // one\n"},
    ),
    "help_for_an_unknown_tool": Refusal(
        "help", {"tool": "x"}, 'no tool named "x" registered on this server', "invalid_params"
    ),
    "backup_with_an_unknown_action": Refusal(
        "backup",
        {"action": "X"},
        "Unknown action: X. Valid: list, info, compare, cleanup, restore, undo_last, undo_chain, list_trash, "
        "restore_trash, purge_trash",
        "invalid_params",
    ),
    "server_info_with_an_unknown_sub_action": Refusal(
        "server_info",
        {"action": "artifact", "sub_action": "X"},
        "Unknown sub_action: X. Valid: capture, write, info",
        "invalid_params",
    ),
    "git_diff_with_an_unknown_output": Refusal(
        "git",
        {"action": "diff", "path": "repo", "output": "x"},
        'invalid output "x". Valid: stat, name-only, full',
        "invalid_params",
    ),
}


@pytest.fixture
def files(root: Path) -> Path:
    (root / "a.txt").write_bytes(b"A\n")
    (root / "b.txt").write_bytes(b"B\n")
    (root / "sub").mkdir()
    (root / "sub" / "x.txt").write_bytes(b"x\n")
    make_repo(root / "repo")
    (root / "repo" / "a.txt").write_bytes(b"changed\n")  # a working-tree change restore would discard
    return root


def contents(root: Path) -> dict[str, bytes | None]:
    """Every entry below ``root`` but git's own directory: a file by its bytes, a directory as None."""
    return {
        str(path.relative_to(root)): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
        if ".git" not in path.relative_to(root).parts
    }


@pytest.mark.parametrize("case", REFUSALS.values(), ids=REFUSALS.keys())
async def test_a_refusal_starts_with_the_seeds_words_and_leaves_the_files_untouched(
    client: Client, files: Path, case: Refusal
) -> None:
    for name, data in case.extra.items():
        (files / name).write_bytes(data)
    before = contents(files)
    refused = await client.call_tool(case.tool, case.arguments)
    assert error_code(refused) == case.code
    assert case.phrase in text_of(refused)
    assert contents(files) == before


async def test_creating_an_existing_directory_says_so_in_the_seeds_words_and_changes_nothing(
    client: Client, files: Path
) -> None:
    """The seed refused it; fsguard is ``mkdir -p`` (README), so this is a success that uses the same phrase."""
    before = contents(files)
    result = await client.call_tool("create_directory", {"path": "sub"})
    assert structured(result)["created"] is False
    assert "directory already exists: sub" in text_of(result)
    assert contents(files) == before


async def test_restoring_from_the_trash_onto_a_path_taken_again_is_refused_in_the_seeds_words(
    client: Client, files: Path
) -> None:
    trashed = structured(await client.call_tool("delete_file", {"path": "b.txt"}))
    sd_id = trashed["results"][0]["sd_id"]
    (files / "b.txt").write_bytes(b"new\n")
    before = contents(files)
    refused = await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id})
    assert error_code(refused) == "already_exists"
    assert "original path already exists; cannot overwrite: b.txt" in text_of(refused)
    assert contents(files) == before


@pytest.mark.parametrize(
    ("arguments", "phrase"),
    [
        ({"action": "autosync_config"}, "enabled parameter is required for autosync_config"),
        ({"action": "sync"}, "For sync: provide wsl_path, windows_path, or direction"),
    ],
    ids=["autosync_config_without_enabled", "sync_without_a_side"],
)
async def test_a_wsl_call_missing_its_argument_is_refused_in_the_seeds_words(
    connect: ClientFactory, files: Path, arguments: dict[str, Any], phrase: str
) -> None:
    before = contents(files)
    async with connect(wsl=True) as client:
        refused = await client.call_tool("wsl", arguments)
    assert error_code(refused) == "invalid_params"
    assert phrase in text_of(refused)
    assert contents(files) == before


async def test_undo_last_without_a_file_on_a_server_with_no_backup_says_there_is_none(
    client: Client, files: Path
) -> None:
    """The seed's undo_last without file_path undid the newest backup of any file; fsguard asks for the file
    (README), and with no backup at all says first what the seed said."""
    before = contents(files)
    refused = await client.call_tool("backup", {"action": "undo_last"})
    assert error_code(refused) == "invalid_params"
    assert "No backups found. Nothing to undo." in text_of(refused)
    assert 'file_path="' in text_of(refused)
    assert contents(files) == before
    structured(await client.call_tool("edit_file", {"path": "a.txt", "old_text": "A", "new_text": "Z"}))
    refused = await client.call_tool("backup", {"action": "undo_last"})
    assert error_code(refused) == "invalid_params"
    assert "file_path is required for undo_last action" in text_of(refused)
    assert (files / "a.txt").read_bytes() == b"Z\n"
