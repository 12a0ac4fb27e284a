"""A state dir inside a root (the default one when the root is the home directory), or any with --unrestricted, is out
of the tools' reach.

An agent that could write there could forge a record of an unfinished write under ``inflight/``, whose temp file
the next start-up sweep deletes wherever it lies (outside every root too), and it could read the backups of files
it may no longer see, or empty the trash and the undo journals it is meant to be able to fall back on.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

STATE = ".local/state/fsguard"


async def _with_backup_and_trash(connect: ClientFactory, root: Path, **overrides: object) -> Path:
    """A server whose state dir lies inside the root, after an overwrite (a backup) and a delete (the trash)."""
    state = root / STATE
    async with connect(state_dir=state, **overrides) as client:
        structured(await client.call_tool("write_file", {"path": "notes.txt", "content": "first\n"}))
        structured(await client.call_tool("write_file", {"path": "notes.txt", "content": "second\n"}))
        structured(await client.call_tool("write_file", {"path": "gone.txt", "content": "bye\n"}))
        structured(await client.call_tool("delete_file", {"path": "gone.txt"}))
    assert (state / "backups").is_dir()
    return state


async def test_a_state_dir_inside_a_root_can_be_neither_read_nor_written_nor_deleted(
    connect: ClientFactory, root: Path
) -> None:
    state = await _with_backup_and_trash(connect, root)
    before = sorted(path.relative_to(state) for path in state.rglob("*"))
    forged = f"{STATE}/inflight/forged"
    async with connect(state_dir=state) as client:
        refusals = [
            await client.call_tool("list_directory", {"path": STATE}),
            await client.call_tool("read_file", {"path": f"{STATE}/backups/{before[0]}"}),
            await client.call_tool("write_file", {"path": forged, "content": "/elsewhere/x.fsguard-tmp-1\n"}),
            await client.call_tool("delete_file", {"path": f"{STATE}/backups", "permanent": True}),
            await client.call_tool("move_file", {"source_path": STATE, "dest_path": "moved"}),
            await client.call_tool("copy_file", {"source_path": "notes.txt", "dest_path": f"{STATE}/notes.txt"}),
        ]
        listed = structured(await client.call_tool("list_directory", {"path": ".local/state"}))
        found = structured(await client.call_tool("search_files", {"pattern": "first", "include_content": True}))
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "notes.txt"}))

    assert [error_code(result) for result in refusals] == ["access_denied"] * len(refusals)
    assert (listed["total"], listed["denied"]) == (0, 1)
    assert found["total_matches"] == 0  # the backup holding "first" is not searched either
    assert (root / "notes.txt").read_bytes() == b"first\n"  # the backups were there to undo with
    assert not (root / forged).exists()
    assert not (root / "moved").exists()
    assert all((state / path).exists() for path in before)  # nothing of the state dir was deleted


async def test_an_operators_rule_that_lets_names_back_in_does_not_open_the_state_dir(
    connect: ClientFactory, root: Path
) -> None:
    state = await _with_backup_and_trash(connect, root, deny=("!.local/**",), default_deny=False)
    async with connect(state_dir=state, deny=("!.local/**",), default_deny=False) as client:
        refused = await client.call_tool("list_directory", {"path": f"{STATE}/backups"})
    assert error_code(refused) == "access_denied"


async def test_a_state_dir_that_is_a_root_itself_stays_usable_when_an_outer_root_holds_it(
    connect: ClientFactory, root: Path
) -> None:
    # Denying it would deny that whole root (the operator named it): the warning is all, nested or not.
    state = root / "state"
    state.mkdir()
    async with connect(state_dir=state, roots=(root, state)) as client:
        written = await client.call_tool("write_file", {"path": str(state / "notes.txt"), "content": "mine\n"})
        listed = structured(await client.call_tool("list_directory", {"path": str(state)}))
    assert not written.is_error
    assert (state / "notes.txt").read_bytes() == b"mine\n"
    assert "notes.txt" in [entry["name"] for entry in listed["entries"]]


async def test_with_unrestricted_the_state_dir_is_denied_so_the_trash_shows_no_file_a_path_rule_hides(
    connect: ClientFactory, root: Path, state_dir: Path
) -> None:
    # A rule naming a path no longer matches the copy in the trash or a backup: the state dir itself must be hidden.
    (root / "conf").mkdir()
    (root / "conf" / "prod.yaml").write_text("db_password: hunter2\n", encoding="utf-8")
    async with connect(unrestricted=True, roots=(), deny=(str(root / "conf" / "prod.yaml"),)) as client:
        structured(await client.call_tool("write_file", {"path": str(root / "notes.txt"), "content": "first\n"}))
        structured(await client.call_tool("write_file", {"path": str(root / "notes.txt"), "content": "second\n"}))
        structured(await client.call_tool("delete_file", {"path": str(root / "conf"), "recursive": True}))
        kept = sorted(path for path in state_dir.rglob("*") if path.is_file())
        copy = next(path for path in kept if path.name == "prod.yaml")
        backup = next(path for path in kept if path.is_relative_to(state_dir / "backups"))
        refusals = [
            await client.call_tool("read_file", {"path": str(copy)}),
            await client.call_tool("read_file", {"path": str(backup)}),
            await client.call_tool("list_directory", {"path": str(state_dir / "trash")}),
            await client.call_tool("search_files", {"path": str(state_dir / "backups"), "pattern": "*"}),
            await client.call_tool("write_file", {"path": str(state_dir / "inflight" / "forged"), "content": "x\n"}),
        ]
        listed = structured(await client.call_tool("list_directory", {"path": str(state_dir.parent)}))
        search = {"path": str(state_dir.parent), "pattern": "hunter2|first", "include_content": True}
        found = structured(await client.call_tool("search_files", {**search, "include_hidden": True}))
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": str(root / "notes.txt")}))

    assert [error_code(result) for result in refusals] == ["access_denied"] * len(refusals)
    assert [entry["name"] for entry in listed["entries"]] == ["root"]
    assert found["total_matches"] == 0
    assert copy.read_bytes() == b"db_password: hunter2\n"  # still in the trash, for the operator to restore
    assert (root / "notes.txt").read_bytes() == b"first\n"  # the backups were still there to undo with
    assert not (state_dir / "inflight" / "forged").exists()


async def test_a_refusal_of_the_state_dir_says_it_is_fsguards_own_not_a_secret_the_operator_hid(
    connect: ClientFactory, root: Path
) -> None:
    """It said "matches the deny rule '/…/state' (secrets and files the operator hid …); only the operator can change
    the rules", sending the agent to ask for a rule change no operator can make."""
    state = await _with_backup_and_trash(connect, root)
    async with connect(state_dir=state) as client:
        result = await client.call_tool("list_directory", {"path": STATE})
    assert error_code(result) == "access_denied"
    assert "is one of fsguard's own files" in text_of(result)
    assert "operator" not in text_of(result)
