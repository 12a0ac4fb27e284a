"""Plans of a change to a file the server may not write (an immutable flag, a read-only mount) say what the run does.

analyze_operation planned the edit, batch validate_only said [VALID], a pipeline's dry run said PLANNED and a
project_replace preview counted the file; each real run was then refused (or, project_replace, left the file alone
or stopped at it). Each plan now asks the write's own check, so the two agree.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import bind_mounted, error_code, structured, text_of
from tests.tools.test_partial_moves import immutable

pytestmark = pytest.mark.anyio

ORIGINAL = b"needle\n"


@pytest.fixture(params=["immutable", "read-only mount"])
def unwritable(request: pytest.FixtureRequest, root: Path) -> Iterator[tuple[Path, str]]:
    """A file holding ORIGINAL the server may not write, and the code its write is refused with."""
    if request.param == "immutable":
        locked = root / "locked.txt"
        locked.write_bytes(ORIGINAL)
        with immutable(locked):
            yield locked, "access_denied"
        return
    directory = root / "ro"
    directory.mkdir()
    (directory / "kept.txt").write_bytes(ORIGINAL)
    with bind_mounted(directory, directory):
        subprocess.run(["mount", "-o", "remount,ro,bind", str(directory)], capture_output=True, check=True)
        yield directory / "kept.txt", "read_only_filesystem"


def edit_of(path: Path) -> dict[str, object]:
    return {"type": "edit", "path": str(path), "old_text": "needle", "new_text": "pin"}


async def test_analyze_operation_plans_an_edit_of_a_file_the_server_may_not_write_as_refused(
    client: Client, unwritable: tuple[Path, str]
) -> None:
    path, code = unwritable
    arguments = {"operation": "edit", "path": str(path), "old_text": "needle", "new_text": "pin"}
    planned = structured(await client.call_tool("analyze_operation", arguments))
    assert planned["refused"] == code
    edited = await client.call_tool("edit_file", {"path": str(path), "old_text": "needle", "new_text": "pin"})
    assert error_code(edited) == code, text_of(edited)
    assert path.read_bytes() == ORIGINAL


async def test_a_batch_editing_a_file_the_server_may_not_write_does_not_validate_and_runs_nothing(
    client: Client, root: Path, unwritable: tuple[Path, str]
) -> None:
    path, _ = unwritable
    (root / "a.txt").write_bytes(ORIGINAL)
    operations = [edit_of(root / "a.txt"), edit_of(path)]
    for validate_only in (True, False):
        request = {"operations": operations, "validate_only": validate_only}
        result = await client.call_tool("batch_operations", {"request_json": request})
        assert error_code(result) == "invalid_params", text_of(result)
        assert "operation 1 (edit" in text_of(result)
        assert (root / "a.txt").read_bytes() == ORIGINAL
        assert path.read_bytes() == ORIGINAL


async def test_a_pipeline_dry_run_refuses_an_edit_of_a_file_the_server_may_not_write_as_its_run_does(
    client: Client, unwritable: tuple[Path, str]
) -> None:
    path, code = unwritable
    params = {"files": [str(path)], "old_text": "needle", "new_text": "pin"}
    pipeline = {"name": "x", "steps": [{"id": "e", "action": "edit", "params": params}]}
    planned = structured(await client.call_tool("batch_operations", {"pipeline_json": {**pipeline, "dry_run": True}}))
    [step] = planned["steps"]
    assert (step["status"], step["error_code"]) == ("failed", code)
    run = await client.call_tool("batch_operations", {"pipeline_json": pipeline})
    assert (run.meta or {})["fsguard/error"]["error_code"] == code, text_of(run)
    assert path.read_bytes() == ORIGINAL


async def test_a_project_replace_preview_names_the_file_the_server_may_not_write_as_left_alone_as_the_run_does(
    client: Client, root: Path, unwritable: tuple[Path, str]
) -> None:
    path, code = unwritable
    (root / "z.txt").write_bytes(ORIGINAL)  # after the unwritable file in the walk's order
    arguments = {"path": str(root), "find": "needle", "replace": "pin"}
    for preview in (True, False):
        result = structured(await client.call_tool("project_replace", {**arguments, "preview": preview}))
        files = {Path(f["path"]): (f["replacements"], f.get("skipped")) for f in result["files"]}
        assert files[path][0] == 0
        assert files[path][1].startswith(f"{code}, the server may not write it")
        assert files[root / "z.txt"] == (1, None)
        assert (result["files_changed"], result["total_replacements"]) == (1, 1)
    assert path.read_bytes() == ORIGINAL
    assert (root / "z.txt").read_bytes() == b"pin\n"
