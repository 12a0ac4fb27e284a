"""Confirmation by elicitation: the calls that ask the user, what each answer does, and what the disk shows after.

Every test runs in both eras (conftest's ``connect``): on 2026-07-28 the question comes back as an
``input_required`` result that the client answers and retries, on 2025-11-25 as ``elicitation/create``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp.client import ClientRequestContext
from mcp.types import ElicitRequestParams, ElicitResult

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@dataclass
class User:
    """The person behind the client: answers every question the same way and remembers what was asked."""

    action: str = "accept"
    confirm: bool = True
    asked: list[str] = field(default_factory=list)

    async def __call__(self, context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(getattr(params, "message", ""))
        content: dict[str, Any] | None = {"confirm": self.confirm} if self.action == "accept" else None
        return ElicitResult(action=self.action, content=content)  # type: ignore[arg-type]


def _file(root: Path, name: str, text: str = "keep me\n") -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _trash_items(state_dir: Path) -> list[Path]:
    return sorted(p for p in (state_dir / "trash").rglob("item")) if (state_dir / "trash").exists() else []


# delete_file, permanent -------------------------------------------------------------------------------------------


async def test_a_permanent_delete_the_user_accepts_removes_the_file(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    user = User()
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert not result.is_error, text_of(result)
    assert not target.exists()
    assert len(user.asked) == 1
    assert "Permanently delete 1 path" in user.asked[0] and "cannot be undone" in user.asked[0]


async def test_a_permanent_delete_the_user_declines_changes_nothing(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect(elicitation_callback=User(action="decline")) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert error_code(result) == "declined"
    assert "nothing was changed" in text_of(result)
    assert target.read_text(encoding="utf-8") == "keep me\n"


async def test_a_cancelled_question_changes_nothing(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect(elicitation_callback=User(action="cancel")) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert error_code(result) == "declined"
    assert "cancelled" in text_of(result)
    assert target.exists()


async def test_accepting_with_the_box_unticked_changes_nothing(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect(elicitation_callback=User(confirm=False)) as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert error_code(result) == "declined"
    assert target.exists()


async def test_a_client_without_elicitation_deletes_as_before(connect: ClientFactory, root: Path) -> None:
    target = _file(root, "a.txt")
    async with connect() as client:
        result = await client.call_tool("delete_file", {"path": str(target), "permanent": True})
    assert not result.is_error, text_of(result)
    assert not target.exists()


async def test_a_soft_delete_of_a_file_asks_nothing(connect: ClientFactory, root: Path, state_dir: Path) -> None:
    target = _file(root, "a.txt")
    user = User(action="decline")
    async with connect(elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"path": str(target)})
    assert not result.is_error, text_of(result)
    assert not target.exists() and user.asked == []
    assert [p.read_text(encoding="utf-8") for p in _trash_items(state_dir)] == ["keep me\n"]
