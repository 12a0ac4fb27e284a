"""Deny rules against copies and moves, in both eras: a secret never reaches a readable name on disk.

A copy reads what a link points to, so the rules judge that target too; a move of a directory carries what is
inside it to new paths, so it is refused when a hidden entry would be visible at its new path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_batch_pipeline import pipeline
from tests.tools.test_batch_request import batch, snapshot
from tests.tools.test_least_privilege import read, tree

pytestmark = pytest.mark.anyio

CREDENTIALS = "aws_secret_access_key=SEKRIT-AWS\n"


async def test_copy_through_a_link_to_a_denied_file_is_refused_and_writes_nothing(client: Client, root: Path) -> None:
    (root / ".env").write_text("DATABASE_PASSWORD=SEKRIT\n", encoding="utf-8")
    (root / "settings").symlink_to(".env")
    before = snapshot(root)
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("copy_file", {"source_path": "settings", "dest_path": "leak.txt"}),
        ("batch_operations", {"request_json": [{"type": "copy", "source": "settings", "destination": "leak.txt"}]}),
        (
            "batch_operations",
            {
                "pipeline_json": {
                    "name": "leak",
                    "steps": [{"action": "copy", "params": {"files": ["settings"], "destination": "out"}}],
                }
            },
        ),
    ]
    for tool, arguments in attempts:
        result = await client.call_tool(tool, arguments)
        assert result.is_error, (tool, text_of(result))
        assert "deny rule '.env'" in text_of(result), (tool, text_of(result))
        assert "SEKRIT" not in text_of(result)
    assert snapshot(root) == before


async def test_copy_through_a_link_to_a_denied_directory_is_refused_and_writes_nothing(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"secrets/db.yaml": "password: SEKRIT\n"})
    (root / "config").symlink_to("secrets")
    async with connect(deny=("secrets/",)) as client:
        refused = await client.call_tool("copy_file", {"source_path": "config", "dest_path": "public"})
    assert error_code(refused) == "access_denied"
    assert "'secrets/'" in text_of(refused)
    assert not (root / "public").exists()
    assert sorted(path.name for path in root.iterdir()) == ["config", "secrets"]


async def test_a_moved_link_to_a_denied_file_stays_unreadable(client: Client, root: Path) -> None:
    (root / ".env").write_text("TOKEN=SEKRIT\n", encoding="utf-8")
    (root / "settings").symlink_to(".env")
    structured(await client.call_tool("move_file", {"source_path": "settings", "dest_path": "renamed"}))
    assert (root / "renamed").is_symlink()
    assert (root / ".env").read_text(encoding="utf-8") == "TOKEN=SEKRIT\n"
    refused = await read(client, "renamed")
    assert error_code(refused) == "access_denied"
    assert "SEKRIT" not in text_of(refused)


async def test_move_of_a_directory_that_would_unhide_a_denied_file_is_refused_and_moves_nothing(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {".aws/credentials": CREDENTIALS, ".aws/config": "[default]\n", "secrets/db.yaml": "password: x\n"})
    before = snapshot(root)
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("move_file", {"source_path": ".aws", "dest_path": "aws"}),
        ("move_file", {"source_path": "secrets", "dest_path": "nested/public"}),
        ("batch_operations", {"request_json": [{"type": "move", "source": "secrets", "destination": "public"}]}),
        ("batch_operations", {"request_json": [{"type": "rename", "source": ".aws", "destination": "aws"}]}),
        (
            "batch_operations",
            {
                "pipeline_json": {
                    "name": "unhide",
                    "steps": [{"action": "rename", "params": {"files": ["secrets"], "destination": "public"}}],
                }
            },
        ),
    ]
    async with connect(deny=("/secrets/",)) as client:
        for tool, arguments in attempts:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            text = text_of(result)
            assert "db.yaml" not in text, text
            if "secrets" in str(arguments):  # a directory rule hides the directory itself: refused as any hidden path
                assert "deny rule '/secrets/'" in text, text
                continue
            assert "1 file hidden by the deny rule" in text, text
            assert "nothing was moved" in text, text
            assert "credentials" not in text.replace("'**/.aws/credentials'", ""), text  # counted, never named
            assert "Move the other entries out one at a time" in text, text
            if tool == "move_file":
                assert error_code(result) == "access_denied"
                assert result.meta is not None
                assert result.meta["fsguard/error"]["hidden"] == 1
        assert error_code(await read(client, "aws/credentials")) == "not_found"
    assert snapshot(root) == before


async def test_move_of_a_directory_whose_denied_files_stay_denied_is_allowed(client: Client, root: Path) -> None:
    tree(root, {"home/.aws/credentials": CREDENTIALS, "home/.env": "TOKEN=1\n", "home/notes.md": "n\n"})
    structured(await client.call_tool("move_file", {"source_path": "home", "dest_path": "archive/home"}))
    assert not (root / "home").exists()
    assert (root / "archive" / "home" / ".aws" / "credentials").read_text(encoding="utf-8") == CREDENTIALS
    assert (root / "archive" / "home" / ".env").read_text(encoding="utf-8") == "TOKEN=1\n"
    assert error_code(await read(client, "archive/home/.aws/credentials")) == "access_denied"
    moved = await pipeline(
        client, steps=[{"action": "rename", "params": {"files": ["archive/home/.aws"], "destination": "kept"}}]
    )
    assert not moved.is_error, text_of(moved)
    assert (root / "kept" / ".aws" / "credentials").read_text(encoding="utf-8") == CREDENTIALS
    assert error_code(await read(client, "kept/.aws/credentials")) == "access_denied"


async def test_a_batch_moving_a_hidden_directory_is_refused_before_anything_moves(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"secrets/db.yaml": "password: x\n", "a.txt": "a\n"})
    before = snapshot(root)
    async with connect(deny=("/secrets/",)) as client:
        result = await batch(
            client,
            {"type": "move", "source": "a.txt", "destination": "b.txt"},
            {"type": "move", "source": "secrets", "destination": "public"},
        )
    assert error_code(result) == "access_denied"  # a directory rule hides the directory itself: nothing ran
    assert "secrets" in text_of(result)
    assert snapshot(root) == before


async def test_a_tree_is_refused_where_a_readable_file_in_it_would_land_hidden_and_moves_where_none_would(
    connect: ClientFactory, root: Path
) -> None:
    """The rule hides a file in .ssh, not .ssh itself: the destination's name passes, the file inside would not."""
    key = "ssh-ed25519 AAAA agent\n"
    tree(root, {"keys/authorized_keys": key, "keys/config": "Host *\n", "stash/.ssh/authorized_keys": key})
    (root / "cfg").mkdir()
    (root / "cfg" / "config").write_bytes(b"Host *\n")
    before = snapshot(root)
    attempts: list[tuple[str, dict[str, Any]]] = [
        ("move_file", {"source_path": "keys", "dest_path": ".ssh"}),
        ("copy_file", {"source_path": "keys", "dest_path": ".ssh"}),
        ("batch_operations", {"request_json": [{"type": "move", "source": "keys", "destination": ".ssh"}]}),
        ("batch_operations", {"request_json": [{"type": "copy", "source": "keys", "destination": ".ssh"}]}),
        ("batch_operations", {"request_json": [{"type": "rename", "source": "keys", "destination": ".ssh"}]}),
        *(  # a pipeline puts a tree into a directory, under its own name
            (
                "batch_operations",
                {
                    "pipeline_json": {
                        "name": "plant",
                        "steps": [{"action": action, "params": {"files": ["stash/.ssh"], "destination": "."}}],
                    }
                },
            )
            for action in ("rename", "copy")
        ),
    ]
    async with connect(deny=("/.ssh/authorized_keys",)) as client:
        for tool, arguments in attempts:
            result = await client.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments)
            text = text_of(result)
            assert "access denied: " in text, text
            assert "holds authorized_keys, which would land at .ssh/authorized_keys" in text, text
            assert "deny rule '/.ssh/authorized_keys'" in text, text
            assert "nothing was" in text, text
        refused = await client.call_tool("move_file", {"source_path": "keys", "dest_path": ".ssh"})
        assert refused.meta is not None
        assert refused.meta["fsguard/error"]["landing"] == str(root / ".ssh" / "authorized_keys")
        assert snapshot(root) == before
        structured(await client.call_tool("move_file", {"source_path": "cfg", "dest_path": ".ssh"}))
        structured(await client.call_tool("copy_file", {"source_path": "keys", "dest_path": "backup/keys"}))
        structured(await client.call_tool("move_file", {"source_path": "keys", "dest_path": "old/keys"}))
    assert (root / ".ssh" / "config").read_bytes() == b"Host *\n"
    assert not (root / ".ssh" / "authorized_keys").exists()
    assert (root / "backup" / "keys" / "authorized_keys").read_text(encoding="utf-8") == key
    assert (root / "old" / "keys" / "authorized_keys").read_text(encoding="utf-8") == key
    assert not (root / "keys").exists()
    assert not (root / "cfg").exists()


async def test_a_refused_landing_counts_the_other_caught_files_in_the_singular(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"keys/authorized_keys": "key\n", "keys/known_hosts": "host\n"})
    before = snapshot(root)
    async with connect(deny=("/.ssh/authorized_keys", "/.ssh/known_hosts")) as client:
        result = await client.call_tool("copy_file", {"source_path": "keys", "dest_path": ".ssh"})
    assert error_code(result) == "access_denied", text_of(result)
    assert "(and 1 more file)," in text_of(result), text_of(result)
    assert snapshot(root) == before


async def test_a_batch_or_pipeline_copy_of_a_directory_counts_the_hidden_files_it_leaves_behind_as_copy_file_does(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"app/.env": "TOKEN=1\n", "app/main.py": "x = 1\n", "app/tls.key": "k\n"})
    copy_step = {"action": "copy", "params": {"files": ["app"], "destination": "out"}}
    async with connect() as client, connect(compact_mode=True) as compact:
        copied = await batch(client, {"type": "copy", "source": "app", "destination": "app2"})
        stepped = await pipeline(client, steps=[copy_step])
        short = text_of(await batch(compact, {"type": "copy", "source": "app", "destination": "app3"}))
        short_step = text_of(
            await pipeline(compact, steps=[{**copy_step, "params": {"files": ["app"], "destination": "o"}}])
        )
    operation, step = structured(copied)["operations"][0], structured(stepped)["steps"][0]
    assert (operation["status"], operation["denied"]) == ("ok", 2)
    assert (step["status"], step["denied"]) == ("ok", 2)
    assert "(6 B, 2 hidden by deny rules, not copied)" in text_of(copied)
    assert "Files: 1 copied, 2 hidden by deny rules, not copied" in text_of(stepped)
    for text in (short, short_step):
        assert " | 2 hidden by deny rules, not copied | backup:" in text
        assert ".env" not in text
        assert "tls.key" not in text
    for copy in ("app2", "app3", "out/app", "o/app"):
        assert {path.name: path.read_bytes() for path in (root / copy).iterdir()} == {"main.py": b"x = 1\n"}
    assert (root / "app" / ".env").read_bytes() == b"TOKEN=1\n"
