"""A read-only root reached under another name of its directory, in both eras: every change is still read_only.

Roots are compared as strings, and a directory can have more than one: on a case-insensitive mount (macOS's default
volume, WSL's /mnt/c) ``proj/VENDOR`` is ``proj/vendor``, spelled by the agent alone; a bind mount is another. The
tests make the second name with a bind mount (this kernel has no case-folding file system to mount), which needs
root, and skip otherwise.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fsguard.core import aliases
from tests.conftest import ClientFactory, bind_mounted, error_code, tree

pytestmark = pytest.mark.anyio

ORIGINAL = b"export const lib = 1;\n"


@pytest.fixture
def alias(root: Path) -> Iterator[Path]:
    """root/vendor holding lib.js, also reachable as root/alias (a bind mount); unmounted at teardown."""
    (root / "vendor" / "deep").mkdir(parents=True)
    (root / "vendor" / "lib.js").write_bytes(ORIGINAL)
    (root / "alias").mkdir()
    with bind_mounted(root / "vendor", root / "alias") as mounted:
        yield mounted


async def test_a_read_only_root_reached_under_another_name_refuses_every_change(
    connect: ClientFactory, root: Path, alias: Path
) -> None:
    (root / "app.js").write_bytes(b"app\n")
    before = tree(root / "vendor")
    attempts: list[tuple[str, dict[str, object]]] = [
        ("write_file", {"path": "alias/lib.js", "content": "forged\n"}),
        ("write_file", {"path": "alias/deep/new.js", "content": "forged\n"}),
        ("edit_file", {"path": "alias/lib.js", "old_text": "1", "new_text": "2"}),
        ("delete_file", {"path": "alias/lib.js"}),
        ("move_file", {"source_path": "alias/lib.js", "dest_path": "moved.js"}),
        ("copy_file", {"source_path": "app.js", "dest_path": "alias/app.js"}),
        ("create_directory", {"path": "alias/deep/made"}),
        ("batch_operations", {"request_json": [{"type": "write", "path": "alias/b.js", "content": "forged\n"}]}),
    ]
    async with connect(read_only_roots=(root / "vendor",)) as client:
        codes = [error_code(await client.call_tool(tool, arguments)) for tool, arguments in attempts]
    assert codes == ["read_only"] * len(attempts)
    assert tree(root / "vendor") == before
    assert (root / "vendor" / "lib.js").read_bytes() == ORIGINAL
    assert not (root / "moved.js").exists()


async def test_a_bind_mount_of_a_directory_inside_a_read_only_root_refuses_every_change(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # The bind of vendor/deep has deep's identity, not vendor's: only the mount table says it lies in the read-only
    # root. A second root that is itself a bind of vendor was not looked at either (a root was never its own alias).
    (root / "vendor" / "deep").mkdir(parents=True)
    (root / "vendor" / "deep" / "lib.js").write_bytes(ORIGINAL)
    (root / "sub").mkdir()
    whole = tmp_path / "whole"
    whole.mkdir()
    before = tree(root / "vendor")
    attempts: list[tuple[str, dict[str, object]]] = [
        ("write_file", {"path": str(root / "sub" / "lib.js"), "content": "forged\n"}),
        ("write_file", {"path": str(root / "sub" / "new.js"), "content": "forged\n"}),
        ("delete_file", {"path": str(root / "sub" / "lib.js"), "permanent": True}),
        ("write_file", {"path": str(whole / "deep" / "lib.js"), "content": "forged\n"}),
    ]
    with bind_mounted(root / "vendor" / "deep", root / "sub"), bind_mounted(root / "vendor", whole):
        async with connect(roots=(root, whole), read_only_roots=(root / "vendor",)) as client:
            codes = [error_code(await client.call_tool(tool, arguments)) for tool, arguments in attempts]
    assert codes == ["read_only"] * len(attempts)
    assert tree(root / "vendor") == before


@pytest.fixture
def case_insensitive(monkeypatch: pytest.MonkeyPatch) -> None:
    """Identities looked up as a case-insensitive mount finds them (this kernel has no case-folding file system):
    ``PROJ`` is the directory ``proj``."""
    real = aliases.identity
    monkeypatch.setattr(aliases, "identity", lambda path: real(Path(str(path).lower())))


async def test_a_read_only_root_spelled_in_another_case_refuses_every_change(
    connect: ClientFactory, root: Path, case_insensitive: None
) -> None:
    (root / "proj" / "vendor").mkdir(parents=True)
    (root / "proj" / "vendor" / "lib.js").write_bytes(ORIGINAL)
    (root / "PROJ").mkdir()  # on a case-insensitive mount, this name is proj itself
    (root / "PROJ" / "keep.txt").write_bytes(b"keep\n")
    before = tree(root)
    async with connect(read_only_roots=(root / "proj" / "vendor",)) as client:
        written = await client.call_tool("write_file", {"path": "PROJ/VENDOR/lib.js", "content": "forged\n"})
        made = await client.call_tool("create_directory", {"path": "proj/VENDOR/new"})
        deleted = await client.call_tool("delete_file", {"path": "PROJ", "recursive": True})
        moved = await client.call_tool("move_file", {"source_path": "PROJ", "dest_path": "elsewhere"})
    assert [error_code(result) for result in (written, made)] == ["read_only", "read_only"]
    assert [error_code(result) for result in (deleted, moved)] == ["access_denied", "access_denied"]
    assert tree(root) == before
