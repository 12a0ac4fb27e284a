"""What a client confined to its roots could still learn of the place outside them, closed (found by a probe of
client roots): the objects of a store a repository borrows from (``objects/info/alternates``), and where a link
inside leads. Both eras."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import ClientFactory, error_code, text_of
from tests.tools.test_git import committed, git, make_repo
from tests.tools.test_least_privilege import answering

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("quoted", [False, True])
async def test_git_refuses_a_repository_borrowing_objects_from_a_store_outside_the_clients_roots(
    connect: ClientFactory, root: Path, quoted: bool
) -> None:
    outer = make_repo(root)
    secret = committed(outer, "outside.txt", "OUTSIDE BYTES\n")
    (root / "proj").mkdir()
    git(root / "proj", "clone", "-q", "--shared", str(outer), "clone")
    clone = root / "proj" / "clone"
    if quoted:  # as git writes a path it must quote
        (clone / ".git" / "objects" / "info" / "alternates").write_text(f'"{outer}/.git/objects"\n', encoding="utf-8")
    async with connect(list_roots_callback=answering([root / "proj"])) as client:
        for rev in (secret, "HEAD:outside.txt"):
            result = await client.call_tool("git", {"action": "show", "path": "clone", "rev": rev})
            assert error_code(result) == "access_denied", text_of(result)
            assert "borrows objects from a store outside" in text_of(result)
            assert "OUTSIDE BYTES" not in text_of(result) + str(result.structured_content)
        git(root / "proj", "clone", "-q", str(outer), "own")  # objects of its own: shown as usual
        shown = await client.call_tool("git", {"action": "show", "path": "own", "rev": "HEAD:outside.txt"})
    assert "OUTSIDE BYTES" in text_of(shown)


async def test_a_link_leading_out_of_the_clients_roots_is_refused_without_naming_where_it_leads(
    connect: ClientFactory, root: Path
) -> None:
    (root / "proj").mkdir()
    (root / "elsewhere").mkdir()
    (root / "elsewhere" / "target-name.txt").write_text("x\n", encoding="utf-8")
    (root / "proj" / "lnk").symlink_to(root / "elsewhere" / "target-name.txt")
    async with connect(list_roots_callback=answering([root / "proj"])) as client:
        for tool, arguments in (
            ("read_file", {"path": str(root / "proj" / "lnk")}),
            ("get_file_info", {"path": str(root / "proj" / "lnk")}),
        ):
            result = await client.call_tool(tool, arguments)
            assert error_code(result) == "access_denied", text_of(result)
            assert "leads through a symbolic link outside allowed directories" in text_of(result)
            assert "target-name" not in text_of(result) + str(result.structured_content)


async def test_git_passes_over_a_borrowed_store_that_is_not_there_as_git_does(
    connect: ClientFactory, root: Path
) -> None:
    repo = make_repo(root / "proj")
    (repo / ".git" / "objects" / "info" / "alternates").write_text("/nonexistent/objects\n", encoding="utf-8")
    async with connect() as client:
        result = await client.call_tool("git", {"action": "show", "path": "proj", "rev": "HEAD:a.txt"})
    assert "alpha" in text_of(result), text_of(result)


@pytest.mark.parametrize("parallel", [False, True])
async def test_a_parallel_pipeline_reads_within_the_clients_roots_as_a_sequential_one_does(
    connect: ClientFactory, root: Path, parallel: bool
) -> None:
    (root / "proj").mkdir()
    (root / "proj" / "notes.txt").write_text("PROJECT NOTES\n", encoding="utf-8")
    (root / "notes.txt").write_text("OUTSIDE NOTES\n", encoding="utf-8")
    (root / "other").mkdir()
    (root / "other" / "secret.txt").write_text("OUTSIDE SECRET\n", encoding="utf-8")

    def reads(*files: str) -> dict[str, object]:
        steps = [
            {"id": f"r{n}", "action": "read_ranges", "params": {"files": [name], "start_line": 1, "end_line": 1}}
            for n, name in enumerate(files)
        ]
        return {"pipeline_json": {"name": "scope", "parallel": parallel, "steps": steps}}

    async with connect(list_roots_callback=answering([root / "proj"])) as client:
        outside = await client.call_tool("batch_operations", reads(str(root / "other" / "secret.txt"), "notes.txt"))
        relative = await client.call_tool("batch_operations", reads("notes.txt", "./notes.txt"))
    assert error_code(outside) == "batch_failed", text_of(outside)
    assert "outside allowed directories" in text_of(outside)
    assert "OUTSIDE" not in text_of(outside) + str(outside.structured_content)
    # Relative names start at the client's first root in every thread, not at the server's.
    assert "PROJECT NOTES" in str(relative.structured_content), text_of(relative)
    assert "OUTSIDE" not in text_of(relative) + str(relative.structured_content)


@pytest.mark.parametrize("dry_run", [False, True])
async def test_a_group_reaching_outside_the_clients_roots_is_not_restored_and_its_outside_files_are_not_told(
    connect: ClientFactory, root: Path, dry_run: bool
) -> None:
    (root / "proj").mkdir()
    (root / "other").mkdir()
    (root / "proj" / "a.txt").write_text("a-v1\n", encoding="utf-8")
    (root / "other" / "secret.txt").write_text("secret-v1\n", encoding="utf-8")
    writes = [
        {"type": "write", "path": "proj/a.txt", "content": "a-v2\n"},
        {"type": "write", "path": "other/secret.txt", "content": "secret-v2\n"},
    ]
    async with connect() as wide:
        made = await wide.call_tool("batch_operations", {"request_json": {"operations": writes}})
    group = str((made.structured_content or {})["backup_id"])
    (root / "other" / "secret.txt").write_text("hunter2\n", encoding="utf-8")  # changed outside since
    async with connect(list_roots_callback=answering([root / "proj"])) as narrow:
        refused = await narrow.call_tool("backup", {"action": "restore", "backup_id": group, "dry_run": dry_run})
    told = text_of(refused) + str(refused.structured_content) + str(refused.meta)
    assert error_code(refused) == "access_denied", told
    assert "1 of 2 files outside this connection's roots" in told
    assert "secret" not in told
    assert "other" not in told.replace("another", "")
    # All or nothing: neither file was put back, the one inside included.
    assert (root / "proj" / "a.txt").read_bytes() == b"a-v2\n"
    assert (root / "other" / "secret.txt").read_bytes() == b"hunter2\n"
