# ruff: noqa: E501
"""Snapshots of the text blocks of batch_operations, git, minify_js, wsl and group restores, in both voices.

The rig, the normalisation and how to update the snapshots are those of ``tests/tools/test_texts_snapshot.py``;
git texts also get commit ids and relative dates replaced (:func:`scrub_git`), as they change from run to run.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from inline_snapshot import snapshot
from mcp.types import CallToolResult

from tests.tools.test_texts_snapshot import Case, Rig, anyio_backend, rig

__all__ = ["anyio_backend", "rig"]  # the shared rig's fixtures, used here by name

pytestmark = pytest.mark.anyio

_COMMIT = re.compile(r"\b[0-9a-f]{7,40}\b")


def scrub_git(text: str) -> str:
    return _COMMIT.sub("<commit>", text)


def make_repo(path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=path, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    for key, value in (("user.name", "Tester"), ("user.email", "t@example.com"), ("commit.gpgsign", "false")):
        git("config", key, value)
    (path / "a.txt").write_text("alpha\n", encoding="utf-8")
    git("add", "a.txt")
    git("commit", "-q", "-m", "init")


# -- batch_operations ------------------------------------------------------------------------------------------


async def test_a_batch_lists_each_operation_and_its_group_id(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        operations = [
            {"type": "create_dir", "path": c.rel("new")},
            {"type": "write", "path": c.rel("new/made.txt"), "content": "made\n"},
            {"type": "edit", "path": c.rel("a.txt"), "old_text": "two", "new_text": "TWO"},
            {"type": "move", "source": c.rel("b.txt"), "destination": c.rel("new/b.txt")},
        ]
        return await c.call("batch_operations", request_json={"operations": operations})

    texts = await rig.texts(scenario, files={"a.txt": "one\r\ntwo\r\n", "b.txt": "b\n"})
    assert texts == snapshot(
        {
            "verbose": """\
ok
Batch applied: 4/4 operations ok. backup_id: <backup_id:1> (backup(action="restore", backup_id=...) reverts the whole batch)
  [OK] [0] create_dir: new
  [OK] [1] write: new/made.txt (5 B)
  [OK] [2] edit: a.txt (1 replacement, 10 B)
  [OK] [3] move: b.txt → new/b.txt (2 B)\
""",
            "compact": """\
ok
OK: 4/4 operations | backup:<backup_id:1>\
""",
        }
    )


async def test_a_failed_atomic_batch_says_which_operation_failed_and_what_was_rolled_back(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        operations = [
            {"type": "write", "path": c.rel("x.txt"), "content": "x\n"},
            {"type": "edit", "path": c.rel("a.txt"), "old_text": "one", "new_text": "ONE"},
            {"type": "edit", "path": c.rel("a.txt"), "old_text": "absent", "new_text": "y"},
        ]
        return await c.call("batch_operations", request_json={"operations": operations})

    texts = await rig.texts(scenario, files={"a.txt": "one\n"})
    assert texts == snapshot(
        {
            "both": """\
error batch_failed
batch_operations: operation 2 (edit a.txt) failed (no_match): edit failed: no matches found for text: "absent" — old_text was not found in a.txt (tried: exact, escape_fixed, trailing_whitespace, indentation). Nothing was written.
The whole file (1 line):
    1: ONE
Copy the exact text from read_file and retry.
The batch is atomic; rollback completed for the 2 changes it had made, newest first:
  reverted: modified a.txt
  reverted: created x.txt (its bytes are in backup <backup_id:1>)
Every byte on disk is as it was before the batch.
Fix operation 2 and send the batch again (validate_only: true checks it without running it).\
"""
        }
    )


async def test_batch_validation_lists_every_problem(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        operations = [
            {"type": "edit", "path": c.rel("missing.txt"), "old_text": "a", "new_text": "b"},
            {"type": "teleport", "path": c.rel("a.txt")},
            {"type": "write", "path": c.rel("w.txt")},
        ]
        return await c.call("batch_operations", request_json={"operations": operations})

    texts = await rig.texts(scenario, files={"a.txt": "a\n"})
    assert texts == snapshot(
        {
            "both": """\
error invalid_params
batch_operations: the batch does not validate (3 problems; operations are numbered from 0). Nothing was run.
- operation 0 (edit missing.txt): file does not exist: missing.txt (and no earlier operation creates it)
- operation 1: unknown operation type 'teleport'; types: write, edit, search_and_replace, copy, move, delete, create_dir, extract
- operation 2 (write w.txt): missing content (the text to write ("" for an empty file))
Fix them all, then send the batch again (validate_only: true checks it without running it).\
"""
        }
    )


async def test_validate_only_says_nothing_ran(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        operations = [
            {"type": "write", "path": c.rel("v.txt"), "content": "v\n"},
            {"type": "edit", "path": c.rel("v.txt"), "old_text": "v", "new_text": "w"},
        ]
        return await c.call("batch_operations", request_json={"operations": operations, "validate_only": True})

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
Batch validated: all 2 operations are valid; nothing was written. Send it again without validate_only to run it.
  [VALID] [0] write: v.txt
  [VALID] [1] edit: v.txt\
""",
            "compact": """\
ok
VALID: 2/2 operations (nothing written)\
""",
        }
    )


async def test_a_pipeline_reports_each_step(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        steps = [
            {"id": "find", "action": "search", "params": {"pattern": "old_api", "path": c.rel()}},
            {
                "id": "fix",
                "action": "edit",
                "input_from": "find",
                "params": {"old_text": "old_api", "new_text": "new_api"},
                "condition": {"type": "has_matches", "step_ref": "find"},
            },
            {"id": "count", "action": "count_occurrences", "input_from": "find", "params": {"pattern": "new_api"}},
            {
                "id": "never",
                "action": "delete",
                "input_from": "find",
                "condition": {"type": "count_gt", "step_ref": "count", "value": 99},
            },
        ]
        return await c.call("batch_operations", pipeline_json={"name": "api", "steps": steps})

    texts = await rig.texts(scenario, files={"a.py": "old_api()\nold_api()\n", "b.py": "x = old_api\n"})
    assert texts == snapshot(
        {
            "verbose": """\
ok
Pipeline: api
Steps: 4/4 completed
Backup: <backup_id:1> (backup(action="restore", backup_id="<backup_id:1>") reverts everything it changed)

Step Results:

1. find [search] OK
   Files: 2 matched, count 3
     - a.py (2)
     - b.py (1)
2. fix [edit] OK
   Files: 2 edited, 3 edits, risk LOW
     - a.py (2)
     - b.py (1)
3. count [count_occurrences] OK
   Files: 2, count 3
     - a.py (2)
     - b.py (1)
4. never [delete] SKIPPED: condition false: count_gt on 'count' (value 99): its count is 3

Files affected: 2
Total edits: 3
Overall risk: LOW\
""",
            "compact": """\
ok
OK: 4/4 steps | 2 files | 3 edits | backup:<backup_id:1>\
""",
        }
    )


async def test_a_pipeline_error_names_the_step(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        steps = [
            {"id": "find", "action": "search", "params": {"pattern": "x", "path": c.rel()}},
            {"id": "fix", "action": "edit", "input_from": "find", "params": {"old_text": "nowhere", "new_text": "y"}},
        ]
        return await c.call("batch_operations", pipeline_json={"name": "fails", "steps": steps})

    assert await rig.texts(scenario, files={"a.txt": "x\n"}) == snapshot(
        {
            "both": """\
error batch_failed
pipeline step 2 'fix' (edit): edit failed: no matches found for text: "nowhere" — old_text was not found in a.txt (tried: exact, escape_fixed, trailing_whitespace, indentation). Nothing was written.
The whole file (1 line):
    1: x
Copy the exact text from read_file and retry.
Nothing had been changed yet, so nothing needed rolling back.
Fix the step and run the pipeline again; dry_run=true shows what each step would do.\
"""
        }
    )


async def test_a_rename_preview_lists_old_and_new_names(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        rename = {"path": c.rel(), "mode": "number_files", "file_pattern": "*.jpeg", "preview": True}
        return await c.call("batch_operations", rename_json=rename)

    assert await rig.texts(scenario, files={"b.jpeg": "b", "a.jpeg": "a", "c.txt": "c"}) == snapshot(
        {
            "verbose": """\
ok
Batch rename preview (nothing renamed): 2 files in <root>
  a.jpeg → 001_a.jpeg
  b.jpeg → 002_b.jpeg
No conflicts. Run it again without preview to rename.\
""",
            "compact": """\
ok
PREVIEW (nothing renamed) 2 files in <root> | a.jpeg→001_a.jpeg, b.jpeg→002_b.jpeg\
""",
        }
    )


async def test_a_rename_conflict_refuses_the_whole_set(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        return await c.call("batch_operations", rename_json={"path": c.rel(), "mode": "to_lowercase"})

    assert await rig.texts(scenario, files={"a.TXT": "1", "A.txt": "2", "b.txt": "3", "B.TXT": "4"}) == snapshot(
        {
            "both": """\
error conflict
rename refused: 2 naming conflicts among 3 renames, so nothing was renamed: a.txt ← A.txt, a.TXT (2 files would get this name); b.txt ← B.TXT (a file with this name exists). Run with preview=true to see the whole set, then change the rule or narrow file_pattern.\
"""
        }
    )


async def test_a_group_restore_lists_each_reverted_change(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        applied = await c.ok("project_replace", path=c.rel(), find="TODO", replace="DONE")
        return await c.call("backup", action="restore", backup_id=applied["backup_id"])

    assert await rig.texts(scenario, files={"a.txt": "TODO\n", "sub/b.txt": "TODO TODO\n"}) == snapshot(
        {
            "verbose": """\
ok
Reverted 2 of 2 changes of group <backup_id:1>.
  reverted: modified sub/b.txt (old bytes in backup <backup_id:2>)
  reverted: modified a.txt (old bytes in backup <backup_id:3>)
Undo this restore: backup(action="restore", backup_id="<backup_id:4>")\
""",
            "compact": """\
ok
Reverted 2 of 2 changes of group <backup_id:1>
Undo this restore: backup(action="restore", backup_id="<backup_id:2>")\
""",
        }
    )


# -- git ---------------------------------------------------------------------------------------------------------


async def test_git_status_summarises_the_working_tree(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        make_repo(c.dir)
        c.write("a.txt", "alpha\nbeta\n")
        c.write("new.txt", "new\n")
        return await c.call("git", action="status", path=c.rel())

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
On branch main in <root>
Not staged (1):
  a.txt
Untracked (1):
  new.txt\
""",
            "compact": """\
ok
<root> (main) | +0 ~1 ?1 | dirty\
""",
        }
    )


async def test_git_status_on_a_detached_head_says_so_without_calling_it_a_branch(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        make_repo(c.dir)
        subprocess.run(["git", "switch", "-q", "--detach"], cwd=c.dir, check=True)
        return await c.call("git", action="status", path=c.rel())

    assert await rig.texts(scenario) == snapshot(
        {
            "verbose": """\
ok
On detached HEAD in <root>
Clean: nothing to commit, no untracked files.\
""",
            "compact": """\
ok
<root> (detached HEAD) | +0 ~0 ?0 | clean\
""",
        }
    )


async def test_git_diff_counts_lines_per_file(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        make_repo(c.dir)
        c.write("a.txt", "alpha\nbeta\n")
        return await c.call("git", action="diff", path=c.rel(), output="full")

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
ok
1 file changed, +1 -0
diff --git a/a.txt b/a.txt
index 4a58007..fbbee86 100644
--- a/a.txt
+++ b/a.txt
@@ -1 +1,2 @@
 alpha
+beta\
"""
        }
    )


async def test_git_commit_reports_its_stats_and_risk(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        make_repo(c.dir)
        c.write("a.txt", "alpha\nbeta\ngamma\n")
        await c.ok("git", action="add", path=c.rel(), paths=["a.txt"])
        return await c.call("git", action="commit", path=c.rel(), message="more lines")

    assert await rig.texts(scenario, scrub=scrub_git) == snapshot(
        {
            "verbose": """\
ok
Committed <commit> on main: more lines
1 file, +2 -0. Risk LOW.\
""",
            "compact": """\
ok
[main <commit>] more lines | 1 file, +2 -0 | risk:LOW\
""",
        }
    )


async def test_git_restore_of_the_working_tree_needs_force(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        make_repo(c.dir)
        c.write("a.txt", "changed\n")
        return await c.call("git", action="restore", path=c.rel(), paths=["a.txt"])

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
error risk_blocked
destructive git operation 'restore' requires force:true for safety; nothing was changed. Pass force=true to discard the working-tree changes of these paths (every file it overwrites is backed up first: backup(action="undo_last", file_path=...) brings it back), or staged=true to only unstage.\
"""
        }
    )


async def test_git_refuses_an_option_like_value(rig: Rig) -> None:
    async def scenario(c: Case) -> CallToolResult:
        make_repo(c.dir)
        return await c.call("git", action="log", path=c.rel(), rev="--output=/tmp/x")

    assert await rig.texts(scenario) == snapshot(
        {
            "both": """\
error invalid_params
invalid rev "--output=/tmp/x": value must not start with '-' (git would read it as an option). Nothing was run. Pass a plain rev, e.g. rev="HEAD~1".\
"""
        }
    )


# -- minify_js and wsl -------------------------------------------------------------------------------------------

APP_JS = "// adds\nfunction add(a, b) {\n  return a + b;\n}\nconsole.log(add(1, 2));\n"


async def test_minify_dry_run_shows_sizes_and_a_preview(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("minify_js", path=c.rel("app.js"), dry_run=True), files={"app.js": APP_JS})
    assert texts == snapshot(
        {
            "verbose": """\
ok
DRY RUN, nothing written: minifying app.js in place would give 71 → 53 bytes (saved 18, 25.4%).
Preview:
function add(a,b){return a+b;}
console.log(add(1,2));\
""",
            "compact": """\
ok
MINIFY (dry-run) app.js | 71→53B (-18, 25.4%)
function add(a,b){return a+b;}
console.log(add(1,2));\
""",
        }
    )


async def test_minify_in_place_says_how_to_undo(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("minify_js", path=c.rel("app.js")), files={"app.js": APP_JS})
    assert texts == snapshot(
        {
            "verbose": """\
ok
Minified app.js in place: 71 → 53 bytes (saved 18, 25.4%), hash bfa76b31.
Undo: backup(action="undo_last", file_path="app.js") · backup <backup_id:1>\
""",
            "compact": """\
ok
MINIFIED app.js | 71→53B (-18, 25.4%) | hash bfa76b31 | undo:<backup_id:1>\
""",
        }
    )


async def test_wsl_status_outside_wsl_says_why(rig: Rig) -> None:
    assert await rig.texts(lambda c: c.call("wsl", action="status"), fresh=True, wsl=False) == snapshot(
        {
            "verbose": """\
ok
WSL: no (forced off by --no-wsl / FSGUARD_WSL=0).
sync and autosync refuse here; if this is WSL after all, restart fsguard with --wsl (or FSGUARD_WSL=1).
Drives: C:\\ is /mnt/c\
""",
            "compact": """\
ok
WSL: false (forced off by --no-wsl / FSGUARD_WSL=0) | --wsl forces it | drives /mnt\
""",
        }
    )


async def test_wsl_sync_outside_wsl_is_refused_with_the_way_to_enable_it(rig: Rig) -> None:
    texts = await rig.texts(lambda c: c.call("wsl", action="sync", direction="wsl_to_windows"), fresh=True, wsl=False)
    assert texts == snapshot(
        {
            "both": """\
error wsl_unavailable
this machine is not WSL (forced off by --no-wsl / FSGUARD_WSL=0), so there is no Windows side to sync with. If this is WSL after all, restart fsguard with --wsl (or FSGUARD_WSL=1).\
"""
        }
    )
