"""search_files, project_replace and gitignore-aware listing through the in-memory Client, in both eras."""

from __future__ import annotations

import json
import resource
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult

from fsguard.core.ripgrep import ripgrep_path
from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def project(root: Path) -> Path:
    (root / ".gitignore").write_text("build/\n*.log\n", encoding="utf-8")
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "app.py").write_text("import os\n\ndef main():\n    return os.getcwd()  # TODO\n", encoding="utf-8")
    (root / "src" / "pkg" / "util.py").write_text("def helper():\n    return 'TODO later'\n", encoding="utf-8")
    (root / "src" / "win.txt").write_bytes(b"first line\r\nTODO: crlf\r\n")
    (root / "build").mkdir()
    (root / "build" / "out.py").write_text("# TODO generated\n", encoding="utf-8")
    (root / "debug.log").write_text("TODO in a log\n", encoding="utf-8")
    (root / ".hidden.py").write_text("TODO hidden\n", encoding="utf-8")
    (root / "blob.bin").write_bytes(b"\x00\x01TODO\x00")
    return root


async def test_content_search_reports_lines_columns_and_skips_ignored_hidden_and_binary(
    client: Client, project: Path
) -> None:
    data = structured(await client.call_tool("search_files", {"pattern": "todo", "include_content": True}))
    found = [(Path(m["file"]).relative_to(project).as_posix(), m["line_number"], m["column"]) for m in data["matches"]]
    assert found == [("src/app.py", 4, 27), ("src/pkg/util.py", 2, 13), ("src/win.txt", 2, 1)]
    crlf = data["matches"][2]
    assert crlf["line_content"] == "TODO: crlf"
    assert data["mode"] == "content"
    assert data["counts"] == {
        str(project / "src" / "app.py"): 1,
        str(project / "src" / "pkg" / "util.py"): 1,
        str(project / "src" / "win.txt"): 1,
    }


async def test_gitignore_and_hidden_can_be_turned_off(client: Client, project: Path) -> None:
    args = {"pattern": "TODO", "include_content": True, "respect_gitignore": False, "include_hidden": True}
    data = structured(await client.call_tool("search_files", args))
    files = {Path(m["file"]).name for m in data["matches"]}
    assert {"debug.log", ".hidden.py"} <= files
    assert "blob.bin" not in files
    assert (data["default_skipped"], data["default_skipped_paths"]) == (1, ["build/"])  # no longer gitignored
    everything = structured(await client.call_tool("search_files", {**args, "include_dependencies": True}))
    assert "out.py" in {Path(m["file"]).name for m in everything["matches"]}
    assert "default_skipped" not in everything


async def test_file_types_accept_extensions_and_globs_for_both_searches(client: Client, project: Path) -> None:
    for types in (["py"], [".py"], ["*.py"]):
        content = structured(
            await client.call_tool("search_files", {"pattern": "TODO", "include_content": True, "file_types": types})
        )
        assert {Path(m["file"]).name for m in content["matches"]} == {"app.py", "util.py"}
    names = structured(await client.call_tool("search_files", {"pattern": "*", "file_types": ["py"]}))
    assert [Path(f).name for f in names["files"]] == ["app.py", "util.py"]


async def test_an_extension_in_file_types_or_include_matches_the_files_extension_in_any_case_and_a_glob_its_case(
    client: Client, root: Path, tool_engine: str
) -> None:
    for name in ("a.go", "d.GO", "e.Go", "IMG.JPG", "notes.txt", "go", "x.gox"):
        (root / name).write_bytes(b"hello\n")
    cases = [
        (".go", ["a.go", "d.GO", "e.Go"]),
        ("GO", ["a.go", "d.GO", "e.Go"]),
        (".jpg,.txt", ["IMG.JPG", "notes.txt"]),
        ("*.go", ["a.go"]),  # a glob keeps its case, as rg's -g does
        ("*.GO", ["d.GO"]),
    ]
    for types, expected in cases:
        for name in ("file_types", "include"):
            await assert_found(client, {name: types}, expected)
            counted = await client.call_tool(
                "search_files", {"pattern": "hello", "include_content": True, name: types, "count_only": True}
            )
            assert structured(counted)["total_matches"] == len(expected), (types, name)


async def assert_found(client: Client, filters: dict[str, object], expected: list[str]) -> None:
    """A name search and a content search for "hello" under ``filters`` both find the files named ``expected``."""
    names = structured(await client.call_tool("search_files", {"pattern": "*", **filters}))
    assert sorted(Path(f).name for f in names["files"]) == expected, filters
    content = structured(
        await client.call_tool("search_files", {"pattern": "hello", "include_content": True, **filters})
    )
    assert sorted(Path(f).name for f in content["counts"]) == expected, filters


async def test_a_file_name_in_file_types_or_include_matches_that_file_as_well_as_the_extension(
    client: Client, root: Path, tool_engine: str
) -> None:
    """include="package.json" was read as the extension "*.package.json" alone, and silently matched nothing; so was
    "Makefile" ("*.makefile")."""
    for name in ("package.json", "other.json", "a.tar.gz", "x.package.json", "Makefile", "b.makefile", "py", "c.py"):
        (root / name).write_bytes(b"hello\n")
    cases = [
        ("package.json", ["package.json", "x.package.json"]),
        ("tar.gz", ["a.tar.gz"]),
        (["*.json", "!package.json"], ["other.json"]),
        ("Makefile", ["Makefile", "b.makefile"]),
        ("py", ["c.py"]),  # a lowercase word is an extension only
    ]
    for types, expected in cases:
        for name in ("file_types", "include"):
            await assert_found(client, {name: types}, expected)
    replaced = await client.call_tool(
        "project_replace", {"find": "hello", "replace": "bye", "file_types": "package.json"}
    )
    assert not replaced.is_error, text_of(replaced)
    assert (root / "package.json").read_bytes() == b"bye\n"
    assert (root / "other.json").read_bytes() == b"hello\n"


async def test_project_replace_takes_an_extension_in_any_case_and_writes_only_those_files(
    client: Client, root: Path, tool_engine: str
) -> None:
    for name in ("a.go", "d.GO", "e.Go", "notes.txt", "x.gox"):
        (root / name).write_bytes(b"hello\r\nhello\n")
    preview = structured(
        await client.call_tool(
            "project_replace", {"find": "hello", "replace": "bye", "file_types": ".go", "preview": True}
        )
    )
    assert sorted(Path(f["path"]).name for f in preview["files"]) == ["a.go", "d.GO", "e.Go"]
    assert (root / "d.GO").read_bytes() == b"hello\r\nhello\n"
    applied = structured(
        await client.call_tool("project_replace", {"find": "hello", "replace": "bye", "file_types": "go"})
    )
    assert (applied["files_changed"], applied["total_replacements"]) == (3, 6)
    for name in ("a.go", "d.GO", "e.Go"):
        assert (root / name).read_bytes() == b"bye\r\nbye\n"
    for name in ("notes.txt", "x.gox"):
        assert (root / name).read_bytes() == b"hello\r\nhello\n"
    globbed = structured(
        await client.call_tool("project_replace", {"find": "bye", "replace": "ciao", "file_types": "*.go"})
    )
    assert [Path(f["path"]).name for f in globbed["files"]] == ["a.go"]
    assert (root / "d.GO").read_bytes() == b"bye\r\nbye\n"


async def test_a_negated_file_type_leaves_files_out_of_both_searches_and_alone_keeps_the_rest(
    client: Client, project: Path
) -> None:
    (project / "src" / "app.min.py").write_text("# TODO minified\n", encoding="utf-8")
    cases = [(["*.py", "!*.min.py"], {"app.py", "util.py"}, set()), (["!*.py"], {"win.txt"}, {"blob.bin"})]
    for types, matched, binary in cases:
        content = structured(
            await client.call_tool("search_files", {"pattern": "TODO", "include_content": True, "file_types": types})
        )
        assert {Path(m["file"]).name for m in content["matches"]} == matched
        names = structured(await client.call_tool("search_files", {"pattern": "*", "file_types": types}))
        assert {Path(f).name for f in names["files"]} == matched | binary


async def test_context_count_only_whole_word_and_truncation(client: Client, project: Path) -> None:
    context = structured(
        await client.call_tool(
            "search_files", {"pattern": "getcwd", "include_content": True, "include_context": True, "context_lines": 1}
        )
    )
    assert context["matches"][0]["context_before"] == ["def main():"]
    counts = structured(await client.call_tool("search_files", {"pattern": "todo", "count_only": True}))
    assert (counts["mode"], counts["total_matches"], counts["matches"]) == ("count", 3, [])
    words = structured(
        await client.call_tool("search_files", {"pattern": "main", "include_content": True, "whole_word": True})
    )
    assert words["total_matches"] == 1
    capped = structured(
        await client.call_tool("search_files", {"pattern": "todo", "include_content": True, "max_results": 2})
    )
    assert (capped["returned_matches"], capped["truncated"]) == (2, True)


async def test_an_invalid_regex_and_a_path_outside_are_coded_errors(client: Client, project: Path) -> None:
    bad = await client.call_tool("search_files", {"pattern": "(unclosed", "include_content": True})
    assert error_code(bad) == "invalid_params"
    outside = await client.call_tool("search_files", {"pattern": "x", "path": "/etc"})
    assert error_code(outside) == "access_denied"


async def test_search_reports_progress_to_a_client_that_asks(client: Client, root: Path) -> None:
    for i in range(300):
        (root / f"f{i:03}.txt").write_text("needle\n", encoding="utf-8")
    seen: list[float] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append(progress)

    data = structured(
        await client.call_tool(
            "search_files", {"pattern": "needle", "include_content": True}, progress_callback=on_progress
        )
    )
    assert data["total_matches"] == 300
    assert seen
    assert seen == sorted(seen)


async def test_count_only_lists_the_lines_of_each_file_on_request(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("".join("x needle\n" if i % 2 else "x\n" for i in range(60)), encoding="utf-8")
    (root / "b.txt").write_text("needle needle\n", encoding="utf-8")
    data = structured(
        await client.call_tool("search_files", {"pattern": "needle", "count_only": True, "return_lines": True})
    )
    a, b = str(root / "a.txt"), str(root / "b.txt")
    assert data["counts"] == {a: 30, b: 2}
    assert data["lines"] == {a: list(range(2, 61, 2)), b: [1]}
    assert (data["truncated"], "lines_cut" in data) == (False, False)  # b.txt's two matches on one line: all read
    text = text_of(
        await client.call_tool("search_files", {"pattern": "needle", "count_only": True, "return_lines": True})
    )
    assert "    30 a.txt at lines: 2, 4, 6, 8, 10, 12, 14, 16, 18, 20 and 20 more (all in the result)\n" in text


async def test_line_numbers_cut_at_max_results_say_so_and_how_to_list_the_rest_in_both_voices(
    connect: ClientFactory, root: Path, tool_engine: str
) -> None:
    for i in range(4):
        (root / f"m{i}.txt").write_text("needle\n" * 5, encoding="utf-8")
    asked = {"pattern": "needle", "count_only": True, "return_lines": True, "max_results": 7}
    async with connect() as verbose, connect(compact_mode=True) as compact:
        result = await verbose.call_tool("search_files", asked)
        short = text_of(await compact.call_tool("search_files", asked))
    data = structured(result)
    assert data["lines"] == {str(root / "m0.txt"): [1, 2, 3, 4, 5], str(root / "m1.txt"): [1, 2]}
    assert (data["truncated"], data["lines_cut"]) == (True, 3)  # m1.txt part way, m2.txt and m3.txt not at all
    assert text_of(result) == short
    assert short.endswith(
        "     5 m3.txt\n[line numbers stop at max_results matches, from m1.txt on (3 files): raise max_results, or "
        "search one file by its path]"
    )


async def test_line_numbers_cut_at_the_servers_cap_send_the_agent_to_one_file_not_to_max_results(
    connect: ClientFactory, root: Path, tool_engine: str
) -> None:
    for i in range(2):
        (root / f"m{i}.txt").write_text("needle\n" * 5, encoding="utf-8")
    async with connect(max_search_results=7) as client:
        asked = {"pattern": "needle", "count_only": True, "return_lines": True}
        result = await client.call_tool("search_files", asked)
    assert (structured(result)["lines_cut"], structured(result)["max_search_results"]) == (1, 7)
    assert text_of(result).endswith(
        "[line numbers stop at max_results matches, from m1.txt on (1 file): the server caps max_results at "
        "--max-search-results 7: search one file by its path, or narrow the pattern]"
    )


async def test_counts_stop_at_max_results_files_but_the_totals_stay_exact(client: Client, root: Path) -> None:
    for i in range(5):
        (root / f"f{i}.txt").write_text("needle\n" * (i + 1), encoding="utf-8")
    data = structured(
        await client.call_tool("search_files", {"pattern": "needle", "count_only": True, "max_results": 2})
    )
    assert data["counts"] == {str(root / "f0.txt"): 1, str(root / "f1.txt"): 2}
    assert (data["total_matches"], data["files_with_matches"], data["truncated"]) == (15, 5, True)
    assert data["files"] == [str(root / "f0.txt"), str(root / "f1.txt")]


async def test_a_max_results_above_the_servers_cap_is_told_to_narrow_the_search_not_to_raise_max_results(
    connect: ClientFactory, root: Path, tool_engine: str
) -> None:
    for i in range(6):
        (root / f"f{i}.txt").write_text("needle\n" * 2, encoding="utf-8")
    async with connect(max_search_results=5) as client:
        for asked in ({"include_content": True, "max_results": 50}, {"include_content": True}, {"pattern": "f*.txt"}):
            result = await client.call_tool("search_files", {"pattern": "needle", **asked})
            data = structured(result)
            assert (data["returned_matches"], data["truncated"], data["max_search_results"]) == (5, True, 5)
            assert text_of(result).endswith(
                "more not shown; the server caps max_results at --max-search-results 5: narrow the path, pattern or "
                "file_types]"
            )
        counted = await client.call_tool("search_files", {"pattern": "needle", "count_only": True, "max_results": 2})
        assert "max_search_results" not in structured(counted)
        assert text_of(counted).endswith("[4 more files not shown: narrow the search or raise max_results]")


async def test_output_format_json_puts_the_result_itself_in_the_text_block(client: Client, project: Path) -> None:
    result = await client.call_tool(
        "search_files", {"pattern": "todo", "include_content": True, "output_format": "json"}
    )
    assert json.loads(text_of(result)) == structured(result)
    verbose = text_of(
        await client.call_tool("search_files", {"pattern": "todo", "include_content": True, "output_format": "text"})
    )
    assert verbose.startswith(f"3 matches in 3 files under {project}:\nsrc/app.py:4:")


@pytest.mark.parametrize(
    "line",
    ["needle " + "x" * 495, "x" * 1000 + " needle " + "x" * 100, "needle " + "漢" * 495, 'needle "' + "é" * 494],
    ids=["cut", "window", "cjk", "escaped"],
)
async def test_an_answer_over_500_kb_is_cut_whole_structured_content_too_with_a_way_forward(
    client: Client, root: Path, line: str
) -> None:
    # Bytes of UTF-8, as sent: 500,000 characters of Chinese text are 1.5 MB, and as \uXXXX escapes in a JSON
    # text block 3 MB.
    (root / "wide.txt").write_text((line + "\n") * 1100, encoding="utf-8")
    for extra in ({}, {"output_format": "json"}, {"include_context": True, "context_lines": 5}):
        result = await client.call_tool("search_files", {"pattern": "needle", "include_content": True, **extra})
        data = structured(result)
        assert len(json.dumps(data, ensure_ascii=False).encode()) <= 500_000
        assert len(text_of(result).encode()) <= 500_000
        assert data["budget_cut"] is True
        assert data["truncated"] is True
        assert data["total_matches"] == 1100
        assert 0 < data["returned_matches"] == len(data["matches"]) < 1000
        assert [match["line_number"] for match in data["matches"]] == list(range(1, data["returned_matches"] + 1))
        if "output_format" in extra:
            assert json.loads(text_of(result)) == data
            assert "\\u" not in text_of(result)  # each character as itself, never six
        else:
            assert "count_only=true" in text_of(result)
    counted_all = structured(await client.call_tool("search_files", {"pattern": "needle", "count_only": True}))
    assert counted_all["counts"] == {str(root / "wide.txt"): 1100}


def _long_named_files(root: Path, text: str) -> list[Path]:
    """1,000 files whose paths are about 760 bytes each: their names alone pass 500 KB."""
    deep = root / ("d" * 250) / ("e" * 250)
    deep.mkdir(parents=True)
    files = [deep / f"{number:04d}-{'n' * 200}.txt" for number in range(1000)]
    for file in files:
        file.write_text(text, encoding="utf-8")
    return files


def _within_budget(result: CallToolResult) -> dict[str, Any]:
    data = structured(result)
    assert len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()) <= 500_000
    assert len(text_of(result).encode()) <= 500_000
    assert (data["budget_cut"], data["truncated"]) == (True, True)
    return data


async def test_a_name_search_over_500_kb_is_cut_whole_structured_content_too_with_a_way_forward(
    client: Client, root: Path
) -> None:
    files = _long_named_files(root, "x\n")
    result = await client.call_tool("search_files", {"pattern": "*.txt"})
    data = _within_budget(result)
    shown_files = data["files"]
    assert data["total_matches"] == 1000
    assert 500 < data["returned_matches"] == len(shown_files) < 1000
    assert shown_files == [str(file) for file in files[: len(shown_files)]]
    assert text_of(result).endswith(
        f"[truncated: {1000 - len(shown_files)} more not shown; this answer reached its 500 KB budget. Use a lower "
        "max_results, or a narrower path or pattern.]"
    )


async def test_counts_over_500_kb_are_cut_by_file_with_their_lines_and_a_way_forward(
    client: Client, root: Path
) -> None:
    files = _long_named_files(root, "needle\nx\nneedle\n")
    asked = {"pattern": "needle", "count_only": True, "return_lines": True}
    result = await client.call_tool("search_files", asked)
    data = _within_budget(result)
    shown_files = [str(file) for file in files[: len(data["files"])]]
    assert 200 < len(shown_files) < 1000
    assert data["files"] == list(data["counts"]) == list(data["lines"]) == shown_files
    assert set(data["counts"].values()) == {2}
    assert all(numbers == [1, 3] for numbers in data["lines"].values())
    assert (data["total_matches"], data["files_with_matches"]) == (2000, 1000)
    assert text_of(result).endswith(
        f"[{1000 - len(shown_files)} more files not shown: this answer reached its 500 KB budget. Use "
        "return_lines=false or a lower max_results, or a narrower path or pattern.]"
    )


async def test_matches_in_many_files_over_500_kb_keep_the_counts_of_the_files_shown(client: Client, root: Path) -> None:
    _long_named_files(root, "needle\n")
    data = _within_budget(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    assert 0 < data["returned_matches"] == len(data["matches"]) < 1000
    assert {match["file"] for match in data["matches"]} <= set(data["counts"])
    assert data["files"] == list(data["counts"])
    assert (data["total_matches"], data["files_with_matches"]) == (1000, 1000)


async def test_count_mode_text_names_the_pattern(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("foo\nfoo\n", encoding="utf-8")
    result = await client.call_tool("search_files", {"pattern": "foo", "count_only": True})
    assert text_of(result).splitlines()[0] == "2 matches in 1 file for 'foo'"


async def test_a_search_below_the_root_keeps_the_roots_gitignore_and_says_when_the_path_is_ignored(
    client: Client, project: Path
) -> None:
    (project / "src" / "trace.log").write_text("TODO in a log under src\n", encoding="utf-8")
    below = structured(await client.call_tool("search_files", {"pattern": "TODO", "path": "src", "count_only": True}))
    assert sorted(below["counts"]) == [
        str(project / "src" / "app.py"),
        str(project / "src" / "pkg" / "util.py"),
        str(project / "src" / "win.txt"),
    ]
    ignored = await client.call_tool("search_files", {"pattern": "TODO", "path": "build", "include_content": True})
    assert structured(ignored)["excluded_by_gitignore"] is True
    assert text_of(ignored).endswith("is excluded by a .gitignore: search it with respect_gitignore=false.")
    asked = {"pattern": "TODO", "path": "build", "include_content": True, "respect_gitignore": False}
    assert [Path(m["file"]).name for m in structured(await client.call_tool("search_files", asked))["matches"]] == [
        "out.py"
    ]
    assert (project / "src" / "trace.log").read_bytes() == b"TODO in a log under src\n"


async def test_project_replace_is_literal_skips_ignored_files_and_is_undoable(client: Client, project: Path) -> None:
    preview = structured(
        await client.call_tool("project_replace", {"find": "TODO", "replace": r"$1 \1 DONE", "preview": True})
    )
    assert preview["status"] == "preview"
    assert (project / "src" / "app.py").read_text(encoding="utf-8").endswith("# TODO\n")
    applied = structured(await client.call_tool("project_replace", {"find": "TODO", "replace": r"$1 \1 DONE"}))
    assert applied["files_changed"] == 3
    assert (project / "src" / "app.py").read_text(encoding="utf-8").endswith(r"# $1 \1 DONE" + "\n")
    assert (project / "src" / "win.txt").read_bytes() == b"first line\r\n$1 \\1 DONE: crlf\r\n"
    assert (project / "build" / "out.py").read_text(encoding="utf-8") == "# TODO generated\n"
    assert (project / "debug.log").read_text(encoding="utf-8") == "TODO in a log\n"
    assert (project / "blob.bin").read_bytes() == b"\x00\x01TODO\x00"
    structured(await client.call_tool("backup", {"action": "undo_last", "file_path": "src/app.py"}))
    assert (project / "src" / "app.py").read_text(encoding="utf-8").endswith("# TODO\n")
    assert "DONE" in (project / "src" / "pkg" / "util.py").read_text(encoding="utf-8")


async def test_project_replace_regex_uses_groups(client: Client, project: Path) -> None:
    structured(
        await client.call_tool(
            "project_replace",
            {"find": r"def (\w+)\(", "replace": "def renamed_$1(", "literal": False, "file_types": ["py"]},
        )
    )
    assert "def renamed_helper(" in (project / "src" / "pkg" / "util.py").read_text(encoding="utf-8")


def replaced_counts(found: dict[str, Any], root: Path) -> dict[str, int]:
    return {Path(entry["path"]).relative_to(root).as_posix(): entry["replacements"] for entry in found["files"]}


@pytest.mark.parametrize(
    ("data", "find", "replace", "expected"),
    [
        (b"abxd\n", "x*", "-", b"-a-b-d-\n"),  # none right after the x, none past the last line
        (b"one\ntwo\n", "(?m)$", ";", b"one;\ntwo;\n"),
    ],
)
async def test_a_regex_replace_skips_the_empty_matches_search_skips_and_counts_as_search_counts(
    client: Client, root: Path, tool_engine: str, data: bytes, find: str, replace: str, expected: bytes
) -> None:
    (root / "a.txt").write_bytes(data)
    asked = {"pattern": find, "include_content": True, "case_sensitive": True}
    searched = structured(await client.call_tool("search_files", asked))["total_matches"]
    replacing = {"find": find, "replace": replace, "literal": False}
    preview = structured(await client.call_tool("project_replace", {**replacing, "preview": True}))
    applied = structured(await client.call_tool("project_replace", replacing))
    assert (preview["total_replacements"], applied["total_replacements"]) == (searched, searched)
    assert (root / "a.txt").read_bytes() == expected


async def test_a_regex_replace_finds_lines_as_search_does_whatever_their_line_breaks(
    client: Client, root: Path, tool_engine: str
) -> None:
    files = {
        "lf.txt": (b"import a\nimport b\n", b"use a;\nuse b;\n"),
        "crlf.txt": (b"import a\r\nimport b\r\n", b"use a;\r\nuse b;\r\n"),
        "mixed.txt": (b"import a\r\nx\nimport b\rimport c\n", b"use a;\r\nx\nuse b;\ruse c;\n"),
    }
    for name, (data, _) in files.items():
        (root / name).write_bytes(data)
    asked = {"pattern": r"^import \w$", "include_content": True, "case_sensitive": True}
    counts = structured(await client.call_tool("search_files", asked))["counts"]
    searched = {Path(path).relative_to(root).as_posix(): count for path, count in counts.items()}
    replacing = {"find": r"(?m)^import (\w)$", "replace": "use $1;", "literal": False}
    preview = structured(await client.call_tool("project_replace", {**replacing, "preview": True}))
    applied = structured(await client.call_tool("project_replace", replacing))
    assert (
        replaced_counts(preview, root)
        == replaced_counts(applied, root)
        == searched
        == {"crlf.txt": 2, "lf.txt": 2, "mixed.txt": 3}
    )
    assert {name: (root / name).read_bytes() for name in files} == {name: new for name, (_, new) in files.items()}


async def test_a_regex_replace_keeps_the_line_breaks_a_group_carries_and_reads_a_find_naming_a_cr_as_typed(
    client: Client, root: Path
) -> None:
    (root / "pairs.txt").write_bytes(b"k1\r\nv1\nk2\r\nv2\rend\n")
    swapped = {"find": r"(?m)^(k\d)\n(v\d)$", "replace": "$2\n$1", "literal": False}
    assert structured(await client.call_tool("project_replace", swapped))["total_replacements"] == 2
    assert (root / "pairs.txt").read_bytes() == b"v1\r\nk1\nv2\r\nk2\rend\n"  # a typed break takes the line's
    carried = {"find": r"(?m)^(k\d\nv\d)$", "replace": "<$1>", "literal": False}
    (root / "pairs.txt").write_bytes(b"k1\r\nv1\nk2\rv2\n")
    structured(await client.call_tool("project_replace", carried))
    assert (root / "pairs.txt").read_bytes() == b"<k1\r\nv1>\n<k2\rv2>\n"
    (root / "cr.txt").write_bytes(b"k1\rv1\r")
    structured(await client.call_tool("project_replace", carried))
    assert (root / "cr.txt").read_bytes() == b"<k1\rv1>\r"
    stripped = {"path": "pairs.txt", "find": r"\r$", "replace": "", "literal": False}  # the bytes as they are
    (root / "pairs.txt").write_bytes(b"a\r\nb\r")
    assert structured(await client.call_tool("project_replace", stripped))["total_replacements"] == 1
    assert (root / "pairs.txt").read_bytes() == b"a\r\nb"


async def test_a_regex_replace_reads_gnu_word_edges_as_search_does(client: Client, root: Path) -> None:
    (root / "a.html").write_bytes(b"<div> div divx\n")
    replacing = {"find": r"\<div\>", "replace": "span", "literal": False}
    assert structured(await client.call_tool("project_replace", replacing))["total_replacements"] == 2
    assert (root / "a.html").read_bytes() == b"<span> span divx\n"


@pytest.mark.parametrize("literal", [True, False])
async def test_project_replace_past_max_files_changes_that_many_and_says_more_files_hold_the_text(
    client: Client, root: Path, literal: bool
) -> None:
    for n in range(7):
        (root / f"f{n}.txt").write_text(f"old {n}\n", encoding="utf-8")
    arguments = {"find": "old" if literal else "o[l]d", "replace": "new", "literal": literal, "max_files": 5}
    preview = await client.call_tool("project_replace", {**arguments, "preview": True})
    assert structured(preview)["max_files_reached"] is True
    assert "Stopped at max_files (5): more files hold the find text and were not counted." in text_of(preview)
    result = await client.call_tool("project_replace", arguments)
    data = structured(result)
    assert (data["files_changed"], data["max_files_reached"]) == (5, True)
    assert "more files hold the find text and were left alone. Raise max_files" in text_of(result)
    after = [(root / f"f{n}.txt").read_text(encoding="utf-8") for n in range(7)]
    assert sum(text.startswith("new") for text in after) == 5
    assert sum(text.startswith("old") for text in after) == 2
    last = structured(await client.call_tool("project_replace", {**arguments, "max_files": 2}))
    assert (last["files_changed"], "max_files_reached" in last) == (2, False)  # exactly the two left: no more
    assert all((root / f"f{n}.txt").read_text(encoding="utf-8").startswith("new") for n in range(7))


async def test_a_large_project_replace_is_blocked_without_force(client: Client, root: Path) -> None:
    for i in range(60):
        (root / f"m{i:02}.txt").write_text("old\n", encoding="utf-8")
    blocked = await client.call_tool("project_replace", {"find": "old", "replace": "new"})
    assert error_code(blocked) == "risk_blocked"
    assert all((root / f"m{i:02}.txt").read_text(encoding="utf-8") == "old\n" for i in range(60))
    forced = structured(await client.call_tool("project_replace", {"find": "old", "replace": "new", "force": True}))
    assert forced["files_changed"] == 60


async def test_listing_leaves_out_gitignored_entries_and_says_how_many(client: Client, project: Path) -> None:
    data = structured(await client.call_tool("list_directory", {"output_format": "json"}))
    names = [e["name"] for e in data["entries"]]
    assert "build" not in names
    assert "debug.log" not in names
    assert data["ignored"] == 2
    everything = structured(await client.call_tool("list_directory", {"respect_gitignore": False}))
    assert {"build", "debug.log"} <= {e["name"] for e in everything["entries"]}
    assert "gitignored" in text_of(await client.call_tool("list_directory", {}))


async def test_a_cancelled_project_replace_leaves_every_file_old_or_new(client: Client, root: Path) -> None:
    old, new = "alpha " * 20_000 + "\n", "omega " * 20_000 + "\n"
    for i in range(40):
        (root / f"f{i:02}.txt").write_text(old, encoding="utf-8")
    with anyio.CancelScope() as scope:

        async def cancel_on_first_progress(progress: float, total: float | None, message: str | None) -> None:
            scope.cancel()

        with anyio.fail_after(60):
            await client.call_tool(
                "project_replace",
                {"find": "alpha", "replace": "omega", "force": True},
                progress_callback=cancel_on_first_progress,
            )
    assert scope.cancelled_caught
    contents = [(root / f"f{i:02}.txt").read_text(encoding="utf-8") for i in range(40)]
    assert all(text in (old, new) for text in contents)
    assert old in contents  # it really stopped part of the way


@pytest.mark.parametrize("types", [".py,.txt", ".py, .txt", "py,txt", '[".py", ".txt"]', [".py", "*.txt"], ["py,txt"]])
async def test_file_types_and_include_take_a_comma_list_json_text_or_a_list(
    client: Client, project: Path, types: str | list[str]
) -> None:
    for name in ("file_types", "include"):
        content = structured(
            await client.call_tool("search_files", {"pattern": "TODO", "include_content": True, name: types})
        )
        assert sorted(Path(f).name for f in content["counts"]) == ["app.py", "util.py", "win.txt"]
        names = structured(await client.call_tool("search_files", {"pattern": "*", name: types}))
        assert [Path(f).name for f in names["files"]] == ["app.py", "util.py", "win.txt"]


async def test_a_file_path_searches_that_file_for_content_counts_and_lines(client: Client, project: Path) -> None:
    before = (project / "src" / "app.py").read_bytes()
    content = structured(await client.call_tool("search_files", {"pattern": "os", "path": "src/app.py"}))
    assert (content["mode"], content["total_matches"]) == ("content", 2)
    assert [m["line_number"] for m in content["matches"]] == [1, 4]
    counted = structured(
        await client.call_tool(
            "search_files", {"pattern": "os", "path": "src/app.py", "count_only": True, "return_lines": True}
        )
    )
    app = str(project / "src" / "app.py")
    assert (counted["counts"], counted["lines"]) == ({app: 2}, {app: [1, 4]})
    ignored = structured(await client.call_tool("search_files", {"pattern": "generated", "path": "build/out.py"}))
    assert [m["line_content"] for m in ignored["matches"]] == ["# TODO generated"]  # named, so searched
    assert (project / "src" / "app.py").read_bytes() == before


async def test_a_name_pattern_without_glob_characters_is_a_regex_and_an_invalid_one_plain_text(
    client: Client, project: Path
) -> None:
    (project / "src" / "a(b.txt").write_text("x\n", encoding="utf-8")
    regex = structured(await client.call_tool("search_files", {"pattern": "^(app|util)\\.py$"}))
    assert [Path(f).name for f in regex["files"]] == ["app.py", "util.py"]
    text = structured(await client.call_tool("search_files", {"pattern": "a(b"}))
    assert [Path(f).name for f in text["files"]] == ["a(b.txt"]
    assert (text["mode"], structured(await client.call_tool("search_files", {"pattern": "PKG/UTIL"}))["files"]) == (
        "filename",
        [str(project / "src" / "pkg" / "util.py")],
    )


@pytest.mark.parametrize(
    "implied",
    [
        {"whole_word": True},
        {"include_context": True},
        {"context_lines": 1},
        {"output_format": "text"},
        {"output": "json"},
    ],
)
async def test_parameters_that_only_mean_something_for_content_imply_a_content_search(
    client: Client, project: Path, implied: dict[str, object]
) -> None:
    result = structured(await client.call_tool("search_files", {"pattern": "getcwd", **implied}))
    assert result["mode"] == "content"
    assert [(Path(m["file"]).name, m["line_number"]) for m in result["matches"]] == [("app.py", 4)]
    if "context_lines" in implied or "include_context" in implied:
        assert result["matches"][0]["context_before"]
    glob = structured(await client.call_tool("search_files", {"pattern": "*.py", **implied}))
    assert glob["mode"] == "filename"  # a glob that is no regex stays a name search


async def test_output_is_an_alias_of_output_format_on_search_files_and_list_directory(
    client: Client, project: Path
) -> None:
    searched = await client.call_tool("search_files", {"pattern": "todo", "include_content": True, "output": "json"})
    assert json.loads(text_of(searched)) == structured(searched)
    listed = await client.call_tool("list_directory", {"output": "json"})
    assert json.loads(text_of(listed)) == structured(listed)
    both = await client.call_tool("list_directory", {"output": "tree", "output_format": "json"})
    assert json.loads(text_of(both)) == structured(both)  # the canonical name wins
    wrong = await client.call_tool("read_file", {"path": "src/app.py", "output": "json"})
    assert error_code(wrong) == "unknown_param"


@pytest.fixture
def dependencies(root: Path) -> Path:
    files = {
        "src/app.js": "needle()\n",
        "src/app.min.js": "needle()\n",
        "src/app.js.map": "needle\n",
        "node_modules/lib/index.js": "needle()\n",
        "src/__pycache__/cached.py": "needle\n",
        "target/out.txt": "needle\n",
        ".venv/site.py": "needle\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


async def test_searches_skip_dependencies_and_minified_files_by_default_and_say_so(
    client: Client, dependencies: Path
) -> None:
    found = await client.call_tool("search_files", {"pattern": "needle", "include_content": True})
    data = structured(found)
    assert list(data["counts"]) == [str(dependencies / "src" / "app.js")]
    skipped = ["node_modules/", "src/__pycache__/", "src/app.js.map", "src/app.min.js", "target/"]
    assert (data["default_skipped"], data["default_skipped_paths"]) == (5, skipped)
    assert text_of(found).endswith(
        "Skipped by default: node_modules/, src/__pycache__/, target/ and 2 minified or map files; "
        "include_dependencies=true searches them."
    )
    assert "app.min.js" not in text_of(found)  # a bundle named in the text reads as a hit in it (seed's tests)
    names = structured(await client.call_tool("search_files", {"pattern": "*.js"}))
    assert [Path(f).name for f in names["files"]] == ["app.js", "app.min.js"]  # names of bundles are listed
    assert names["default_skipped_paths"] == ["node_modules/", "src/__pycache__/", "target/"]
    everything = structured(
        await client.call_tool("search_files", {"pattern": "needle", "count_only": True, "include_dependencies": True})
    )
    assert everything["files_with_matches"] == 6  # .venv stays hidden
    assert "default_skipped" not in everything


async def test_project_replace_leaves_dependencies_alone_unless_asked(client: Client, dependencies: Path) -> None:
    result = await client.call_tool("project_replace", {"find": "needle", "replace": "pin"})
    data = structured(result)
    assert (data["files_changed"], data["default_skipped"]) == (1, 5)
    assert "include_dependencies=true includes them" in text_of(result)
    assert (dependencies / "src" / "app.js").read_bytes() == b"pin()\n"
    assert (dependencies / "node_modules" / "lib" / "index.js").read_bytes() == b"needle()\n"
    assert (dependencies / "src" / "app.min.js").read_bytes() == b"needle()\n"
    forced = structured(
        await client.call_tool("project_replace", {"find": "needle", "replace": "pin", "include_dependencies": True})
    )
    assert forced["files_changed"] == 5
    assert (dependencies / "node_modules" / "lib" / "index.js").read_bytes() == b"pin()\n"
    assert (dependencies / "src" / "app.js.map").read_bytes() == b"pin\n"
    assert (dependencies / ".venv" / "site.py").read_bytes() == b"needle\n"  # hidden: never walked


async def test_project_replace_accepts_create_backup_false_and_parallel_and_still_backs_up(
    client: Client, project: Path
) -> None:
    arguments = {"find": "TODO", "replace": "DONE", "file_types": ".py", "create_backup": False, "parallel": False}
    result = await client.call_tool("project_replace", arguments)
    data = structured(result)
    assert data["files_changed"] == 2
    assert "backed up all the same" in data["note"]
    assert data["note"] in text_of(result)
    assert (project / "src" / "pkg" / "util.py").read_bytes() == b"def helper():\n    return 'DONE later'\n"
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]}))
    assert (project / "src" / "pkg" / "util.py").read_bytes() == b"def helper():\n    return 'TODO later'\n"


async def test_project_replace_takes_path_globs_as_text_and_a_directory_path_as_a_prefix(
    client: Client, project: Path
) -> None:
    excluded = structured(
        await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE", "exclude_paths": "src/pkg"})
    )
    assert [Path(f["path"]).name for f in excluded["files"]] == ["app.py", "win.txt"]
    assert (project / "src" / "pkg" / "util.py").read_bytes() == b"def helper():\n    return 'TODO later'\n"
    included = structured(
        await client.call_tool(
            "project_replace", {"find": "TODO", "replace": "DONE", "include_paths": "src/pkg/**, nothing/**"}
        )
    )
    assert [Path(f["path"]).name for f in included["files"]] == ["util.py"]
    assert (project / "src" / "pkg" / "util.py").read_bytes() == b"def helper():\n    return 'DONE later'\n"


async def test_files_skipped_for_size_or_as_binary_are_named_with_the_way_to_include_them(
    connect: ClientFactory, root: Path
) -> None:
    (root / "big.log").write_bytes(b"x" * 2000 + b"\nneedle at the end\n")
    (root / "small.txt").write_bytes(b"a needle\n")
    (root / "blob.bin").write_bytes(b"\x00needle\x00")
    (root / "other.bin").write_bytes(b"\x00nothing\x00")
    async with connect(max_file_size=1000) as client:
        found = await client.call_tool("search_files", {"pattern": "needle", "include_content": True})
        data = structured(found)
        assert (data["total_matches"], data["skipped_too_large"], data["skipped_too_large_paths"]) == (
            1,
            1,
            ["big.log"],
        )
        assert "--max-file-size: big.log" in text_of(found)
        assert 'mode="tail"' in text_of(found)
        replaced = await client.call_tool("project_replace", {"find": "needle", "replace": "pin"})
        data = structured(replaced)
        assert (data["files_changed"], data["skipped_too_large_paths"], data["skipped_binary_paths"]) == (
            1,
            ["big.log"],
            ["blob.bin"],
        )
        assert "Left alone as binary or undecodable: blob.bin." in text_of(replaced)
        named = structured(await client.call_tool("search_files", {"pattern": "*.log"}))
        assert [Path(file).name for file in named["files"]] == ["big.log"]  # a name search lists big files
    assert (root / "small.txt").read_bytes() == b"a pin\n"
    assert (root / "big.log").read_bytes().endswith(b"needle at the end\n")
    assert (root / "blob.bin").read_bytes() == b"\x00needle\x00"


async def test_project_replace_in_a_gitignored_directory_says_so_and_names_the_flag(client: Client, root: Path) -> None:
    (root / ".gitignore").write_text("generated/\n", encoding="utf-8")
    (root / "generated").mkdir()
    (root / "generated" / "a.txt").write_text("needle\n", encoding="utf-8")
    ignored = await client.call_tool("project_replace", {"find": "needle", "replace": "pin", "path": "generated"})
    assert (structured(ignored)["files_changed"], structured(ignored)["excluded_by_gitignore"]) == (0, True)
    assert "excluded by a .gitignore: run it again with respect_gitignore=false to change its files." in text_of(
        ignored
    )
    assert (root / "generated" / "a.txt").read_bytes() == b"needle\n"
    args = {"find": "needle", "replace": "pin", "path": "generated", "respect_gitignore": False}
    replaced = structured(await client.call_tool("project_replace", args))
    assert (replaced["files_changed"], replaced.get("excluded_by_gitignore")) == (1, None)
    assert (root / "generated" / "a.txt").read_bytes() == b"pin\n"


async def test_project_replace_on_one_file_above_the_size_limit_names_it_as_left_alone(
    connect: ClientFactory, root: Path
) -> None:
    (root / "big.txt").write_bytes(b"x" * 2000 + b"\nneedle\n")
    async with connect(max_file_size=1000) as client:
        replaced = await client.call_tool("project_replace", {"find": "needle", "replace": "pin", "path": "big.txt"})
    data = structured(replaced)
    assert (data["files_changed"], data["skipped_too_large"], data["skipped_too_large_paths"]) == (0, 1, ["big.txt"])
    assert "Left alone, above the server's --max-file-size: big.txt." in text_of(replaced)
    assert (root / "big.txt").read_bytes() == b"x" * 2000 + b"\nneedle\n"


async def test_skipped_files_and_directories_a_deny_rule_hides_are_never_named(
    connect: ClientFactory, root: Path
) -> None:
    (root / "private" / "node_modules").mkdir(parents=True)
    (root / "private" / "node_modules" / "dep.js").write_bytes(b"needle\n")
    (root / "private" / "big.txt").write_bytes(b"x" * 2000 + b"\nneedle\n")
    (root / "big.log").write_bytes(b"y" * 2000 + b"\nneedle\n")
    (root / "small.txt").write_bytes(b"a needle\n")
    async with connect(max_file_size=1000, deny=("private/",)) as client:
        answers = [
            await client.call_tool("search_files", {"pattern": "needle", "include_content": True}),
            await client.call_tool("search_files", {"pattern": "needle", "count_only": True}),
            await client.call_tool("search_files", {"pattern": "*"}),
            await client.call_tool("project_replace", {"find": "needle", "replace": "pin"}),
        ]
    for answer in answers:
        assert "private" not in text_of(answer)
        assert "private" not in json.dumps(structured(answer))
    assert [structured(answer).get("skipped_too_large_paths") for answer in answers] == [["big.log"]] * 2 + [
        None,
        ["big.log"],
    ]
    assert (root / "private" / "big.txt").read_bytes() == b"x" * 2000 + b"\nneedle\n"
    assert (root / "private" / "node_modules" / "dep.js").read_bytes() == b"needle\n"
    assert (root / "small.txt").read_bytes() == b"a pin\n"


async def test_content_search_names_the_binary_files_whose_bytes_hold_the_pattern(client: Client, root: Path) -> None:
    (root / "notes.txt").write_bytes(b"a needle\n")
    (root / "blob.bin").write_bytes(b"\x00needle\x00")
    (root / "other.bin").write_bytes(b"\x00nothing\x00")

    found = await client.call_tool("search_files", {"pattern": "needle", "include_content": True})

    data = structured(found)
    assert (data["total_matches"], data["skipped_binary"], data["skipped_binary_paths"]) == (1, 1, ["blob.bin"])
    assert "Binary, not searched as text, yet their bytes hold the pattern: blob.bin." in text_of(found)
    assert (root / "blob.bin").read_bytes() == b"\x00needle\x00"


async def test_binary_files_are_named_for_a_pattern_folding_k_or_s_and_for_whole_words(
    client: Client, root: Path, tool_engine: str
) -> None:
    # Case-insensitive, k and s also match U+212A and U+017F: binary files holding such a word were never named.
    (root / "keys.bin").write_bytes(b"password=hunter2 mask key\x00\x01\x02")

    named = {}
    for pattern, whole_word in (("PASSWORD", False), ("mask", True), ("hunter", True)):  # hunter2: no whole word
        args = {"pattern": pattern, "whole_word": whole_word, "include_content": True}
        named[pattern] = structured(await client.call_tool("search_files", args)).get("skipped_binary_paths")

    assert named == {"PASSWORD": ["keys.bin"], "mask": ["keys.bin"], "hunter": None}
    assert (root / "keys.bin").read_bytes() == b"password=hunter2 mask key\x00\x01\x02"


async def test_a_binary_file_just_written_is_named_alike_by_both_engines_after_its_bom(
    client: Client, root: Path, tool_engine: str
) -> None:
    # Written a moment ago, the file is looked at again after rg's run (it may have changed meanwhile): that look
    # must read it as rg and the Python engine do, past its BOM, or "^needle" is lost.
    (root / "blob.bin").write_bytes(b"\xef\xbb\xbfneedle\x00tail\n")
    (root / "late.bin").write_bytes(b"\x00\xef\xbb\xbfneedle\n")  # a BOM only counts first

    data = structured(await client.call_tool("search_files", {"pattern": "^needle", "include_content": True}))

    assert (data["total_matches"], data["skipped_binary_paths"]) == (0, ["blob.bin"])
    assert (root / "blob.bin").read_bytes() == b"\xef\xbb\xbfneedle\x00tail\n"


async def test_project_replace_finds_its_files_as_python_reads_them_whatever_the_encoding_or_case(
    client: Client, root: Path
) -> None:
    (root / "latin.txt").write_bytes("caf\u00e9 Widget\n".encode("latin-1"))
    (root / "dotted.txt").write_bytes("W\u0130DGET\n".encode())  # Python's IGNORECASE: I with a dot is an i
    (root / "utf16.txt").write_bytes("\ufeffa widget\n".encode("utf-16-le"))
    (root / "none.txt").write_bytes(b"nothing here\n")
    data = structured(
        await client.call_tool("project_replace", {"find": "widget", "replace": "gear", "case_sensitive": False})
    )
    assert sorted(Path(f["path"]).name for f in data["files"]) == ["dotted.txt", "latin.txt", "utf16.txt"]
    assert (root / "latin.txt").read_bytes() == "caf\u00e9 gear\n".encode("latin-1")
    assert (root / "dotted.txt").read_bytes() == b"gear\n"
    assert (root / "utf16.txt").read_bytes() == "\ufeffa gear\n".encode("utf-16-le")
    assert (root / "none.txt").read_bytes() == b"nothing here\n"


async def test_a_match_deep_in_a_minified_line_comes_back_with_the_text_around_it(
    client: Client, project: Path
) -> None:
    line = ";".join(f"function f{i}(){{return {i}}}" for i in range(10_000))
    (project / "bundle.js").write_text(line + "\n", encoding="utf-8")
    args = {"path": "bundle.js", "pattern": "f9876\\(", "include_content": True}
    result = await client.call_tool("search_files", args)
    (match,) = structured(result)["matches"]
    offset = match["line_content_offset"]
    assert match["line_content"] == "… " + line[offset : offset + 496] + " …"
    assert len(match["line_content"]) == 500
    assert "f9876(){return 9876}" in match["line_content"]
    assert "f9876(){return 9876}" in text_of(result)
    assert line[match["match_start"] : match["match_end"]] == "f9876("
    assert (project / "bundle.js").read_text(encoding="utf-8") == line + "\n"


async def test_a_content_search_of_many_files_stays_with_ripgrep_under_a_small_stack_limit(
    client: Client, root: Path
) -> None:
    # The argument space of a run is a quarter of the stack limit (256 KiB at 1 MiB): rg runs given the files
    # holding a match by name took 512 KiB, failed to start (E2BIG) and the search fell back to Python.
    if ripgrep_path() is None:
        pytest.skip("rg is not installed")
    names = [f"{i:04}-" + "n" * 200 + ".txt" for i in range(1500)]
    for name in names:
        (root / name).write_bytes(b"a needle here\n")
    soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (1 << 20, hard))
    try:
        found = structured(await client.call_tool("search_files", {"pattern": "needle", "include_content": True}))
    finally:
        resource.setrlimit(resource.RLIMIT_STACK, (soft, hard))
    assert found["engine"] == "ripgrep"
    assert found["files_with_matches"] == len(names)
    assert all((root / name).read_bytes() == b"a needle here\n" for name in names)


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("search_files", {"pattern": "\ud800", "include_content": True, "literal": True}),
        ("search_files", {"pattern": "a\ud800", "include_content": True}),
        ("project_replace", {"find": "\ud800", "replace": "x"}),
        ("project_replace", {"find": "a\ud800", "replace": "x", "literal": False}),
    ],
)
async def test_a_pattern_holding_a_lone_surrogate_is_invalid_params_in_both_engines_and_changes_nothing(
    client: Client, root: Path, tool_engine: str, tool: str, arguments: dict[str, object]
) -> None:
    (root / "a.txt").write_bytes(b"a one\n")

    result = await client.call_tool(tool, arguments)

    assert error_code(result) == "invalid_params"
    assert "U+D800" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"a one\n"


async def test_project_replace_names_no_skipped_file_that_its_include_or_exclude_paths_leave_out(
    connect: ClientFactory, root: Path, tool_engine: str
) -> None:
    tree = {
        "a.txt": b"needle\n",
        "gen/big.txt": b"needle " * 200,
        "gen/node_modules/dep.js": b"needle\n",
        "gen/app.min.js": b"needle",
        "keep/big.txt": b"needle " * 200,
    }
    for name, data in tree.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    async with connect(max_file_size=1000) as client:
        excluded = structured(
            await client.call_tool("project_replace", {"find": "needle", "replace": "pin", "exclude_paths": ["gen"]})
        )
        included = structured(
            await client.call_tool(
                "project_replace", {"find": "needle", "replace": "pin", "include_paths": ["keep/**"], "preview": True}
            )
        )

    for answer in (excluded, included):
        assert (answer["skipped_too_large"], answer["skipped_too_large_paths"]) == (1, ["keep/big.txt"])
    assert excluded.get("default_skipped") is None
    assert {name: (root / name).read_bytes() for name in tree} == {**tree, "a.txt": b"pin\n"}


async def test_project_replace_refuses_before_any_write_a_change_taking_a_utf16_file_above_the_size_limit(
    connect: ClientFactory, root: Path, tool_engine: str
) -> None:
    tree = {
        "a.txt": b"needle\n",
        "wide.txt": b"\xff\xfe" + ("needle " * 6).encode("utf-16-le"),  # 86 bytes, 42 characters
    }
    for name, data in tree.items():
        (root / name).write_bytes(data)
    async with connect(max_file_size=100) as client:
        for preview in (True, False):
            args = {"find": "needle", "replace": "needle!!", "preview": preview}  # 54 characters, 110 bytes
            refused = await client.call_tool("project_replace", args)

            assert error_code(refused) == "too_large"
            assert "wide.txt 110 bytes" in text_of(refused)
            assert {name: (root / name).read_bytes() for name in tree} == tree


@pytest.mark.parametrize(
    ("glob", "expected"),
    [
        ("*/x", []),
        ("src/?", []),
        ("s*/[x]", []),
        ("src/*", ["src/b.py"]),
        ("*/x/c.py", ["src/x/c.py"]),
        ("src/**", ["src/b.py", "src/x/c.py"]),
        ("**/*", ["src/b.py", "src/x/c.py"]),
        ("src/**/", []),
    ],
)
async def test_a_path_glob_names_whole_paths_not_the_files_below_a_directory_it_names(
    client: Client, root: Path, tool_engine: str, glob: str, expected: list[str]
) -> None:
    (root / "src" / "x").mkdir(parents=True)
    (root / "src" / "b.py").write_bytes(b"needle\n")
    (root / "src" / "x" / "c.py").write_bytes(b"needle\n")

    by_name = structured(await client.call_tool("search_files", {"pattern": glob}))
    by_type = structured(
        await client.call_tool("search_files", {"pattern": "needle", "include_content": True, "file_types": glob})
    )

    assert [Path(file).relative_to(root).as_posix() for file in by_name["files"]] == expected
    assert [Path(file).relative_to(root).as_posix() for file in by_type["files"]] == expected
    assert (root / "src" / "x" / "c.py").read_bytes() == b"needle\n"


async def test_a_negated_path_glob_naming_a_directory_leaves_out_every_file_below_it(
    client: Client, root: Path, tool_engine: str
) -> None:
    (root / "src" / "x").mkdir(parents=True)
    (root / "src" / "b.py").write_bytes(b"needle\n")
    (root / "src" / "x" / "c.py").write_bytes(b"needle\n")

    found = structured(await client.call_tool("search_files", {"pattern": "*", "file_types": ["**/*.py", "!src/?"]}))

    assert [Path(file).relative_to(root).as_posix() for file in found["files"]] == ["src/b.py"]  # as rg's -g
    assert (root / "src" / "x" / "c.py").read_bytes() == b"needle\n"


@pytest.mark.parametrize(
    ("glob", "expected"),
    [("./*.py", ["a.py"]), ("./src/*.py", ["src/b.py"]), ("././src/**", ["src/b.py", "src/x/c.py"])],
)
async def test_a_path_glob_starting_with_dot_slash_is_read_from_the_searched_directory(
    client: Client, root: Path, tool_engine: str, glob: str, expected: list[str]
) -> None:
    (root / "src" / "x").mkdir(parents=True)
    for name in ("a.py", "src/b.py", "src/x/c.py"):
        (root / name).write_bytes(b"needle\n")

    by_name = structured(await client.call_tool("search_files", {"pattern": glob}))
    by_type = structured(
        await client.call_tool("search_files", {"pattern": "needle", "include_content": True, "file_types": glob})
    )

    assert [Path(file).relative_to(root).as_posix() for file in by_name["files"]] == expected
    assert [Path(file).relative_to(root).as_posix() for file in by_type["files"]] == expected
    assert (root / "a.py").read_bytes() == b"needle\n"


async def test_a_glob_starting_with_the_searched_directory_as_an_absolute_path_is_read_from_there(
    client: Client, root: Path, tool_engine: str
) -> None:
    (root / "src" / "x").mkdir(parents=True)
    for name in ("a.py", "src/b.py", "src/x/c.py"):
        (root / name).write_bytes(b"needle\n")

    top = structured(await client.call_tool("search_files", {"pattern": f"{root}/*.py"}))
    below = structured(await client.call_tool("search_files", {"pattern": f"{root}/src/*.py", "path": "src"}))
    typed = structured(
        await client.call_tool(
            "search_files", {"pattern": "needle", "include_content": True, "file_types": f"{root}/src/**"}
        )
    )

    assert [Path(file).relative_to(root).as_posix() for file in top["files"]] == ["a.py"]
    assert [Path(file).relative_to(root).as_posix() for file in below["files"]] == ["src/b.py"]
    assert [Path(file).relative_to(root).as_posix() for file in typed["files"]] == ["src/b.py", "src/x/c.py"]
    assert top["pattern"] == f"{root}/*.py"  # echoed as written
    assert (root / "a.py").read_bytes() == b"needle\n"


async def test_an_empty_name_pattern_or_an_invalid_name_regex_is_refused_with_the_way_on(
    client: Client, root: Path, tool_engine: str
) -> None:
    (root / "a.py").write_bytes(b"x")

    empty = await client.call_tool("search_files", {"pattern": ""})
    invalid = await client.call_tool("search_files", {"pattern": "*.py", "regex": True})

    assert (error_code(empty), error_code(invalid)) == ("invalid_params", "invalid_params")
    assert "Pass a glob such as '*.py', or a regex on the name." in text_of(empty)
    assert "Escape its special characters, or pass regex=false to read it as a glob." in text_of(invalid)
    assert (root / "a.py").read_bytes() == b"x"


@pytest.mark.parametrize("spelled", ["./src/pkg", "{project}/src/pkg"])
async def test_project_replace_exclude_paths_spelled_from_here_or_absolute_leave_those_files_unchanged(
    client: Client, project: Path, spelled: str
) -> None:
    exclude = spelled.format(project=project.as_posix())
    result = structured(
        await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE", "exclude_paths": exclude})
    )
    assert [Path(f["path"]).name for f in result["files"]] == ["app.py", "win.txt"]
    assert (project / "src" / "pkg" / "util.py").read_bytes() == b"def helper():\n    return 'TODO later'\n"


async def test_project_replace_exclude_paths_spelled_from_here_name_the_top_directory_not_any_of_that_name(
    client: Client, project: Path
) -> None:
    (project / "lib" / "pkg").mkdir(parents=True)
    (project / "lib" / "pkg" / "deep.py").write_bytes(b"# TODO deep\n")

    result = structured(
        await client.call_tool("project_replace", {"find": "TODO", "replace": "DONE", "exclude_paths": "./pkg"})
    )

    assert "lib/pkg/deep.py" in [Path(f["path"]).relative_to(project).as_posix() for f in result["files"]]
    assert (project / "lib" / "pkg" / "deep.py").read_bytes() == b"# DONE deep\n"


async def test_escaped_braces_and_commas_and_a_list_items_comma_are_literal_in_exclude_paths_and_file_types(
    client: Client, root: Path
) -> None:
    for name in ("{a,b}", "a", "x,y", "x"):
        (root / name).mkdir()
        (root / name / "f.txt").write_bytes(b"TODO\n")
    arguments = {"find": "TODO", "replace": "DONE", "exclude_paths": ["\\{a,b\\}", "x,y"]}

    replaced = structured(await client.call_tool("project_replace", arguments))
    found = structured(
        await client.call_tool(
            "search_files", {"pattern": "TODO", "include_content": True, "file_types": "\\{a,b\\}/*, x\\,y/*"}
        )
    )

    assert sorted(Path(f["path"]).relative_to(root).as_posix() for f in replaced["files"]) == ["a/f.txt", "x/f.txt"]
    assert {name: (root / name / "f.txt").read_bytes() for name in ("{a,b}", "a", "x,y", "x")} == {
        "{a,b}": b"TODO\n",
        "a": b"DONE\n",
        "x,y": b"TODO\n",
        "x": b"DONE\n",
    }
    assert sorted(Path(f).relative_to(root).as_posix() for f in found["files"]) == ["x,y/f.txt", "{a,b}/f.txt"]


@pytest.mark.parametrize("preview", [True, False])
async def test_a_project_replace_whose_globs_expand_past_the_limit_is_invalid_params_with_or_without_preview(
    client: Client, root: Path, preview: bool
) -> None:
    # Without preview the confirmation's look built the request before the tool ran: its refusal was internal_error.
    (root / "a.txt").write_bytes(b"hello\n")
    twenty = "{" + ",".join(map(str, range(20))) + "}"
    arguments = {"find": "hello", "replace": "bye", "include_paths": twenty * 2, "preview": preview}
    result = await client.call_tool("project_replace", arguments)
    assert error_code(result) == "invalid_params"
    assert "expands to more than 256 globs" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"hello\n"
