"""Least privilege through the tools, in both eras: client roots, read-only roots and deny rules."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.client import ClientRequestContext
from mcp.client.session import ListRootsFnT
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.types import CallToolResult, ListRootsResult, Root
from pydantic import FileUrl

from fsguard.config import Settings
from fsguard.server import build_server
from tests.conftest import ClientFactory, error_code, structured, text_of
from tests.test_transports import http_server

pytestmark = pytest.mark.anyio


def answering(roots: list[Path]) -> ListRootsFnT:
    """A roots/list callback naming whatever ``roots`` holds when it is asked."""

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=FileUrl(path.as_uri())) for path in roots])

    return callback


def tree(root: Path, files: dict[str, str]) -> dict[str, bytes]:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")
    return snapshot(root)


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


async def read(client: Client, path: Path | str) -> CallToolResult:
    return await client.call_tool("read_file", {"path": str(path)})


async def stats(client: Client) -> dict[str, Any]:
    data = structured(await client.call_tool("server_info", {"action": "stats"}))["stats"]
    assert isinstance(data, dict)
    return data


# -- client roots -------------------------------------------------------------------------------------------------


async def test_a_client_declaring_a_narrower_root_cannot_read_outside_it(connect: ClientFactory, root: Path) -> None:
    tree(root, {"proj/a.txt": "inside\n", "other/b.txt": "outside\n"})
    async with connect(list_roots_callback=answering([root / "proj"])) as client:
        assert structured(await read(client, root / "proj" / "a.txt"))["content"] == "inside\n"
        assert structured(await read(client, "a.txt"))["content"] == "inside\n"  # relative to the client's root
        refused = await read(client, root / "other" / "b.txt")
        assert error_code(refused) == "access_denied"
        assert str(root / "proj") in text_of(refused)
        assert error_code(await client.call_tool("list_directory", {"path": str(root)})) == "access_denied"
        found = structured(await client.call_tool("search_files", {"pattern": "*.txt", "path": str(root / "proj")}))
        assert found["files"] == [str(root / "proj" / "a.txt")]
        served = await stats(client)
        said = text_of(await client.call_tool("server_info", {"action": "stats"}))
    assert served["roots"] == [{"path": str(root / "proj"), "origin": "client", "read_only": False}]
    assert served["client_roots"] == [(root / "proj").as_uri()]
    assert f"Roots: {root / 'proj'} (client)" in said


async def test_a_client_root_outside_the_command_line_roots_grants_nothing(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    tree(elsewhere, {"x.txt": "not served\n"})
    tree(root, {"a.txt": "served\n"})
    async with connect(list_roots_callback=answering([elsewhere])) as client:
        assert error_code(await read(client, elsewhere / "x.txt")) == "access_denied"
        assert error_code(await read(client, root / "a.txt")) == "access_denied"  # it narrowed to nothing
        served = await stats(client)
        said = text_of(await client.call_tool("server_info", {"action": "stats"}))
    assert served["roots"] == []
    assert served["client_roots_ignored"] == [elsewhere.as_uri()]
    assert "Client roots granting nothing: " + elsewhere.as_uri() in said


@pytest.mark.parametrize("spelled", ["{root}/proj%00x", "/" + "a/" * 3000], ids=["nul", "too-long"])
async def test_a_client_root_no_directory_can_have_grants_nothing_and_the_other_roots_still_serve(
    connect: ClientFactory, root: Path, spelled: str
) -> None:
    # Its path raised (ValueError: embedded null byte; ENAMETOOLONG), and every call of the session failed with it.
    tree(root, {"proj/a.txt": "inside\n", "b.txt": "outside\n"})
    odd = "file://" + spelled.format(root=root)

    async def callback(context: ClientRequestContext) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=FileUrl(odd)), Root(uri=FileUrl((root / "proj").as_uri()))])

    async with connect(list_roots_callback=callback) as client:
        assert structured(await read(client, "a.txt"))["content"] == "inside\n"
        assert error_code(await read(client, root / "b.txt")) == "access_denied"
        served = await stats(client)
    assert served["roots"] == [{"path": str(root / "proj"), "origin": "client", "read_only": False}]
    assert len(served["client_roots_ignored"]) == 1


async def test_a_client_root_holding_the_command_line_root_keeps_it_whole(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    tree(root, {"a.txt": "served\n"})
    async with connect(list_roots_callback=answering([tmp_path])) as client:
        assert structured(await read(client, root / "a.txt"))["content"] == "served\n"
        served = await stats(client)
    assert served["roots"] == [{"path": str(root), "origin": "command_line", "read_only": False}]


async def test_an_empty_client_roots_list_leaves_the_command_line_roots(connect: ClientFactory, root: Path) -> None:
    tree(root, {"a.txt": "served\n"})
    async with connect(list_roots_callback=answering([])) as client:
        assert structured(await read(client, root / "a.txt"))["content"] == "served\n"
        served = await stats(client)
    assert served.get("client_roots") is None
    assert served["roots"] == [{"path": str(root), "origin": "command_line", "read_only": False}]


async def test_list_changed_updates_the_effective_roots(connect: ClientFactory, root: Path) -> None:
    tree(root, {"one/a.txt": "one\n", "two/b.txt": "two\n"})
    named = [root / "one"]
    async with connect(list_roots_callback=answering(named)) as client:
        assert not (await read(client, root / "one" / "a.txt")).is_error
        assert error_code(await read(client, root / "two" / "b.txt")) == "access_denied"
        named[:] = [root / "two"]
        with pytest.warns(MCPDeprecationWarning):  # 2025: asked again; 2026: asked on every call anyway
            await client.session.send_roots_list_changed()
        assert structured(await read(client, root / "two" / "b.txt"))["content"] == "two\n"
        assert error_code(await read(client, root / "one" / "a.txt")) == "access_denied"


async def test_client_roots_narrow_a_stdio_server_with_real_json_frames(root: Path, state_dir: Path, mode: str) -> None:
    tree(root, {"proj/a.txt": "inside\n", "other/b.txt": "outside\n"})
    named = [root / "proj"]
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "fsguard", str(root), "--state-dir", str(state_dir)]
    )
    with anyio.fail_after(30):
        async with Client(params, mode=mode, read_timeout_seconds=20, list_roots_callback=answering(named)) as client:
            assert structured(await read(client, "a.txt"))["content"] == "inside\n"
            assert error_code(await read(client, root / "other" / "b.txt")) == "access_denied"
            named[:] = [root / "other"]
            with pytest.warns(MCPDeprecationWarning):
                await client.session.send_roots_list_changed()
            assert structured(await read(client, root / "other" / "b.txt"))["content"] == "outside\n"


async def test_no_client_roots_flag_never_asks(connect: ClientFactory, root: Path) -> None:
    tree(root, {"other/b.txt": "two\n"})
    asked: list[int] = []

    async def counting(context: ClientRequestContext) -> ListRootsResult:
        asked.append(1)
        return ListRootsResult(roots=[Root(uri=FileUrl((root / "proj").as_uri()))])

    async with connect(list_roots_callback=counting, client_roots=False) as client:
        assert not (await read(client, root / "other" / "b.txt")).is_error
    assert asked == []


async def test_one_clients_roots_do_not_change_anothers_on_the_same_server(
    base_settings: Settings, mode: str, root: Path
) -> None:
    tree(root, {"proj/a.txt": "a\n", "other/b.txt": "b\n"})
    server = build_server(base_settings)
    async with (
        Client(server, mode=mode, list_roots_callback=answering([root / "proj"])) as narrowed,
        Client(server, mode=mode) as plain,
    ):
        assert error_code(await read(narrowed, root / "other" / "b.txt")) == "access_denied"
        assert not (await read(plain, root / "other" / "b.txt")).is_error
        assert error_code(await read(narrowed, root / "other" / "b.txt")) == "access_denied"
        assert (await stats(plain)).get("client_roots") is None


async def test_two_http_clients_keep_their_own_roots(base_settings: Settings, mode: str, root: Path) -> None:
    tree(root, {"proj/a.txt": "a\n", "other/b.txt": "b\n"})
    settings = Settings(**{**base_settings.__dict__, "transport": "http"})
    with anyio.fail_after(30):
        async with (
            http_server(settings) as url,
            Client(url, mode=mode, list_roots_callback=answering([root / "proj"])) as narrowed,
            Client(url, mode=mode) as plain,
        ):
            assert error_code(await read(narrowed, root / "other" / "b.txt")) == "access_denied"
            assert structured(await read(plain, root / "other" / "b.txt"))["content"] == "b\n"
            assert structured(await read(narrowed, "a.txt"))["content"] == "a\n"
            assert error_code(await read(narrowed, root / "other" / "b.txt")) == "access_denied"


async def test_a_pipeline_search_never_finds_a_secret(client: Client, root: Path) -> None:
    tree(root, {**SECRETS, **PUBLIC})
    steps = [{"id": "find", "action": "search", "params": {"pattern": "needle"}}]
    ran = structured(await client.call_tool("batch_operations", {"pipeline_json": {"name": "s", "steps": steps}}))
    found = {Path(name).relative_to(root).as_posix() for step in ran["steps"] for name in step.get("files", [])}
    assert found
    assert not found & set(SECRETS)


# -- read-only roots ----------------------------------------------------------------------------------------------


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    path = (tmp_path / "docs").resolve()
    tree(path, {"guide.md": "alpha TODO\n", "sub/deep.md": "TODO too\n"})
    return path


async def test_a_read_only_root_is_read_listed_and_searched(connect: ClientFactory, docs: Path) -> None:
    async with connect(read_only_roots=(docs,)) as client:
        assert structured(await read(client, docs / "guide.md"))["content"] == "alpha TODO\n"
        listed = structured(await client.call_tool("list_directory", {"path": str(docs)}))
        assert {entry["name"] for entry in listed["entries"]} == {"guide.md", "sub"}
        found = structured(
            await client.call_tool("search_files", {"pattern": "TODO", "path": str(docs), "include_content": True})
        )
        assert found["files_with_matches"] == 2
        served = await stats(client)
    assert {"path": str(docs), "origin": "command_line", "read_only": True} in served["roots"]


async def test_a_read_only_root_refuses_every_change_and_keeps_its_bytes(
    connect: ClientFactory, root: Path, docs: Path
) -> None:
    tree(root, {"mine.txt": "mine\n"})
    before, mine = snapshot(docs), snapshot(root)
    guide = str(docs / "guide.md")
    calls: list[tuple[str, dict[str, Any]]] = [
        ("write_file", {"path": guide, "content": "x\n"}),
        ("write_file", {"path": str(docs / "new.md"), "content": "x\n"}),
        ("edit_file", {"path": guide, "old_text": "alpha", "new_text": "beta"}),
        ("delete_file", {"path": guide}),
        ("move_file", {"source_path": guide, "dest_path": str(root / "taken.md")}),
        ("move_file", {"source_path": str(root / "mine.txt"), "dest_path": str(docs / "mine.txt")}),
        ("copy_file", {"source_path": str(root / "mine.txt"), "dest_path": str(docs / "copy.txt")}),
        ("create_directory", {"path": str(docs / "made")}),
        ("project_replace", {"find": "TODO", "replace": "DONE", "path": str(docs)}),
        ("batch_operations", {"request_json": {"operations": [{"type": "write", "path": guide, "content": "y\n"}]}}),
        (
            "batch_operations",
            {"request_json": {"operations": [{"type": "move", "source": "mine.txt", "destination": guide + ".2"}]}},
        ),
        (
            "batch_operations",
            {
                "pipeline_json": {
                    "name": "ro",
                    "steps": [
                        {"id": "e", "action": "edit", "params": {"files": [guide], "old_text": "a", "new_text": "b"}}
                    ],
                }
            },
        ),
        ("batch_operations", {"rename_json": {"path": str(docs), "mode": "to_uppercase"}}),
    ]
    async with connect(read_only_roots=(docs,)) as client:
        for name, arguments in calls:
            result = await client.call_tool(name, arguments)
            assert error_code(result) == "read_only", (name, arguments, text_of(result))
    assert snapshot(docs) == before
    assert snapshot(root) == mine


async def test_a_read_only_root_nested_in_a_writable_one_stops_project_replace_before_any_write(
    connect: ClientFactory, root: Path
) -> None:
    before = tree(root, {"a.txt": "TODO\n", "vendor/lib.txt": "TODO\n", "z.txt": "TODO\n"})
    async with connect(read_only_roots=(root / "vendor",)) as client:
        result = await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE"})
        assert error_code(result) == "read_only"
        assert "vendor" in text_of(result)
    assert snapshot(root) == before


@pytest.mark.parametrize("nested", [True, False], ids=["nested-below-path", "path-itself"])
async def test_a_project_replace_or_rename_preview_is_refused_by_a_read_only_root_as_the_run_is(
    connect: ClientFactory, root: Path, nested: bool
) -> None:
    before = tree(root, {"p/b.txt": "TODO\n", "p/vendor/a.txt": "TODO\n"})
    path = "p" if nested else "p/vendor"
    renaming = {"path": path, "mode": "add_prefix", "prefix": "x_", "recursive": True}
    said: dict[bool, list[str]] = {}
    async with connect(read_only_roots=(root / "p" / "vendor",)) as client:
        for preview in (True, False):
            replaced = await client.call_tool(
                "project_replace", {"find": "TODO", "replace": "DONE", "path": path, "preview": preview}
            )
            renamed = await client.call_tool("batch_operations", {"rename_json": {**renaming, "preview": preview}})
            assert [error_code(replaced), error_code(renamed)] == ["read_only", "read_only"], text_of(replaced)
            said[preview] = [text_of(replaced), text_of(renamed)]
    assert said[True] == said[False]
    assert "lies in the read-only root p/vendor: " in said[True][1]
    assert snapshot(root) == before


async def test_minify_reads_from_a_read_only_root_but_never_writes_there(
    connect: ClientFactory, root: Path, docs: Path
) -> None:
    (docs / "lib.js").write_text("function add(a, b) {\n  return a + b;\n}\n", encoding="utf-8")
    before = snapshot(docs)
    async with connect(read_only_roots=(docs,)) as client:
        made = await client.call_tool("minify_js", {"path": str(docs / "lib.js"), "output_path": "lib.min.js"})
        assert not made.is_error, text_of(made)
        assert error_code(await client.call_tool("minify_js", {"path": str(docs / "lib.js")})) == "read_only"
    assert (root / "lib.min.js").read_text(encoding="utf-8").startswith("function add(")
    assert snapshot(docs) == before


# -- deny rules ---------------------------------------------------------------------------------------------------

SECRETS = {".env": "TOKEN=needle\n", "keys/id_rsa": "needle private\n", "certs/server.pem": "needle cert\n"}
PUBLIC = {".env.example": "TOKEN=needle\n", "keys/id_rsa.pub": "ssh-rsa needle\n", "app/main.py": "needle = 1\n"}


async def test_secrets_are_refused_by_read_and_write_naming_the_rule(client: Client, root: Path) -> None:
    before = tree(root, {**SECRETS, **PUBLIC})
    for name in SECRETS:
        refused = await read(client, name)
        assert error_code(refused) == "access_denied"
        assert "deny rule" in text_of(refused)
        assert error_code(await client.call_tool("write_file", {"path": name, "content": "x"})) == "access_denied"
        assert error_code(await client.call_tool("get_file_info", {"path": name})) == "access_denied"
    assert error_code(await read(client, "keys/../.env")) == "access_denied"
    assert not (await read(client, ".env.example")).is_error
    assert not (await read(client, "keys/id_rsa.pub")).is_error
    assert snapshot(root) == before


async def test_secrets_are_absent_from_listings_with_the_count(client: Client, root: Path) -> None:
    tree(root, {**SECRETS, **PUBLIC})
    listed = structured(await client.call_tool("list_directory", {"path": ".", "include_hidden": True}))
    assert {entry["name"] for entry in listed["entries"]} == {".env.example", "app", "certs", "keys"}
    assert listed["denied"] == 1
    assert "1 hidden by deny rules" in text_of(await client.call_tool("list_directory", {"include_hidden": True}))
    keys = structured(await client.call_tool("list_directory", {"path": "keys"}))
    assert ([entry["name"] for entry in keys["entries"]], keys["denied"]) == (["id_rsa.pub"], 1)
    shown = structured(
        await client.call_tool("list_directory", {"include_hidden": True, "output_format": "tree", "max_depth": 3})
    )
    assert shown["denied"] == 3
    assert ".env" not in text_of(await client.call_tool("list_directory", {"output_format": "tree"})).split()


async def test_secrets_are_absent_from_search_results_and_never_counted(
    client: Client, root: Path, tool_engine: str
) -> None:
    tree(root, {**SECRETS, **PUBLIC})
    content = structured(
        await client.call_tool("search_files", {"pattern": "needle", "include_content": True, "include_hidden": True})
    )
    assert sorted(Path(name).relative_to(root).as_posix() for name in content["files"]) == sorted(PUBLIC)
    assert content.get("denied") is None  # how many hidden files matched would tell what they hold
    names = structured(await client.call_tool("search_files", {"pattern": "*", "include_hidden": True}))
    assert sorted(Path(name).relative_to(root).as_posix() for name in names["files"]) == sorted(PUBLIC)
    assert names.get("denied") is None
    assert "deny" not in text_of(
        await client.call_tool("search_files", {"pattern": "needle", "include_content": True, "include_hidden": True})
    )


async def test_project_replace_leaves_secrets_untouched(client: Client, root: Path) -> None:
    before = tree(root, {**SECRETS, **PUBLIC})
    applied = structured(await client.call_tool("project_replace", {"find": "needle", "replace": "thread"}))
    changed = sorted(Path(entry["path"]).relative_to(root).as_posix() for entry in applied["files"])
    assert not set(changed) & set(SECRETS)
    after = snapshot(root)
    assert {name: after[name] for name in SECRETS} == {name: before[name] for name in SECRETS}
    assert after["app/main.py"] == b"thread = 1\n"


async def test_a_directory_copy_leaves_secrets_behind_and_counts_them(client: Client, root: Path) -> None:
    tree(root, {"app/.env": "TOKEN=1\n", "app/main.py": "x = 1\n", "app/tls.key": "k\n"})
    copied = structured(await client.call_tool("copy_file", {"source_path": "app", "dest_path": "app2"}))
    assert copied["denied"] == 2
    assert sorted(path.name for path in (root / "app2").iterdir()) == ["main.py"]


async def test_deny_flags_add_rules_and_no_default_deny_drops_the_defaults(connect: ClientFactory, root: Path) -> None:
    tree(root, {".env": "TOKEN=1\n", "data/app.sqlite": "db\n"})
    async with connect(deny=("*.sqlite",), default_deny=False) as client:
        assert structured(await read(client, ".env"))["content"] == "TOKEN=1\n"
        refused = await read(client, "data/app.sqlite")
        assert error_code(refused) == "access_denied"
        assert "'*.sqlite'" in text_of(refused)
        assert (await stats(client))["deny_rules"] == ["*.sqlite"]


async def test_a_wsl_tree_sync_leaves_secrets_behind_and_counts_them(connect: ClientFactory, root: Path) -> None:
    home, win = root / "home" / "me", root / "mnt" / "c" / "Users" / "me"
    win.mkdir(parents=True)
    tree(home, {"site/index.md": "index\n", "site/.env": "TOKEN=1\n", "site/keys/id_ed25519": "private\n"})
    settings = {"wsl": True, "wsl_mount_root": root / "mnt", "wsl_home": home, "wsl_windows_home": "C:\\Users\\me"}
    async with connect(**settings) as client:
        synced = structured(await client.call_tool("wsl", {"action": "sync", "wsl_path": str(home / "site")}))
    assert sorted(path.relative_to(win).as_posix() for path in win.rglob("*") if path.is_file()) == ["site/index.md"]
    assert (synced.get("skipped"), synced["denied"]) == ([], 2)


async def test_a_path_that_reaches_a_hidden_place_through_a_link_is_refused_as_such_not_as_matching_the_rule(
    connect: ClientFactory, root: Path
) -> None:
    tree(root, {"secret/s.txt": "hidden\n"})
    (root / "way_in").symlink_to(root / "secret")
    async with connect(deny=("secret/",)) as client:
        linked = await read(client, "way_in/s.txt")
        direct = await read(client, "secret/s.txt")
    assert error_code(linked) == error_code(direct) == "access_denied"
    assert "way_in/s.txt leads through a symbolic link to a place the deny rule 'secret/' hides" in text_of(linked)
    assert "secret/s.txt matches the deny rule 'secret/'" in text_of(direct)
    assert "hidden" not in text_of(linked) + text_of(direct)


async def test_a_root_named_through_a_link_is_refused_for_its_rule_not_as_a_link(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    tree(root, {"secret/s.txt": "hidden\n"})
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    async with connect(deny=("secret/",)) as client:
        refused = await read(client, str(alias / "secret" / "s.txt"))
    assert error_code(refused) == "access_denied"
    assert "matches the deny rule 'secret/'" in text_of(refused)
