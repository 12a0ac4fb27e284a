"""How each answer a client gives to roots/list shapes its session (found by a probe of client roots): the
client's order decides the first root, a Windows client's drive URIs name the WSL mount, a URI that names no
folder grants nothing, an answer fsguard cannot read serves nothing, and a failed re-ask never widens a
session that was narrowed. Both eras, except where only the 2025 era asks (and can fail) over a back-channel."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp import MCPError
from mcp.client import ClientRequestContext
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import ListRootsResult, Root
from pydantic import FileUrl

from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.tools.test_confirmation import User
from tests.tools.test_least_privilege import answering, stats, tree

pytestmark = pytest.mark.anyio


async def test_relative_paths_start_at_the_first_root_the_client_names_not_the_first_by_name(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"zeta/z.txt": "z\n", "alpha/a.txt": "a\n"})
    async with connect(list_roots_callback=answering([root / "zeta", root / "alpha"])) as client:
        written = await client.call_tool("write_file", {"path": "notes.txt", "content": "n\n"})
        served = await stats(client)
    assert not written.is_error, text_of(written)
    assert (root / "zeta" / "notes.txt").read_bytes() == b"n\n"
    assert not (root / "alpha" / "notes.txt").exists()
    assert [entry["path"] for entry in served["roots"]] == [str(root / "zeta"), str(root / "alpha")]


async def test_a_client_root_holding_several_command_line_roots_keeps_their_command_line_order(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"zeta/z.txt": "z\n", "alpha/a.txt": "a\n"})
    roots = (root / "zeta", root / "alpha")
    async with connect(roots=roots, list_roots_callback=answering([root])) as client:
        listed = structured(await client.call_tool("list_directory", {"path": "."}))
    assert [entry["name"] for entry in listed["entries"]] == ["z.txt"]


@pytest.mark.parametrize("spelled", ["C:/Users/me/proj", "C%3A/Users/me/proj", "c:/Users/me/proj"])
async def test_a_windows_clients_drive_root_names_the_folder_under_the_wsl_mount_root(
    connect: ClientFactory, root: Path, spelled: str
) -> None:
    mount = root / "mnt"
    tree(root, {"mnt/c/Users/me/proj/w.txt": "windows side\n", "other/secret.txt": "outside\n"})

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=FileUrl("file:///" + spelled))])

    async with connect(wsl_mount_root=mount, list_roots_callback=callback) as client:
        inside = await client.call_tool("read_file", {"path": "w.txt"})
        outside = await client.call_tool("read_file", {"path": str(root / "other" / "secret.txt")})
    assert structured(inside)["content"] == "windows side\n"
    assert error_code(outside) == "access_denied"


async def test_a_root_uri_with_a_fragment_grants_nothing_and_the_refusal_says_what_the_user_can_change(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"a/x.txt": "not this folder\n"})
    named = (root / "a").as_uri() + "#b"  # a folder "a#b" whose "#" the client left unescaped: never folder "a"

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=FileUrl(named))])

    async with connect(list_roots_callback=callback) as client:
        refused = await client.call_tool("read_file", {"path": str(root / "a" / "x.txt")})
    assert error_code(refused) == "access_denied"
    said = text_of(refused)
    assert f"every root the client named ({named}) lies outside the server's roots ({root})" in said
    assert "Ask the user to open a folder inside the server's roots in the client" in said
    assert "not this folder" not in said


# The SDK's client warns as it sends what its own models would not build: that is this test's point.
@pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")
async def test_an_answer_naming_a_root_that_is_no_file_uri_serves_nothing_and_says_so(
    connect: ClientFactory, root: Path, mode: str
) -> None:
    tree(root, {"proj/a.txt": "inside\n", "other/secret.txt": "outside\n"})

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        # The SDK refuses the whole answer for its one bad root, so even the good root is not known.
        roots = [Root(uri=FileUrl((root / "proj").as_uri())), Root.model_construct(uri="https://example.com/x")]  # type: ignore[arg-type]
        return ListRootsResult.model_construct(roots=roots)

    async with connect(list_roots_callback=callback) as client:
        if mode == "legacy":
            for path in (root / "other" / "secret.txt", root / "proj" / "a.txt"):
                refused = await client.call_tool("read_file", {"path": str(path)})
                assert error_code(refused) == "access_denied", text_of(refused)
                assert "something other than a list of file:// roots (https://example.com/x)" in text_of(refused)
                assert "side" not in text_of(refused)
        else:  # 2026: the answer comes back inside the retried call's params, which the SDK refuses whole
            with pytest.raises(MCPError, match=r'inputResponses\["fsguard:roots"\] is no roots/list result'):
                await client.call_tool("read_file", {"path": str(root / "other" / "secret.txt")})


@pytest.mark.parametrize("mode", ["legacy"], indirect=True)  # only 2025 asks over a back-channel that can fail
async def test_a_failed_roots_list_after_list_changed_keeps_the_roots_the_client_named_last(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"proj/a.txt": "inside\n", "other/secret.txt": "outside\n"})
    failing = False

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        if failing:
            raise RuntimeError("roots unavailable")
        return ListRootsResult(roots=[Root(uri=FileUrl((root / "proj").as_uri()))])

    async with connect(list_roots_callback=callback) as client:
        assert error_code(await client.call_tool("read_file", {"path": "../other/secret.txt"})) == "access_denied"
        failing = True
        with pytest.warns(MCPDeprecationWarning):
            await client.session.send_roots_list_changed()
        outside = await client.call_tool("read_file", {"path": str(root / "other" / "secret.txt")})
        inside = await client.call_tool("read_file", {"path": "a.txt"})
    assert error_code(outside) == "access_denied", text_of(outside)
    assert "outside\n" not in text_of(outside)
    assert structured(inside)["content"] == "inside\n"


@pytest.mark.parametrize("named", ["the root", "no roots"])
@pytest.mark.parametrize("confirm", [True, False])
async def test_a_client_with_roots_and_elicitation_answers_a_confirmation_once_and_the_call_ends(
    connect: ClientFactory, root: Path, named: str, confirm: bool
) -> None:
    # 2026 keeps nothing between rounds: the confirmation round's retry lacked the roots, was asked for them, and
    # the retry of that lacked the answer: the client gave up after ten rounds and nothing was done.
    (root / "a.txt").write_text("keep or not\n", encoding="utf-8")
    user = User(confirm=confirm)
    roots = answering([root] if named == "the root" else [])
    async with connect(list_roots_callback=roots, elicitation_callback=user) as client:
        result = await client.call_tool("delete_file", {"path": "a.txt", "permanent": True})
    assert len(user.asked) == 1
    assert result.is_error is not confirm, text_of(result)
    assert (root / "a.txt").exists() is not confirm
