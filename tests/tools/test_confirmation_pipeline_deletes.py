"""A pipeline's recursive delete of a non-empty directory asks as delete_file's does, whatever the pipeline says:
``force`` passes its risk gate and is no one's word on a delete, and a directory moved to a place a template names
is found by the dry run, or asked about as the step writes it, and so is a folder a move makes, in a batch too
(found by a probe: each ran unasked). Both eras."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of, tree
from tests.tools.test_confirmation import User
from tests.tools.test_confirmation_whole_call import declined_pipeline, precious

pytestmark = pytest.mark.anyio

_DELETE = {"id": "d", "action": "delete", "params": {"files": ["precious"], "recursive": True}}


async def test_a_forced_pipeline_still_asks_before_it_trashes_a_non_empty_directory(
    connect: ClientFactory, root: Path
) -> None:
    before = precious(root)
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        pipeline = {"name": "p", "force": True, "steps": [_DELETE]}
        result = await client.call_tool("batch_operations", {"pipeline_json": pipeline})
    assert error_code(result) == "declined", text_of(result)
    assert len(user.asked) == 1
    assert "with everything inside" in user.asked[0]
    assert "20 files and folders" in user.asked[0]
    assert tree(root) == before


async def test_a_forced_pipeline_the_user_lets_delete_trashes_the_directory(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    precious(root)
    user = User()
    async with connect(elicitation_callback=user) as client:
        pipeline = {"name": "p", "force": True, "steps": [_DELETE]}
        structured(await client.call_tool("batch_operations", {"pipeline_json": pipeline}))
    assert len(user.asked) == 1
    assert not (root / "precious").exists()
    assert b"work 7\n" in [item.read_bytes() for item in (state_dir / "trash").rglob("f07.txt")]


def _moved_into_the_count(root: Path, deleted: str) -> tuple[Any, list[dict[str, Any]]]:
    """The tree of ``root`` with ``precious`` in it, and steps that count 3 (in n.txt), move ``precious`` into the
    folder that count names ("{{c.count}}", so "3"), then delete ``deleted`` recursively."""
    (root / "n.txt").write_bytes(b"k k k\n")
    before = precious(root)
    return before, [
        {"id": "c", "action": "count_occurrences", "params": {"files": ["n.txt"], "pattern": "k"}},
        {"id": "r", "action": "rename", "params": {"files": ["precious"], "destination": "{{c.count}}"}},
        {"id": "d", "action": "delete", "params": {"files": [deleted], "recursive": True}},
    ]


async def test_a_pipeline_moving_a_directory_into_a_folder_a_template_names_then_deleting_it_asks(
    connect: ClientFactory, root: Path
) -> None:
    before, steps = _moved_into_the_count(root, "{{c.count}}/precious")
    question = await declined_pipeline(connect, steps)
    assert f"3/precious (moved there from {root / 'precious'})" in question
    assert "20 files and folders" in question
    assert tree(root) == before


async def test_a_pipeline_delete_its_dry_run_cannot_plan_is_asked_about_as_the_step_names_it(
    connect: ClientFactory, root: Path
) -> None:
    # The folder the rename makes is no entry the dry run knows of, so its delete fails there and runs for real.
    before, steps = _moved_into_the_count(root, "{{c.count}}")
    question = await declined_pipeline(connect, steps)
    assert "Delete what these pipeline steps name, with everything inside: '{{c.count}}' (step 'd')" in question
    assert tree(root) == before


async def test_a_pipeline_moving_a_directory_into_a_new_folder_then_deleting_that_folder_asks(
    connect: ClientFactory, root: Path
) -> None:
    before = precious(root)
    steps = [
        {"id": "r", "action": "rename", "params": {"files": ["precious"], "destination": "new"}},
        {"id": "d", "action": "delete", "params": {"files": ["new"], "recursive": True}},
    ]
    question = await declined_pipeline(connect, steps)
    assert f"new/precious (moved there from {root / 'precious'})" in question
    assert tree(root) == before


async def test_a_batch_moving_a_directory_into_a_new_folder_then_deleting_that_folder_asks(
    connect: ClientFactory, root: Path
) -> None:
    before = precious(root)
    operations = [
        {"type": "move", "source": "precious", "destination": "new/precious"},
        {"type": "delete", "path": "new", "recursive": True},
    ]
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "declined", text_of(result)
    assert f"new/precious (moved there from {root / 'precious'})" in user.asked[0]
    assert "20 files and folders" in user.asked[0]
    assert tree(root) == before
