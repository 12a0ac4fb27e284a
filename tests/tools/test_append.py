"""write_file(append=true), in both protocol eras: atomic, backed up and undoable, in the file's own encoding and
line endings, with expected_hash honoured; checked against the bytes on disk."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core.hashing import content_hash
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def _append(client: Client, path: str, content: str, **extra: object) -> dict[str, object]:
    return structured(await client.call_tool("write_file", {"path": path, "content": content, "append": True, **extra}))


async def test_append_twice_then_undo_twice_restores_the_original_bytes(client: Client, root: Path) -> None:
    original = b"first line\n"
    (root / "log.txt").write_bytes(original)
    one = await _append(client, "log.txt", "second\n")
    two = await _append(client, "log.txt", "third\n")
    assert (root / "log.txt").read_bytes() == b"first line\nsecond\nthird\n"
    assert one["backup_id"]
    assert two["backup_id"] != one["backup_id"]
    assert (one["bytes_appended"], two["bytes_appended"], two["bytes_written"]) == (7, 6, 24)
    assert two["previous_hash"] == one["content_hash"]
    assert two["parent_backup_id"] == one["backup_id"]
    await client.call_tool("backup", {"action": "undo_last", "file_path": "log.txt"})
    assert (root / "log.txt").read_bytes() == b"first line\nsecond\n"
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "log.txt"}))
    assert (root / "log.txt").read_bytes() == original


async def test_append_creates_a_missing_file_and_its_directories(client: Client, root: Path) -> None:
    data = await _append(client, "notes/new/log.md", "- started\n")
    assert (root / "notes/new/log.md").read_bytes() == b"- started\n"
    assert (data["created"], data["appended"], data["bytes_appended"]) == (True, True, 10)
    assert "backup_id" not in data


async def test_append_refuses_a_missing_directory_without_create_dirs(client: Client, root: Path) -> None:
    result = await client.call_tool(
        "write_file", {"path": "no/dir/log.md", "content": "x\n", "append": True, "create_dirs": False}
    )
    assert error_code(result) == "not_a_directory"
    assert not (root / "no").exists()


async def test_a_crlf_file_gets_crlf_for_text_written_with_lf(client: Client, root: Path) -> None:
    (root / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    await _append(client, "win.txt", "three\nfour\n")
    assert (root / "win.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\nfour\r\n"


async def test_a_classic_mac_cr_file_gets_cr_for_text_written_with_lf_and_undo_restores_it(
    client: Client, root: Path
) -> None:
    # Only CRLF was kept: a CR file got LF line breaks appended, mixed endings write_file (which keeps CR) never makes.
    (root / "mac.txt").write_bytes(b"one\rtwo\r")
    structured(await client.call_tool("write_file", {"path": "mac.txt", "content": "three\nfour\r\n", "append": True}))
    assert (root / "mac.txt").read_bytes() == b"one\rtwo\rthree\rfour\r"
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "mac.txt"}))
    assert (root / "mac.txt").read_bytes() == b"one\rtwo\r"


async def test_a_file_without_a_final_newline_gets_one_before_the_text_and_says_so(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"alpha\r\nbeta")
    data = await _append(client, "a.txt", "gamma\n")
    assert (root / "a.txt").read_bytes() == b"alpha\r\nbeta\r\ngamma\r\n"
    assert data["line_break_added"] is True
    assert "no line break" in str(data["message"])
    again = await _append(client, "a.txt", "delta")
    assert (root / "a.txt").read_bytes() == b"alpha\r\nbeta\r\ngamma\r\ndelta"
    assert again["line_break_added"] is False


async def test_a_utf16_file_with_a_bom_stays_utf16(client: Client, root: Path) -> None:
    (root / "u.txt").write_bytes(b"\xff\xfe" + "héllo\n".encode("utf-16-le"))
    data = await _append(client, "u.txt", "wörld\n")
    assert (root / "u.txt").read_bytes() == b"\xff\xfe" + "héllo\nwörld\n".encode("utf-16-le")
    assert data["encoding"] == "utf-16-le"


async def test_a_legacy_cp1252_file_stays_cp1252(client: Client, root: Path) -> None:
    text = "« Œuvre » : le cœur coûte 5 € — c\u2019est “l\u2019été”.\n"
    (root / "fr.txt").write_bytes(text.encode("cp1252"))
    data = await _append(client, "fr.txt", "Déjà vu à 3 €.\n")
    assert (root / "fr.txt").read_bytes() == (text + "Déjà vu à 3 €.\n").encode("cp1252")
    assert data["encoding"] == "cp1252"


async def test_a_new_file_is_created_in_the_encoding_asked_for(client: Client, root: Path) -> None:
    await _append(client, "new16.txt", "né\n", encoding="utf-16")
    assert (root / "new16.txt").read_bytes() == b"\xff\xfe" + "né\n".encode("utf-16-le")
    await _append(client, "new16.txt", "là\n", encoding="utf-16")
    assert (root / "new16.txt").read_bytes() == b"\xff\xfe" + "né\nlà\n".encode("utf-16-le")


@pytest.mark.parametrize(
    ("encoding", "bom", "codec"),
    [
        ("utf-16", b"\xff\xfe", "utf-16-le"),
        ("utf-16-le", b"\xff\xfe", "utf-16-le"),
        ("utf-16-be", b"\xfe\xff", "utf-16-be"),
    ],
)
async def test_an_append_to_an_empty_file_stores_it_in_the_encoding_asked_for_with_its_bom(
    client: Client, root: Path, encoding: str, bom: bytes, codec: str
) -> None:
    # An empty file has no encoding of its own: it was kept UTF-8, the encoding silently dropped.
    (root / "empty.txt").write_bytes(b"")
    data = await _append(client, "empty.txt", "héllo\n", encoding=encoding)
    assert data["encoding"] == codec
    assert (root / "empty.txt").read_bytes() == bom + "héllo\n".encode(codec)
    await _append(client, "empty.txt", "là\n")
    assert (root / "empty.txt").read_bytes() == bom + "héllo\nlà\n".encode(codec)


@pytest.mark.parametrize(
    ("before", "encoding", "after"),
    [
        (None, "utf-16", b"\xff\xfey\x00"),
        (None, "utf-8-sig", b"\xef\xbb\xbfy"),
        (b"", "utf-16-be", b"\xfe\xff\x00y"),
        (b"\xef\xbb\xbf", None, b"\xef\xbb\xbfy"),
        (b"\xef\xbb\xbfx\n", None, b"\xef\xbb\xbfx\n\xef\xbb\xbfy"),  # after text a U+FEFF is a character
    ],
)
async def test_an_append_that_starts_a_bom_file_with_a_bom_writes_one(
    client: Client, root: Path, before: bytes | None, encoding: str | None, after: bytes
) -> None:
    # Appended to no text, the U+FEFF went in after the BOM the file was given or had: two BOMs.
    if before is not None:
        (root / "a.txt").write_bytes(before)
    await _append(client, "a.txt", "\ufeffy", **({"encoding": encoding} if encoding else {}))
    assert (root / "a.txt").read_bytes() == after


async def test_an_append_creating_a_file_in_utf_16_be_gives_it_a_bom_and_it_reads_back_as_text(
    client: Client, root: Path
) -> None:
    await _append(client, "new.txt", "hi\n", encoding="utf-16-be")
    assert (root / "new.txt").read_bytes() == b"\xfe\xff" + "hi\n".encode("utf-16-be")
    assert "hi" in text_of(await client.call_tool("read_file", {"path": "new.txt"}))


async def test_an_encoding_other_than_the_files_is_refused_and_nothing_changes(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"plain\n")
    result = await client.call_tool(
        "write_file", {"path": "a.txt", "content": "x\n", "append": True, "encoding": "utf-16"}
    )
    assert error_code(result) == "invalid_params"
    assert "keeps the file's encoding" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"plain\n"


@pytest.mark.parametrize("encoding", ["latin-1", "iso-8859-1"])
async def test_latin_1_text_appended_to_a_file_read_as_cp1252_goes_in_where_both_spell_it_alike(
    client: Client, root: Path, encoding: str
) -> None:
    # The file is read as cp1252, so an append naming latin-1 was refused though both give thé the same bytes.
    (root / "f.txt").write_bytes("café\n".encode("latin-1"))
    data = await _append(client, "f.txt", "thé\n", encoding=encoding)
    assert (root / "f.txt").read_bytes() == "café\nthé\n".encode("latin-1")
    assert data["encoding"] == "cp1252"
    for text in ("5 €\n", "\x80\n"):  # cp1252 alone, then Latin-1 alone, has it
        result = await client.call_tool(
            "write_file", {"path": "f.txt", "content": text, "append": True, "encoding": encoding}
        )
        assert error_code(result) == "invalid_params"
        assert "f.txt is cp1252; an append keeps the file's encoding" in text_of(result)
    assert (root / "f.txt").read_bytes() == "café\nthé\n".encode("latin-1")


async def test_a_stale_expected_hash_is_refused_with_the_file_unchanged(client: Client, root: Path) -> None:
    (root / "log.txt").write_bytes(b"v1\n")
    stale = structured(await client.call_tool("read_file", {"path": "log.txt"}))["content_hash"]
    (root / "log.txt").write_bytes(b"v2 from elsewhere\n")
    result = await client.call_tool(
        "write_file", {"path": "log.txt", "content": "more\n", "append": True, "expected_hash": stale}
    )
    assert error_code(result) == "stale_edit"
    assert (root / "log.txt").read_bytes() == b"v2 from elsewhere\n"
    listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert listing["total"] == 0


async def test_a_current_expected_hash_lets_the_append_through(client: Client, root: Path) -> None:
    (root / "log.txt").write_bytes(b"v1\n")
    data = await _append(client, "log.txt", "v2\n", expected_hash=content_hash(b"v1\n"))
    assert (root / "log.txt").read_bytes() == b"v1\nv2\n"
    assert data["content_hash"] == content_hash(b"v1\nv2\n")


async def test_expected_hash_on_a_missing_file_is_not_found_and_creates_nothing(client: Client, root: Path) -> None:
    result = await client.call_tool(
        "write_file", {"path": "none.txt", "content": "x\n", "append": True, "expected_hash": "811c9dc5"}
    )
    assert error_code(result) == "not_found"
    assert not (root / "none.txt").exists()


async def test_appending_nothing_leaves_the_file_and_the_backups_alone(client: Client, root: Path) -> None:
    (root / "a.txt").write_bytes(b"no newline")
    data = await _append(client, "a.txt", "")
    assert (data["unchanged"], data["bytes_appended"], data["line_break_added"]) == (True, 0, False)
    assert (root / "a.txt").read_bytes() == b"no newline"
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_append_of_bytes_is_refused(client: Client, root: Path) -> None:
    (root / "a.bin").write_bytes(b"\x00\x01")
    result = await client.call_tool("write_file", {"path": "a.bin", "content_base64": "AAE=", "append": True})
    assert error_code(result) == "invalid_params"
    assert (root / "a.bin").read_bytes() == b"\x00\x01"


async def test_text_is_never_appended_to_a_binary_file(client: Client, root: Path) -> None:
    (root / "a.bin").write_bytes(b"\x00\x01\x02")
    result = await client.call_tool("write_file", {"path": "a.bin", "content": "text\n", "append": True})
    assert error_code(result) == "binary_file"
    assert (root / "a.bin").read_bytes() == b"\x00\x01\x02"


async def test_hooks_and_the_audit_log_see_write_file_with_append(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.jsonl"
    script = tmp_path / "record.py"
    script.write_text(
        "import json, sys\nevent = json.load(sys.stdin)\n"
        f"open({str(seen)!r}, 'a', encoding='utf-8').write(json.dumps(event) + '\\n')\n",
        encoding="utf-8",
    )
    command = f"{sys.executable} {script}"
    hooks = {
        phase: [{"pattern": "write_file", "hooks": [{"type": "command", "command": command}]}]
        for phase in ("pre-write", "post-write")
    }
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    logs = tmp_path / "logs"
    (root / "log.txt").write_bytes(b"a\n")
    async with connect(hooks_config=config, log_dir=logs) as client:
        await _append(client, "log.txt", "b\n")
    events = [json.loads(line) for line in seen.read_text(encoding="utf-8").splitlines()]
    assert [(e.get("tool_name"), e.get("operation")) for e in events] == [("write_file", "write_file:append")] * 2
    assert (root / "log.txt").read_bytes() == b"a\nb\n"
    lines = [json.loads(line) for line in (logs / "operations.jsonl").read_text(encoding="utf-8").splitlines()]
    final = [line for line in lines if line["tool"] == "write_file" and line["status"] == "ok"]
    assert len(final) == 1
    assert final[0]["args"]["append"] is True
    assert final[0]["backup_id"]


async def test_an_append_whose_pre_write_hook_answers_the_whole_file_says_the_hook_rewrote_it(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # The hook sees the file with the text appended as its content, so its modified_content is the whole file: the
    # result said "Appended (+-11 bytes, now 7 bytes)" and bytes_appended -11.
    script = tmp_path / "rewrite.py"
    script.write_text(
        "import json, sys\nevent = json.load(sys.stdin)\n"
        "whole = event['content']\n"
        "print(json.dumps({'modified_content': 'ADDED\\n' if whole.endswith('tail\\n') else whole}))\n",
        encoding="utf-8",
    )
    hooks = {"pre-write": [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]}
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    (root / "ap.txt").write_bytes(b"line one\nline two\n")
    async with connect(hooks_config=config) as client:
        result = await client.call_tool("write_file", {"path": "ap.txt", "content": "tail\n", "append": True})
        rewritten = structured(result)
        kept = await _append(client, "ap.txt", "more\n")  # the hook answers the content it was given: an append
    async with connect(hooks_config=config, compact_mode=True) as client:
        compact = await client.call_tool("write_file", {"path": "ap.txt", "content": "tail\n", "append": True})
    assert (rewritten["appended"], rewritten["rewritten_by_hook"]) == (False, True)
    assert "bytes_appended" not in rewritten
    assert "line_break_added" not in rewritten
    assert (rewritten["bytes_written"], rewritten["content_hash"]) == (6, content_hash(b"ADDED\n"))
    assert text_of(result).startswith("Rewrote ap.txt with a pre-write hook's modified_content in place of the append")
    assert (kept["appended"], kept["bytes_appended"], kept["bytes_written"], kept.get("rewritten_by_hook")) == (
        True,
        5,
        11,
        None,
    )
    assert text_of(compact).startswith("REWRITTEN ap.txt | pre-write hook's text, not appended | 6B")
    assert (root / "ap.txt").read_bytes() == b"ADDED\n"
