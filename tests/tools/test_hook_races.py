"""A write to the file while the pre-hooks run, in both eras: it is counted as another program's, never written over.

A pre-hook that appends to the file stands in for the other program (an editor saving while a slow linter runs):
its bytes are in no backup, so the call answers external_change and leaves them on disk.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured
from tests.tools.test_hooks import hook_config

pytestmark = pytest.mark.anyio


def appending_hook(tmp_path: Path, event: str, target: Path) -> Path:
    command = f"printf 'OTHER\\n' >> {shlex.quote(str(target))}"
    return hook_config(tmp_path, {event: [{"hooks": [{"type": "command", "command": command}]}]})


@pytest.mark.parametrize(
    ("tool", "event", "args"),
    [
        ("edit_file", "pre-edit", {"old_text": "one", "new_text": "ONE"}),
        ("write_file", "pre-write", {"content": "new\n"}),
        ("multi_edit", "pre-edit", {"edits": [{"old_text": "one", "new_text": "ONE"}]}),
    ],
)
async def test_a_write_to_the_file_during_the_pre_hooks_is_not_written_over(
    connect: ClientFactory, root: Path, tmp_path: Path, tool: str, event: str, args: dict[str, object]
) -> None:
    target = root / "a.txt"
    target.write_bytes(b"one\n")
    async with connect(hooks_config=appending_hook(tmp_path, event, target)) as client:
        result = await client.call_tool(tool, {"path": "a.txt", **args})
        listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert error_code(result) == "external_change"
    assert target.read_bytes() == b"one\nOTHER\n"
    assert listing["total"] == 0


async def test_a_permanent_delete_leaves_a_file_written_to_during_its_pre_hooks(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    target = root / "a.txt"
    target.write_bytes(b"v1\n")
    async with connect(hooks_config=appending_hook(tmp_path, "pre-delete", target)) as client:
        read = structured(await client.call_tool("read_file", {"path": "a.txt"}))
        result = await client.call_tool(
            "delete_file", {"path": "a.txt", "permanent": True, "expected_hash": read["content_hash"]}
        )
        listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert error_code(result) == "external_change"
    assert target.read_bytes() == b"v1\nOTHER\n"
    assert listing["total"] == 0


async def test_a_pre_delete_hook_that_only_touches_the_file_does_not_stop_the_delete(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    target = root / "a.txt"
    target.write_bytes(b"v1\n")
    command = f"touch -d @1 {shlex.quote(str(target))}"
    config = hook_config(tmp_path, {"pre-delete": [{"hooks": [{"type": "command", "command": command}]}]})
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True})
    assert structured(result)["succeeded"] == 1
    assert not target.exists()
