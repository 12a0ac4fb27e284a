"""search_files, project_replace and list_directory called as prompts written for the seed call them.

Each case is a seed-shaped call (catalog §1.5, §1.6, §1.14, and the behaviours its tests pin, §4) and the effect
the seed documents; where a file changes, the bytes on disk are checked. Both protocol eras, through ``client``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def go_tree(root: Path) -> Path:
    files = {
        "main.go": "package main\n\nfunc Hello() {}\n// hello again\n",
        "notes.txt": "Hello\nHELLO\nhello\n",
        "README.md": "hello docs\n",
        "web/app.js": "hello()\n",
        "web/app.min.js": "hello();hello();hello()\n",
        "web/app.js.map": '{"names":["hello"]}\n',
        "node_modules/dep/index.js": "hello\n",
        "vendor/__pycache__/x.py": "hello\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def names(result: dict[str, object], key: str = "files") -> list[str]:
    return sorted(Path(str(f)).name for f in result[key])  # type: ignore[attr-defined]


async def test_file_types_as_the_seeds_comma_list_keeps_only_those_extensions(client: Client, go_tree: Path) -> None:
    found = structured(
        await client.call_tool("search_files", {"path": str(go_tree), "pattern": "*", "file_types": ".go,.txt"})
    )
    assert names(found) == ["main.go", "notes.txt"]


@pytest.mark.parametrize("written", ["go", ".go", "*.go", ".go, .txt", '[".go"]', [".go"]])
async def test_include_takes_every_shape_the_seed_and_its_users_send(
    client: Client, go_tree: Path, written: str | list[str]
) -> None:
    arguments = {"path": ".", "pattern": "hello", "include_content": "true", "include": written}
    found = structured(await client.call_tool("search_files", arguments))
    assert "main.go" in names(found, "counts")
    assert "README.md" not in names(found, "counts")


async def test_a_file_path_is_searched_inside_with_count_only_and_return_lines(client: Client, go_tree: Path) -> None:
    counted = await client.call_tool(
        "search_files", {"path": "notes.txt", "pattern": "hello", "count_only": "true", "return_lines": "true"}
    )
    data = structured(counted)
    assert (data["total_matches"], data["lines"]) == (3, {str(go_tree / "notes.txt"): [1, 2, 3]})
    assert "at lines: 1, 2, 3" in text_of(counted)
    sensitive = structured(
        await client.call_tool("search_files", {"path": "notes.txt", "pattern": "hello", "case_sensitive": True})
    )
    assert [m["line_number"] for m in sensitive["matches"]] == [3]


async def test_include_context_alone_searches_content_and_shows_the_neighbouring_lines(
    client: Client, go_tree: Path
) -> None:
    found = structured(
        await client.call_tool(
            "search_files", {"path": ".", "pattern": "HELLO", "include_context": True, "case_sensitive": True}
        )
    )
    (match,) = found["matches"]
    assert (match["line_number"], match["context_before"], match["context_after"]) == (2, ["Hello"], ["hello"])


async def test_whole_word_alone_searches_content(client: Client, go_tree: Path) -> None:
    found = structured(await client.call_tool("search_files", {"path": ".", "pattern": "hell", "whole_word": True}))
    assert (found["mode"], found["total_matches"]) == ("content", 0)
    found = structured(
        await client.call_tool("search_files", {"path": "main.go", "pattern": "func", "whole_word": True})
    )
    assert [m["line_number"] for m in found["matches"]] == [3]


async def test_a_name_pattern_without_wildcards_is_a_regex_on_the_name(client: Client, go_tree: Path) -> None:
    found = structured(await client.call_tool("search_files", {"path": ".", "pattern": "^app\\.(js|min)"}))
    assert names(found) == ["app.js", "app.js.map", "app.min.js"]
    literal = structured(await client.call_tool("search_files", {"path": ".", "pattern": "app.js.map("}))
    assert literal["files"] == []  # an invalid regex is plain text, found in no name


async def test_output_json_is_the_result_itself_and_max_results_cuts_it(client: Client, go_tree: Path) -> None:
    (go_tree / "seven.txt").write_text("x\n" * 7, encoding="utf-8")
    result = await client.call_tool(
        "search_files", {"path": "seven.txt", "pattern": "x", "output": "json", "max_results": 3}
    )
    data = json.loads(text_of(result))
    assert (data["total_matches"], data["returned_matches"], data["truncated"]) == (7, 3, True)


async def test_minified_files_source_maps_and_node_modules_are_left_out_of_content_and_counts(
    client: Client, go_tree: Path
) -> None:
    found = structured(await client.call_tool("search_files", {"path": ".", "pattern": "hello", "count_only": True}))
    assert names(found, "counts") == ["README.md", "app.js", "main.go", "notes.txt"]
    assert found["default_skipped"] == 4


async def test_an_anchor_matches_at_the_start_of_each_line(client: Client, go_tree: Path) -> None:
    found = structured(
        await client.call_tool("search_files", {"path": "notes.txt", "pattern": "^hel", "case_sensitive": True})
    )
    assert [m["line_number"] for m in found["matches"]] == [3]


async def test_a_mistyped_parameter_gets_a_did_you_mean(client: Client, go_tree: Path) -> None:
    result = await client.call_tool("search_files", {"path": ".", "pattern": "x", "include>": ".go"})
    assert error_code(result) == "unknown_param"
    assert 'unknown parameter "include>" (did you mean "include"?)' in text_of(result)


async def test_list_directory_takes_output_as_output_format(client: Client, go_tree: Path) -> None:
    listed = structured(await client.call_tool("list_directory", {"path": ".", "output": "json"}))
    assert {"main.go", "web"} <= {entry["name"] for entry in listed["entries"]}


@pytest.fixture
def php_tree(root: Path) -> Path:
    for name in ("a.php", "b.html", "sub/c.php"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"<?php utf8_encode($x); ?>\n")
    (root / "d.txt").write_bytes(b"utf8_encode(\n")
    return root


async def test_project_replace_with_file_types_as_a_string_create_backup_and_parallel(
    client: Client, php_tree: Path
) -> None:
    arguments = {
        "path": str(php_tree),
        "find": "utf8_encode(",
        "replace": "utf8e(",
        "file_types": ".php,.html",
        "create_backup": True,
        "parallel": True,
    }
    preview = structured(await client.call_tool("project_replace", {**arguments, "preview": True}))
    assert (preview["status"], preview["files_changed"]) == ("preview", 3)
    assert (php_tree / "a.php").read_bytes() == b"<?php utf8_encode($x); ?>\n"
    applied = structured(await client.call_tool("project_replace", arguments))
    assert (applied["files_changed"], applied["total_replacements"]) == (3, 3)
    for name in ("a.php", "b.html", "sub/c.php"):
        assert (php_tree / name).read_bytes() == b"<?php utf8e($x); ?>\n"
    assert (php_tree / "d.txt").read_bytes() == b"utf8_encode(\n"
    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": applied["backup_id"]}))
    assert restored
    assert (php_tree / "sub" / "c.php").read_bytes() == b"<?php utf8_encode($x); ?>\n"


async def test_project_replace_exclude_paths_as_json_text_leaves_a_subdirectory_alone(
    client: Client, php_tree: Path
) -> None:
    arguments = {
        "path": ".",
        "find": "utf8_encode(",
        "replace": "utf8e(",
        "file_types": "php",
        "exclude_paths": '["sub"]',
    }
    applied = structured(await client.call_tool("project_replace", arguments))
    assert applied["files_changed"] == 1
    assert (php_tree / "a.php").read_bytes() == b"<?php utf8e($x); ?>\n"
    assert (php_tree / "sub" / "c.php").read_bytes() == b"<?php utf8_encode($x); ?>\n"


async def test_project_replace_regex_with_go_style_groups(client: Client, root: Path) -> None:
    (root / "items.txt").write_bytes(b"item_1 item_2 item_3\n")
    arguments = {"path": ".", "find": "item_(\\d+)", "replace": "obj_$1", "literal": False, "create_backup": False}
    applied = structured(await client.call_tool("project_replace", arguments))
    assert applied["total_replacements"] == 3
    assert (root / "items.txt").read_bytes() == b"obj_1 obj_2 obj_3\n"
    assert "backed up all the same" in applied["note"]


async def test_project_replace_skips_node_modules_by_default(client: Client, root: Path) -> None:
    for name in ("src/a.js", "node_modules/dep/a.js", "dist/bundle.min.js"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"oldName()\n")
    applied = structured(
        await client.call_tool("project_replace", {"path": ".", "find": "oldName", "replace": "newName"})
    )
    assert applied["files_changed"] == 1
    assert (root / "src" / "a.js").read_bytes() == b"newName()\n"
    assert (root / "node_modules" / "dep" / "a.js").read_bytes() == b"oldName()\n"
    assert (root / "dist" / "bundle.min.js").read_bytes() == b"oldName()\n"
    assert applied["default_skipped_paths"] == ["dist/", "node_modules/"]
