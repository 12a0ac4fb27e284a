"""batch_operations request_json through the in-memory Client, in both eras: the bytes on disk are what count."""

from __future__ import annotations

import json
import stat
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

Snapshot = dict[str, tuple[str, int, bytes | None]]


def snapshot(root: Path) -> Snapshot:
    """Every entry under ``root``: its kind, its mode and (for files) its bytes."""
    entries: Snapshot = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        kind = "dir" if stat.S_ISDIR(info.st_mode) else "file"
        entries[str(path.relative_to(root))] = (
            kind,
            stat.S_IMODE(info.st_mode),
            path.read_bytes() if kind == "file" else None,
        )
    return entries


async def batch(client: Client, *operations: dict[str, Any], **flags: Any) -> CallToolResult:
    return await client.call_tool("batch_operations", {"request_json": {"operations": list(operations), **flags}})


def meta(result: CallToolResult) -> dict[str, Any]:
    assert result.meta is not None
    fields = result.meta["fsguard/error"]
    assert isinstance(fields, dict)
    return fields


async def test_an_atomic_batch_whose_fourth_operation_fails_leaves_every_byte_file_and_directory_as_before(
    client: Client, root: Path
) -> None:
    (root / "crlf.txt").write_bytes(b"alpha\r\nbeta\r\ngamma\r\n")
    (root / "crlf.txt").chmod(0o600)
    (root / "keep").mkdir()
    (root / "keep" / "move-me.txt").write_bytes(b"moving\n")
    before = snapshot(root)
    result = await batch(
        client,
        {"type": "write", "path": "fresh/deeper/new.txt", "content": "brand new\n"},
        {"type": "edit", "path": "crlf.txt", "old_text": "beta", "new_text": "BETA"},
        {"type": "move", "source": "keep/move-me.txt", "destination": "elsewhere/moved.txt"},
        {"type": "edit", "path": "crlf.txt", "old_text": "not in the file", "new_text": "x"},
    )
    assert error_code(result) == "batch_failed"
    fields = meta(result)
    assert (fields["failed_index"], fields["failed_type"], fields["error_code"]) == (3, "edit", "no_match")
    assert fields["not_rolled_back"] == []
    assert str(root / "fresh" / "deeper" / "new.txt") in fields["rolled_back"]
    assert "operation 3 (edit crlf.txt)" in text_of(result)
    assert "Every byte on disk is as it was before the batch" in text_of(result)
    assert snapshot(root) == before


async def test_write_then_edit_of_the_same_new_file_validates_and_runs(client: Client, root: Path) -> None:
    data = structured(
        await batch(
            client,
            {"type": "write", "path": "notes/todo.md", "content": "# Todo\n- ship\n"},
            {"type": "edit", "path": "notes/todo.md", "old_text": "- ship", "new_text": "- ship it"},
        )
    )
    assert (root / "notes" / "todo.md").read_bytes() == b"# Todo\n- ship it\n"
    assert (data["form"], data["status"], data["completed"], data["failed"]) == ("operations", "applied", 2, 0)
    edit = data["operations"][1]
    assert (edit["status"], edit["replacements"], edit["bytes_affected"]) == ("ok", 1, len(b"# Todo\n- ship it\n"))
    read = structured(await client.call_tool("read_file", {"path": "notes/todo.md"}))
    assert edit["content_hash"] == read["content_hash"]
    assert data["backup_id"]


async def test_create_dir_then_write_inside_it(client: Client, root: Path) -> None:
    data = structured(
        await batch(
            client,
            {"type": "create_directory", "path": "pkg/sub"},
            {"type": "write", "path": "pkg/sub/__init__.py", "content": ""},
        )
    )
    assert [op["type"] for op in data["operations"]] == ["create_dir", "write"]
    assert (root / "pkg" / "sub").is_dir()
    assert (root / "pkg" / "sub" / "__init__.py").read_bytes() == b""


async def test_validation_collects_every_problem_at_once_and_writes_nothing(client: Client, root: Path) -> None:
    (root / "exists.txt").write_text("here\n", encoding="utf-8")
    before = snapshot(root)
    result = await batch(
        client,
        {"type": "write", "path": "ok.txt", "content": "fine\n"},
        {"type": "edit", "path": "missing.txt", "old_text": "a", "new_text": "b"},
        {"type": "copy", "source": "exists.txt", "destination": "exists.txt.bak", "contnt": "x"},
        {"type": "move", "source": "exists.txt", "destination": "ok.txt"},
        {"type": "extract", "source": "exists.txt", "destination": "other.txt", "start_line": 3, "end_line": 1},
        {"type": "wrte", "path": "x.txt"},
        {"type": "delete", "path": "."},  # after an operation that did not parse: still checked for what it can be
    )
    assert error_code(result) == "invalid_params"
    errors = meta(result)["errors"]
    assert list(dict.fromkeys(line.split(" ")[1].rstrip(":") for line in errors)) == ["1", "2", "3", "4", "5", "6"]
    text = text_of(result)
    assert "file does not exist: missing.txt (and no earlier operation creates it)" in text
    assert "unknown field 'contnt' (did you mean 'content'?)" in text
    assert "unknown operation type 'wrte' (did you mean 'write'?)" in text
    assert "ok.txt already exists" in text  # operation 0 would have created it
    assert "can never be deleted" in text
    assert "start_line (3) and end_line (1)" in text
    assert "operation 4 (extract exists.txt → other.txt): file does not exist: exists.txt" in text
    assert snapshot(root) == before


async def test_a_required_field_given_with_the_wrong_type_is_one_problem_not_also_called_missing(
    client: Client, root: Path
) -> None:
    result = await batch(
        client,
        {"type": "write", "path": "a.txt", "content": 1},
        {"type": "move", "source": "", "destination": "b.txt"},
    )
    assert error_code(result) == "invalid_params"
    assert meta(result)["errors"] == [
        "operation 0 (write a.txt): content must be a string, not int",
        "operation 1 (move ): source is empty",
    ]
    assert "missing" not in text_of(result)  # it was given: "missing content" sent the agent to add it again
    assert list(root.iterdir()) == []


async def test_an_empty_batch_and_a_non_object_are_invalid_params(client: Client) -> None:
    assert error_code(await batch(client)) == "invalid_params"
    empty = await client.call_tool("batch_operations", {"request_json": {"operations": []}})
    assert "operations array is required and cannot be empty" in text_of(empty)
    text = await client.call_tool("batch_operations", {"request_json": {"operations": "write a.txt"}})
    assert meta(text)["errors"][0].startswith("operations must be an array, not str, e.g. {")  # "is required" it said
    assert error_code(await client.call_tool("batch_operations", {"request_json": {"operation": []}})) == (
        "invalid_params"
    )


async def test_validate_only_checks_the_batch_and_writes_nothing(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    before = snapshot(root)
    result = await batch(
        client,
        {"type": "move", "source": "a.txt", "destination": "old/a.txt"},
        {"type": "edit", "path": "old/a.txt", "old_text": "a", "new_text": "b"},
        {"type": "delete", "path": "old", "recursive": True},
        validate_only=True,
    )
    data = structured(result)
    assert (data["status"], data["completed"], "backup_id" in data) == ("validated", 3, False)
    assert [op["status"] for op in data["operations"]] == ["valid"] * 3
    assert data["operations"][0]["destination"] == str(root / "old" / "a.txt")
    assert "nothing was written" in text_of(result)
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("original", "edited"),
    [
        (b"one\r\ntwo\r\nthree\r\n", b"one\r\n2\r\nthree\r\n"),
        (b"\xef\xbb\xbfone\ntwo\nthree\n", b"\xef\xbb\xbfone\n2\nthree\n"),
        ("\ufeffone\r\ntwo\r\n".encode("utf-16-le"), "\ufeffone\r\n2\r\n".encode("utf-16-le")),
    ],
    ids=["crlf", "utf8-bom", "utf16-bom-crlf"],
)
async def test_an_edit_in_a_batch_keeps_encoding_bom_line_endings_and_mode(
    client: Client, root: Path, original: bytes, edited: bytes
) -> None:
    target = root / "f.txt"
    target.write_bytes(original)
    target.chmod(0o600)
    structured(await batch(client, {"type": "edit", "path": "f.txt", "old_text": "two", "new_text": "2"}))
    assert target.read_bytes() == edited
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


async def test_an_ambiguous_edit_is_refused_unless_replace_all(client: Client, root: Path) -> None:
    (root / "dup.txt").write_text("x = 1\nx = 1\n", encoding="utf-8")
    refused = await batch(client, {"type": "edit", "path": "dup.txt", "old_text": "x = 1", "new_text": "x = 2"})
    assert meta(refused)["error_code"] == "ambiguous_match"
    assert (root / "dup.txt").read_text(encoding="utf-8") == "x = 1\nx = 1\n"
    data = structured(
        await batch(
            client, {"type": "edit", "path": "dup.txt", "old_text": "x = 1", "new_text": "x = 2", "replace_all": True}
        )
    )
    assert data["operations"][0]["replacements"] == 2
    assert (root / "dup.txt").read_text(encoding="utf-8") == "x = 2\nx = 2\n"


async def test_an_ambiguous_edit_takes_the_occurrence_its_error_offers(client: Client, root: Path) -> None:
    (root / "dup.txt").write_bytes(b"x = 1\nx = 1\nx = 1\n")
    edit = {"type": "edit", "path": "dup.txt", "old_text": "x = 1", "new_text": "x = 2"}
    refused = await batch(client, edit)
    assert "pass occurrence=N to pick one" in text_of(refused)
    second = structured(await batch(client, {**edit, "occurrence": 2}))
    assert second["operations"][0]["replacements"] == 1
    assert (root / "dup.txt").read_bytes() == b"x = 1\nx = 2\nx = 1\n"
    await batch(client, {**edit, "occurrence": "-1"})
    assert (root / "dup.txt").read_bytes() == b"x = 1\nx = 2\nx = 2\n"
    both = await batch(client, {**edit, "occurrence": 1, "replace_all": True})
    assert error_code(both) == "invalid_params"
    assert "occurrence changes one match and replace_all every match" in text_of(both)
    assert (root / "dup.txt").read_bytes() == b"x = 1\nx = 2\nx = 2\n"


@pytest.mark.parametrize(
    "operation",
    [
        {"type": "edit", "path": "big.txt", "old_text": "line 1\n", "new_text": "L\n"},
        {"type": "edit", "path": "bin.dat", "old_text": "alpha", "new_text": "beta"},
        {"type": "write", "path": "n.txt", "content": "x" * 1500},
    ],
    ids=["edit-above-the-limit", "edit-binary", "write-above-the-limit"],
)
async def test_validate_only_finds_what_the_run_refuses_on_sight_a_size_or_a_binary_file(
    connect: ClientFactory, root: Path, operation: dict[str, object]
) -> None:
    (root / "big.txt").write_bytes(b"".join(b"line %d\n" % i for i in range(200)))  # 1,890 bytes
    (root / "bin.dat").write_bytes(b"\x00\x01alpha\x00")
    before = snapshot(root)
    async with connect(max_file_size=1000) as client:
        checked = await batch(client, operation, validate_only=True)
        run = await batch(client, operation)
    assert error_code(checked) == "invalid_params", text_of(checked)
    code = meta(run)["error_code"]
    said = {"too_large": "--max-file-size", "binary_file": "is a binary file"}[code]
    assert [said in problem for problem in meta(checked)["errors"]] == [True], meta(checked)
    assert snapshot(root) == before


ADVICE = " Write a smaller file, or restart fsguard with a larger --max-file-size."


async def test_validate_only_finds_appends_that_grow_a_file_above_the_limit_as_the_run_refuses_them(
    connect: ClientFactory, root: Path
) -> None:
    (root / "log.txt").write_bytes(b"x" * 600)
    grow = {"type": "write", "path": "log.txt", "content": "y" * 600, "append": True}
    twice = {"type": "write", "path": "new.txt", "content": "z" * 600, "append": True}
    async with connect(max_file_size=1000) as client:
        checked = [await batch(client, *ops, validate_only=True) for ops in ([grow], [twice, twice])]
        runs = [await batch(client, *ops) for ops in ([grow], [twice, twice])]
    for result in checked:
        assert error_code(result) == "invalid_params", text_of(result)  # it said "all valid"
    limit = "bytes, above the 1,000-byte limit (--max-file-size); nothing was written."
    assert [problem.split(" is at least ") for result in checked for problem in meta(result)["errors"]] == [
        [f"operation 0 (write log.txt): the content for {root / 'log.txt'}", f"1,200 {limit}" + ADVICE],
        [f"operation 1 (write new.txt): the content for {root / 'new.txt'}", f"1,200 {limit}" + ADVICE],
    ]
    assert [(meta(run)["error_code"], meta(run)["failed_index"]) for run in runs] == [
        ("too_large", 0),
        ("too_large", 1),
    ]
    assert (root / "log.txt").read_bytes() == b"x" * 600
    assert not (root / "new.txt").exists()


async def test_validate_only_finds_the_edit_the_run_would_not_match_on_the_text_earlier_operations_leave(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"foo 0\nfoo 1\n")
    before = snapshot(root)
    operations = [
        {"type": "write", "path": "b.txt", "content": "one two\n"},
        {"type": "edit", "path": "b.txt", "old_text": "two", "new_text": "2"},
        {"type": "copy", "source": "a.txt", "destination": "c.txt"},
        {"type": "edit", "path": "c.txt", "old_text": "foo 1", "new_text": "bar"},
        {"type": "edit", "path": "a.txt", "old_text": "nope", "new_text": "x"},
    ]
    run = await batch(client, *operations)
    assert (meta(run)["failed_index"], meta(run)["error_code"]) == (4, "no_match")
    assert "validate_only: true checks it without running it" in text_of(run)
    # Two changes to each of two files: the text counted 4 where rolled_back_count said 2.
    assert "rollback completed for the 4 changes it had made to 2 paths, newest first:" in text_of(run)
    assert meta(run)["rolled_back_count"] == 2
    checked = await batch(client, *operations, validate_only=True)
    assert error_code(checked) == "invalid_params"
    assert meta(checked)["errors"] == [
        'operation 4 (edit a.txt): edit failed: no matches found for text: "nope" — old_text was not found in '
        "a.txt (tried: exact, escape_fixed, trailing_whitespace, indentation). Nothing was written."
    ]
    again = await batch(client, *operations[:4], {"type": "edit", "path": "b.txt", "old_text": "two", "new_text": "2"})
    assert meta(again)["error_code"] == "no_match"
    repeated = await batch(
        client,
        *operations[:4],
        {"type": "edit", "path": "b.txt", "old_text": "two", "new_text": "2"},
        validate_only=True,
    )
    assert [error.split(":")[0] for error in meta(repeated)["errors"]] == ["operation 4 (edit b.txt)"]
    fine = structured(await batch(client, *operations[:4], validate_only=True))
    assert fine["status"] == "validated"
    assert snapshot(root) == before


async def test_a_failure_validate_only_cannot_find_is_not_sent_to_validate_only(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    result = await batch(
        client,
        {"type": "write", "path": "b.txt", "content": "b\n"},
        {"type": "edit", "path": "a.txt", "old_text": "a", "new_text": "b", "expected_hash": "00000000"},
    )
    assert meta(result)["error_code"] == "stale_edit"
    assert text_of(result).endswith("Fix operation 1 and send the batch again.")
    assert not (root / "b.txt").exists()


@pytest.mark.parametrize(
    "first",
    [
        {"type": "move", "source": "d", "destination": "e"},
        {"type": "extract", "path": "a.txt", "start_line": 1, "end_line": 1, "destination": "n.txt"},
    ],
    ids=["directory_move", "extract"],
)
async def test_an_edit_missing_in_what_a_directory_move_or_an_extract_left_is_not_sent_to_validate_only(
    client: Client, root: Path, first: dict[str, Any]
) -> None:
    # validate_only does not follow those texts and answered "all valid"; the run's error then sent the agent to it.
    (root / "a.txt").write_bytes(b"alpha\nline2\n")
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_bytes(b"f\n")
    before = snapshot(root)
    edited = "e/f.txt" if first["type"] == "move" else "a.txt"
    edit = {"type": "edit", "path": edited, "old_text": "alpha" if edited == "a.txt" else "absent", "new_text": "X"}
    assert structured(await batch(client, first, edit, validate_only=True))["status"] == "validated"
    result = await batch(client, first, edit)
    assert meta(result)["error_code"] == "no_match"
    assert text_of(result).endswith("Fix operation 1 and send the batch again.")
    assert snapshot(root) == before


async def test_search_and_replace_is_literal_replaces_every_occurrence_and_fails_on_none(
    client: Client, root: Path
) -> None:
    (root / "s.txt").write_bytes(b"cost: $1 + $1\r\n")
    data = structured(
        await batch(client, {"type": "search_and_replace", "path": "s.txt", "search": "$1", "replace": "\\2"})
    )
    assert data["operations"][0]["replacements"] == 2
    assert (root / "s.txt").read_bytes() == b"cost: \\2 + \\2\r\n"
    missing = await batch(client, {"type": "search_and_replace", "path": "s.txt", "old_text": "$9", "new_text": "x"})
    assert meta(missing)["error_code"] == "no_match"
    assert (root / "s.txt").read_bytes() == b"cost: \\2 + \\2\r\n"


async def test_extract_moves_lines_byte_exact_and_appends_to_an_existing_file(client: Client, root: Path) -> None:
    (root / "src.txt").write_bytes(b"keep 1\r\nmove 2\r\nmove 3\r\nkeep 4\r\n")
    (root / "dest.txt").write_bytes(b"already here")  # no final newline: the lines start on their own line
    data = structured(
        await batch(
            client,
            {"type": "extract", "source": "src.txt", "destination": "parts/new.txt", "start_line": 2, "end_line": 3},
            {
                "type": "extract",
                "path": "src.txt",
                "destination": "dest.txt",
                "start_line": 2,
                "end_line": 2,
                "append": True,
            },
        )
    )
    assert (root / "parts" / "new.txt").read_bytes() == b"move 2\r\nmove 3\r\n"
    assert (root / "dest.txt").read_bytes() == b"already here\r\nkeep 4\r\n"
    assert (root / "src.txt").read_bytes() == b"keep 1\r\n"
    assert [op["bytes_affected"] for op in data["operations"]] == [16, 8]
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]}))
    assert (root / "src.txt").read_bytes() == b"keep 1\r\nmove 2\r\nmove 3\r\nkeep 4\r\n"
    assert (root / "dest.txt").read_bytes() == b"already here"
    assert not (root / "parts").exists()


async def test_extract_keeps_a_utf16_source_encoding_in_a_new_file(client: Client, root: Path) -> None:
    (root / "wide.txt").write_bytes("\ufeffa\nb\nc\n".encode("utf-16-le"))
    structured(
        await batch(
            client, {"type": "extract", "source": "wide.txt", "destination": "b.txt", "start_line": 2, "end_line": 2}
        )
    )
    assert (root / "b.txt").read_bytes() == "\ufeffb\n".encode("utf-16-le")
    assert (root / "wide.txt").read_bytes() == "\ufeffa\nc\n".encode("utf-16-le")


async def test_extract_to_an_existing_file_without_append_is_refused_before_anything_runs(
    client: Client, root: Path
) -> None:
    (root / "src.txt").write_text("1\n2\n", encoding="utf-8")
    (root / "dest.txt").write_text("mine\n", encoding="utf-8")
    result = await batch(
        client,
        {"type": "write", "path": "first.txt", "content": "x"},
        {"type": "extract", "source": "src.txt", "destination": "dest.txt", "start_line": 1, "end_line": 1},
    )
    assert error_code(result) == "invalid_params"
    assert "pass append: true" in text_of(result)
    assert not (root / "first.txt").exists()
    assert (root / "dest.txt").read_text(encoding="utf-8") == "mine\n"


async def test_a_non_atomic_batch_continues_past_a_failure_and_reports_partial(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    result = await batch(
        client,
        {"type": "edit", "path": "a.txt", "old_text": "a", "new_text": "A"},
        {"type": "edit", "path": "a.txt", "old_text": "zzz", "new_text": "x"},
        {"type": "write", "path": "b.txt", "content": "b\n"},
        atomic=False,
    )
    data = structured(result)
    assert (data["status"], data["completed"], data["failed"]) == ("partial", 2, 1)
    assert [op["status"] for op in data["operations"]] == ["ok", "failed", "ok"]
    assert data["operations"][1]["error_code"] == "no_match"
    assert (root / "a.txt").read_text(encoding="utf-8") == "A\n"
    assert (root / "b.txt").read_text(encoding="utf-8") == "b\n"
    assert "[FAILED] [1] edit" in text_of(result)


async def test_a_non_atomic_batch_none_of_whose_operations_succeeded_is_an_error_listing_each_failure(
    client: Client, root: Path
) -> None:
    # It answered success, status "partial", "0/2 operations ok ... Nothing needed changing".
    (root / "b.txt").write_bytes(b"bravo\n")
    (root / "d").mkdir()
    result = await batch(
        client,
        {"type": "edit", "path": "b.txt", "old_text": "bravo", "new_text": "B", "expected_hash": "12345678"},
        {"type": "edit", "path": "b.txt", "old_text": "zzz", "new_text": "B"},
        atomic=False,
    )
    assert error_code(result) == "stale_edit", text_of(result)  # the first failure's, as delete_file's paths
    assert [problem.split(":")[0] for problem in meta(result)["errors"]] == [
        "operation 0 (edit b.txt) (stale_edit)",
        "operation 1 (edit b.txt) (no_match)",
    ]
    assert text_of(result).startswith("batch_operations: none of the 2 operations succeeded (atomic: false)")
    assert (root / "b.txt").read_bytes() == b"bravo\n"
    unchanged = await batch(
        client,
        {"type": "create_dir", "path": "d"},
        {"type": "edit", "path": "b.txt", "old_text": "zzz", "new_text": "B"},
        atomic=False,
    )
    assert structured(unchanged)["status"] == "partial"
    assert "Nothing needed changing" not in text_of(unchanged)
    assert (root / "b.txt").read_bytes() == b"bravo\n"


async def test_a_path_outside_the_root_is_refused_and_the_outside_file_untouched(
    client: Client, root: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not yours\n")
    result = await batch(
        client,
        {"type": "write", "path": "inside.txt", "content": "x"},
        {"type": "write", "path": str(outside), "content": "pwned\n"},
        {"type": "edit", "path": "../outside.txt", "old_text": "not", "new_text": "now"},
    )
    assert error_code(result) == "access_denied"  # as write_file and edit_file alone answer it
    assert [line.split(" ")[1] for line in meta(result)["errors"]] == ["1", "2"]
    assert "access denied" in text_of(result)
    assert outside.read_bytes() == b"not yours\n"
    assert not (root / "inside.txt").exists()


async def test_restoring_the_batch_backup_id_reverts_the_whole_batch(client: Client, root: Path) -> None:
    (root / "edit.txt").write_bytes(b"v1\r\n")
    (root / "gone.txt").write_bytes(b"delete me\n")
    (root / "copy-src").mkdir()
    (root / "copy-src" / "f.txt").write_bytes(b"f\n")
    (root / "mv.txt").write_bytes(b"mv\n")
    before = snapshot(root)
    data = structured(
        await batch(
            client,
            {"type": "write", "path": "made/new.txt", "content": "new\n"},
            {"type": "edit", "path": "made/new.txt", "old_text": "new", "new_text": "newer"},
            {"type": "edit", "path": "edit.txt", "old_text": "v1", "new_text": "v2"},
            {"type": "delete", "path": "gone.txt"},
            {"type": "copy", "source": "copy-src", "destination": "copy-dst"},
            {"type": "move", "source": "mv.txt", "destination": "moved/mv.txt"},
            {"type": "edit", "path": "moved/mv.txt", "old_text": "mv", "new_text": "MV"},
            {"type": "create_dir", "path": "empty/dir"},
        )
    )
    assert data["operations"][3]["sd_id"]
    assert (root / "moved" / "mv.txt").read_bytes() == b"MV\n"
    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]}))
    assert {change["status"] for change in restored["reverted"]} == {"reverted"}
    assert snapshot(root) == before


async def test_a_hook_denying_an_edit_rolls_back_the_earlier_operations(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    config = tmp_path / "hooks.json"
    deny = {"pattern": "batch_operations", "hooks": [{"type": "command", "command": "echo frozen >&2; exit 2"}]}
    config.write_text(json.dumps({"hooks": {"pre-edit": [deny]}}), encoding="utf-8")
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    before = snapshot(root)
    async with connect(hooks_config=config) as client:
        result = await batch(
            client,
            {"type": "write", "path": "new/b.txt", "content": "b\n"},
            {"type": "delete", "path": "a.txt"},
            {"type": "write", "path": "a.txt", "content": "replacement\n"},
            {"type": "edit", "path": "a.txt", "old_text": "replacement", "new_text": "edited"},
        )
    assert error_code(result) == "batch_failed"
    assert (meta(result)["failed_index"], meta(result)["error_code"]) == (3, "hook_denied")
    assert "frozen" in text_of(result)
    assert snapshot(root) == before


async def test_a_bare_list_aliases_and_soft_delete_into_the_trash(client: Client, root: Path) -> None:
    (root / "old.log").write_bytes(b"log\n")
    (root / "a.txt").write_bytes(b"a\n")
    result = await client.call_tool(
        "batch_operations",
        {
            "request_json": json.dumps(
                [
                    {"action": "copy", "path": "a.txt", "dest": "b.txt"},
                    {"op": "rename", "source_path": "b.txt", "dest_path": "c.txt"},
                    {"type": "delete", "path": "old.log"},
                    {"type": "edit", "path": "c.txt", "find": "a", "old_text": "a\n", "replacement": "c\n"},
                ]
            )
        },
    )
    data = structured(result)
    assert [op["type"] for op in data["operations"]] == ["copy", "move", "delete", "edit"]
    assert (root / "c.txt").read_bytes() == b"c\n"
    assert (root / "a.txt").read_bytes() == b"a\n"
    assert not (root / "b.txt").exists()
    assert not (root / "old.log").exists()
    trash = structured(await client.call_tool("backup", {"action": "list_trash"}))["trash"]
    assert [entry["sd_id"] for entry in trash] == [data["operations"][2]["sd_id"]]


async def test_a_permanent_directory_delete_is_refused_in_an_atomic_batch(client: Client, root: Path) -> None:
    (root / "d").mkdir()
    (root / "d" / "f.txt").write_bytes(b"f\n")
    result = await batch(client, {"type": "delete", "path": "d", "recursive": True, "permanent": True})
    assert error_code(result) == "invalid_params"
    assert "could not be rolled back" in text_of(result)
    assert (root / "d" / "f.txt").read_bytes() == b"f\n"
    needs_recursive = await batch(client, {"type": "delete", "path": "d"})
    assert "recursive: true" in text_of(needs_recursive)


async def test_write_with_append_adds_to_the_end_and_keeps_crlf(client: Client, root: Path) -> None:
    (root / "log.txt").write_bytes(b"one\r\n")
    structured(
        await batch(
            client,
            {"type": "write", "path": "log.txt", "content": "two\nthree\n", "append": True},
            {"type": "write", "path": "logs/new.txt", "content": "first\n", "append": "true"},
        )
    )
    assert (root / "log.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    assert (root / "logs" / "new.txt").read_bytes() == b"first\n"


async def test_the_compact_voice_is_one_line(connect: ClientFactory, root: Path) -> None:
    async with connect(compact_mode=True) as client:
        result = await batch(
            client, {"type": "write", "path": "a.txt", "content": "a"}, {"type": "create_dir", "path": "d"}
        )
    data = structured(result)
    assert text_of(result) == f"OK: 2/2 operations | backup:{data['backup_id']}"
    assert data["message"] == text_of(result)


async def test_a_field_that_the_type_does_not_take_is_refused_with_its_fields_listed(
    client: Client, root: Path
) -> None:
    result = await batch(client, {"type": "delete", "path": "x.txt", "content": "?"})
    assert error_code(result) == "invalid_params"
    assert "delete does not take 'content'; its fields are path, recursive, permanent, expected_hash" in text_of(result)


async def test_an_atomic_batch_of_many_writes_that_fails_names_a_few_of_its_reverted_changes_and_counts_them(
    client: Client, root: Path
) -> None:
    # The failure listed every reverted change, a line each, and _meta every path: 3,000 writes made 266 KB of text,
    # above --max-response-bytes.
    (root / "a.txt").write_bytes(b"x\n")
    writes = [{"type": "write", "path": f"f{i}.txt", "content": "c"} for i in range(40)]
    result = await batch(client, *writes, {"type": "edit", "path": "a.txt", "old_text": "absent", "new_text": "y"})
    assert error_code(result) == "batch_failed"
    assert sorted(path.name for path in root.iterdir()) == ["a.txt"]
    assert (root / "a.txt").read_bytes() == b"x\n"
    text = text_of(result)
    assert "rollback completed for the 40 changes" in text
    assert text.count("reverted: created") == 10
    assert "… and 30 more (counted above)" in text
    fields = meta(result)
    assert (len(fields["rolled_back"]), fields["rolled_back_count"]) == (10, 40)
    assert (fields["not_rolled_back"], fields["not_rolled_back_count"]) == ([], 0)


@pytest.mark.parametrize("kind", ["move", "copy"])
@pytest.mark.parametrize("flags", [{}, {"validate_only": True}], ids=["run", "validate_only"])
async def test_a_move_or_copy_onto_its_own_path_says_so_not_into_itself(
    client: Client, root: Path, kind: str, flags: dict[str, Any]
) -> None:
    (root / "a.txt").write_bytes(b"a\n")
    result = await batch(client, {"type": kind, "source": "a.txt", "destination": "a.txt"}, **flags)
    assert error_code(result) == "invalid_params", text_of(result)
    assert "a.txt is the source itself" in text_of(result)
    assert "Choose another destination" in text_of(result)
    assert "into itself" not in text_of(result)
    assert snapshot(root) == {"a.txt": ("file", (root / "a.txt").stat().st_mode & 0o7777, b"a\n")}


async def test_one_operation_and_one_problem_are_counted_in_the_singular(client: Client, root: Path) -> None:
    valid = await batch(client, {"type": "write", "path": "a.txt", "content": "a\n"}, validate_only=True)
    assert "Batch validated: the operation is valid; nothing was written." in text_of(valid), text_of(valid)
    refused = await batch(client, {"type": "delete", "path": "missing.txt"}, validate_only=True)
    assert "(1 problem; operations are numbered from 0)" in text_of(refused), text_of(refused)
    assert not (root / "a.txt").exists()
