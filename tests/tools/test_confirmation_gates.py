"""Which calls ask under each ``--confirm`` mode, batch_operations included: a batch or a pipeline holding a delete
that delete_file would ask about must ask too, or the question is only a detour away. Both eras; bytes on disk."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import ClientRequestContext
from mcp.types import ElicitRequestParams, ElicitResult

from tests.conftest import ClientFactory, error_code, text_of

pytestmark = pytest.mark.anyio


@dataclass
class User:
    """Answers every question the same way and remembers each."""

    confirm: bool = False
    asked: list[str] = field(default_factory=list)

    async def __call__(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(getattr(params, "message", ""))
        if not self.confirm:
            return ElicitResult(action="decline")
        return ElicitResult(action="accept", content={"confirm": True})


def _disk(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _seed(root: Path) -> None:
    (root / "a.txt").write_bytes(b"alpha\n")
    (root / "dir").mkdir()
    (root / "dir" / "x.txt").write_bytes(b"x\n")
    (root / "dir" / "y.txt").write_bytes(b"y\n")
    for i in range(60):
        (root / f"m{i:02}.txt").write_bytes(b"old\n")


def _pipeline(*steps: dict[str, Any]) -> dict[str, Any]:
    return {"pipeline_json": {"name": "p", "steps": list(steps)}}


_DELETE_DIR = {"id": "d", "action": "delete", "params": {"files": ["dir"], "recursive": True}}
_SIXTY = [f"m{i:02}.txt" for i in range(60)]
_WIDE = {"id": "w", "action": "edit", "params": {"files": _SIXTY, "old_text": "old", "new_text": "new"}}

# (call, arguments, irreversible): every row of the README's table that needs no repository, and the batch forms
# holding the same deletes.
CASES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "delete_file permanent": ("delete_file", {"path": "a.txt", "permanent": True}, True),
    "delete_file recursive": ("delete_file", {"path": "dir", "recursive": True}, False),
    "project_replace HIGH": ("project_replace", {"find": "old", "replace": "new"}, False),
    "pipeline over the risk threshold": ("batch_operations", _pipeline(_WIDE), False),
    "pipeline recursive delete": ("batch_operations", _pipeline(_DELETE_DIR), False),
    "request permanent delete": (
        "batch_operations",
        {"request_json": {"operations": [{"type": "delete", "path": "a.txt", "permanent": True}]}},
        True,
    ),
    "request permanent delete of a tree": (
        "batch_operations",
        {
            "request_json": {
                "atomic": False,
                "operations": [{"type": "delete", "path": "dir", "recursive": True, "permanent": True}],
            }
        },
        True,
    ),
    "request recursive delete": (
        "batch_operations",
        {"request_json": [{"type": "delete", "path": "dir", "recursive": True}]},
        False,
    ),
}


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("confirm", ["risky", "irreversible"])
async def test_each_asking_call_asks_under_its_modes_and_a_no_changes_nothing(
    connect: ClientFactory, root: Path, case: str, confirm: str
) -> None:
    tool, arguments, irreversible = CASES[case]
    _seed(root)
    before = _disk(root)
    user = User()
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user, confirm=confirm) as client:
            result = await client.call_tool(tool, arguments)
    if confirm == "risky" or irreversible:
        assert (error_code(result), len(user.asked)) == ("declined", 1), text_of(result)
        assert _disk(root) == before
    else:
        assert user.asked == []


@pytest.mark.parametrize("case", [name for name in CASES if CASES[name][0] == "batch_operations"])
async def test_a_batch_asks_nothing_under_confirm_off_or_of_a_client_that_cannot_answer(
    connect: ClientFactory, root: Path, case: str
) -> None:
    tool, arguments, _ = CASES[case]
    outcomes: list[str | None] = []
    quiet = User()
    settings: list[dict[str, Any]] = [{"confirm": "off", "elicitation_callback": quiet}, {}]
    for options in settings:
        _seed(root)
        with anyio.fail_after(30):
            async with connect(**options) as client:
                result = await client.call_tool(tool, arguments)
        outcomes.append(error_code(result) if result.is_error else None)
        for path in sorted(root.iterdir(), reverse=True):
            _remove(path)
    blocked = "batch_failed" if case == "pipeline over the risk threshold" else None
    assert outcomes == [blocked, blocked]
    assert quiet.asked == []


def _remove(path: Path) -> None:
    if path.is_dir():
        for child in path.iterdir():
            _remove(child)
        path.rmdir()
    else:
        path.unlink()


Check = Callable[[Path], bool]

_DONE: dict[str, Check] = {
    "pipeline recursive delete": lambda root: not (root / "dir").exists(),
    "request permanent delete": lambda root: not (root / "a.txt").exists(),
    "request permanent delete of a tree": lambda root: not (root / "dir").exists(),
    "request recursive delete": lambda root: not (root / "dir").exists(),
}


@pytest.mark.parametrize("case", list(_DONE))
async def test_a_batch_delete_the_user_confirms_runs(connect: ClientFactory, root: Path, case: str) -> None:
    tool, arguments, _ = CASES[case]
    _seed(root)
    user = User(confirm=True)
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert _DONE[case](root)
    assert len(user.asked) == 1
    assert (root / "m00.txt").read_bytes() == b"old\n"


async def test_a_batch_question_names_the_deleted_paths_quoted(connect: ClientFactory, root: Path) -> None:
    _seed(root)
    user = User()
    write: dict[str, Any] = {"type": "write", "path": "n.txt", "content": "n"}
    request = {"operations": [write, {"type": "delete", "path": "a.txt", "permanent": True}]}
    with anyio.fail_after(30):
        async with connect(elicitation_callback=user) as client:
            result = await client.call_tool("batch_operations", {"request_json": request})
    assert error_code(result) == "declined"
    assert "batch_operations: the user did not confirm it" in text_of(result)
    assert f"Permanently delete 1 path: '{root / 'a.txt'}'." in user.asked[0]
    assert not (root / "n.txt").exists()
