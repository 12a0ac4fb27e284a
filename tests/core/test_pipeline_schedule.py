"""The pure parts of a pipeline: parsing, levels, conditions and templates (no filesystem)."""

from __future__ import annotations

from typing import Any

import pytest

from fsguard.core.errors import InvalidParamsError
from fsguard.core.pipeline import Condition, Step, StepOutcome
from fsguard.core.pipeline_request import parse_pipeline
from fsguard.core.pipeline_schedule import (
    condition_holds,
    dependencies,
    kahn_levels,
    plan_levels,
    render,
    template_references,
)


def steps(*specs: dict[str, Any]) -> tuple[Step, ...]:
    return parse_pipeline({"name": "t", "steps": list(specs)}).steps


def search(step_id: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "action": "search", "params": {"pattern": "x"}, **extra}


def count(step_id: str, source: str, **extra: Any) -> dict[str, Any]:
    return {"id": step_id, "action": "count_occurrences", "input_from": source, "params": {"pattern": "x"}, **extra}


def edit(step_id: str, source: str) -> dict[str, Any]:
    return {"id": step_id, "action": "edit", "input_from": source, "params": {"old_text": "a", "new_text": "b"}}


def outcome(step_id: str, *, count: int | None = None, files: int = 0, status: str = "ok", **extra: Any) -> StepOutcome:
    names = tuple(f"/r/{step_id}{n}.txt" for n in range(files))
    return StepOutcome(1, step_id, "search", status, files=names, count=count, **extra)  # type: ignore[arg-type]


def test_independent_steps_share_one_level() -> None:
    assert plan_levels(steps(search("a"), search("b"), search("c")), parallel=True) == [[1, 2, 3]]


def test_a_chain_takes_one_level_per_step() -> None:
    chain = steps(search("a"), count("b", "a"), count("c", "b"))
    assert plan_levels(chain, parallel=True) == [[1], [2], [3]]


def test_a_diamond_runs_its_middle_steps_together() -> None:
    diamond = steps(
        search("top"),
        count("left", "top"),
        count("right", "top"),
        {"id": "join", "action": "merge", "input_from_all": ["left", "right"]},
    )
    assert plan_levels(diamond, parallel=True) == [[1], [2, 3], [4]]


def test_two_destructive_steps_never_share_a_level() -> None:
    found = steps(search("a"), edit("e1", "a"), edit("e2", "a"))
    assert plan_levels(found, parallel=True) == [[1], [2], [3]]


def test_a_destructive_step_runs_after_every_earlier_step_and_before_every_later_one() -> None:
    # "late" reads only from "a", yet a sequential run would count after the edit: so must a parallel one.
    mixed = steps(search("a"), search("b"), edit("fix", "a"), count("late", "a"), search("c"))
    assert dependencies(mixed)[3] == {1, 2}
    assert plan_levels(mixed, parallel=True) == [[1, 2], [3], [4, 5]]


def test_a_sequential_plan_is_one_step_a_level_in_order() -> None:
    assert plan_levels(steps(search("a"), search("b")), parallel=False) == [[1], [2]]


def test_dependencies_list_inputs_conditions_and_templates_of_earlier_steps_only() -> None:
    listed = steps(
        search("a"),
        search("b"),
        search("c", params={"pattern": "{{a.count}} {{zz.count}}"}, condition={"type": "has_matches", "step_ref": "b"}),
    )
    assert dependencies(listed) == {1: set(), 2: set(), 3: {1, 2}}


def test_empty_graphs_have_no_levels_and_cycles_are_refused() -> None:
    assert kahn_levels({}) == []
    with pytest.raises(ValueError, match="cycle"):
        kahn_levels({1: {2}, 2: {1}})


def test_templates_fill_every_field_in_nested_params_and_leave_the_unknown_verbatim() -> None:
    earlier = {
        "a": outcome("a", count=10, files=2),
        "b": outcome("b", files=2, risk="MEDIUM", edits=4),
    }
    params = {
        "text": "a={{a.count}}, b_files={{b.files_count}}, b_risk={{ b.risk }}, e={{b.edits}}",
        "nested": {"list": ["{{a.files_count}}", 7, None, {"deep": "{{b.count}}"}]},
        "unknown": "{{nobody.count}} {{a.colour}}",
        "joined": "{{a.files}}",
        "files": "{{a.files}}, /r/own.txt",  # a files param's text: one item a file (a name may hold a comma)
    }
    assert render(params, earlier) == {
        "text": "a=10, b_files=2, b_risk=MEDIUM, e=4",
        "nested": {"list": ["2", 7, None, {"deep": "2"}]},  # count falls back to the file count
        "unknown": "{{nobody.count}} {{a.colour}}",
        "joined": "/r/a0.txt,/r/a1.txt",
        "files": ["/r/a0.txt", "/r/a1.txt", "/r/own.txt"],
    }
    assert render(None, earlier) is None
    assert render("{{a.risk}} {{a.edits}}", earlier) == "LOW 0"
    assert template_references(params) == {"a", "b", "nobody"}


@pytest.mark.parametrize(
    ("condition", "holds"),
    [
        (Condition("has_matches", "s"), True),
        (Condition("no_matches", "s"), False),
        (Condition("count_gt", "s", 5), True),
        (Condition("count_gt", "s", 10), False),
        (Condition("count_lt", "s", 10), True),
        (Condition("count_eq", "s", 8), True),
        (Condition("step_succeeded", "s"), True),
        (Condition("step_failed", "s"), False),
        (Condition("step_failed", "bad"), True),
        (Condition("step_succeeded", "skipped"), True),
        (Condition("file_exists", path="here.txt"), True),
        (Condition("file_not_exists", path="here.txt"), False),
        (Condition("file_exists", path="gone.txt"), False),
        (None, True),
    ],
)
def test_conditions_read_the_step_they_name(condition: Condition | None, holds: bool) -> None:
    earlier = {
        "s": outcome("s", count=8, files=2),
        "bad": outcome("bad", status="failed"),
        "skipped": outcome("skipped", status="skipped"),
    }
    assert condition_holds(condition, earlier, lambda path: path == "here.txt")[0] is holds


def test_a_count_condition_falls_back_to_the_file_count_and_says_why_it_skipped() -> None:
    holds, why = condition_holds(Condition("count_eq", "s", 3), {"s": outcome("s", files=3)}, lambda _: False)
    assert holds
    holds, why = condition_holds(Condition("has_matches", "s"), {"s": outcome("s")}, lambda _: False)
    assert (holds, why) == (False, "has_matches on 's': its count is 0")


def test_parsing_collects_every_problem_and_names_each_step() -> None:
    with pytest.raises(InvalidParamsError) as caught:
        parse_pipeline(
            {
                "name": "",
                "parallell": True,
                "steps": [
                    {"id": "find", "action": "search", "params": {}},
                    {"id": "find", "action": "serch", "params": {"pattern": "x"}},
                    {"id": "bad id!", "action": "edit", "input_from": "later", "params": {"old_text": "a"}},
                    {"id": "later", "action": "count_occurrences", "input_from": "later", "params": {"pattern": "x"}},
                    {"action": "edit", "input_from": "nope", "params": {"old_text": "a", "new_text": "b"}},
                    search("c", condition={"type": "count_gt", "step_ref": "find"}),
                    search("d", condition={"type": "sometimes"}),
                ],
            }
        )
    problems = caught.value.fields["problems"]
    assert problems == [
        "pipeline_json: unknown key 'parallell' (did you mean 'parallel'?); valid: create_backup, dry_run, force, "
        "name, parallel, steps, stop_on_error, verbose.",
        'name: pipeline name is required; give the pipeline a short name, e.g. "rename-api".',
        "step 1 'find': search needs params.pattern (the text to find).",
        "step 2 'find': duplicate step ID: already used by step 1; ids must be unique.",
        "step 2 'find': unsupported action 'serch' (did you mean 'search'?); one of search, read_ranges, edit, "
        "multi_edit, count_occurrences, regex_transform, copy, rename, delete, aggregate, diff, merge.",
        "step 3 'bad id!': invalid step ID: an id must be 1-64 letters, digits, '_' or '-'.",
        "step 3 'bad id!': input_from has forward reference to step 'later' (step 4, which comes later); a step "
        "can only use the steps before it.",
        "step 3 'bad id!': edit needs params.new_text (the replacement (\"\" deletes)).",
        "step 3 'bad id!': edit has no files; pass input_from (an earlier step) or params.files.",
        "step 4 'later': input_from refers to the step itself; a step can only use earlier steps.",
        "step 4 'later': count_occurrences has no files; pass input_from (an earlier step) or params.files.",
        "step 5 'step-4': input_from 'nope' is a non-existent step; a step can only use the steps before it.",
        "step 5 'step-4': edit has no files; pass input_from (an earlier step) or params.files.",
        "step 6 'c': condition count_gt needs value, an integer to compare the count with.",
        "step 7 'd': condition type 'sometimes' is unknown; one of has_matches, no_matches, count_gt, count_lt, "
        "count_eq, file_exists, file_not_exists, step_succeeded, step_failed.",
    ]
    assert caught.value.message.startswith("pipeline_json has 15 problems; nothing ran:\n• pipeline_json: unknown")


def test_parsing_takes_the_type_alias_default_ids_flat_params_and_edit_aliases() -> None:
    request = parse_pipeline(
        {
            "name": "ok",
            "stop_on_error": "false",
            "steps": [
                {"type": "search", "pattern": "x"},
                {"id": "fix", "action": "edit", "input_from": "step-0", "params": {"old_str": "a", "new_string": ""}},
            ],
        }
    )
    first, second = request.steps
    assert (first.id, first.action, dict(first.params)) == ("step-0", "search", {"pattern": "x"})
    assert dict(second.params) == {"old_text": "a", "new_text": ""}
    assert (request.stop_on_error, request.dry_run, request.parallel, request.create_backup) == (
        False,
        False,
        False,
        True,
    )


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        ({"name": "n", "steps": []}, "steps: missing or empty: at least one step is required; pass 1 to 20 steps."),
        ({"name": "n", "steps": [search(f"s{i}") for i in range(21)]}, "steps: too many steps (max 20, got 21)"),
        ({"name": "n", "steps": [{"action": "search", "params": {"pattern": "(", "regex": True}}]}, "invalid search"),
        ({"name": "n", "steps": [{"action": "merge", "params": {"files": ["a"], "mode": "xor"}}]}, "union or inter"),
        ({"name": "n", "steps": [{"action": "regex_transform", "params": {"files": ["a"]}}]}, "needs params.patterns"),
        (
            {"name": "n", "steps": [{"action": "multi_edit", "params": {"files": ["a"], "edits": [{"x": 1}]}}]},
            "edits[1]",
        ),
        ({"name": "n", "steps": [search("a", params={"pattern": "x", "pattrn": "y"})]}, "did you mean 'pattern'"),
        ({"name": "n", "dry_run": "maybe", "steps": [search("a")]}, "dry_run: expected true or false"),
    ],
)
def test_parsing_refuses_malformed_requests(raw: dict[str, Any], problem: str) -> None:
    with pytest.raises(InvalidParamsError, match="nothing ran") as caught:
        parse_pipeline(raw)
    assert problem in caught.value.message
