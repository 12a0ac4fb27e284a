"""Names that once tripped the deny rules or the ripgrep engine, through the tools in both eras and with both
engines: a name that is not UTF-8, one ending in "." and one ending in a backslash. Each engine finds, hides and
rewrites the same files, and the bytes on disk say so."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio

CAFE = os.fsdecode(b"caf\xe9")  # Latin-1 bytes: not UTF-8, so the name arrives holding a lone surrogate
SHOWN = "caf\ufffd"  # as the wire spells it


def files_of(found: dict[str, object], root: Path) -> list[str]:
    listed = found["files"]
    assert isinstance(listed, list)
    paths = [entry["path"] if isinstance(entry, dict) else entry for entry in listed]
    return sorted(Path(str(path)).relative_to(root).as_posix() for path in paths)


async def test_a_secret_whose_name_is_not_utf8_stays_hidden_from_every_tool(
    client: Client, root: Path, tool_engine: str
) -> None:
    secret, public = root / f"{CAFE}.pem", root / f"{CAFE}.txt"
    secret.write_bytes(b"needle in a key\n")
    public.write_bytes(b"needle in a note\n")

    listed = structured(await client.call_tool("list_directory", {"path": "."}))
    assert ([entry["name"] for entry in listed["entries"]], listed["denied"]) == ([f"{SHOWN}.txt"], 1)
    names = structured(await client.call_tool("search_files", {"pattern": "*"}))
    assert (files_of(names, root), names.get("denied")) == ([f"{SHOWN}.txt"], None)
    content = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    assert (files_of(content, root), content.get("denied")) == ([f"{SHOWN}.txt"], None)
    replaced = structured(await client.call_tool("project_replace", {"find": "needle", "replace": "thread"}))
    assert files_of(replaced, root) == [f"{SHOWN}.txt"]
    assert (secret.read_bytes(), public.read_bytes()) == (b"needle in a key\n", b"thread in a note\n")


async def test_a_search_below_a_directory_whose_name_is_not_utf8_finds_its_files(
    client: Client, root: Path, tool_engine: str
) -> None:
    # A .gitignore above makes the ripgrep engine walk from the root, narrowed to the directory by an ignore file,
    # which cannot spell the name: that search is left to the Python walk rather than failing.
    (root / ".gitignore").write_bytes(b"*.log\n")
    directory = root / f"d{CAFE}"
    directory.mkdir()
    (directory / "a.txt").write_bytes(b"needle\n")
    (directory / "b.log").write_bytes(b"needle\n")
    (root / "devlink").symlink_to(directory.name)
    for path in (directory.name, "devlink"):
        names = structured(await client.call_tool("search_files", {"path": path, "pattern": "*.txt"}))
        content = structured(
            await client.call_tool("search_files", {"path": path, "pattern": "needle", "include_content": True})
        )
        assert files_of(names, root) == files_of(content, root) == [f"d{SHOWN}/a.txt"]
    replaced = structured(
        await client.call_tool("project_replace", {"path": "devlink", "find": "needle", "replace": "thread"})
    )
    assert files_of(replaced, root) == [f"d{SHOWN}/a.txt"]
    assert ((directory / "a.txt").read_bytes(), (directory / "b.log").read_bytes()) == (b"thread\n", b"needle\n")


async def test_files_whose_names_end_in_a_dot_are_found_by_name_and_content_and_rewritten(
    client: Client, root: Path, tool_engine: str
) -> None:
    # rg's file types never match such a name: asked for one, rg leaves the file out of its walk.
    for name in ("README.", "ends..", "notes.md"):
        (root / name).write_bytes(b"needle\n")
    for pattern in ("*", "README*", "*.", "ends?.", "*.md"):
        expected = sorted(name for name in ("README.", "ends..", "notes.md") if Path(name).match(pattern))
        names = structured(await client.call_tool("search_files", {"pattern": pattern}))
        assert files_of(names, root) == expected, pattern
        content = structured(
            await client.call_tool("search_files", {"pattern": "needle", "include_content": True, "include": pattern})
        )
        assert files_of(content, root) == expected, pattern
    replaced = structured(
        await client.call_tool("project_replace", {"find": "needle", "replace": "thread", "file_types": "README*"})
    )
    assert files_of(replaced, root) == ["README."]
    assert [(root / name).read_bytes() for name in ("README.", "ends..", "notes.md")] == [
        b"thread\n",
        b"needle\n",
        b"needle\n",
    ]


async def test_a_search_below_a_directory_whose_name_ends_in_a_backslash_finds_its_files(
    client: Client, root: Path, tool_engine: str
) -> None:
    (root / ".gitignore").write_bytes(b"*.log\n")
    for name in ("x\\", "x", "a\\b"):
        (root / name).mkdir()
        (root / name / "a.txt").write_bytes(b"needle\n")
        (root / name / "b.log").write_bytes(b"needle\n")
    for name in ("x\\", "a\\b"):
        names = structured(await client.call_tool("search_files", {"path": name, "pattern": "*.txt"}))
        content = structured(
            await client.call_tool("search_files", {"path": name, "pattern": "needle", "include_content": True})
        )
        assert files_of(names, root) == files_of(content, root) == [f"{name}/a.txt"]


async def test_a_multi_file_read_reads_a_file_whose_name_is_not_utf8_beside_another(client: Client, root: Path) -> None:
    (root / CAFE).write_bytes(b"latte\n")
    (root / "plain.txt").write_bytes(b"espresso\n")

    read = structured(await client.call_tool("read_file", {"paths": [CAFE, "plain.txt", f"{CAFE}.missing"]}))
    assert [(entry.get("content"), "error" not in entry) for entry in read["files"]] == [
        ("latte\n", True),
        ("espresso\n", True),
        (None, False),
    ]
    assert SHOWN in read["content"]
    assert ((root / CAFE).read_bytes(), (root / "plain.txt").read_bytes()) == (b"latte\n", b"espresso\n")


async def test_a_name_holding_a_line_break_is_one_escaped_row_in_rename_and_batch_texts(
    client: Client, root: Path
) -> None:
    # Such a name cannot be typed back (every path argument refuses U+000A), but it is listed: raw, it forged rows
    (root / "x\nFAKE").write_bytes(b"old\n")
    rule = {"path": ".", "mode": "add_prefix", "prefix": "p_"}
    preview = await client.call_tool("batch_operations", {"rename_json": {**rule, "preview": True}})
    refused = await client.call_tool("batch_operations", {"rename_json": rule})
    batch = await client.call_tool(
        "batch_operations", {"request_json": {"operations": [{"type": "write", "path": "x\nFAKE", "content": "w"}]}}
    )
    for result in (preview, refused, batch):
        text = "\n".join(block.text for block in result.content if block.type == "text")
        assert "x\\u000aFAKE" in text
        assert "\nFAKE" not in text  # no row of its own (a quoted repr, 'x\\nFAKE', is one row too)
    assert sorted(path.name for path in root.iterdir()) == ["x\nFAKE"]
    assert (root / "x\nFAKE").read_bytes() == b"old\n"


async def test_restore_trash_puts_a_name_ending_in_a_space_back_under_that_name_and_leaves_no_other(
    client: Client, root: Path
) -> None:
    trashed = root / "notes. "
    trashed.mkdir()
    (trashed / "a.txt").write_bytes(b"kept\x00\xff")
    deleted = structured(await client.call_tool("delete_file", {"path": "notes. ", "recursive": True}))
    assert not trashed.exists()
    sd_id = deleted["results"][0]["sd_id"]

    structured(await client.call_tool("backup", {"action": "restore_trash", "sd_id": sd_id}))

    assert (trashed / "a.txt").read_bytes() == b"kept\x00\xff"
    assert sorted(p.name for p in root.iterdir()) == ["notes. "]


async def test_restoring_the_backup_of_a_deleted_file_ending_in_a_space_recreates_that_file_only(
    client: Client, root: Path
) -> None:
    target = root / "draft "
    target.write_bytes(b"draft\r\n")
    deleted = structured(await client.call_tool("delete_file", {"path": "draft ", "permanent": True}))
    assert not target.exists()

    structured(await client.call_tool("backup", {"action": "restore", "backup_id": deleted["results"][0]["backup_id"]}))

    assert target.read_bytes() == b"draft\r\n"
    assert sorted(p.name for p in root.iterdir()) == ["draft "]


async def test_restoring_a_batch_move_puts_a_name_ending_in_a_space_back_under_that_name(
    client: Client, root: Path
) -> None:
    (root / "a ").write_bytes(b"moved\n")
    request = {"operations": [{"type": "move", "path": "a ", "dest": "b"}]}
    batch = structured(await client.call_tool("batch_operations", {"request_json": request}))
    assert sorted(p.name for p in root.iterdir()) == ["b"]

    structured(await client.call_tool("backup", {"action": "restore", "backup_id": batch["backup_id"]}))

    assert sorted(p.name for p in root.iterdir()) == ["a "]
    assert (root / "a ").read_bytes() == b"moved\n"


async def test_a_failed_atomic_batch_brings_back_a_deleted_name_ending_in_a_space(client: Client, root: Path) -> None:
    (root / "x ").write_bytes(b"kept\n")
    (root / "y.txt").write_bytes(b"y\n")
    request = {
        "atomic": True,
        "operations": [
            {"type": "delete", "path": "x ", "permanent": True},
            {"type": "edit", "path": "y.txt", "old_text": "absent", "new_text": "z"},
        ],
    }

    failed = await client.call_tool("batch_operations", {"request_json": request})

    assert error_code(failed) == "batch_failed"
    assert sorted(p.name for p in root.iterdir()) == ["x ", "y.txt"]
    assert (root / "x ").read_bytes() == b"kept\n"


async def test_undo_last_of_a_permanently_deleted_name_ending_in_a_space_brings_that_file_back(
    client: Client, root: Path
) -> None:
    (root / "draft ").write_bytes(b"draft\n")
    structured(await client.call_tool("delete_file", {"path": "draft ", "permanent": True}))

    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "draft "}))

    assert sorted(p.name for p in root.iterdir()) == ["draft "]
    assert (root / "draft ").read_bytes() == b"draft\n"


async def test_undo_chain_of_a_deleted_name_ending_in_a_space_lists_that_files_chain_not_the_trimmed_names(
    client: Client, root: Path
) -> None:
    (root / "notes ").write_bytes(b"one\n")
    (root / "notes").write_bytes(b"plain\n")  # its own file, never edited: no chain
    edited = structured(await client.call_tool("edit_file", {"path": "notes ", "old_text": "one", "new_text": "two"}))
    structured(await client.call_tool("delete_file", {"path": "notes "}))

    chain = structured(await client.call_tool("backup", {"action": "undo_chain", "file_path": "notes "}))

    assert chain["head_backup_id"] == edited["backup_id"]
    assert [Path(f).name for b in chain["backups"] for f in b["files"]] == ["notes "]
    assert sorted(p.name for p in root.iterdir()) == ["notes"]
    assert (root / "notes").read_bytes() == b"plain\n"


async def test_a_file_whose_name_holds_a_tab_rewritten_by_project_replace_is_restored_by_its_backups(
    client: Client, root: Path, tool_engine: str
) -> None:
    # No path argument may hold a tab, but a walk reaches such a file: the paths fsguard recorded must restore it.
    (root / "t\tab.txt").write_bytes(b"needle\n")
    (root / "ok.txt").write_bytes(b"needle\n")
    call = {"find": "needle", "replace": "thread"}
    applied = structured(await client.call_tool("project_replace", call))
    assert (root / "t\tab.txt").read_bytes() == b"thread\n"
    group = await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]})
    assert not group.is_error, text_of(group)
    assert ((root / "t\tab.txt").read_bytes(), (root / "ok.txt").read_bytes()) == (b"needle\n", b"needle\n")

    again = structured(await client.call_tool("project_replace", call))
    tabbed = next(row["backup_id"] for row in again["files"] if row["path"].endswith("t\tab.txt"))
    restored = await client.call_tool("backup", {"action": "restore", "backup_id": tabbed})
    assert not restored.is_error, text_of(restored)
    assert ((root / "t\tab.txt").read_bytes(), (root / "ok.txt").read_bytes()) == (b"needle\n", b"thread\n")


async def test_names_stored_decomposed_are_found_and_left_out_by_patterns_typed_composed(
    client: Client, root: Path, tool_engine: str
) -> None:
    composed, decomposed = "caf\u00e9", "cafe\u0301"  # one name to a reader; macOS and many archives write the second
    (root / f"{decomposed}.txt").write_bytes(b"one\n")
    (root / "other.txt").write_bytes(b"one\n")

    for pattern in (f"{composed}.txt", f"{composed}*", f"{decomposed}*"):
        found = structured(await client.call_tool("search_files", {"pattern": pattern}))
        assert files_of(found, root) == [f"{decomposed}.txt"], pattern
    included = structured(
        await client.call_tool("search_files", {"pattern": "one", "include_content": True, "include": f"{composed}*"})
    )
    assert files_of(included, root) == [f"{decomposed}.txt"]
    call = {"find": "one", "replace": "two", "file_types": ["*.txt", f"!{composed}*"]}
    replaced = structured(await client.call_tool("project_replace", call))

    assert files_of(replaced, root) == ["other.txt"]
    assert ((root / f"{decomposed}.txt").read_bytes(), (root / "other.txt").read_bytes()) == (b"one\n", b"two\n")


async def test_a_file_type_with_a_bang_leaves_that_type_out_of_project_replace(
    client: Client, root: Path, tool_engine: str
) -> None:
    (root / "a.md").write_bytes(b"one\n")
    (root / "a.txt").write_bytes(b"one\n")

    replaced = structured(
        await client.call_tool("project_replace", {"find": "one", "replace": "two", "file_types": "!md"})
    )

    assert files_of(replaced, root) == ["a.txt"]
    assert ((root / "a.md").read_bytes(), (root / "a.txt").read_bytes()) == (b"one\n", b"two\n")


@pytest.mark.parametrize("forged", ["evil\x1b[31mred\u202e.txt", "CON"])
async def test_a_trash_record_an_unrestricted_agent_could_forge_is_judged_as_a_typed_path(
    connect: ClientFactory, root: Path, state_dir: Path, forged: str
) -> None:
    # --unrestricted denies the state dir to the tools, but an agent may still reach it by a spelling the rules
    # cannot tell (a bind mount, written here directly): a record naming a refused name is refused as typed.
    (root / "victim.txt").write_bytes(b"hello\n")
    async with connect(unrestricted=True, roots=()) as client:
        structured(await client.call_tool("delete_file", {"path": str(root / "victim.txt")}))
        (entry,) = (state_dir / "trash").iterdir()
        record = json.loads((entry / "meta.json").read_text(encoding="utf-8"))
        record["original_path"] = str(root / forged)
        (entry / "meta.json").write_text(json.dumps(record), encoding="utf-8")
        restored = await client.call_tool("backup", {"action": "restore_trash", "sd_id": entry.name})
    assert error_code(restored) == "access_denied"
    assert sorted(path.name for path in root.iterdir()) == []


async def test_a_glob_class_holding_an_accented_letter_takes_that_letter_only(
    client: Client, root: Path, tool_engine: str
) -> None:
    for name in ("\u00e9t\u00e9.txt", "hello.txt", "abc.txt"):
        (root / name).write_bytes(b"one\n")
    found = structured(await client.call_tool("search_files", {"pattern": "*[\u00e9]*"}))
    assert files_of(found, root) == ["\u00e9t\u00e9.txt"]
    kept = structured(await client.call_tool("search_files", {"pattern": "[!\u00e9]*"}))
    assert files_of(kept, root) == ["abc.txt", "hello.txt"]
    call = {"find": "one", "replace": "two", "file_types": "*[\u00e9]*"}
    assert files_of(structured(await client.call_tool("project_replace", call)), root) == ["\u00e9t\u00e9.txt"]
    assert (root / "hello.txt").read_bytes() == b"one\n"
