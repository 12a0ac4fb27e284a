"""batch_operations rename_json through the in-memory Client, in both eras: names and bytes checked on disk."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


def tree(root: Path) -> dict[str, bytes | str]:
    """Every entry under ``root``: a file's bytes, a link's target, ``dir`` for a directory."""
    found: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_symlink():
            found[name] = f"-> {path.readlink()}"
        elif path.is_dir():
            found[name] = "dir"
        else:
            found[name] = path.read_bytes()
    return found


def make(root: Path, *names: str) -> None:
    """Files whose bytes are their own name (so a rename that mixed two files up would show)."""
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"bytes of {name}\n".encode())


async def rename(client: Client, **fields: Any) -> CallToolResult:
    return await client.call_tool("batch_operations", {"rename_json": {"path": ".", **fields}})


MODES = [
    (
        "find_replace ignores case by default",
        ["IMG_1.JPG", "img_2.jpg", "other.jpg"],
        {"mode": "find_replace", "find": "img_", "replace": "photo_"},
        {"IMG_1.JPG": "photo_1.JPG", "img_2.jpg": "photo_2.jpg"},
    ),
    (
        "find_replace with case_sensitive",
        ["IMG_1.JPG", "img_2.jpg"],
        {"mode": "find_replace", "find": "img_", "replace": "", "case_sensitive": True},
        {"img_2.jpg": "2.jpg"},
    ),
    (
        "add_prefix",
        ["a.txt", "b.md"],
        {"mode": "add_prefix", "prefix": "old_"},
        {"a.txt": "old_a.txt", "b.md": "old_b.md"},
    ),
    (
        "add_suffix goes before the extension",
        ["report.txt", "notes", "a.tar.gz"],
        {"mode": "add_suffix", "suffix": "_v2"},
        {"report.txt": "report_v2.txt", "notes": "notes_v2", "a.tar.gz": "a.tar_v2.gz"},
    ),
    (
        "number_files pads to 3 digits in name order",
        ["b.txt", "a.txt", "c.txt"],
        {"mode": "number_files"},
        {"a.txt": "001_a.txt", "b.txt": "002_b.txt", "c.txt": "003_c.txt"},
    ),
    (
        "number_files with start_number and padding",
        ["b.txt", "a.txt"],
        {"mode": "number_files", "start_number": 9, "padding": 0},
        {"a.txt": "9_a.txt", "b.txt": "10_b.txt"},
    ),
    (
        "regex_rename with $1 groups",
        ["part-7.txt", "part-12.txt", "keep.txt"],
        {"mode": "regex_rename", "pattern": r"^(\w+)-(\d+)\.txt$", "replacement": "$2-$1.txt"},
        {"part-7.txt": "7-part.txt", "part-12.txt": "12-part.txt"},
    ),
    (
        r"regex_rename with \1 groups and the seed's replace",
        ["draft_a.md"],
        {"mode": "regex_rename", "pattern": r"draft_(.*)", "replace": r"final_\1"},
        {"draft_a.md": "final_a.md"},
    ),
    (
        "regex_rename with an empty match beside a word: each edge once, as Go's regexp finds them",
        ["ab-cd.txt"],
        {"mode": "regex_rename", "pattern": r"\b", "replacement": "_"},
        {"ab-cd.txt": "_ab_-_cd_._txt_"},
    ),
    (
        "change_extension adds the dot",
        ["a.jpeg", "b.JPEG", "c"],
        {"mode": "change_extension", "extension": "jpg"},
        {"a.jpeg": "a.jpg", "b.JPEG": "b.jpg", "c": "c.jpg"},
    ),
    (
        "change_extension takes a dotted one too",
        ["a.jpeg"],
        {"mode": "change_extension", "extension": ".png"},
        {"a.jpeg": "a.png"},
    ),
    (
        "a computed name ending in whitespace is used as made, not trimmed as a typed path is",
        ["a", "a ", "cd"],
        {"mode": "regex_rename", "pattern": "^(a ?|cd)$", "replacement": "${1}\u3000"},
        {"a": "a\u3000", "a ": "a \u3000", "cd": "cd\u3000"},
    ),
    ("to_lowercase", ["README.MD", "ok.txt"], {"mode": "to_lowercase"}, {"README.MD": "readme.md"}),
    ("to_uppercase", ["a.txt", "B.TXT"], {"mode": "to_uppercase"}, {"a.txt": "A.TXT"}),
]


@pytest.mark.parametrize(("files", "args", "renamed"), [m[1:] for m in MODES], ids=[m[0] for m in MODES])
async def test_each_mode_renames_the_files_it_changes_and_keeps_their_bytes(
    client: Client, root: Path, files: list[str], args: dict[str, Any], renamed: dict[str, str]
) -> None:
    make(root, *files)
    before = tree(root)
    result = await rename(client, **args)
    data = structured(result)
    expected = {renamed.get(name, name): content for name, content in before.items()}
    assert tree(root) == expected
    assert (data["form"], data["status"], data["completed"], data["failed"]) == ("rename", "applied", len(renamed), 0)
    assert {Path(e["source"]).name: Path(e["destination"]).name for e in data["renames"]} == renamed
    assert {e["status"] for e in data["renames"]} == {"renamed"}
    assert data["conflicts"] == []
    assert data["backup_id"]
    assert data["message"] == text_of(result)
    assert text_of(result).startswith(f"Renamed {len(renamed)} file")


async def test_a_preview_lists_the_renames_and_renames_nothing(client: Client, root: Path) -> None:
    make(root, "a.jpeg", "b.jpeg", "c.txt")
    before = tree(root)
    result = await rename(client, mode="change_extension", extension="jpg", file_pattern="*.jpeg", preview=True)
    data = structured(result)
    assert tree(root) == before
    assert (data["status"], data["completed"], data["conflicts"]) == ("preview", 2, [])
    assert [(Path(e["source"]).name, Path(e["destination"]).name, e["status"]) for e in data["renames"]] == [
        ("a.jpeg", "a.jpg", "planned"),
        ("b.jpeg", "b.jpg", "planned"),
    ]
    assert "backup_id" not in data
    text = text_of(result)
    assert text.startswith("Batch rename preview (nothing renamed): 2 files in")
    assert "a.jpeg → a.jpg" in text


async def test_two_files_given_one_name_is_a_conflict_that_changes_nothing(client: Client, root: Path) -> None:
    make(root, "a1.txt", "a2.txt", "b.txt")
    before = tree(root)
    args = {"mode": "regex_rename", "pattern": r"\d", "replacement": ""}
    preview = structured(await rename(client, **args, preview=True))
    assert [(c["kind"], Path(c["destination"]).name, len(c["sources"])) for c in preview["conflicts"]] == [
        ("same_target", "a.txt", 2)
    ]
    assert {e["status"] for e in preview["renames"]} == {"conflict"}
    assert (preview["completed"], preview["failed"]) == (0, 2)
    result = await rename(client, **args)
    assert error_code(result) == "conflict"
    assert "nothing was renamed" in text_of(result)
    assert "a.txt ← a1.txt, a2.txt" in text_of(result)
    assert result.meta is not None
    assert result.meta["fsguard/error"]["conflicts"][0]["kind"] == "same_target"
    assert tree(root) == before


@pytest.mark.parametrize(
    ("files", "args", "reason"),
    [
        (
            ["a.jpeg", "b.jpeg", "a.jpg"],
            {"mode": "change_extension", "extension": "jpg", "file_pattern": "*.jpeg"},
            "exists",
        ),
        (["a.txt", "xa.txt"], {"mode": "add_prefix", "prefix": "x"}, "two passes"),  # a chain: a → xa → xxa
        (["a", "b"], {"mode": "regex_rename", "pattern": "^a$|^b$", "replacement": "${0}"}, None),  # no change at all
        (
            ["x_y", "y_x"],
            {"mode": "regex_rename", "pattern": "^(.)_(.)$", "replacement": "$2_$1"},
            "two passes",
        ),  # swap
    ],
)
async def test_a_target_that_exists_is_a_conflict_that_changes_nothing(
    client: Client, root: Path, files: list[str], args: dict[str, Any], reason: str | None
) -> None:
    make(root, *files)
    (root / "dir.jpeg").mkdir()  # a directory is never renamed, and its name is never a target
    before = tree(root)
    result = await rename(client, **args)
    if reason is None:
        assert structured(result)["renames"] == []
        assert text_of(result).startswith("Nothing to rename")
    else:
        assert error_code(result) == "conflict"
        assert reason in text_of(result)
    assert tree(root) == before


async def test_a_name_of_an_existing_directory_is_a_conflict(client: Client, root: Path) -> None:
    make(root, "a.txt")
    (root / "A.TXT").mkdir()
    data = structured(await rename(client, mode="to_uppercase", preview=True))
    assert [(c["kind"], c["reason"]) for c in data["conflicts"]] == [
        ("target_exists", "a directory with this name exists")
    ]
    assert error_code(await rename(client, mode="to_uppercase")) == "conflict"
    assert (root / "a.txt").read_bytes() == b"bytes of a.txt\n"


@pytest.mark.parametrize(
    ("replacement", "why"),
    [
        ("CON.txt", "reserved device name"),
        ("a\u202eb.txt", "U+202E"),
        ("b.txt\x1f", "U+001F"),  # judged as made: trimmed as a typed path, it passed as b.txt
        ("..", "cannot name a file"),
        ("sub/x.txt", "contains '/'"),
        ("", "cannot name a file"),
    ],
)
async def test_invalid_new_names_are_refused_and_nothing_changes(
    client: Client, root: Path, replacement: str, why: str
) -> None:
    make(root, "a.txt", "b.txt")
    (root / "sub").mkdir()
    before = tree(root)
    args = {"mode": "regex_rename", "pattern": r"^a\.txt$", "replacement": replacement}
    preview = structured(await rename(client, **args, preview=True))
    assert [c["kind"] for c in preview["conflicts"]] == ["invalid_name"]
    assert why in preview["conflicts"][0]["reason"]
    result = await rename(client, **args)
    assert error_code(result) == "conflict"
    assert tree(root) == before


async def test_recursive_renames_files_below_but_not_directories_links_or_hidden_and_vcs_trees(
    client: Client, root: Path
) -> None:
    make(root, "top.log", "top.txt", "sub/deep/in.log", ".hidden/h.log", ".git/g.log", ".dot.log")
    (root / "dir.log").mkdir()
    (root / "link.log").symlink_to(root / "top.txt")
    flat = structured(await rename(client, mode="add_prefix", prefix="old_", file_pattern="*.log", preview=True))
    assert [Path(e["source"]).name for e in flat["renames"]] == ["top.log"]
    before = tree(root)
    result = await rename(client, mode="add_prefix", prefix="old_", file_pattern="*.log", recursive=True)
    data = structured(result)
    assert [e["destination"] for e in data["renames"]] == [
        str(root / "sub" / "deep" / "old_in.log"),
        str(root / "old_top.log"),
    ]
    moved = {"top.log": "old_top.log", "sub/deep/in.log": "sub/deep/old_in.log"}
    assert tree(root) == {moved.get(name, name): value for name, value in before.items()}
    assert "sub/deep/in.log → sub/deep/old_in.log" in text_of(result)


async def test_a_pattern_starting_with_a_dot_selects_hidden_files_and_a_literal_name_one_file(
    client: Client, root: Path
) -> None:
    make(root, ".envx", ".envrc", "[x].txt", "y.txt")
    hidden = structured(await rename(client, mode="add_suffix", suffix=".bak", file_pattern=".env*"))
    assert sorted(Path(e["destination"]).name for e in hidden["renames"]) == [".envrc.bak", ".envx.bak"]
    literal = structured(await rename(client, mode="to_uppercase", file_pattern="[x].txt"))
    assert [Path(e["destination"]).name for e in literal["renames"]] == ["[X].TXT"]
    assert sorted(p.name for p in root.iterdir()) == [".envrc.bak", ".envx.bak", "[X].TXT", "y.txt"]


async def test_a_hook_denying_one_move_rolls_back_the_renames_done(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    script = tmp_path / "deny.py"
    script.write_text(
        "import json, sys\njson.load(sys.stdin)\nprint(json.dumps({'decision': 'deny', 'reason': 'c is frozen'}))\n",
        encoding="utf-8",
    )
    hooks = {"pre-move": [{"path": "c.txt", "hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]}
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    make(root, "a.txt", "b.txt", "c.txt", "d.txt")
    before = tree(root)
    async with connect(hooks_config=config) as client:
        result = await rename(client, mode="add_prefix", prefix="x_")
        listing = structured(await client.call_tool("backup", {"action": "list"}))
    assert error_code(result) == "batch_failed"
    assert tree(root) == before
    assert result.meta is not None
    failure = result.meta["fsguard/error"]
    assert (failure["failed_index"], failure["error_code"]) == (2, "hook_denied")
    assert failure["failed_id"] == str(root / "c.txt")
    assert sorted(failure["rolled_back"]) == [str(root / "a.txt"), str(root / "b.txt")]
    assert "backup_id" not in failure  # everything came back: no group is left to restore
    text = text_of(result)
    assert "rename 3 of 4 (c.txt → x_c.txt" in text
    assert "c is frozen" in text
    assert "every name is as before" in text
    assert listing["total"] == 0


async def test_a_rename_that_cannot_be_moved_back_stays_in_a_group_and_is_named(
    connect: ClientFactory, root: Path, tmp_path: Path
) -> None:
    # The hook refusing c.txt's rename puts a file at a.txt, so x_a.txt cannot move back (no hook refuses a rollback).
    script = tmp_path / "deny.py"
    script.write_text(
        "import json, sys\n"
        "source = json.load(sys.stdin)['source_path']\n"
        "if source.endswith('/c.txt'):\n"
        f"    open({str(root / 'a.txt')!r}, 'x').write('taken\\n')\n"
        "    print(json.dumps({'decision': 'deny', 'reason': 'not now'}))\n",
        encoding="utf-8",
    )
    hooks = {"pre-move": [{"hooks": [{"type": "command", "command": f"{sys.executable} {script}"}]}]}
    config = tmp_path / "hooks.json"
    config.write_text(json.dumps({"hooks": hooks}), encoding="utf-8")
    make(root, "a.txt", "b.txt", "c.txt")
    async with connect(hooks_config=config) as client:
        result = await rename(client, mode="add_prefix", prefix="x_")
        assert result.meta is not None
        failure = result.meta["fsguard/error"]
        info = structured(await client.call_tool("backup", {"action": "info", "backup_id": failure["backup_id"]}))
    assert error_code(result) == "batch_failed"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt", "b.txt", "c.txt", "x_a.txt"]
    assert (root / "x_a.txt").read_bytes() == b"bytes of a.txt\n"
    assert (root / "a.txt").read_bytes() == b"taken\n"
    assert failure["rolled_back"] == [str(root / "b.txt")]
    assert [line.split(":")[0] for line in failure["not_rolled_back"]] == [str(root / "x_a.txt")]
    assert "NOT moved back" in text_of(result)
    assert [(c["kind"], c["path"]) for c in info["group"]["changes"]] == [("moved", str(root / "x_a.txt"))]


async def test_restoring_the_group_id_brings_every_name_back(client: Client, root: Path) -> None:
    make(root, "a.txt", "b.txt", "sub/c.txt")
    before = tree(root)
    data = structured(await rename(client, mode="number_files", recursive=True))
    assert sorted(p.name for p in root.rglob("*.txt")) == ["001_a.txt", "002_b.txt", "003_c.txt"]
    restored = await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]})
    structured(restored)
    assert tree(root) == before


async def test_every_problem_in_the_request_is_reported_at_once_by_field(client: Client, root: Path) -> None:
    make(root, "a.txt")
    result = await client.call_tool(
        "batch_operations",
        {"rename_json": {"path": ".", "mode": "find_replace", "replce": "x", "padding": "lots", "preview": 3}},
    )
    assert error_code(result) == "invalid_params"
    text = text_of(result)
    assert "rename_json.replce: unknown field (did you mean 'replace'?)" in text
    assert "rename_json.padding: must be a whole number" in text
    assert "rename_json.preview: must be true or false" in text
    assert "rename_json.find: 'find' is required for find_replace" in text
    assert "rename_json.replace: 'replace' is required for find_replace" in text
    assert (root / "a.txt").exists()


@pytest.mark.parametrize(
    ("rename_json", "expected"),
    [
        ({"path": ".", "mode": "add_prefx"}, "invalid mode 'add_prefx' (did you mean 'add_prefix'?). Valid modes:"),
        ({"path": ".", "mode": "lower"}, "invalid mode 'lower' (did you mean 'to_lowercase'?)"),
        ({"mode": "to_lowercase"}, "rename_json.path: required"),
        ({"path": "."}, "rename_json.mode: required: one of find_replace, add_prefix"),
        ({"path": ".", "mode": "add_prefix", "prefix": "a/"}, "'prefix' contains '/'"),
        ({"path": ".", "mode": "regex_rename", "pattern": "(", "replacement": "x"}, "invalid pattern '('"),
        ({"path": ".", "mode": "number_files", "padding": 99}, "'padding' is 99"),
        ({"path": "a.txt", "mode": "to_lowercase"}, "is a file: path is the directory holding the files"),
        ({"path": "../..", "mode": "to_lowercase"}, "outside allowed directories"),
    ],
)
async def test_a_bad_request_is_refused_with_what_to_fix(
    client: Client, root: Path, rename_json: dict[str, Any], expected: str
) -> None:
    make(root, "a.txt")
    result = await client.call_tool("batch_operations", {"rename_json": rename_json})
    assert error_code(result) in ("invalid_params", "not_a_directory", "access_denied")
    assert expected in text_of(result)
    assert tree(root) == {"a.txt": b"bytes of a.txt\n"}


async def test_rename_json_may_be_sent_as_json_text(client: Client, root: Path) -> None:
    make(root, "a.txt")
    result = await client.call_tool(
        "batch_operations", {"rename_json": json.dumps({"path": ".", "mode": "to_uppercase", "preview": "true"})}
    )
    assert structured(result)["status"] == "preview"
    assert (root / "a.txt").exists()


async def test_the_compact_voice_is_one_line(connect: ClientFactory, root: Path) -> None:
    make(root, "a.txt", "b.txt")
    async with connect(compact_mode=True) as client:
        result = await rename(client, mode="add_prefix", prefix="n_")
    text = text_of(result)
    assert "\n" not in text
    assert text.startswith(f"RENAMED 2 files in {root} | a.txt→n_a.txt, b.txt→n_b.txt | backup_id ")


async def test_a_file_pattern_reads_escapes_and_caret_sets_as_the_seed_s_globs_do(client: Client, root: Path) -> None:
    make(root, "a*b.txt", "axb.txt", "c.txt")
    structured(await rename(client, mode="add_prefix", prefix="old_", file_pattern="a\\*b.txt"))
    structured(await rename(client, mode="add_prefix", prefix="x_", file_pattern="[^o]*.txt"))
    assert tree(root) == {
        "old_a*b.txt": b"bytes of a*b.txt\n",
        "x_axb.txt": b"bytes of axb.txt\n",
        "x_c.txt": b"bytes of c.txt\n",
    }


async def test_a_rename_text_names_its_directory_relative_to_the_root(connect: ClientFactory, root: Path) -> None:
    make(root, "photos/a.jpeg", "photos/b.jpeg")
    for compact in (False, True):
        async with connect(compact_mode=compact) as client:
            fields = {"path": "photos", "mode": "add_prefix", "prefix": f"{int(compact)}_", "file_pattern": "*.jpeg"}
            result = await client.call_tool("batch_operations", {"rename_json": fields})
        assert "files in photos" in text_of(result), text_of(result)
        assert str(root) not in text_of(result)
    assert sorted(tree(root)) == ["photos", "photos/1_0_a.jpeg", "photos/1_0_b.jpeg"]
