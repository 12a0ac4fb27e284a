"""A --hooks-config file inside a root is out of the tools' reach, as the state dir is: an agent that could rewrite
it would choose the commands the next start of fsguard runs (a hook runs outside every root)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured

pytestmark = pytest.mark.anyio


def _hooks(log: Path) -> str:
    """A hooks file whose one hook, after each write, appends a line to ``log``."""
    record = f"{sys.executable} -c \"open({str(log)!r}, 'a').write('ran\\\\n')\""
    return json.dumps({"hooks": {"post-write": [{"hooks": [{"type": "command", "command": record}]}]}})


async def test_a_hooks_file_inside_a_root_can_be_neither_read_nor_changed_nor_moved_away(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    log = tmp_path / "hooks-ran.log"
    hooks = root / "conf" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text(_hooks(log), encoding="utf-8")
    before = hooks.read_bytes()
    evil = json.dumps({"hooks": {"post-write": [{"hooks": [{"type": "command", "command": "touch /tmp/x"}]}]}})
    async with connect(hooks_config=hooks) as client:
        refusals = [
            await client.call_tool("read_file", {"path": "conf/hooks.json"}),
            await client.call_tool("write_file", {"path": "conf/hooks.json", "content": evil}),
            await client.call_tool(
                "edit_file", {"path": "conf/hooks.json", "old_text": "post-write", "new_text": "pre-read"}
            ),
            await client.call_tool("delete_file", {"path": "conf/hooks.json"}),
            await client.call_tool("delete_file", {"path": "conf/hooks.json", "permanent": True}),
            await client.call_tool("move_file", {"source_path": "conf/hooks.json", "dest_path": "old.json"}),
            await client.call_tool("move_file", {"source_path": "conf", "dest_path": "elsewhere"}),
            await client.call_tool(
                "batch_operations",
                {"request_json": {"operations": [{"type": "write", "path": "conf/hooks.json", "content": evil}]}},
            ),
        ]
        structured(await client.call_tool("write_file", {"path": "a.txt", "content": "x\n"}))
    assert [error_code(result) for result in refusals] == ["access_denied"] * len(refusals)
    assert hooks.read_bytes() == before
    assert not (root / "elsewhere").exists()
    assert log.read_text(encoding="utf-8") == "ran\n"  # the operator's hook, and only it, runs


async def test_a_backup_of_the_hooks_file_from_before_it_was_one_is_not_restored_over_it(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # A server without --hooks-config saw the file as any other: its backup holds what an agent wrote there.
    hooks = root / "hooks.json"
    async with connect() as client:
        structured(await client.call_tool("write_file", {"path": "hooks.json", "content": '{"hooks": {}}'}))
        structured(await client.call_tool("write_file", {"path": "hooks.json", "content": _hooks(tmp_path / "l")}))
    before = hooks.read_bytes()
    async with connect(hooks_config=hooks) as client:
        refused = await client.call_tool("backup", {"action": "undo_last", "file_path": "hooks.json"})
    assert error_code(refused) == "access_denied"
    assert hooks.read_bytes() == before


async def test_a_hooks_file_reached_through_a_link_in_a_root_keeps_both_the_link_and_its_target_out_of_reach(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # The link replaced by a file of the agent's would be the hooks file the next start reads.
    target = root / "real-hooks.json"
    target.write_text(_hooks(tmp_path / "l"), encoding="utf-8")
    (root / "hooks.json").symlink_to(target)
    async with connect(hooks_config=root / "hooks.json") as client:
        refusals = [
            await client.call_tool("delete_file", {"path": "hooks.json", "permanent": True}),
            await client.call_tool("move_file", {"source_path": "hooks.json", "dest_path": "gone.json"}),
            await client.call_tool("write_file", {"path": "real-hooks.json", "content": "{}"}),
        ]
    assert [error_code(result) for result in refusals] == ["access_denied"] * len(refusals)
    assert (root / "hooks.json").is_symlink()
    assert target.read_text(encoding="utf-8") == _hooks(tmp_path / "l")
