"""Backups of files a server may not see now, in both eras: a path a deny rule hides, or one outside the roots the
client narrowed to. Every server on a state directory shares its backups, and they outlive a server's flags, so
the backup tool must judge each one by this call's roots and rules, as ``list`` does: never name it, never show its
hash, never drop it (it is another server's undo)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_least_privilege import answering, tree

pytestmark = pytest.mark.anyio


async def _backed_up(connect: ClientFactory, root: Path) -> dict[str, str]:
    """Overwrite three files on a server with neither rules nor client roots: one backup each, by name."""
    tree(root, {"secret.txt": "TOKEN=FIRST\n", "other/b.txt": "theirs\n", "proj/c.txt": "mine\n"})
    ids: dict[str, str] = {}
    async with connect(default_deny=False) as client:
        for name, text in (("secret.txt", "TOKEN=SECOND\n"), ("other/b.txt", "theirs 2\n"), ("proj/c.txt", "mine 2\n")):
            ids[name] = structured(await client.call_tool("write_file", {"path": name, "content": text}))["backup_id"]
    return ids


async def test_backup_cleanup_neither_names_nor_drops_backups_of_hidden_files_or_of_other_roots(
    connect: ClientFactory, root: Path
) -> None:
    ids = await _backed_up(connect, root)
    async with connect(deny=("secret.txt",), list_roots_callback=answering([root, root / "proj"])) as client:
        looked = await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0, "dry_run": True})
    async with connect(deny=("secret.txt",), list_roots_callback=answering([root / "proj"])) as client:
        swept = await client.call_tool("backup", {"action": "cleanup", "older_than_days": 0, "dry_run": False})
    for result in (looked, swept):
        said = text_of(result) + str(structured(result))
        assert "secret.txt" not in said
        assert ids["secret.txt"] not in said
    assert [backup["backup_id"] for backup in structured(swept)["backups"]] == [ids["proj/c.txt"]]
    assert "other/b.txt" not in str(structured(swept))
    async with connect(default_deny=False) as client:  # the server whose backups they are can still undo
        for name in ("secret.txt", "other/b.txt"):
            structured(await client.call_tool("backup", {"action": "undo_last", "file_path": name}))
    assert (root / "secret.txt").read_bytes() == b"TOKEN=FIRST\n"
    assert (root / "other" / "b.txt").read_bytes() == b"theirs\n"
    assert (root / "proj" / "c.txt").read_bytes() == b"mine 2\n"


async def test_backup_info_of_a_backup_outside_the_client_roots_is_refused(connect: ClientFactory, root: Path) -> None:
    ids = await _backed_up(connect, root)
    async with connect(list_roots_callback=answering([root / "proj"])) as client:
        refused = await client.call_tool("backup", {"action": "info", "backup_id": ids["other/b.txt"]})
        shown = structured(await client.call_tool("backup", {"action": "info", "backup_id": ids["proj/c.txt"]}))
    assert error_code(refused) == "access_denied"
    assert "theirs" not in text_of(refused)
    assert shown["backup"]["files"] == [str(root / "proj" / "c.txt")]
    assert (root / "other" / "b.txt").read_bytes() == b"theirs 2\n"
