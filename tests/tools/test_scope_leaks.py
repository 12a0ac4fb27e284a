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
