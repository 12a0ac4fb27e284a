"""batch_operations pipeline_json through the in-memory Client, in both eras: the bytes on disk are the oracle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult

from tests.conftest import ClientFactory, error_code, structured, text_of

pytestmark = pytest.mark.anyio


async def pipeline(client: Client, **request: Any) -> CallToolResult:
    return await client.call_tool("batch_operations", {"pipeline_json": {"name": "test", **request}})


def tree(base: Path) -> dict[str, bytes]:
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


def meta(result: CallToolResult) -> dict[str, Any]:
    assert result.meta is not None
    return dict(result.meta["fsguard/error"])


SEARCH_EDIT_COUNT: list[dict[str, Any]] = [
    {"id": "find", "action": "search", "params": {"pattern": "old_api", "path": "{base}"}},
    {"id": "docs", "action": "search", "params": {"pattern": "keep", "path": "{base}"}},
    {
        "id": "fix",
        "action": "edit",
        "input_from": "find",
        "params": {"old_text": "old_api", "new_text": "new_api_v{{find.files_count}}"},
        "condition": {"type": "has_matches", "step_ref": "find"},
    },
    {
        "id": "check",
        "action": "count_occurrences",
        "input_from": "find",
        "params": {"pattern": "new_api_v{{find.files_count}}"},
        "condition": {"type": "count_gt", "step_ref": "find", "value": 0},
    },
]


def steps_under(base: str) -> list[dict[str, Any]]:
    return [
        {
            **step,
            "params": {k: v.replace("{base}", base) if isinstance(v, str) else v for k, v in step["params"].items()},
        }
        for step in SEARCH_EDIT_COUNT
    ]


async def test_search_edit_count_with_a_condition_and_a_template_gives_the_same_files_sequential_and_parallel(
    client: Client, root: Path
) -> None:
    for base in ("seq", "par"):
        (root / base / "pkg").mkdir(parents=True)
        (root / base / "a.py").write_bytes(b"import old_api\r\nold_api.run(old_api)\r\n")
        (root / base / "pkg" / "b.py").write_bytes(b"\xef\xbb\xbfx = old_api  # keep\n")
        (root / base / "c.txt").write_text("nothing here, keep\n", encoding="utf-8")
    sequential = structured(await pipeline(client, steps=steps_under("seq")))
    parallel = structured(await pipeline(client, steps=steps_under("par"), parallel=True))

    assert tree(root / "seq") == tree(root / "par")
    assert tree(root / "seq") == {
        "a.py": b"import new_api_v2\r\nnew_api_v2.run(new_api_v2)\r\n",
        "c.txt": b"nothing here, keep\n",
        "pkg/b.py": b"\xef\xbb\xbfx = new_api_v2  # keep\n",
    }
    for result in (sequential, parallel):
        assert (result["status"], result["completed"], result["failed"]) == ("applied", 4, 0)
        assert (result["files_affected"], result["total_edits"], result["risk_level"]) == (2, 4, "LOW")
        assert [s["count"] for s in result["steps"]] == [4, 2, 4, 4]
    assert [s["level"] for s in parallel["steps"]] == [1, 1, 2, 3]
    assert all("level" not in s for s in sequential["steps"])
    assert sequential["steps"][2]["file_counts"] == {str(root / "seq" / "a.py"): 3, str(root / "seq/pkg/b.py"): 1}


async def test_a_search_steps_file_types_take_an_extension_in_any_case_and_a_brace_glob_whole_in_a_comma_list(
    client: Client, root: Path, tool_engine: str
) -> None:
    for name in ("a.go", "d.GO", "notes.txt", "a.md", "b.md"):
        (root / name).write_bytes(b"TODO\n")
    # the comma inside braces was cut as the list's, into "a*.{md" and "rs}", which took no file
    steps = [{"id": "find", "action": "search", "params": {"pattern": "TODO", "file_types": ".go, a*.{md,rs}"}}]
    step = structured(await pipeline(client, steps=steps))["steps"][0]
    assert [Path(f).name for f in step["files"]] == ["a.go", "a.md", "d.GO"]


async def test_search_then_count_reports_each_file_and_the_total(client: Client, root: Path) -> None:
    (root / "a.go").write_text("TODO one\nTODO two\n", encoding="utf-8")
    (root / "b.go").write_text("// TODO three\n", encoding="utf-8")
    (root / "c.go").write_text("done\n", encoding="utf-8")
    result = await pipeline(
        client,
        steps=[
            {"id": "find", "action": "search", "params": {"pattern": "TODO", "file_types": ["go"]}},
            {"id": "tally", "type": "count_occurrences", "input_from": "find", "params": {"pattern": "TODO"}},
        ],
    )
    data = structured(result)
    assert (data["completed"], data["files_affected"], data["steps"][1]["count"]) == (2, 2, 3)
    assert "backup_id" not in data  # nothing changed: no group
    assert text_of(result).splitlines()[:7] == [
        "Pipeline: test",
        "Steps: 2/2 completed",
        "",
        "Step Results:",
        "",
        "1. find [search] OK",
        "   Files: 2 matched, count 3",
    ]
    assert "     - a.go (2)" in text_of(result)  # text names paths relative to the root
    assert text_of(result).endswith("Files affected: 2\nTotal edits: 0\nOverall risk: LOW")


async def test_a_search_step_given_a_file_as_path_searches_that_file_and_feeds_the_next_step(
    client: Client, root: Path
) -> None:
    (root / "ok.go").write_bytes(b"package main\n// package note\n")
    (root / "other.go").write_bytes(b"package other\n")
    result = await pipeline(
        client,
        steps=[
            {"id": "readok", "action": "search", "params": {"path": str(root / "ok.go"), "pattern": "package"}},
            {"id": "fix", "action": "edit", "input_from": "readok", "params": {"old_text": "note", "new_text": "N"}},
        ],
    )
    data = structured(result)
    assert [step.get("error") for step in data["steps"]] == [None, None]
    assert (data["steps"][0]["count"], data["files_affected"]) == (2, 1)
    assert (root / "ok.go").read_bytes() == b"package main\n// package N\n"
    assert (root / "other.go").read_bytes() == b"package other\n"


async def test_a_dry_run_writes_nothing_and_reports_what_each_step_would_do(client: Client, root: Path) -> None:
    (root / "f.txt").write_text("alpha beta alpha\n", encoding="utf-8")
    result = structured(
        await pipeline(
            client,
            dry_run=True,
            steps=[
                {"id": "find", "action": "search", "params": {"pattern": "alpha"}},
                {"id": "fix", "action": "edit", "input_from": "find", "params": {"old_text": "alpha", "new_text": "z"}},
                {"id": "gone", "action": "delete", "input_from": "find"},
            ],
        )
    )
    assert (root / "f.txt").read_text(encoding="utf-8") == "alpha beta alpha\n"
    assert result["status"] == "dry_run"
    assert "backup_id" not in result
    assert [(s["status"], s.get("edits")) for s in result["steps"]] == [("ok", None), ("planned", 2), ("planned", None)]


async def test_a_failing_step_stops_the_run_and_rolls_back_everything_the_pipeline_changed(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "b.txt").write_bytes(b"one\n")
    result = await pipeline(
        client,
        steps=[
            {"id": "find", "action": "search", "params": {"pattern": "one"}},
            {"id": "fix", "action": "edit", "input_from": "find", "params": {"old_text": "one", "new_text": "1"}},
            {"id": "out", "action": "copy", "input_from": "find", "params": {"destination": "made/deep"}},
            {"id": "boom", "action": "edit", "input_from": "find", "params": {"old_text": "absent", "new_text": "x"}},
            {"id": "never", "action": "delete", "input_from": "find"},
        ],
    )
    assert error_code(result) == "batch_failed"
    message = text_of(result)
    assert message.startswith(
        "pipeline step 4 'boom' (edit): edit matched nothing in any of its 2 input files, so nothing was written"
    )
    # The copies were named as bare file names: a.txt and made/deep/a.txt both read "a.txt".
    listed = "(a.txt, b.txt, made, made/deep, made/deep/a.txt and 1 more)"
    assert f"Rolled back all 6 changes the pipeline had made {listed}" in message
    assert "as they were before it ran" in message
    assert tree(root) == {"a.txt": b"one\r\ntwo\r\n", "b.txt": b"one\n"}
    assert not (root / "made").exists()
    fields = meta(result)
    assert (fields["failed_index"], fields["failed_id"], fields["error_code"]) == (4, "boom", "no_match")
    assert set(fields["rolled_back"]) >= {str(root / "a.txt"), str(root / "made/deep/a.txt"), str(root / "made")}
    assert "backup_id" not in fields  # nothing stayed changed


async def test_without_stop_on_error_the_run_goes_on_and_its_group_reverts_what_it_changed(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_text("apple banana\n", encoding="utf-8")
    result = await pipeline(
        client,
        stop_on_error=False,
        steps=[
            {"id": "fix", "action": "edit", "params": {"files": ["a.txt"], "old_text": "apple", "new_text": "pear"}},
            {"id": "bad", "action": "read_ranges", "params": {"files": ["missing.txt"]}},
            {"id": "more", "action": "edit", "params": {"path": "a.txt", "old_text": "banana", "new_text": "fig"}},
            {
                "id": "ifbad",
                "action": "count_occurrences",
                "params": {"files": ["a.txt"], "pattern": "fig"},
                "condition": {"type": "step_failed", "step_ref": "bad"},
            },
        ],
    )
    data = structured(result)
    assert (data["status"], data["completed"], data["failed"]) == ("partial", 3, 1)
    assert (data["steps"][1]["status"], data["steps"][1]["error_code"]) == ("failed", "not_found")
    assert data["steps"][3]["count"] == 1
    assert (root / "a.txt").read_text(encoding="utf-8") == "pear fig\n"
    restored = structured(await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]}))
    assert restored["action"] == "restore"
    assert (root / "a.txt").read_text(encoding="utf-8") == "apple banana\n"


async def test_a_high_risk_edit_is_blocked_without_force_and_runs_with_it(client: Client, root: Path) -> None:
    (root / "big.txt").write_text("x " * 600, encoding="utf-8")
    steps = [{"id": "wide", "action": "edit", "params": {"files": ["big.txt"], "old_text": "x", "new_text": "y"}}]
    blocked = await pipeline(client, steps=steps)
    assert error_code(blocked) == "batch_failed"
    assert meta(blocked)["error_code"] == "risk_blocked"
    assert "risk HIGH" in text_of(blocked)
    assert 'set "force": true at the top level of pipeline_json, beside "steps"' in text_of(blocked)
    assert (root / "big.txt").read_text(encoding="utf-8") == "x " * 600
    forced = structured(await pipeline(client, steps=steps, force=True))
    assert (forced["risk_level"], forced["total_edits"]) == ("HIGH", 600)
    assert (root / "big.txt").read_text(encoding="utf-8") == "y " * 600


async def test_force_given_to_a_step_or_its_params_is_refused_naming_the_pipelines_top_level(
    client: Client, root: Path
) -> None:
    (root / "big.txt").write_text("x " * 600, encoding="utf-8")
    params: dict[str, Any] = {"files": ["big.txt"], "old_text": "x", "new_text": "y"}
    step = {"id": "wide", "action": "edit", "params": params}
    for forced in ({**step, "force": True}, {**step, "params": {**params, "force": True}}):
        refused = await pipeline(client, steps=[forced])
        assert error_code(refused) == "invalid_params"
        assert (
            "unknown key 'force' (the pipeline's own: \"force\" goes at the top level of pipeline_json, beside "
            '"steps")'
        ) in text_of(refused)
    assert (root / "big.txt").read_text(encoding="utf-8") == "x " * 600


async def test_an_edit_step_takes_the_occurrence_its_ambiguous_match_error_offers_in_each_file(
    client: Client, root: Path
) -> None:
    (root / "a.txt").write_bytes(b"x = 1\nx = 1\nx = 1\n")
    (root / "b.txt").write_bytes(b"x = 1\r\nx = 1\r\n")
    params: dict[str, Any] = {"files": ["a.txt", "b.txt"], "old_text": "x = 1", "new_text": "x = 2"}
    refused = await pipeline(
        client, steps=[{"id": "one", "action": "edit", "params": {**params, "replace_all": False}}]
    )
    assert "pass occurrence=N to pick one" in text_of(refused)

    second = structured(
        await pipeline(client, steps=[{"id": "one", "action": "edit", "params": {**params, "occurrence": 2}}])
    )
    assert second["steps"][0]["edits"] == 2
    assert tree(root) == {"a.txt": b"x = 1\nx = 2\nx = 1\n", "b.txt": b"x = 1\r\nx = 2\r\n"}
    beyond = await pipeline(client, steps=[{"id": "one", "action": "edit", "params": {**params, "occurrence": 2}}])
    assert "occurrence 2 out of range (only 1 matches found) of old_text in b.txt" in text_of(beyond)
    assert tree(root) == {"a.txt": b"x = 1\nx = 2\nx = 1\n", "b.txt": b"x = 1\r\nx = 2\r\n"}
    await pipeline(client, steps=[{"id": "one", "action": "edit", "params": {**params, "occurrence": "-1"}}])
    assert tree(root) == {"a.txt": b"x = 1\nx = 2\nx = 2\n", "b.txt": b"x = 2\r\nx = 2\r\n"}

    for wrong, problem in (
        ({"occurrence": 1, "replace_all": True}, "params.occurrence changes one match and params.replace_all every"),
        ({"occurrence": "last"}, "params.occurrence must be a whole number (1 the first match, -1 the last)"),
    ):
        refused = await pipeline(client, steps=[{"id": "one", "action": "edit", "params": {**params, **wrong}}])
        assert error_code(refused) == "invalid_params"
        assert problem in text_of(refused)
    assert tree(root) == {"a.txt": b"x = 1\nx = 2\nx = 2\n", "b.txt": b"x = 2\r\nx = 2\r\n"}


async def test_a_false_condition_skips_the_step_and_leaves_the_file_alone(client: Client, root: Path) -> None:
    (root / "f.txt").write_text("keep me\n", encoding="utf-8")
    data = structured(
        await pipeline(
            client,
            steps=[
                {"id": "find", "action": "search", "params": {"pattern": "nowhere"}},
                {
                    "id": "fix",
                    "action": "edit",
                    "params": {"files": ["f.txt"], "old_text": "keep", "new_text": "lose"},
                    "condition": {"type": "has_matches", "step_ref": "find"},
                },
            ],
        )
    )
    assert data["steps"][1]["status"] == "skipped"
    assert data["steps"][1]["skip_reason"] == "condition false: has_matches on 'find': its count is 0"
    assert (root / "f.txt").read_text(encoding="utf-8") == "keep me\n"


async def test_multi_edit_and_regex_transform_edit_every_input_file(client: Client, root: Path) -> None:
    (root / "fruit.txt").write_text("apple pie\nbanana split\n", encoding="utf-8")
    (root / "v.txt").write_text("v1.2 and v3.4\n", encoding="utf-8")
    data = structured(
        await pipeline(
            client,
            steps=[
                {
                    "action": "multi_edit",
                    "params": {
                        "files": ["fruit.txt"],
                        "edits": [
                            {"old_text": "apple", "new_text": "orange"},
                            {"old_str": "banana", "new_str": "grape"},
                        ],
                    },
                },
                {
                    "action": "regex_transform",
                    "params": {
                        "files": "v.txt",
                        "patterns": [{"pattern": r"v(\d+)\.(\d+)", "replacement": "v$1-$2", "limit": 1}],
                    },
                },
            ],
        )
    )
    assert [s["edits"] for s in data["steps"]] == [2, 1]
    assert (root / "fruit.txt").read_text(encoding="utf-8") == "orange pie\ngrape split\n"
    assert (root / "v.txt").read_text(encoding="utf-8") == "v1-2 and v3.4\n"


async def test_copy_rename_and_delete_act_without_clobbering_and_one_restore_undoes_them(
    client: Client, root: Path, state_dir: Path
) -> None:
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_text("A\n", encoding="utf-8")
    (root / "src" / "b.txt").write_text("B\n", encoding="utf-8")
    (root / "taken").mkdir()
    (root / "taken" / "b.txt").write_text("mine\n", encoding="utf-8")
    before = tree(root)
    refused = await pipeline(
        client,
        steps=[
            {"id": "all", "action": "search", "params": {"pattern": "\\w", "regex": True, "path": "src"}},
            {"id": "mv", "action": "rename", "input_from": "all", "params": {"destination": "taken"}},
        ],
    )
    assert meta(refused)["error_code"] == "already_exists"
    assert tree(root) == before
    data = structured(
        await pipeline(
            client,
            steps=[
                {"id": "all", "action": "search", "params": {"pattern": "\\w", "regex": True, "path": "src"}},
                {"id": "cp", "action": "copy", "input_from": "all", "params": {"destination": "backup/copies"}},
                {"id": "mv", "action": "rename", "input_from": "all", "params": {"destination": "moved"}},
                {"id": "rm", "action": "delete", "input_from": "cp"},
            ],
        )
    )
    assert data["steps"][1]["files"] == [str(root / "backup/copies/a.txt"), str(root / "backup/copies/b.txt")]
    assert tree(root) == {"moved/a.txt": b"A\n", "moved/b.txt": b"B\n", "taken/b.txt": b"mine\n"}
    assert (root / "backup" / "copies").is_dir()
    structured(await client.call_tool("backup", {"action": "restore", "backup_id": data["backup_id"]}))
    assert tree(root) == before
    assert not (root / "moved").exists()
    assert not (root / "backup").exists()


async def test_read_ranges_aggregate_diff_and_merge_produce_content_and_file_sets(client: Client, root: Path) -> None:
    (root / "one.txt").write_text("line1\nline2\nline3\n", encoding="utf-8")
    (root / "two.txt").write_text("line1\nmodified\nline3\n", encoding="utf-8")
    (root / "both.txt").write_text("x\n", encoding="utf-8")
    data = structured(
        await pipeline(
            client,
            steps=[
                {"id": "a", "action": "aggregate", "params": {"files": ["one.txt", "both.txt"], "separator": "|"}},
                {"id": "b", "action": "aggregate", "params": {"files": ["two.txt", "both.txt"]}},
                {"id": "d", "action": "diff", "params": {"file_a": "one.txt", "file_b": "two.txt"}},
                {"id": "and", "action": "merge", "input_from_all": ["a", "b"], "params": {"mode": "intersection"}},
                {"id": "or", "action": "merge", "input_from_all": ["a", "b"]},
                {
                    "id": "r",
                    "action": "read_ranges",
                    "input_from": "and",
                    "params": {"ranges": [{"start": 1, "end": 1}]},
                },
                {"id": "r2", "action": "read_ranges", "params": {"files": "one.txt", "start_line": 2, "end_line": 3}},
            ],
            parallel=True,
        )
    )
    a, _, d, both, either, r, r2 = data["steps"]
    assert a["content"] == "line1\nline2\nline3\n|x\n"
    assert d["count"] == 1
    assert d["content"] == "--- a/one.txt\n+++ b/two.txt\n@@ -1,3 +1,3 @@\n line1\n-line2\n+modified\n line3"
    assert both["files"] == [str(root / "both.txt")]
    assert either["files"] == [str(root / "one.txt"), str(root / "both.txt"), str(root / "two.txt")]
    assert r["content"] == "==> both.txt <==\nx"
    assert r2["content"] == "==> one.txt <==\nline2\nline3"
    assert [s["level"] for s in data["steps"]] == [1, 1, 1, 2, 2, 3, 1]


async def test_a_malformed_pipeline_is_refused_whole_before_anything_runs(client: Client, root: Path) -> None:
    (root / "f.txt").write_text("a\n", encoding="utf-8")
    result = await client.call_tool(
        "batch_operations",
        {
            "pipeline_json": '{"name": "x", "steps": [{"id": "e", "action": "edit", "params": {"files": ["f.txt"], '
            '"old_text": "a", "new_text": "b"}}, '
            '{"action": "edit", "input_from": "zz", "params": {"new_text": "b"},},]}'
        },
    )
    assert error_code(result) == "invalid_params"
    assert text_of(result).splitlines()[:3] == [
        "pipeline_json has 3 problems; nothing ran:",
        "• step 2 'step-1': input_from 'zz' is a non-existent step; a step can only use the steps before it.",
        "• step 2 'step-1': edit needs params.old_text (the text to replace).",
    ]
    assert (root / "f.txt").read_text(encoding="utf-8") == "a\n"


async def test_paths_outside_the_roots_fail_the_step_with_access_denied(client: Client, root: Path) -> None:
    outside = root.parent / "outside.txt"
    outside.write_text("secret\n", encoding="utf-8")
    result = await pipeline(
        client,
        steps=[{"action": "edit", "params": {"files": [str(outside)], "old_text": "secret", "new_text": "x"}}],
    )
    assert meta(result)["error_code"] == "access_denied"
    assert outside.read_text(encoding="utf-8") == "secret\n"
    cond = await pipeline(
        client,
        steps=[{"action": "search", "params": {"pattern": "x"}, "condition": {"type": "file_exists", "path": "../x"}}],
    )
    assert meta(cond)["error_code"] == "access_denied"


async def test_the_compact_voice_is_one_line_with_the_failure(connect: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_text("one one\n", encoding="utf-8")
    async with connect(compact_mode=True) as client:
        result = await pipeline(
            client,
            stop_on_error=False,
            steps=[
                {"id": "fix", "action": "edit", "params": {"files": ["a.txt"], "old_text": "one", "new_text": "1"}},
                {"id": "nope", "action": "count_occurrences", "params": {"files": ["none.txt"], "pattern": "1"}},
            ],
        )
    data = structured(result)
    assert text_of(result) == (
        "PARTIAL: 1/2 steps | 1 file | 2 edits | nope:count_occurrences: none.txt does not exist. Check the path "
        "with list_directory. | "
        f"backup:{data['backup_id']}"
    )


async def test_delete_takes_a_link_itself_to_the_trash_and_leaves_its_target(client: Client, root: Path) -> None:
    (root / "target.txt").write_text("kept\n", encoding="utf-8")
    (root / "link.txt").symlink_to("target.txt")
    data = structured(await pipeline(client, steps=[{"action": "delete", "params": {"files": ["link.txt"]}}]))
    assert data["steps"][0]["files"] == [str(root / "link.txt")]
    assert not (root / "link.txt").is_symlink()
    assert (root / "target.txt").read_text(encoding="utf-8") == "kept\n"


async def test_a_pipeline_search_skips_dependency_dirs_and_minified_files_like_search_files(
    client: Client, root: Path
) -> None:
    (root / "node_modules" / "lib").mkdir(parents=True)
    (root / "node_modules" / "lib" / "index.js").write_bytes(b"old_api()\n")
    (root / "app.min.js").write_bytes(b"old_api()\n")
    (root / "app.js").write_bytes(b"old_api()\n")
    params: dict[str, Any] = {"pattern": "old_api", "path": str(root)}
    default = structured(await pipeline(client, steps=[{"id": "find", "action": "search", "params": params}]))
    assert default["steps"][0]["files"] == [str(root / "app.js")]
    params["include_dependencies"] = True
    everything = structured(await pipeline(client, steps=[{"id": "find", "action": "search", "params": params}]))
    assert sorted(everything["steps"][0]["files"]) == sorted(
        str(root / p) for p in ("app.js", "app.min.js", "node_modules/lib/index.js")
    )


@pytest.mark.parametrize(
    ("params", "found"),
    [
        ({"pattern": "k|line1"}, ["a.txt", "b.txt"]),  # regex syntax that compiles: the seed's guess, a regex
        ({"pattern": "k|line1", "regex": False}, []),
        ({"pattern": "f(x"}, ["c.txt"]),  # does not compile as a regex: plain text
        ({"pattern": "line"}, ["a.txt"]),
    ],
)
async def test_a_search_step_without_regex_reads_its_pattern_as_the_seed_guessed(
    client: Client, root: Path, params: dict[str, Any], found: list[str]
) -> None:
    for name, body in (("a.txt", "line1\n"), ("b.txt", "k\n"), ("c.txt", "f(x)\n")):
        (root / name).write_text(body, encoding="utf-8")
    data = structured(await pipeline(client, steps=[{"id": "s", "action": "search", "params": params}]))
    assert data["steps"][0]["files"] == [str(root / name) for name in found]


async def test_a_search_step_names_what_it_did_not_search_and_why_as_search_files_does(
    connect: ClientFactory, root: Path, tool_engine: str
) -> None:
    (root / "node_modules" / "lib").mkdir(parents=True)
    (root / "node_modules" / "lib" / "index.js").write_bytes(b"old_api()\n")
    (root / "big.log").write_bytes(b"old_api()\n" + b"x" * 200 + b"\n")
    (root / "blob.bin").write_bytes(b"\x00\x01old_api\x00")
    (root / "app.js").write_bytes(b"old_api()\n")
    steps = [{"id": "find", "action": "search", "params": {"pattern": "old_api", "path": str(root)}}]
    async with connect(max_file_size=100) as client:
        result = await pipeline(client, steps=steps)
    step = structured(result)["steps"][0]
    assert step["files"] == [str(root / "app.js")]
    assert step["not_searched"] == {
        "default_skipped": 1,
        "default_skipped_paths": ["node_modules/"],
        "skipped_too_large": 1,
        "skipped_too_large_paths": ["big.log"],
        "skipped_binary": 1,
        "skipped_binary_paths": ["blob.bin"],
    }
    assert (
        "Not searched: above --max-file-size (read them in ranges with read_file): big.log; binary, yet their "
        "bytes hold the pattern: blob.bin; skipped by default (params.include_dependencies=true searches them): "
        "node_modules/" in text_of(result)
    )


async def test_a_search_step_that_searched_everything_says_nothing_of_skips(client: Client, root: Path) -> None:
    (root / "app.js").write_bytes(b"old_api()\n")
    steps = [{"id": "find", "action": "search", "params": {"pattern": "old_api", "path": str(root)}}]
    result = await pipeline(client, steps=steps)
    assert "not_searched" not in structured(result)["steps"][0]
    assert "Not searched" not in text_of(result)


async def test_the_compact_voice_counts_one_edit_in_the_singular(connect: ClientFactory, root: Path) -> None:
    (root / "a.txt").write_text("one\n", encoding="utf-8")
    async with connect(compact_mode=True) as client:
        edit = {"id": "fix", "action": "edit", "params": {"files": ["a.txt"], "old_text": "one", "new_text": "1"}}
        result = await pipeline(client, steps=[edit])
    assert text_of(result).startswith("OK: 1/1 steps | 1 file | 1 edit |"), text_of(result)
    assert (root / "a.txt").read_bytes() == b"1\n"
    refused = await batch_pipeline_json(root, connect, {"name": "bad", "steps": [{"id": "x", "action": "nope"}]})
    assert "pipeline_json has 1 problem; nothing ran" in refused, refused


async def batch_pipeline_json(root: Path, connect: ClientFactory, request: dict[str, Any]) -> str:
    async with connect() as client:
        return text_of(await client.call_tool("batch_operations", {"pipeline_json": request}))


async def test_a_delete_of_one_missing_input_says_it_in_the_singular(client: Client, root: Path) -> None:
    (root / "a.txt").write_text("apple\n", encoding="utf-8")
    result = await pipeline(client, steps=[{"id": "rm", "action": "delete", "params": {"files": ["gone.txt"]}}])
    assert "1 input file does not exist: gone.txt; nothing was changed" in text_of(result), text_of(result)
    assert "moved or deleted it;" in text_of(result)
    assert (root / "a.txt").read_bytes() == b"apple\n"
