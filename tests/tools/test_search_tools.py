"""search_files, project_replace and gitignore-aware listing through the in-memory Client, in both eras."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from mcp import Client

from tests.conftest import error_code, structured, text_of

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
    files = {Path(m["file"]).name for m in structured(await client.call_tool("search_files", args))["matches"]}
    assert {"out.py", "debug.log", ".hidden.py"} <= files
    assert "blob.bin" not in files


async def test_file_types_accept_extensions_and_globs_for_both_searches(client: Client, project: Path) -> None:
    for types in (["py"], [".py"], ["*.py"]):
        content = structured(
            await client.call_tool("search_files", {"pattern": "TODO", "include_content": True, "file_types": types})
        )
        assert {Path(m["file"]).name for m in content["matches"]} == {"app.py", "util.py"}
    names = structured(await client.call_tool("search_files", {"pattern": "*", "file_types": ["py"]}))
    assert [Path(f).name for f in names["files"]] == ["app.py", "util.py"]


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
    text = text_of(
        await client.call_tool("search_files", {"pattern": "needle", "count_only": True, "return_lines": True})
    )
    assert (
        f"{a} at lines: 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40 ... (+10 more)"
        in text
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


async def test_output_format_json_puts_the_result_itself_in_the_text_block(client: Client, project: Path) -> None:
    result = await client.call_tool(
        "search_files", {"pattern": "todo", "include_content": True, "output_format": "json"}
    )
    assert json.loads(text_of(result)) == structured(result)
    verbose = text_of(
        await client.call_tool("search_files", {"pattern": "todo", "include_content": True, "output_format": "text"})
    )
    assert verbose.startswith("3 match(es) in 3 file(s):\n")


async def test_a_text_block_over_500_kb_is_cut_with_a_way_forward(client: Client, root: Path) -> None:
    (root / "wide.txt").write_text(("needle " + "x" * 480 + "\n") * 1100, encoding="utf-8")
    result = await client.call_tool("search_files", {"pattern": "needle", "include_content": True})
    text = text_of(result)
    assert len(text) < 501_000
    assert text.endswith(
        "[truncated: the response exceeded 500 KB. Use count_only=true, a lower max_results, or a "
        "narrower path or pattern.]"
    )
    assert structured(result)["returned_matches"] == 1000


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
