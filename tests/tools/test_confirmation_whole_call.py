"""A yes runs the whole call, so the question names every part of it that asks on its own, and a delete of what an
earlier operation of the call moves or renames into place is asked about (found by a probe of confirmation: each ran
unasked and lost a directory for good). Both eras; each test fails without its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp.client import ClientRequestContext
from mcp.types import ElicitRequestParams, ElicitResult

from tests.conftest import ClientFactory, error_code, text_of, tree
from tests.tools.test_confirmation import User

pytestmark = pytest.mark.anyio


def precious(root: Path, count: int = 20) -> dict[str, bytes | None]:
    for n in range(count):
        (root / "precious" / f"f{n:02d}.txt").parent.mkdir(parents=True, exist_ok=True)
        (root / "precious" / f"f{n:02d}.txt").write_text(f"work {n}\n", encoding="utf-8")
    return tree(root)


async def declined_pipeline(connect: ClientFactory, steps: list[dict[str, Any]]) -> str:
    """Run a pipeline whose user answers no; the one question asked."""
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"pipeline_json": {"name": "p", "steps": steps}})
    assert error_code(result) == "declined", text_of(result)
    assert len(user.asked) == 1
    return user.asked[0]


@pytest.mark.parametrize("permanent", [True, False], ids=["permanent", "to the trash"])
async def test_a_batch_moving_a_directory_then_deleting_it_asks_and_a_no_keeps_it(
    connect: ClientFactory, root: Path, permanent: bool
) -> None:
    before = precious(root)
    operations = [
        {"type": "move", "source": "precious", "destination": "gone"},
        {"type": "delete", "path": "gone", "recursive": True, "permanent": permanent},
    ]
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        # not atomic: an atomic batch refuses a directory deleted for good, and is refused without a question
        request = {"operations": operations, "atomic": False}
        result = await client.call_tool("batch_operations", {"request_json": request})
    assert error_code(result) == "declined", text_of(result)
    assert len(user.asked) == 1
    assert f"(moved there from {root / 'precious'})" in user.asked[0]
    assert "20 files and folders" in user.asked[0]  # measured where they are now
    assert tree(root) == before


async def test_a_pipeline_renaming_a_directory_then_deleting_it_asks_and_a_no_keeps_it(
    connect: ClientFactory, root: Path
) -> None:
    before = precious(root)
    steps = [
        {"id": "mv", "action": "rename", "params": {"files": ["precious"], "destination": "box"}},
        {"id": "rm", "action": "delete", "params": {"files": ["box/precious"], "recursive": True}},
    ]
    question = await declined_pipeline(connect, steps)
    assert f"box/precious (moved there from {root / 'precious'})" in question
    assert tree(root) == before


async def test_a_pipeline_question_for_a_risky_step_also_names_the_directory_it_deletes(
    connect: ClientFactory, root: Path
) -> None:
    for n in range(60):
        (root / "src" / f"m{n:02d}.txt").parent.mkdir(parents=True, exist_ok=True)
        (root / "src" / f"m{n:02d}.txt").write_text("old\n", encoding="utf-8")
    precious(root)
    files = [f"src/m{n:02d}.txt" for n in range(60)]
    steps = [
        {"id": "w", "action": "edit", "params": {"files": files, "old_text": "old", "new_text": "new"}},
        {"id": "d", "action": "delete", "params": {"files": ["precious"], "recursive": True}},
    ]
    question = await declined_pipeline(connect, steps)
    assert "'w'" in question
    assert "precious" in question
    assert question.count("Confirm to let the agent go ahead") == 1
    assert len(list((root / "precious").iterdir())) == 20


async def test_a_batch_question_names_its_trashed_directory_beside_its_permanent_delete(
    connect: ClientFactory, root: Path
) -> None:
    (root / "tmp.log").write_text("log\n", encoding="utf-8")
    before = precious(root)
    operations = [
        {"type": "delete", "path": "tmp.log", "permanent": True},
        {"type": "delete", "path": "precious", "recursive": True},
    ]
    user = User(confirm=False)
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert error_code(result) == "declined", text_of(result)
    assert "tmp.log" in user.asked[0]
    assert "precious" in user.asked[0]
    assert "It cannot be undone" in user.asked[0]  # the permanent part decides
    assert tree(root) == before


@pytest.mark.parametrize("said", ["yes", 1, "on", "true", "no", "false", 0, "(no content)"])
async def test_only_a_ticked_box_counts_as_yes(connect: ClientFactory, root: Path, said: Any) -> None:
    (root / "a.txt").write_text("keep me\n", encoding="utf-8")

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        if said == "(no content)":  # accepted, with no form at all
            return ElicitResult(action="accept")
        return ElicitResult(action="accept", content={"confirm": said})

    async with connect(elicitation_callback=answer) as client:
        result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True})
    assert error_code(result) == "invalid_params", text_of(result)
    assert text_of(result) == (
        "delete_file: the client's answer was not the form asked (one box, ticked or not: true or false), so nothing "
        "was changed. Call it again to be asked again."
    )
    assert "Resolver" not in text_of(result)  # the SDK's words, naming fsguard's code
    assert (root / "a.txt").read_bytes() == b"keep me\n"


@pytest.mark.parametrize("mode", ["legacy"], indirect=True)  # only 2025 asks over a back-channel that can fail
async def test_a_question_the_client_fails_to_put_is_declined_with_its_code(connect: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_text("keep me\n", encoding="utf-8")

    async def broken(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        raise RuntimeError("the dialog crashed")

    async with connect(elicitation_callback=broken) as client:
        result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True})
    assert error_code(result) == "declined", text_of(result)
    assert "the client could not ask" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"keep me\n"


async def test_a_batch_deleting_what_it_wrote_itself_asks_nothing(connect: ClientFactory, root: Path) -> None:
    # Nothing the user had is lost: the content is the request's own.
    operations = [
        {"type": "write", "path": "tmp/a.txt", "content": "scratch\n"},
        {"type": "delete", "path": "tmp/a.txt", "permanent": True},
        {"type": "delete", "path": "tmp", "recursive": True},
    ]
    user = User()
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("batch_operations", {"request_json": {"operations": operations}})
    assert not result.is_error, text_of(result)
    assert user.asked == []
    assert not (root / "tmp").exists()
