"""write_file and multi_edit through the in-memory Client, in both protocol eras."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest
from mcp import Client

from fsguard.core import misses
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def test_write_creates_a_file_verified_on_disk(client: Client, root: Path) -> None:
    result = await client.call_tool("write_file", {"path": "new/dir/f.txt", "content": "verified evidence\n"})
    data = structured(result)
    target = root / "new" / "dir" / "f.txt"
    assert target.read_bytes() == b"verified evidence\n"
    assert (data["created"], data["verified"], data["bytes_written"]) == (True, True, 18)
    assert (
        data["content_hash"] == structured(await client.call_tool("read_file", {"path": str(target)}))["content_hash"]
    )
    assert data["message"] == text_of(result)
    assert "backup_id" not in data


async def test_overwrite_keeps_crlf_and_the_bom_and_is_backed_up(client: Client, root: Path) -> None:
    (root / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    data = structured(await client.call_tool("write_file", {"path": "w.txt", "content": "uno\ndos\ntres\n"}))
    assert (root / "w.txt").read_bytes() == b"\xef\xbb\xbfuno\r\ndos\r\ntres\r\n"
    assert data["bytes_written"] == len(b"\xef\xbb\xbfuno\r\ndos\r\ntres\r\n")
    assert data["backup_id"]
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "w.txt"}))
    assert (root / "w.txt").read_bytes() == b"\xef\xbb\xbfone\r\ntwo\r\n"


async def test_overwrite_of_a_file_with_classic_mac_line_breaks_keeps_them(client: Client, root: Path) -> None:
    (root / "mac.txt").write_bytes(b"one\rtwo\r")
    structured(await client.call_tool("write_file", {"path": "mac.txt", "content": "uno\ndos\r\ntres\n"}))
    assert (root / "mac.txt").read_bytes() == b"uno\rdos\rtres\r"
    (root / "mixed.txt").write_bytes(b"one\rtwo\n")  # no single style: the agent's text is written as sent
    structured(await client.call_tool("write_file", {"path": "mixed.txt", "content": "uno\ndos\n"}))
    assert (root / "mixed.txt").read_bytes() == b"uno\ndos\n"


async def test_empty_content_over_a_file_is_written_only_with_a_backup_and_says_how_to_undo(
    client: Client, root: Path
) -> None:
    (root / "keep.txt").write_bytes(b"precious\n" * 100)
    data = structured(await client.call_tool("write_file", {"path": "keep.txt", "content": ""}))
    assert (root / "keep.txt").read_bytes() == b""
    assert "truncation" in data["feedback"]
    # The seed's words (catalog §4): the backup, then the restore that undoes exactly this write.
    undo = f'Backup created: {data["backup_id"]}. To undo: backup(action="restore", backup_id="{data["backup_id"]}").'
    assert data["feedback"].startswith(undo)
    structured(await client.call_tool("write_file", {"path": "other.txt", "content": "later\n"}))
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]}))
    assert (root / "keep.txt").read_bytes() == b"precious\n" * 100


async def test_inflation_is_reported_with_the_undo_call(client: Client, root: Path) -> None:
    (root / "grow.txt").write_text("x" * 20_000, encoding="utf-8")
    data = structured(await client.call_tool("write_file", {"path": "grow.txt", "content": "x" * 90_000}))
    assert "inflation" in data["feedback"]
    assert (root / "grow.txt").read_text(encoding="utf-8") == "x" * 90_000
    assert data["backup_id"]


async def test_stale_hash_refuses_the_write_and_the_missing_file_with_a_hash_is_not_found(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    stale = await client.call_tool("write_file", {"path": "a.txt", "content": "b\n", "expected_hash": "deadbeef"})
    assert error_code(stale) == "stale_edit"
    assert (root / "a.txt").read_text(encoding="utf-8") == "a\n"
    missing = await client.call_tool("write_file", {"path": "b.txt", "content": "b", "expected_hash": "811c9dc5"})
    assert error_code(missing) == "not_found"
    assert not (root / "b.txt").exists()


async def test_base64_content_is_written_as_exact_bytes(client: Client, root: Path) -> None:
    raw = bytes(range(256))
    data = structured(
        await client.call_tool("write_file", {"path": "b.bin", "content_base64": base64.b64encode(raw).decode()})
    )
    assert (root / "b.bin").read_bytes() == raw
    assert data["encoding"] == "binary"
    bad = await client.call_tool("write_file", {"path": "c.bin", "content_base64": "not base64!"})
    assert error_code(bad) == "invalid_params"
    assert not (root / "c.bin").exists()


async def test_both_content_and_content_base64_are_refused_and_an_empty_one_is_a_filled_in_default(
    client: Client, root: Path
) -> None:
    # Both were taken and only the base64 written, silently dropping the text the agent also sent.
    (root / "a.txt").write_bytes(b"old\n")
    both = {"path": "a.txt", "content": "text\n", "content_base64": base64.b64encode(b"bytes\n").decode()}
    refused = await client.call_tool("write_file", both)
    assert error_code(refused) == "invalid_params"
    assert "not both" in text_of(refused)
    assert (root / "a.txt").read_bytes() == b"old\n"
    filled = {"path": "a.txt", "content": "", "content_base64": base64.b64encode(b"bytes\n").decode()}
    assert not (await client.call_tool("write_file", filled)).is_error
    assert (root / "a.txt").read_bytes() == b"bytes\n"


async def test_the_same_content_again_writes_nothing(client: Client, root: Path) -> None:
    (root / "same.txt").write_text("same\n", encoding="utf-8")
    mtime = (root / "same.txt").stat().st_mtime_ns
    data = structured(await client.call_tool("write_file", {"path": "same.txt", "content": "same\n"}))
    assert data["unchanged"] is True
    assert (root / "same.txt").stat().st_mtime_ns == mtime


async def test_write_keeps_the_file_mode(client: Client, root: Path) -> None:
    (root / "run.sh").write_text("#!/bin/sh\n", encoding="utf-8")
    (root / "run.sh").chmod(0o750)
    structured(await client.call_tool("write_file", {"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}))
    assert (root / "run.sh").stat().st_mode & 0o777 == 0o750


async def test_write_edit_and_undo_keep_setuid_setgid_and_sticky_bits(client: Client, root: Path) -> None:
    # Run as root, fsguard gave the new file the old one's owner after its mode: the chown cleared setuid and
    # setgid, so a 4755 script came back 0755 from every write, and from its undo.
    for number, mode in enumerate((0o4755, 0o2750, 0o1644, 0o6711)):
        path = root / f"m{number}.sh"
        path.write_bytes(b"#!/bin/sh\r\n")
        path.chmod(mode)
        structured(await client.call_tool("write_file", {"path": path.name, "content": "#!/bin/sh\necho\n"}))
        assert path.stat().st_mode & 0o7777 == mode, oct(mode)
        structured(await client.call_tool("edit_file", {"path": path.name, "old_text": "echo", "new_text": "true"}))
        assert path.stat().st_mode & 0o7777 == mode, oct(mode)
        structured(await client.call_tool("backup", {"action": "undo_last", "file_path": path.name}))
        assert path.read_bytes() == b"#!/bin/sh\r\necho\r\n"
        assert path.stat().st_mode & 0o7777 == mode, oct(mode)


async def test_write_with_a_utf16_or_utf32_without_byte_order_keeps_the_files_byte_order_and_bom(
    client: Client, root: Path
) -> None:
    # encoding='utf-16' turned a big-endian file little-endian (Python's codec writes its native order), where an
    # append with the same encoding keeps it big-endian.
    files = {
        "be16.txt": ("utf-16", "utf-16-be", b"\xfe\xff"),
        "le16.txt": ("utf-16", "utf-16-le", b"\xff\xfe"),
        "be32.txt": ("utf-32", "utf-32-be", b"\x00\x00\xfe\xff"),
    }
    for name, (asked, codec, bom) in files.items():
        (root / name).write_bytes(bom + "old\r\n".encode(codec))
        data = structured(await client.call_tool("write_file", {"path": name, "content": "né\n", "encoding": asked}))
        assert (root / name).read_bytes() == bom + "né\r\n".encode(codec), name
        assert data["encoding"] == codec
        await client.call_tool("write_file", {"path": name, "content": "là\n", "append": True, "encoding": asked})
        assert (root / name).read_bytes() == bom + "né\r\nlà\r\n".encode(codec), name


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
async def test_a_new_or_converted_file_in_a_byte_ordered_utf16_or_utf32_gets_its_bom_and_reads_back_as_text(
    client: Client, root: Path, codec: str
) -> None:
    # Python's byte-ordered codecs write no BOM, and without one fsguard took its own file for binary.
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00"}.get(
        codec, b"\x00\x00\xfe\xff"
    )
    (root / "old.txt").write_bytes(b"old\n")
    for name in ("new.txt", "old.txt"):
        data = structured(await client.call_tool("write_file", {"path": name, "content": "né\n", "encoding": codec}))
        assert data["encoding"] == codec
        assert (root / name).read_bytes() == bom + "né\n".encode(codec), name
        assert "né" in text_of(await client.call_tool("read_file", {"path": name}))
        structured(await client.call_tool("edit_file", {"path": name, "old_text": "né", "new_text": "là"}))
        assert (root / name).read_bytes() == bom + "là\n".encode(codec), name


BOMS = {"utf-8": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}


@pytest.mark.parametrize("codec", list(BOMS))
async def test_content_starting_with_a_bom_over_a_bom_file_writes_one_bom(
    client: Client, root: Path, codec: str
) -> None:
    # The U+FEFF read_file shows for a BOM (or typed with one) was written after the file's own: two BOMs.
    bom = BOMS[codec]
    (root / "b.txt").write_bytes(bom + "x\n".encode(codec))
    structured(await client.call_tool("write_file", {"path": "b.txt", "content": "\ufeffy\n"}))
    assert (root / "b.txt").read_bytes() == bom + "y\n".encode(codec)
    operation = {"type": "write", "path": "b.txt", "content": "\ufeffz\n"}
    structured(await client.call_tool("batch_operations", {"request_json": {"operations": [operation]}}))
    assert (root / "b.txt").read_bytes() == bom + "z\n".encode(codec)


@pytest.mark.parametrize(("encoding", "written"), [("utf-16", b"\xff\xfey\x00"), ("utf-8-sig", b"\xef\xbb\xbfy")])
async def test_content_starting_with_a_bom_in_an_encoding_that_writes_one_writes_one(
    client: Client, root: Path, encoding: str, written: bytes
) -> None:
    structured(await client.call_tool("write_file", {"path": "n.txt", "content": "\ufeffy", "encoding": encoding}))
    assert (root / "n.txt").read_bytes() == written


async def test_write_without_create_dirs_needs_the_parent(client: Client, root: Path) -> None:
    result = await client.call_tool("write_file", {"path": "no/such/f.txt", "content": "x", "create_dirs": False})
    assert error_code(result) == "not_a_directory"
    assert not (root / "no").exists()


async def test_write_through_an_escaping_symlink_is_refused(client: Client, root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (root / "door").symlink_to(tmp_path / "elsewhere")
    assert error_code(await client.call_tool("write_file", {"path": "door/x.txt", "content": "x"})) == "access_denied"
    assert list((tmp_path / "elsewhere").iterdir()) == []


async def test_multi_edit_applies_every_edit_in_one_write_with_one_backup(client: Client, root: Path) -> None:
    (root / "m.txt").write_bytes(b"line1\r\nline2\r\nline3\r\n")
    data = structured(
        await client.call_tool(
            "multi_edit",
            {
                "path": "m.txt",
                # JSON text with a trailing comma and the old_str/new_str alias keys
                "edits_json": '[{"old_text": "line1", "new_text": "lineA"},'
                '{"old_str": "line3\\n", "new_str": "lineC\\n"},]',
            },
        )
    )
    assert (root / "m.txt").read_bytes() == b"lineA\r\nline2\r\nlineC\r\n"
    assert (data["successful_edits"], data["total_edits"]) == (2, 2)
    assert [e["status"] for e in data["edits"]] == ["applied", "applied"]
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 1


async def test_multi_edit_with_one_bad_edit_leaves_the_file_untouched_and_lists_every_status(
    client: Client, root: Path
) -> None:
    original = b"AAA\nBBB\nCCC\n"
    (root / "m.txt").write_bytes(original)
    edits = [
        {"old_text": "AAA", "new_text": "X"},
        {"old_text": "nope", "new_text": "Y"},
        {"old_text": "CCC", "new_text": "Z"},
    ]
    result = await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits})
    assert error_code(result) == "no_match"
    assert "edit 1: applied" in text_of(result)
    assert "edit 2: failed" in text_of(result)
    assert [e["status"] for e in (result.meta or {})["fsguard/error"]["edits"]] == ["applied", "failed", "applied"]
    assert (root / "m.txt").read_bytes() == original
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_multi_edit_with_many_failing_edits_lists_the_first_failures_and_counts_the_rest(
    client: Client, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = "".join(f"line {n} of the file\n" for n in range(300)).encode()
    (root / "m.txt").write_bytes(original)

    def searched(*_args: object) -> str:
        raise AssertionError("the closest lines were searched for a failure whose text shows only its first line")

    monkeypatch.setattr(misses, "_closest", searched)
    edits = [{"old_text": f"line {n} of the file", "new_text": f"L{n}"} for n in range(5)]
    edits += [{"old_text": f"absent {n}", "new_text": "x"} for n in range(40)]
    result = await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits})
    assert error_code(result) == "no_match"
    text = text_of(result)
    assert text.startswith("Multi-edit ROLLED BACK (file unchanged): atomic rollback: 40 of 45 edits failed")
    assert [line.split(":")[0].strip() for line in text.splitlines() if line.startswith("  edit ")] == [
        f"edit {n}" for n in range(6, 16)
    ]
    assert "… and 30 more edits that could not be applied (16, 17," in text
    assert "the other 5 edits are fine." in text
    statuses = [e["status"] for e in (result.meta or {})["fsguard/error"]["edits"]]
    assert statuses == ["applied"] * 5 + ["failed"] * 40
    assert (root / "m.txt").read_bytes() == original


async def test_multi_edit_marks_an_edit_subsumed_by_an_earlier_one_as_already_present(
    client: Client, root: Path
) -> None:
    (root / "m.txt").write_text("AAA\nBBB\nCCC\nDDD\n", encoding="utf-8")
    edits = [
        {"old_text": "AAA\nBBB", "new_text": "XXX\nYYY"},
        {"old_text": "BBB", "new_text": "YYY"},
        {"old_text": "DDD", "new_text": "ZZZ"},
    ]
    data = structured(await client.call_tool("multi_edit", {"path": "m.txt", "edits_json": edits}))
    assert (root / "m.txt").read_text(encoding="utf-8") == "XXX\nYYY\nCCC\nZZZ\n"
    assert [e["status"] for e in data["edits"]] == ["applied", "already_present", "applied"]
    assert (data["successful_edits"], data["skipped_edits"]) == (2, 1)


async def test_multi_edit_never_calls_an_edit_already_present_for_new_text_the_file_held_before(
    client: Client, root: Path
) -> None:
    # Edit 1 takes the text edit 2 wanted to change. Edit 2's new_text "y = 1" is in the file, but it was there
    # before (line 2): no edit of this call made it, so edit 2 failed. It was reported "already present" and the
    # call succeeded with x = 1 -> y = 1 never made.
    (root / "m.txt").write_bytes(b"x = 1\r\ny = 1\r\n")
    edits = [{"old_text": "x = 1\ny = 1", "new_text": "x = 2\ny = 1"}, {"old_text": "x = 1", "new_text": "y = 1"}]
    result = await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits})
    assert error_code(result) == "no_match"
    statuses = [e["status"] for e in (result.meta or {})["fsguard/error"]["edits"]]
    assert statuses == ["applied", "failed"]
    assert (root / "m.txt").read_bytes() == b"x = 1\r\ny = 1\r\n"


async def test_multi_edit_refuses_ambiguity_and_unknown_keys(client: Client, root: Path) -> None:
    (root / "m.txt").write_text("X X X\n", encoding="utf-8")
    ambiguous = await client.call_tool(
        "multi_edit", {"path": "m.txt", "edits_json": [{"old_text": "X", "new_text": "Y"}]}
    )
    assert error_code(ambiguous) == "ambiguous_match"
    unknown = await client.call_tool(
        "multi_edit", {"path": "m.txt", "edits_json": [{"oldString": "X", "newString": "Y"}]}
    )
    assert error_code(unknown) == "invalid_params"
    assert "oldString" in text_of(unknown)
    assert (root / "m.txt").read_text(encoding="utf-8") == "X X X\n"


async def test_multi_edit_dry_run_and_stale_hash_write_nothing(client: Client, root: Path) -> None:
    (root / "m.txt").write_text("a\nb\n", encoding="utf-8")
    edits = [{"old_text": "a", "new_text": "A"}]
    dry = structured(await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits, "dry_run": True}))
    assert dry["dry_run"] is True
    assert "+A" in dry["diff"]
    stale = await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits, "expected_hash": "00000000"})
    assert error_code(stale) == "stale_edit"
    assert (root / "m.txt").read_text(encoding="utf-8") == "a\nb\n"
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_multi_edit_accepts_the_seeds_force_and_create_backup_and_still_backs_up(
    client: Client, root: Path
) -> None:
    (root / "m.txt").write_bytes(b"one\r\ntwo\r\n")
    edits = '[{"old_text": "one", "new_text": "ONE"}, {"old_str": "two", "new_str": "TWO"}]'
    arguments = {"path": "m.txt", "edits_json": edits, "force": "true", "create_backup": False}
    answer = await client.call_tool("multi_edit", arguments)
    data = structured(answer)
    assert (root / "m.txt").read_bytes() == b"ONE\r\nTWO\r\n"
    assert data["backup_id"]
    assert data["notes"][0] == "force=true changes nothing here: multi_edit never blocks on risk (it is only reported)."
    assert data["backup_id"] in data["notes"][1]
    assert "create_backup=false is ignored" in text_of(answer)
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "m.txt"}))
    assert (root / "m.txt").read_bytes() == b"one\r\ntwo\r\n"


async def test_multi_edit_marks_an_edit_whose_old_text_was_never_there_but_new_text_is_as_ambiguous(
    client: Client, root: Path
) -> None:
    (root / "c.txt").write_bytes(b"NEW1 NEW2\n")
    edits = [{"old_text": "OLD1", "new_text": "NEW1"}, {"old_text": "OLD2", "new_text": "NEW2"}]
    result = await client.call_tool("multi_edit", {"path": "c.txt", "edits": edits})
    assert error_code(result) == "no_match"
    assert [e["status"] for e in (result.meta or {})["fsguard/error"]["edits"]] == ["ambiguous", "ambiguous"]
    assert "edit 1: ambiguous" in text_of(result)
    assert "new_text is" in text_of(result)
    assert (root / "c.txt").read_bytes() == b"NEW1 NEW2\n"
    assert structured(await client.call_tool("backup", {"action": "list"}))["total"] == 0


async def test_multi_edit_keeps_failed_for_an_old_text_that_is_missing_while_new_text_is_too(
    client: Client, root: Path
) -> None:
    (root / "c.txt").write_bytes(b"alpha\nbeta\n")
    edits = [{"old_text": "alpha", "new_text": "ALPHA"}, {"old_text": "gamma", "new_text": "delta"}]
    result = await client.call_tool("multi_edit", {"path": "c.txt", "edits": edits})
    assert [e["status"] for e in (result.meta or {})["fsguard/error"]["edits"]] == ["applied", "failed"]
    assert (root / "c.txt").read_bytes() == b"alpha\nbeta\n"


async def test_multi_edit_of_an_absent_old_text_whose_new_text_sits_only_inside_other_words_fails_as_edit_file_does(
    client: Client, root: Path
) -> None:
    original = b"barbazqux 1\nbarbazqux 2\n"
    (root / "c.txt").write_bytes(original)
    edit = {"old_text": "foo", "new_text": "z"}
    single = await client.call_tool("edit_file", {"path": "c.txt", **edit})
    result = await client.call_tool("multi_edit", {"path": "c.txt", "edits": [edit]})
    assert error_code(single) == error_code(result) == "no_match"
    assert "already applied" not in text_of(single)
    assert [e["status"] for e in (result.meta or {})["fsguard/error"]["edits"]] == ["failed"]
    assert "made before this call" not in text_of(result)
    assert (root / "c.txt").read_bytes() == original


async def test_a_long_multi_edit_with_one_failure_says_the_others_are_fine_and_no_more_failed(
    client: Client, root: Path
) -> None:
    original = "".join(f"line {n}\n" for n in range(30)).encode()
    (root / "m.txt").write_bytes(original)
    edits = [{"old_text": f"line {n}\n", "new_text": f"L{n}\n"} for n in range(30)]
    edits.append({"old_text": "absent", "new_text": "x"})
    result = await client.call_tool("multi_edit", {"path": "m.txt", "edits": edits})
    text = text_of(result)
    assert "  edit 31: failed" in text
    assert "  The other 30 edits are fine.\n" in text
    assert "and 0 more" not in text
    assert (root / "m.txt").read_bytes() == original


@pytest.mark.parametrize(
    ("content", "edits", "said", "not_said"),
    [
        (  # edit 1 took edit 2's old_text: "not found" sent a caller to copy the text read_file shows, failing alike
            b"x = 1\ny = 1\n",
            [{"old_text": "x = 1\ny = 1", "new_text": "xy = 0"}, {"old_text": "y = 1", "new_text": "y = 2"}],
            "edit 2: failed — old_text is in the file, but an earlier edit of this call changed that text",
            "edit 2: failed — old_text was not found",
        ),
        (  # edit 1 made edit 2's new_text: the file never held it
            b"x = 1\nv = 4\n",
            [{"old_text": "x = 1", "new_text": "w = 5"}, {"old_text": "v = 5", "new_text": "w = 5"}],
            "new_text is there only because an earlier edit of this call put it there",
            "made before this call",
        ),
    ],
    ids=["old_text taken by an earlier edit", "new_text made by an earlier edit"],
)
async def test_a_failed_edit_blames_what_an_earlier_edit_of_the_call_did_not_the_file(
    client: Client, root: Path, content: bytes, edits: list[dict[str, str]], said: str, not_said: str
) -> None:
    (root / "m.py").write_bytes(content)
    result = await client.call_tool("multi_edit", {"path": "m.py", "edits_json": edits})
    assert error_code(result) == "no_match", text_of(result)
    assert said in text_of(result)
    assert not_said not in text_of(result)
    assert (root / "m.py").read_bytes() == content


async def test_multi_edit_refuses_edits_and_edits_json_holding_different_edits_and_writes_nothing(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"one\ntwo\n")
    first, second = [{"old_text": "one", "new_text": "1"}], [{"old_text": "two", "new_text": "2"}]

    refused = await client.call_tool("multi_edit", {"path": "a.txt", "edits_json": first, "edits": second})
    assert error_code(refused) == "invalid_params"
    assert "edits_json and edits" in text_of(refused)
    assert (root / "a.txt").read_bytes() == b"one\ntwo\n"

    same = await client.call_tool("multi_edit", {"path": "a.txt", "edits_json": first, "edits": first})
    assert structured(same)["successful_edits"] == 1
    assert (root / "a.txt").read_bytes() == b"1\ntwo\n"


async def test_an_edits_text_in_both_voices_gives_the_hash_the_next_expected_hash_edit_takes(
    connect: ClientFactory, root: Path
) -> None:
    (root / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    for compact in (False, True):
        async with connect(compact_mode=compact) as client:
            data = structured(await client.call_tool("read_file", {"path": "a.txt"}))
            edited = await client.call_tool(
                "edit_file",
                {"path": "a.txt", "old_text": "two", "new_text": "2", "expected_hash": data["content_hash"]},
            )
            said = re.search(r"\| hash ([0-9a-f]{8})", text_of(edited))
            assert said is not None, text_of(edited)
            edits = [{"old_text": "three", "new_text": "3"}]
            multi = await client.call_tool("multi_edit", {"path": "a.txt", "edits": edits, "expected_hash": said[1]})
            said = re.search(r"\| hash ([0-9a-f]{8})", text_of(multi))
            assert said is not None, text_of(multi)
            edits = [{"old_text": "one", "new_text": "1"}]
            await client.call_tool("multi_edit", {"path": "a.txt", "edits": edits, "expected_hash": said[1]})
            assert (root / "a.txt").read_bytes() == b"1\n2\n3\n"
            (root / "a.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
