"""Every mutating tool fires its hooks, in both eras: project_replace, undo_last, restore, restore_trash and
server_info's artifact write too.

One recording hook is configured for all sixteen events and appends each event's JSON to a log. Each mutating
call must fire exactly its pre- and post- event, with its tool_name, operation and file_path (and the move's
source and destination). A denying pre-hook (exit 2) for the five tools that went through other code paths
before the write sequence was shared must leave the bytes on disk as they were and answer hook_denied. An
artifact write fires what write_file fires for a new file, and its pre-write hook may deny it or rewrite it.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from fsguard.core.hooks import HOOK_EVENTS
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_hooks import hook_config, python_hook

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Fired:
    """The hook events one call must fire: ``pre-<family>`` then ``post-<family>``, with these fields."""

    family: str
    tool_name: str
    operation: str
    file_path: Path
    moved: tuple[Path, Path] | None = None  # (source_path, dest_path) of a move or copy
    post_metadata: dict[str, object] = field(default_factory=dict)  # what the post event's metadata must hold


@dataclass(frozen=True)
class Call:
    """One mutating call, after its set-up: the tool, its arguments, what it must fire and leave on disk."""

    tool: str
    arguments: dict[str, Any]
    fired: Fired
    after: Callable[[], None]  # asserts the bytes on disk once the call succeeded


Scenario = Callable[[Client, Path, Path], Awaitable[Call]]


async def edited(client: Client, path: str = "a.txt") -> str:
    """Edit ``path`` ("one" → "two"); returns the backup_id that edit made."""
    done = structured(await client.call_tool("edit_file", {"path": path, "old_text": "one", "new_text": "two"}))
    return str(done["backup_id"])


def holds(path: Path, data: bytes) -> Callable[[], None]:
    def check() -> None:
        assert path.read_bytes() == data

    return check


async def write_file(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")
    fired = Fired("write", "write_file", "write_file", root / "a.txt")
    return Call("write_file", {"path": "a.txt", "content": "new\n"}, fired, holds(root / "a.txt", b"new\n"))


async def edit_file(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")
    fired = Fired("edit", "edit_file", "edit_file:replace", root / "a.txt")
    arguments = {"path": "a.txt", "old_text": "one", "new_text": "two"}
    return Call("edit_file", arguments, fired, holds(root / "a.txt", b"two\n"))


async def multi_edit(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")
    fired = Fired("edit", "multi_edit", "multi_edit", root / "a.txt")
    arguments = {"path": "a.txt", "edits": [{"old_text": "one", "new_text": "two"}]}
    return Call("multi_edit", arguments, fired, holds(root / "a.txt", b"two\n"))


async def delete_to_trash(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")

    def gone() -> None:
        assert not (root / "a.txt").exists()
        [item] = (state_dir / "trash").glob("sd-*/item")
        assert item.read_bytes() == b"one\n"

    return Call(
        "delete_file", {"path": "a.txt"}, Fired("delete", "delete_file", "delete_file:trash", root / "a.txt"), gone
    )


async def delete_permanently(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")

    def gone() -> None:
        assert not (root / "a.txt").exists()

    fired = Fired("delete", "delete_file", "delete_file:permanent", root / "a.txt")
    return Call("delete_file", {"path": "a.txt", "permanent": True}, fired, gone)


async def move_file(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")

    def moved() -> None:
        assert not (root / "a.txt").exists()
        assert (root / "sub" / "b.txt").read_bytes() == b"one\n"

    fired = Fired("move", "move_file", "move_file", root / "a.txt", (root / "a.txt", root / "sub" / "b.txt"))
    return Call("move_file", {"source_path": "a.txt", "dest_path": "sub/b.txt"}, fired, moved)


async def copy_file(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")

    def copied() -> None:
        assert (root / "a.txt").read_bytes() == (root / "b.txt").read_bytes() == b"one\n"

    fired = Fired("copy", "copy_file", "copy_file", root / "a.txt", (root / "a.txt", root / "b.txt"))
    return Call("copy_file", {"source_path": "a.txt", "dest_path": "b.txt"}, fired, copied)


async def create_directory(client: Client, root: Path, state_dir: Path) -> Call:
    def made() -> None:
        assert (root / "d" / "e").is_dir()

    fired = Fired("create", "create_directory", "create_directory", root / "d" / "e")
    return Call("create_directory", {"path": "d/e"}, fired, made)


async def project_replace(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\r\none\n")
    fired = Fired("edit", "project_replace", "project_replace", root / "a.txt", post_metadata={"replacements": 2})
    arguments = {"find": "one", "replace": "two"}
    return Call("project_replace", arguments, fired, holds(root / "a.txt", b"two\r\ntwo\n"))


async def undo_last(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")
    backup_id = await edited(client)
    metadata: dict[str, object] = {"restored_backup_id": backup_id}
    fired = Fired("write", "backup", "undo_last", root / "a.txt", post_metadata=metadata)
    arguments = {"action": "undo_last", "file_path": "a.txt"}
    return Call("backup", arguments, fired, holds(root / "a.txt", b"one\n"))


async def restore(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")
    backup_id = await edited(client)
    metadata: dict[str, object] = {"restored_backup_id": backup_id}
    fired = Fired("write", "backup", "restore", root / "a.txt", post_metadata=metadata)
    arguments = {"action": "restore", "backup_id": backup_id}
    return Call("backup", arguments, fired, holds(root / "a.txt", b"one\n"))


async def restore_trash(client: Client, root: Path, state_dir: Path) -> Call:
    (root / "a.txt").write_bytes(b"one\n")
    [deleted] = structured(await client.call_tool("delete_file", {"path": "a.txt"}))["results"]
    sd_id = deleted["sd_id"]
    moved = (state_dir / "trash" / sd_id / "item", root / "a.txt")
    fired = Fired("move", "backup", "restore_trash", root / "a.txt", moved)
    return Call("backup", {"action": "restore_trash", "sd_id": sd_id}, fired, holds(root / "a.txt", b"one\n"))


async def artifact_write(client: Client, root: Path, state_dir: Path) -> Call:
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "kept\n"})
    fired = Fired("write", "server_info", "artifact_write", root / "notes.md", post_metadata={"backup_id": None})
    arguments = {"action": "artifact", "sub_action": "write", "path": "notes.md"}
    return Call("server_info", arguments, fired, holds(root / "notes.md", b"kept\n"))


SCENARIOS: dict[str, Scenario] = {
    "write_file": write_file,
    "edit_file": edit_file,
    "multi_edit": multi_edit,
    "delete_file-trash": delete_to_trash,
    "delete_file-permanent": delete_permanently,
    "move_file": move_file,
    "copy_file": copy_file,
    "create_directory": create_directory,
    "project_replace": project_replace,
    "backup-undo_last": undo_last,
    "backup-restore": restore,
    "backup-restore_trash": restore_trash,
    "server_info-artifact_write": artifact_write,
}


@dataclass(frozen=True)
class Recorder:
    """A hooks config whose one hook, on all sixteen events, appends each event's JSON to ``log``."""

    config: Path
    log: Path

    def events(self) -> list[dict[str, Any]]:
        """What was fired since the log was last cleared, in order."""
        return [json.loads(line) for line in self.log.read_text(encoding="utf-8").splitlines()]

    def clear(self) -> None:
        self.log.write_text("", encoding="utf-8")


@pytest.fixture
def recorder(tmp_path: Path) -> Recorder:
    log = tmp_path / "events.jsonl"
    record = python_hook(
        tmp_path, "record", f"open({str(log)!r}, 'a', encoding='utf-8').write(json.dumps(event) + '\\n')"
    )
    config = hook_config(
        tmp_path, {event: [{"hooks": [{"type": "command", "command": record}]}] for event in HOOK_EVENTS}
    )
    return Recorder(config, log)


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=SCENARIOS.keys())
async def test_each_mutating_tool_fires_its_pre_and_post_hooks_with_its_tool_operation_and_path(
    connect: ClientFactory, root: Path, state_dir: Path, recorder: Recorder, scenario: Scenario
) -> None:
    async with connect(hooks_config=recorder.config) as client:
        call = await scenario(client, root, state_dir)
        recorder.clear()  # what the set-up fired is not this call's
        structured(await client.call_tool(call.tool, call.arguments))
    call.after()
    events = recorder.events()
    fired = call.fired
    assert [event["event"] for event in events] == [f"pre-{fired.family}", f"post-{fired.family}"]
    for event in events:
        assert (event["tool_name"], event["operation"], event["file_path"]) == (
            fired.tool_name,
            fired.operation,
            str(fired.file_path),
        ), event["event"]
        if fired.moved is not None:
            assert (event["source_path"], event["dest_path"]) == tuple(map(str, fired.moved)), event["event"]
    post = events[1].get("metadata", {})
    assert {key: post.get(key) for key in fired.post_metadata} == fired.post_metadata, post


# -- a denying pre-hook leaves the bytes as they were --------------------------------------------------


async def denied_project_replace(client: Client, root: Path, state_dir: Path) -> dict[str, Any]:
    return {"find": "one", "replace": "three"}


async def denied_undo_last(client: Client, root: Path, state_dir: Path) -> dict[str, Any]:
    await edited(client)
    return {"action": "undo_last", "file_path": "a.txt"}


async def denied_restore(client: Client, root: Path, state_dir: Path) -> dict[str, Any]:
    return {"action": "restore", "backup_id": await edited(client)}


async def denied_restore_trash(client: Client, root: Path, state_dir: Path) -> dict[str, Any]:
    await edited(client)
    [deleted] = structured(await client.call_tool("delete_file", {"path": "a.txt"}))["results"]
    return {"action": "restore_trash", "sd_id": deleted["sd_id"]}


async def denied_artifact_write(client: Client, root: Path, state_dir: Path) -> dict[str, Any]:
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x = 1\n"})
    return {"action": "artifact", "sub_action": "write", "path": "new/made.py"}


DenialSetup = Callable[[Client, Path, Path], Awaitable[dict[str, Any]]]
# The denied event, the tool (also the hook's pattern), the set-up, and what a.txt holds before and after.
DENIALS: dict[str, tuple[str, str, DenialSetup, bytes | None]] = {
    "project_replace": ("pre-edit", "project_replace", denied_project_replace, b"one\r\n"),
    "backup-undo_last": ("pre-write", "backup", denied_undo_last, b"two\r\n"),
    "backup-restore": ("pre-write", "backup", denied_restore, b"two\r\n"),
    "backup-restore_trash": ("pre-move", "backup", denied_restore_trash, None),
    "server_info-artifact_write": ("pre-write", "server_info", denied_artifact_write, b"one\r\n"),
}


def files_under(*tops: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for top in tops for path in sorted(top.rglob("*")) if path.is_file()}


@pytest.mark.parametrize(("event", "tool", "setup", "held"), DENIALS.values(), ids=DENIALS.keys())
async def test_a_denying_pre_hook_stops_project_replace_undo_restore_restore_trash_and_artifacts_leaving_the_bytes(
    connect: ClientFactory,
    root: Path,
    state_dir: Path,
    tmp_path: Path,
    event: str,
    tool: str,
    setup: DenialSetup,
    held: bytes | None,
) -> None:
    deny = [{"pattern": tool, "hooks": [{"type": "command", "command": "echo frozen by policy >&2; exit 2"}]}]
    config = hook_config(tmp_path, {event: deny})
    (root / "a.txt").write_bytes(b"one\r\n")
    async with connect(hooks_config=config) as client:
        arguments = await setup(client, root, state_dir)
        before = files_under(root, state_dir / "trash")
        backups = structured(await client.call_tool("backup", {"action": "list"}))["total"]
        result = await client.call_tool(tool, arguments)
        assert error_code(result) == "hook_denied", text_of(result)
        assert "frozen by policy" in text_of(result)
        assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == backups
    assert files_under(root, state_dir / "trash") == before
    assert not (root / "new").exists()
    if held is None:
        assert not (root / "a.txt").exists()
    else:
        assert (root / "a.txt").read_bytes() == held
    if event == "pre-move":  # the trash entry is still whole, holding the deleted bytes
        [item] = (state_dir / "trash").glob("sd-*/item")
        assert item.read_bytes() == b"two\r\n"


async def test_an_artifact_write_fires_the_events_write_file_fires_for_a_new_file(
    connect: ClientFactory, root: Path, recorder: Recorder
) -> None:
    arguments = {"action": "artifact", "sub_action": "write", "path": "by_artifact.md"}
    async with connect(hooks_config=recorder.config) as client:
        structured(await client.call_tool("write_file", {"path": "by_write.md", "content": "same\n"}))
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "same\n"})
        structured(await client.call_tool("server_info", arguments))
    written, artifact = recorder.events()[:2], recorder.events()[2:]

    def shape(event: dict[str, Any]) -> tuple[object, ...]:
        metadata = event.get("metadata", {})
        return event["event"], sorted(event), sorted(metadata), event.get("content"), metadata.get("content_hash")

    assert [shape(event) for event in artifact] == [shape(event) for event in written]
    assert [(event["tool_name"], event["operation"]) for event in artifact] == [("server_info", "artifact_write")] * 2
    assert (root / "by_artifact.md").read_bytes() == (root / "by_write.md").read_bytes() == b"same\n"


async def test_a_pre_write_hook_denying_a_path_glob_leaves_no_artifact_on_disk(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    deny = [{"path": "*.py", "hooks": [{"type": "command", "command": "echo no python writes >&2; exit 2"}]}]
    async with connect(hooks_config=hook_config(tmp_path, {"pre-write": deny})) as client:
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "x = 1\n"})
        refused = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "c.py"})
        allowed = await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "c.md"})
    assert error_code(refused) == "hook_denied", text_of(refused)
    assert "no python writes" in text_of(refused)
    assert structured(allowed)["artifact"]["path"] == str(root / "c.md")
    assert sorted(path.name for path in root.iterdir()) == ["c.md"]
    assert (root / "c.md").read_bytes() == b"x = 1\n"


async def test_a_pre_write_hook_rewrites_what_an_artifact_write_puts_on_disk(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    rewrite = python_hook(tmp_path, "rewrite", 'print(json.dumps({"modified_content": event["content"].upper()}))')
    config = hook_config(tmp_path, {"pre-write": [{"hooks": [{"type": "command", "command": rewrite}]}]})
    async with connect(hooks_config=config) as client:
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "quiet\n"})
        structured(await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "a.md"}))
    assert (root / "a.md").read_bytes() == b"QUIET\n"


async def test_a_pre_edit_hook_text_a_file_cannot_store_stops_project_replace_naming_the_files_it_changed(
    connect: ClientFactory, root: Path, tmp_path: Path, tool_engine: str
) -> None:
    tree = {"a.txt": b"foo\n", "b.txt": "café foo\n".encode("latin-1"), "c.txt": b"foo\n"}
    for name, data in tree.items():
        (root / name).write_bytes(data)
    appends = python_hook(tmp_path, "appends", 'print(json.dumps({"modified_content": event["new_content"] + "İ"}))')
    config = hook_config(tmp_path, {"pre-edit": [{"hooks": [{"type": "command", "command": appends}]}]})
    async with connect(hooks_config=config) as client:
        stopped = await client.call_tool("project_replace", {"find": "foo", "replace": "bar"})

        assert error_code(stopped) == "encoding_error"
        assert "pre-edit hook" in text_of(stopped)
        assert stopped.meta is not None
        fields = stopped.meta["fsguard/error"]
        assert fields["changed_files"] == [str(root / "a.txt")]
        assert {name: (root / name).read_bytes() for name in tree} == {**tree, "a.txt": "bar\nİ".encode()}
        restored = await client.call_tool("backup", {"action": "restore", "backup_id": fields["backup_id"]})
    structured(restored)
    assert {name: (root / name).read_bytes() for name in tree} == tree
