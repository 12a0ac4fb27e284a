"""project_replace under --auto-occ: a file this session saw, changed on disk since, is refused, reported or ignored."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.config import Settings
from fsguard.core.replacing import ProjectReplacer
from fsguard.services import Services
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def seen_then_changed(root: Path) -> Path:
    """a.txt and b.txt hold the find text; the tests read a.txt, then change it behind the server's back."""
    (root / "a.txt").write_bytes(b"one two\n")
    (root / "b.txt").write_bytes(b"one\n")
    return root


async def replace_after_a_change_behind_its_back(client: Client, root: Path) -> CallToolResult:
    """Read a.txt through the server, change it on disk behind its back, then replace "one" with "1" everywhere."""
    structured(await client.call_tool("read_file", {"path": "a.txt"}))
    (root / "a.txt").write_bytes(b"one two three\n")
    return await client.call_tool("project_replace", {"find": "one", "replace": "1"})


async def test_block_mode_refuses_the_whole_replace_naming_the_changed_file_and_writes_nothing(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect(auto_occ="block") as client:
        refused = await replace_after_a_change_behind_its_back(client, root)
        assert error_code(refused) == "external_change"
        assert "a.txt (known hash" in text_of(refused)
        assert "b.txt" not in text_of(refused)
        assert "Nothing was written" in text_of(refused)
        assert "read_file" in text_of(refused)
        assert (root / "a.txt").read_bytes() == b"one two three\n"
        assert (root / "b.txt").read_bytes() == b"one\n"
        listed = structured(await client.call_tool("backup", {"action": "list"}))
        assert listed["total"] == 0

        preview = await client.call_tool("project_replace", {"find": "one", "replace": "1", "preview": True})
        assert error_code(preview) == "external_change"

        structured(await client.call_tool("read_file", {"path": "a.txt"}))
        applied = structured(await client.call_tool("project_replace", {"find": "one", "replace": "1"}))
    assert applied["files_changed"] == 2
    assert (root / "a.txt").read_bytes() == b"1 two three\n"
    assert (root / "b.txt").read_bytes() == b"1\n"


async def test_block_mode_names_every_changed_file_at_once(connect: ClientFactory, seen_then_changed: Path) -> None:
    root = seen_then_changed
    async with connect(auto_occ="block") as client:
        for name in ("a.txt", "b.txt"):
            structured(await client.call_tool("read_file", {"path": name}))
        (root / "a.txt").write_bytes(b"one two three\n")
        (root / "b.txt").write_bytes(b"one one\n")
        refused = await client.call_tool("project_replace", {"find": "one", "replace": "1"})
    assert error_code(refused) == "external_change"
    assert "a.txt (known hash" in text_of(refused)
    assert "b.txt (known hash" in text_of(refused)
    assert refused.meta is not None
    assert refused.meta["fsguard/error"]["paths"] == [str(root / "a.txt"), str(root / "b.txt")]
    assert (root / "a.txt").read_bytes() == b"one two three\n"
    assert (root / "b.txt").read_bytes() == b"one one\n"


async def test_warn_mode_replaces_and_reports_the_external_change_of_each_file(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect() as client:
        result = await replace_after_a_change_behind_its_back(client, root)
    applied = structured(result)
    assert (root / "a.txt").read_bytes() == b"1 two three\n"
    assert (root / "b.txt").read_bytes() == b"1\n"
    notes = {Path(f["path"]).name: f.get("external_change") for f in applied["files"]}
    assert notes["b.txt"] is None
    assert notes["a.txt"] is not None
    assert "changed on disk since this session last saw it" in notes["a.txt"]
    assert "Changed on disk since this session last saw them (another process): a.txt." in text_of(result)


async def test_off_mode_replaces_without_a_word_about_the_external_change(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect(auto_occ="off") as client:
        result = await replace_after_a_change_behind_its_back(client, root)
    applied = structured(result)
    assert (root / "a.txt").read_bytes() == b"1 two three\n"
    assert all("external_change" not in f for f in applied["files"])
    assert "changed on disk" not in text_of(result)


async def test_a_refused_replace_leaves_the_stale_read_hint_of_the_files_it_did_not_write(
    connect: ClientFactory, seen_then_changed: Path
) -> None:
    root = seen_then_changed
    async with connect(auto_occ="block") as client:
        assert error_code(await replace_after_a_change_behind_its_back(client, root)) == ("external_change")
        edited = structured(await client.call_tool("edit_file", {"path": "b.txt", "old_text": "one", "new_text": "2"}))
    assert "STALE_READ" in edited["feedback"]
    assert (root / "b.txt").read_bytes() == b"2\n"


@pytest.mark.parametrize("by", ["another fsguard", "a plain write"])
async def test_a_file_changed_between_the_plan_and_its_rewrite_is_left_as_the_other_writer_made_it(
    client: Client, root: Path, state_dir: Path, monkeypatch: pytest.MonkeyPatch, by: str
) -> None:
    # ripgrep names the candidates and each is read for the plan before any is written; another process's edit of
    # b.txt lands after b.txt was planned, while a.txt is being rewritten. Acknowledged, it must survive the replace.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"one\n")
    other = Services.create(Settings(roots=(root,), state_dir=state_dir))  # shares the state dir, as a second server
    real_apply = ProjectReplacer._apply

    def apply_after_an_edit_of_b(self: ProjectReplacer, plan: Any, verdict: Any) -> Any:
        if plan.path.name == "b.txt":
            if by == "another fsguard":
                other.writer.write(str(root / "b.txt"), "one, edited elsewhere\n")
            else:
                (root / "b.txt").write_bytes(b"one, edited elsewhere\n")
        return real_apply(self, plan, verdict)

    monkeypatch.setattr(ProjectReplacer, "_apply", apply_after_an_edit_of_b)
    result = structured(await client.call_tool("project_replace", {"find": "one", "replace": "1"}))
    assert [(root / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [
        b"1\n",
        b"one, edited elsewhere\n",
        b"1\n",
    ]
    assert result["files_changed"] == 2
    [b_file] = [f for f in result["files"] if f["path"].endswith("b.txt")]
    assert "changed on disk" in b_file["skipped"]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": result["backup_id"]}))
    assert [(root / name).read_bytes() for name in ("a.txt", "b.txt", "c.txt")] == [
        b"one\n",
        b"one, edited elsewhere\n",
        b"one\n",
    ]
    if by == "another fsguard":  # its own undo is whole: the replace left no step in b.txt's chain
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "b.txt"}))
        assert (root / "b.txt").read_bytes() == b"one\n"


async def test_a_replace_whose_every_file_changed_between_plan_and_rewrite_answers_external_change_not_applied(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every planned file written to by another program before its rewrite: all skipped, nothing replaced, and the
    # answer was status "applied", "Replaced 0 occurrences in 0 files", read as a success with nothing left to do.
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"one\n")
    real_apply = ProjectReplacer._apply

    def apply_after_an_edit(self: ProjectReplacer, plan: Any, verdict: Any) -> Any:
        plan.path.write_bytes(b"one, edited elsewhere\n")
        return real_apply(self, plan, verdict)

    monkeypatch.setattr(ProjectReplacer, "_apply", apply_after_an_edit)
    result = await client.call_tool("project_replace", {"find": "one", "replace": "1"})
    assert error_code(result) == "external_change", text_of(result)
    assert "Nothing was replaced" in text_of(result)
    assert "a.txt, b.txt" in text_of(result)
    assert "Run project_replace again" in text_of(result)
    assert [(root / name).read_bytes() for name in ("a.txt", "b.txt")] == [b"one, edited elsewhere\n"] * 2


async def test_a_planned_file_swapped_for_a_link_to_another_file_is_left_and_the_link_not_followed(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a.txt is swapped for a link to b.txt (same bytes) after the plan: followed, the rewrite of a.txt landed in
    # b.txt under a.txt's lock (an edit of b.txt by another process holding b.txt's lock could be lost), and the
    # backup went to a.txt's undo chain while the report named a.txt changed and b.txt "changed on disk".
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"one\n")
    real_apply = ProjectReplacer._apply

    def apply_after_a_swap(self: ProjectReplacer, plan: Any, verdict: Any) -> Any:
        if plan.path.name == "a.txt":
            (root / "a.txt").unlink()
            (root / "a.txt").symlink_to("b.txt")
        return real_apply(self, plan, verdict)

    monkeypatch.setattr(ProjectReplacer, "_apply", apply_after_a_swap)
    result = structured(await client.call_tool("project_replace", {"find": "one", "replace": "1"}))
    assert (root / "a.txt").is_symlink()
    assert (root / "b.txt").read_bytes() == b"1\n"  # by its own plan
    by_name = {Path(f["path"]).name: f for f in result["files"]}
    assert by_name["a.txt"]["skipped"] == "access_denied during the replace; left as it was"
    assert "skipped" not in by_name["b.txt"]
    assert result["files_changed"] == 1
    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "b.txt"}))
    assert [record["operation"] for record in chain["backups"]] == ["project_replace"]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": result["backup_id"]}))
    assert (root / "b.txt").read_bytes() == b"one\n"
    assert (root / "a.txt").is_symlink()


@pytest.mark.parametrize("swapped_in", ["a directory", "a named pipe", "a file too large"])
async def test_a_planned_file_replaced_by_something_else_is_skipped_and_the_rest_still_replaced(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch, swapped_in: str
) -> None:
    # Between the plan and b.txt's rewrite, b.txt is removed and something else takes its name. A vanished file is
    # skipped; this stopped the whole run midway with an error about a file the caller never named.
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_bytes(b"one\n")
    real_apply = ProjectReplacer._apply

    def apply_after_a_swap(self: ProjectReplacer, plan: Any, verdict: Any) -> Any:
        if plan.path.name == "b.txt":
            (root / "b.txt").unlink()
            if swapped_in == "a directory":
                (root / "b.txt").mkdir()
            elif swapped_in == "a named pipe":
                os.mkfifo(root / "b.txt")
            else:
                (root / "b.txt").write_bytes(b"one\n" * 100)
        return real_apply(self, plan, verdict)

    monkeypatch.setattr(ProjectReplacer, "_apply", apply_after_a_swap)
    async with connect(max_file_size=200) as client:
        result = structured(await client.call_tool("project_replace", {"find": "one", "replace": "1"}))
    assert (root / "a.txt").read_bytes() == (root / "c.txt").read_bytes() == b"1\n"
    assert result["files_changed"] == 2
    [b_file] = [f for f in result["files"] if f["path"].endswith("b.txt")]
    assert "left as it was" in b_file["skipped"]
    if swapped_in == "a file too large":
        assert (root / "b.txt").read_bytes() == b"one\n" * 100


async def test_a_directory_on_a_planned_file_s_way_swapped_for_a_link_is_not_followed(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # d/ becomes a link to e/ after the plan: walked through, d/a.txt's rewrite landed in e/a.txt under d/a.txt's lock
    # and on its undo chain, and e/a.txt, planned too, was then skipped as changed on disk.
    for name in ("d/a.txt", "e/a.txt"):
        (root / name).parent.mkdir()
        (root / name).write_bytes(b"one\n")
    real_apply = ProjectReplacer._apply

    def apply_after_a_swap(self: ProjectReplacer, plan: Any, verdict: Any) -> Any:
        if plan.path == root / "d" / "a.txt":
            (root / "d").rename(root / "d-before")
            (root / "d").symlink_to("e")
        return real_apply(self, plan, verdict)

    monkeypatch.setattr(ProjectReplacer, "_apply", apply_after_a_swap)
    result = structured(await client.call_tool("project_replace", {"find": "one", "replace": "1"}))
    assert (root / "d-before" / "a.txt").read_bytes() == b"one\n"
    assert (root / "e" / "a.txt").read_bytes() == b"1\n"
    by_path = {Path(f["path"]).relative_to(root).as_posix(): f for f in result["files"]}
    assert by_path["d/a.txt"]["skipped"] == "access_denied during the replace; left as it was"
    assert "skipped" not in by_path["e/a.txt"]
    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "e/a.txt"}))
    assert [record["operation"] for record in chain["backups"]] == ["project_replace"]


async def test_a_file_changed_between_the_plan_and_its_write_is_left_as_it_was_and_the_answer_says_to_run_again(
    client: Client, seen_then_changed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = seen_then_changed
    real = ProjectReplacer._apply

    def changed_first(self: ProjectReplacer, plan: Any, verdict: Any) -> Any:
        if plan.path.name == "a.txt":  # another process writes it after the plan read it, before the lock
            (root / "a.txt").write_bytes(b"one two four\n")
        return real(self, plan, verdict)

    monkeypatch.setattr(ProjectReplacer, "_apply", changed_first)
    result = await client.call_tool("project_replace", {"find": "one", "replace": "1"})
    data = structured(result)
    assert data["files_changed"] == 1
    assert [f["skipped"] for f in data["files"] if f["path"].endswith("a.txt")] == [
        "changed on disk during the replace; left as it was"
    ]
    assert "1 file changed on disk during the replace (another process) and was left as it was" in text_of(result)
    assert "run project_replace again" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"one two four\n"
    assert (root / "b.txt").read_bytes() == b"1\n"
