"""What real clients send, end to end in both eras: nulls for blank fields, URIs and home paths, directory slashes.

Form-filling clients (the Inspector, VS Code's tool form, scripts built from a schema) send every field, null
for the blank ones; agents copy paths from other tools (file:// URIs from resource links and MCP roots, ``~``
from a shell). Each either works as meant or is refused with the fix named, never done as something else.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client import ClientRequestContext
from mcp.types import ListRootsResult

from fsguard.tools import _roots
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_null_for_an_optional_parameter_without_null_in_its_schema_is_its_default(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_text("old\n", encoding="utf-8")
    (root / "sub").mkdir()
    blank = {"append": None, "create_dirs": None, "expected_hash": None, "encoding": None, "content_base64": None}
    written = await client.call_tool("write_file", {"path": "a.txt", "content": "new\n", **blank})
    listed = await client.call_tool(
        "list_directory", {"path": None, "max_depth": None, "offset": None, "include_hidden": None, "limit": None}
    )
    read = await client.call_tool("read_file", {"path": "a.txt", "mode": None, "start_line": None})
    assert structured(written)["bytes_written"] == 4
    assert (root / "a.txt").read_bytes() == b"new\n"
    assert "sub" in text_of(listed)
    assert text_of(read).startswith("new")


async def test_the_text_null_for_an_optional_parameter_that_takes_no_text_is_its_default_and_stays_text_elsewhere(
    client: Client, root: Path
) -> None:
    (root / ".hidden").write_text("h\n", encoding="utf-8")
    (root / "a.txt").write_text("old\n", encoding="utf-8")
    blank = {"append": "null", "create_dirs": "null"}
    written = await client.call_tool("write_file", {"path": "a.txt", "content": "null", **blank})
    listed = await client.call_tool("list_directory", {"include_hidden": "null", "limit": "null", "max_depth": "null"})
    edited = await client.call_tool("edit_file", {"path": "a.txt", "old_text": "null", "new_text": "x", "mode": "null"})
    assert structured(written)["bytes_written"] == 4
    assert structured(listed)["total"] == 2  # include_hidden's default shows .hidden
    assert structured(edited)["replacements"] == 1
    assert (root / "a.txt").read_bytes() == b"x"


async def test_null_for_a_required_parameter_is_still_refused_and_writes_nothing(client: Client, root: Path) -> None:
    result = await client.call_tool("write_file", {"path": None, "content": "x"})
    assert error_code(result) == "invalid_params"
    assert list(root.iterdir()) == []


async def test_a_file_uri_names_the_local_path_it_encodes_for_reads_and_writes(client: Client, root: Path) -> None:
    (root / "sub dir").mkdir()
    (root / "sub dir" / "a.txt").write_text("A\n", encoding="utf-8")
    read = await client.call_tool("read_file", {"path": f"file://{root}/sub%20dir/a.txt"})
    written = await client.call_tool("write_file", {"path": f"file://localhost{root}/b.txt", "content": "B\n"})
    short = await client.call_tool("read_file", {"path": f"file:{root}/sub%20dir/a.txt"})  # no authority: RFC 8089
    assert text_of(read) == text_of(short) == "A\n"
    assert structured(written)["path"] == str(root / "b.txt")
    assert (root / "b.txt").read_bytes() == b"B\n"
    assert sorted(entry.name for entry in root.iterdir()) == ["b.txt", "sub dir"]


async def test_a_file_uri_of_another_host_is_refused_naming_the_fix(client: Client, root: Path) -> None:
    result = await client.call_tool("write_file", {"path": "file://server/share/a.txt", "content": "x"})
    assert error_code(result) == "invalid_params"
    assert "file:///" in text_of(result)
    assert list(root.iterdir()) == []


async def test_a_tilde_path_starts_at_the_home_directory_not_at_a_directory_named_tilde(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(root / "home"))
    (root / "home").mkdir()
    written = await client.call_tool("write_file", {"path": "~/notes.txt", "content": "n\n", "create_dirs": True})
    monkeypatch.setenv("HOME", str(root.parent))
    outside = await client.call_tool("write_file", {"path": "~/escape.txt", "content": "x"})
    assert structured(written)["path"] == str(root / "home" / "notes.txt")
    assert (root / "home" / "notes.txt").read_bytes() == b"n\n"
    assert not (root / "~").exists()
    assert error_code(outside) == "access_denied"
    assert not (root.parent / "escape.txt").exists()


async def test_a_directory_named_tilde_under_the_root_is_named_so_that_it_types_back(
    client: Client, root: Path
) -> None:
    written = await client.call_tool("write_file", {"path": "./~/x.txt", "content": "x", "create_dirs": True})
    again = await client.call_tool("read_file", {"path": text_of(written).split()[1]})
    assert (root / "~" / "x.txt").read_bytes() == b"x"
    assert text_of(written).startswith("Created ./~/x.txt")
    assert text_of(again) == "x"


async def test_a_path_ending_in_a_slash_is_never_written_as_a_file(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("A\n", encoding="utf-8")
    (root / "j.js").write_text("var a = 1;\n", encoding="utf-8")
    await client.call_tool("server_info", {"action": "artifact", "sub_action": "capture", "content": "text"})
    refused = [
        await client.call_tool("write_file", {"path": "notes/", "content": "x"}),
        await client.call_tool("write_file", {"path": "a.txt/", "content": "x"}),
        await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": "moved/"}),
        await client.call_tool("copy_file", {"source_path": "a.txt", "dest_path": "copied/"}),
        await client.call_tool("minify_js", {"path": "j.js", "output_path": "min/"}),
        await client.call_tool("server_info", {"action": "artifact", "sub_action": "write", "path": "saved/"}),
        await client.call_tool(
            "batch_operations", {"request_json": {"operations": [{"type": "write", "path": "b/", "content": "x"}]}}
        ),
    ]
    assert [error_code(result) for result in refused] == ["invalid_params"] * len(refused)
    assert "notes/notes.txt" in text_of(refused[0])
    assert sorted(entry.name for entry in root.iterdir()) == ["a.txt", "j.js"]
    assert (root / "a.txt").read_bytes() == b"A\n"


async def test_a_path_ending_in_a_dot_after_a_slash_names_a_directory_and_is_never_written_as_a_file(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_text("A\n", encoding="utf-8")
    refused = [
        await client.call_tool("write_file", {"path": "notes/.", "content": "x"}),
        await client.call_tool("write_file", {"path": "notes/./", "content": "x"}),
        await client.call_tool("write_file", {"path": "a.txt/.", "content": "x"}),
        await client.call_tool("copy_file", {"source_path": "a.txt", "dest_path": "copied/."}),
    ]
    assert [error_code(result) for result in refused] == ["invalid_params"] * len(refused)
    assert "'notes/.' ends with '/.', which names a directory, but there is none" in text_of(refused[0])
    assert "notes/notes.txt" in text_of(refused[1])
    assert "a.txt is a file; nothing was written. To go on, drop the '/.' to name a.txt itself" in text_of(refused[2])
    assert sorted(entry.name for entry in root.iterdir()) == ["a.txt"]
    assert (root / "a.txt").read_bytes() == b"A\n"
    (root / "sub").mkdir()
    written = await client.call_tool("write_file", {"path": "sub/./b.txt", "content": "b"})
    assert not written.is_error
    assert (root / "sub" / "b.txt").read_bytes() == b"b"


async def test_a_file_moved_onto_an_existing_directory_is_refused_naming_the_path_inside_it(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_text("A\n", encoding="utf-8")
    (root / "sub").mkdir()
    result = await client.call_tool("move_file", {"source_path": "a.txt", "dest_path": "sub/"})
    assert error_code(result) == "already_exists"
    assert 'dest_path="sub/a.txt"' in text_of(result)
    assert (root / "a.txt").read_bytes() == b"A\n"
    assert list((root / "sub").iterdir()) == []


async def test_one_path_sent_as_a_plain_string_for_paths_acts_on_that_file_alone(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("A\n", encoding="utf-8")
    (root / "b.txt").write_text("B\n", encoding="utf-8")
    deleted = await client.call_tool("delete_file", {"paths": "a.txt"})
    assert structured(deleted)["succeeded"] == 1
    assert sorted(entry.name for entry in root.iterdir()) == ["b.txt"]
    assert (root / "b.txt").read_bytes() == b"B\n"


async def test_a_relative_path_written_with_windows_backslashes_names_the_path_with_slashes(
    client: Client, root: Path
) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("A\n", encoding="utf-8")
    read = await client.call_tool("read_file", {"path": ".\\sub\\a.txt"})
    written = await client.call_tool("write_file", {"path": "sub\\new\\b.txt", "content": "B\n", "create_dirs": True})
    escaped = await client.call_tool("write_file", {"path": "..\\escape.txt", "content": "x"})
    assert text_of(read) == "A\n"
    assert structured(written)["path"] == str(root / "sub" / "new" / "b.txt")
    assert (root / "sub" / "new" / "b.txt").read_bytes() == b"B\n"
    assert [path.name for path in root.rglob("*") if "\\" in path.name] == []
    assert error_code(escaped) == "access_denied"
    assert not (root.parent / "escape.txt").exists()


async def test_an_existing_name_holding_backslashes_keeps_its_name(client: Client, root: Path) -> None:
    (root / "odd\\name.txt").write_text("odd\n", encoding="utf-8")
    read = await client.call_tool("read_file", {"path": "odd\\name.txt"})
    assert text_of(read) == "odd\n"


@pytest.mark.parametrize(
    "sent",
    ['"sub/a.txt"', "'sub/a.txt'", "`sub/a.txt`", "sub/a.txt\n", "  sub/a.txt ", '"sub/a.txt"\n', "' sub/a.txt '"],
)
async def test_a_path_wrapped_in_quotes_or_spaces_names_the_path_inside_them(
    client: Client, root: Path, sent: str
) -> None:
    # Models copy paths out of shells and messages with their quotes, or end them with a line break: the quoted
    # one was "\" does not exist", the one with a line break "path contains dangerous Unicode character U+000A".
    (root / "sub").mkdir()
    (root / "sub" / "a.txt").write_text("A\n", encoding="utf-8")
    assert text_of(await client.call_tool("read_file", {"path": sent})) == "A\n"
    absolute = sent.replace("sub/", f"{root}/sub/")
    assert text_of(await client.call_tool("read_file", {"path": absolute})) == "A\n"
    edited = await client.call_tool("edit_file", {"path": sent, "old_text": "A", "new_text": "B"})
    assert structured(edited)["path"] == str(root / "sub" / "a.txt")
    assert (root / "sub" / "a.txt").read_bytes() == b"B\n"


async def test_a_new_file_is_never_named_with_the_quotes_or_spaces_around_its_path(client: Client, root: Path) -> None:
    written = await client.call_tool("write_file", {"path": '"notes/new.txt"\n', "content": "N\n", "create_dirs": True})
    assert structured(written)["path"] == str(root / "notes" / "new.txt")
    assert (root / "notes" / "new.txt").read_bytes() == b"N\n"
    assert sorted(path.name for path in root.rglob("*")) == ["new.txt", "notes"]


@pytest.mark.parametrize("name", ['"quoted.txt"', " padded.txt ", "'single'"])
async def test_an_existing_name_with_quotes_or_spaces_at_its_ends_keeps_its_name(
    client: Client, root: Path, name: str
) -> None:
    (root / name).write_text("odd\n", encoding="utf-8")
    (root / name.strip(" \"'")).write_text("plain\n", encoding="utf-8")
    assert text_of(await client.call_tool("read_file", {"path": name})) == "odd\n"
    moved = await client.call_tool("move_file", {"source_path": name, "dest_path": "moved.txt"})
    assert structured(moved)["source"] == str(root / name)
    assert (root / "moved.txt").read_bytes() == b"odd\n"
    assert (root / name.strip(" \"'")).read_bytes() == b"plain\n"


async def test_json_text_nested_a_hundred_thousand_deep_is_a_typed_error_and_runs_nothing(
    client: Client, root: Path
) -> None:
    result = await client.call_tool("batch_operations", {"request_json": "[" * 100_000 + "]" * 100_000})
    assert error_code(result) == "invalid_params"
    assert "too deeply" in text_of(result)
    assert list(root.iterdir()) == []


async def test_an_empty_string_for_an_optional_number_boolean_or_path_is_its_default(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    blank = {"append": "", "create_dirs": "", "expected_hash": "", "encoding": ""}
    written = await client.call_tool("write_file", {"path": "a.txt", "content": "two\n", **blank})
    listed = await client.call_tool("list_directory", {"path": "", "limit": "", "max_depth": "", "include_hidden": ""})
    read = await client.call_tool("read_file", {"path": "a.txt", "start_line": "", "max_lines": "", "paths": ""})
    assert structured(written)["bytes_written"] == 4
    assert (root / "a.txt").read_bytes() == b"two\n"
    assert "a.txt" in text_of(listed)
    assert text_of(read) == "two\n"


async def test_null_and_blank_optional_fields_inside_edit_items_are_their_defaults(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("one two\none\n", encoding="utf-8")
    edits = [{"old_text": "two", "new_text": "2", "replace_all": None}]
    patterns = '[{"pattern": "one", "replacement": "1", "limit": ""}]'
    edited = await client.call_tool("multi_edit", {"path": "a.txt", "edits": edits})
    replaced = await client.call_tool("edit_file", {"path": "a.txt", "mode": "regex", "patterns_json": patterns})
    assert structured(edited)["successful_edits"] == 1
    assert structured(replaced)["replacements"] == 2
    assert (root / "a.txt").read_bytes() == b"1 2\n1\n"


async def test_blank_fields_another_batch_operation_type_would_take_are_ignored(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    blank = {"content": None, "destination": None, "start_line": None, "append": "", "options": None}
    operation = {"type": "edit", "path": "a.txt", "old_text": "one", "new_text": "1", **blank}
    result = await client.call_tool("batch_operations", {"request_json": {"operations": [operation]}})
    assert structured(result)["completed"] == 1
    assert (root / "a.txt").read_bytes() == b"1\n"


@pytest.mark.parametrize("mode", ["legacy"])  # 2026 asks within the call's own answer: nothing to wait on
async def test_a_client_declaring_roots_that_never_answers_roots_list_gets_its_calls_answered_after_one_wait(
    connect: ClientFactory, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_roots, "ROOTS_ANSWER_SECONDS", 0.5)
    asked: list[int] = []

    async def silent(context: ClientRequestContext) -> ListRootsResult:
        asked.append(1)
        await anyio.sleep_forever()
        raise AssertionError("unreachable")

    with anyio.fail_after(10):
        async with connect(list_roots_callback=silent) as client:
            written = await client.call_tool("write_file", {"path": "a.txt", "content": "kept\n"})
            read = await client.call_tool("read_file", {"path": "a.txt"})
    assert structured(written)["bytes_written"] == 5
    assert text_of(read) == "kept\n"
    assert (root / "a.txt").read_bytes() == b"kept\n"
    assert asked == [1]


DECOMPOSED = unicodedata.normalize("NFD", "café")  # as macOS writes names
COMPOSED = unicodedata.normalize("NFC", "café")  # as agents type them


async def test_a_composed_name_reaches_the_file_stored_decomposed_and_a_write_makes_no_lookalike(
    client: Client, root: Path
) -> None:
    (root / DECOMPOSED).mkdir()
    (root / DECOMPOSED / f"{DECOMPOSED}.txt").write_bytes(b"old\n")
    read = await client.call_tool("read_file", {"path": f"{COMPOSED}/{COMPOSED}.txt"})
    written = await client.call_tool("write_file", {"path": f"{COMPOSED}/{COMPOSED}.txt", "content": "new\n"})
    added = await client.call_tool("write_file", {"path": f"{COMPOSED}/n.txt", "content": "n\n"})
    assert text_of(read) == "old\n"
    assert structured(written)["path"] == str(root / DECOMPOSED / f"{DECOMPOSED}.txt")
    assert not added.is_error
    assert [path.name for path in root.iterdir()] == [DECOMPOSED]
    assert sorted(path.name for path in (root / DECOMPOSED).iterdir()) == sorted([f"{DECOMPOSED}.txt", "n.txt"])
    assert (root / DECOMPOSED / f"{DECOMPOSED}.txt").read_bytes() == b"new\n"


@pytest.mark.parametrize(("stored", "asked"), [(DECOMPOSED, COMPOSED), (COMPOSED, DECOMPOSED)], ids=["nfd", "nfc"])
async def test_a_move_to_the_same_name_in_another_unicode_form_renames_it_and_a_copy_there_is_refused(
    client: Client, root: Path, stored: str, asked: str
) -> None:
    # Both spellings reached the one entry, so the rename said "already exists ... or delete_file it first":
    # advice to trash the very file being renamed.
    (root / f"{stored}.txt").write_bytes(b"kept\n")
    copied = await client.call_tool("copy_file", {"source_path": f"{stored}.txt", "dest_path": f"{asked}.txt"})
    assert error_code(copied) == "already_exists"
    assert "is the source itself" in text_of(copied)
    assert "delete_file" not in text_of(copied)
    moved = await client.call_tool("move_file", {"source_path": f"{stored}.txt", "dest_path": f"{asked}.txt"})
    assert structured(moved)["destination"] == str(root / f"{asked}.txt")
    forms = ("NFD (decomposed)", "NFC (composed)") if stored == DECOMPOSED else ("NFC (composed)", "NFD (decomposed)")
    # "Moved café.txt to café.txt." read as a move that did nothing
    assert text_of(moved) == (
        f"Renamed {asked}.txt from {forms[0]} to {forms[1]}: the name reads the same, its stored characters changed."
    )
    assert [path.name for path in root.iterdir()] == [f"{asked}.txt"]
    assert (root / f"{asked}.txt").read_bytes() == b"kept\n"


async def test_names_differing_only_in_unicode_form_are_each_reached_by_their_own_spelling(
    client: Client, root: Path
) -> None:
    (root / f"{DECOMPOSED}.txt").write_bytes(b"decomposed\n")
    (root / f"{COMPOSED}.txt").write_bytes(b"composed\n")
    decomposed = await client.call_tool("read_file", {"path": f"{DECOMPOSED}.txt"})
    composed = await client.call_tool("read_file", {"path": f"{COMPOSED}.txt"})
    await client.call_tool("write_file", {"path": f"{COMPOSED}.txt", "content": "changed\n"})
    assert (text_of(decomposed), text_of(composed)) == ("decomposed\n", "composed\n")
    assert (root / f"{DECOMPOSED}.txt").read_bytes() == b"decomposed\n"
    assert (root / f"{COMPOSED}.txt").read_bytes() == b"changed\n"
