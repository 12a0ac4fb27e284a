"""A yes to a batch's or pipeline's deletes lets them take only what the question was measured from: a run that
comes out otherwise than its dry run (a search the dry run could not foresee, a condition or template that
evaluates otherwise) must not trash a non-empty directory the user was never asked about. The divergence is
simulated by a look blind to one of the deletes. Both eras."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fsguard.core.batchplan import BatchRequest
from fsguard.core.confirmation import Confirmation
from fsguard.core.pipeline import PipelineRequest
from fsguard.core.preflight import batching, pipelining
from fsguard.tools import _batch_pipeline
from tests.conftest import ClientFactory, error_code, structured, text_of, tree
from tests.tools.test_confirmation import User
from tests.tools.test_confirmation_whole_call import precious

pytestmark = pytest.mark.anyio


def _other(root: Path) -> dict[str, bytes | None]:
    (root / "other" / "deep").mkdir(parents=True)
    (root / "other" / "deep" / "work.txt").write_bytes(b"unasked\r\n")
    (root / "other" / "notes.md").write_bytes(b"# mine\n")
    return tree(root)


def _blind_pipeline(monkeypatch: pytest.MonkeyPatch, hidden: str) -> None:
    """The pipeline's look never sees the delete of ``hidden``, as a dry run that planned otherwise."""
    real = pipelining

    def looked(runner: Any, request: PipelineRequest, **given: Any) -> Confirmation | None:
        steps = tuple(
            replace(step, params={**step.params, "files": [f for f in step.params["files"] if f != hidden]})
            if step.action == "delete"
            else step
            for step in request.steps
        )
        return real(runner, replace(request, steps=steps), **given)

    monkeypatch.setattr(_batch_pipeline, "pipelining", looked)


def _blind_batch(monkeypatch: pytest.MonkeyPatch, hidden: str) -> None:
    """The request's look never sees the delete of ``hidden``."""
    real: Callable[..., Confirmation | None] = batching

    def looked(policy: Any, beneath: Any, request: BatchRequest, **options: Any) -> Confirmation | None:
        kept = tuple(op for op in request.operations if not (op.type == "delete" and op.path == hidden))
        return real(policy, beneath, replace(request, operations=kept), **options)

    monkeypatch.setattr(_batch_pipeline, "batching", looked)


async def test_a_confirmed_pipeline_does_not_trash_a_directory_its_question_did_not_name(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    precious(root)
    before = _other(root)
    _blind_pipeline(monkeypatch, "other")
    user = User()
    steps = [{"id": "d", "action": "delete", "params": {"files": ["precious", "other"], "recursive": True}}]
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert (result.meta or {})["fsguard/error"]["error_code"] == "declined"
    assert "deleting other was not in what the user confirmed" in text_of(result)
    assert "other" not in user.asked[0]
    assert tree(root) == before  # the named one rolled back too: the whole run failed


@pytest.mark.parametrize(
    "unasked",
    [{"path": "other", "recursive": True}, {"path": "other/notes.md", "permanent": True}],
    ids=["a directory", "a file for good"],
)
async def test_a_confirmed_batch_does_not_delete_what_its_question_did_not_name(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch, unasked: dict[str, Any]
) -> None:
    precious(root)
    before = _other(root)
    _blind_batch(monkeypatch, unasked["path"])
    user = User()
    operations = [{"type": "delete", "path": "precious", "recursive": True}, {"type": "delete", **unasked}]
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "batch_failed", text_of(result)
    assert f"deleting {unasked['path']} was not in what the user confirmed" in text_of(result)
    assert unasked["path"] not in user.asked[0]
    assert tree(root) == before


async def test_a_confirmed_pipeline_trashes_the_directory_it_asked_about_wherever_an_earlier_step_moved_it(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    precious(root)
    user = User()
    steps = [
        {"id": "r", "action": "rename", "params": {"files": ["precious"], "destination": "new"}},
        {"id": "d", "action": "delete", "params": {"files": ["new"], "recursive": True}},
    ]
    async with connect(elicitation_callback=user) as client:
        structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}}))
    assert len(user.asked) == 1
    assert not (root / "precious").exists()
    assert not (root / "new").exists()
    assert b"work 7\n" in [item.read_bytes() for item in (state_dir / "trash").rglob("f07.txt")]


async def test_a_confirmed_pipeline_delete_asked_about_as_its_template_names_it_still_runs(
    connect: ClientFactory, root: Path
) -> None:
    (root / "n.txt").write_bytes(b"k k k\n")
    precious(root)
    user = User()
    steps: list[dict[str, Any]] = [
        {"id": "c", "action": "count_occurrences", "params": {"files": ["n.txt"], "pattern": "k"}},
        {"id": "r", "action": "rename", "params": {"files": ["precious"], "destination": "{{c.count}}"}},
        {"id": "d", "action": "delete", "params": {"files": ["{{c.count}}"], "recursive": True}},
    ]
    async with connect(elicitation_callback=user) as client:
        structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}}))
    assert "'{{c.count}}' (step 'd')" in user.asked[0]
    assert tree(root) == {"n.txt": b"k k k\n"}
