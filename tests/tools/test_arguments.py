"""Argument hygiene, without a server: aliases, unknown names with suggestions, JSON-string arrays, trailing commas."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given

from fsguard.core.errors import InvalidParamsError, UnknownParamError
from fsguard.core.spelling import edit_distance
from fsguard.tools import _arguments
from fsguard.tools._arguments import normalize, strip_trailing_commas
from tests.strategies import JsonValue, json_values, json_with_trailing_commas

OPTIONAL_STRINGS = {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]}
EDIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}, "old_text": {"type": "string"}, "new_text": {"type": "string"}},
}
READ_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "paths": OPTIONAL_STRINGS,
        "start_line": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
    },
}


# --- ignored names and aliases ------------------------------------------------------------------------------------


def test_normalize_drops_description_on_every_tool() -> None:
    arguments = {"path": "a.txt", "description": "read the file"}
    assert normalize("read_file", arguments, READ_SCHEMA) == {"path": "a.txt"}
    assert normalize("edit_file", arguments, EDIT_SCHEMA) == {"path": "a.txt"}


def test_normalize_keeps_description_for_a_tool_that_takes_it() -> None:
    schema = {"properties": {"description": {"type": "string"}}}
    assert normalize("set_note", {"description": "kept"}, schema) == {"description": "kept"}


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [("old_str", "old_text"), ("old_string", "old_text"), ("new_str", "new_text"), ("new_string", "new_text")],
)
def test_normalize_maps_an_alias_to_the_canonical_name_the_tool_takes(alias: str, canonical: str) -> None:
    assert normalize("edit_file", {"path": "a.txt", alias: "x"}, EDIT_SCHEMA) == {"path": "a.txt", canonical: "x"}


def test_normalize_refuses_an_alias_when_the_tool_has_no_such_parameter() -> None:
    with pytest.raises(UnknownParamError) as info:
        normalize("read_file", {"path": "a.txt", "old_str": "x"}, READ_SCHEMA)
    assert '"old_str"' in info.value.message
    assert info.value.fields == {"param": "old_str"}


def test_normalize_keeps_an_alias_spelling_the_tool_itself_takes() -> None:
    schema = {"properties": {"old_str": {"type": "string"}}}
    assert normalize("legacy", {"old_str": "x"}, schema) == {"old_str": "x"}


def test_normalize_lets_the_canonical_name_win_over_an_alias_sent_after_it() -> None:
    arguments = {"old_text": "canonical", "old_str": "alias"}
    assert normalize("edit_file", arguments, EDIT_SCHEMA) == {"old_text": "canonical"}


def test_normalize_lets_the_canonical_name_win_over_an_alias_sent_before_it() -> None:
    arguments = {"old_str": "alias", "old_text": "canonical"}
    assert normalize("edit_file", arguments, EDIT_SCHEMA) == {"old_text": "canonical"}


def test_normalize_lets_the_first_of_two_aliases_win_as_the_seed_did() -> None:
    arguments = {"old_string": "first", "old_str": "second", "new_str": "one", "new_string": "two"}
    assert normalize("edit_file", arguments, EDIT_SCHEMA) == {"old_text": "first", "new_text": "one"}


# --- unknown names ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "sent", "valid", "meant"),
    [
        ("git", "repo", ["action", "path", "rev"], "path"),  # two edits from rev, a revision: not what was meant
        ("list_directory", "page", ["limit", "offset", "path"], "offset"),  # two edits from path
        ("edit_file", "pth", ["new_text", "old_text", "path"], "path"),  # one edit: still a slip
    ],
)
def test_an_unknown_short_name_is_matched_by_meaning_before_spelling(
    tool: str, sent: str, valid: list[str], meant: str
) -> None:
    schema = {"properties": {name: {"type": "string"} for name in valid}}
    with pytest.raises(UnknownParamError) as info:
        normalize(tool, {sent: "x"}, schema)
    assert f'unknown parameter "{sent}" (did you mean "{meant}"?)' in info.value.message


def test_an_unknown_short_name_two_edits_from_a_parameter_gets_no_guess() -> None:
    schema = {"properties": {name: {"type": "string"} for name in ("path", "rev")}}
    with pytest.raises(UnknownParamError) as info:
        normalize("git", {"ref": "x", "pat": "y"}, schema)  # ref -> rev is one edit; pat -> path one
    assert '"ref" (did you mean "rev"?)' in info.value.message
    with pytest.raises(UnknownParamError) as info:
        normalize("git", {"peg": "x"}, schema)
    assert "did you mean" not in info.value.message


def test_unknown_name_is_refused_with_a_suggestion_and_the_sorted_valid_names() -> None:
    with pytest.raises(UnknownParamError) as info:
        normalize("edit_file", {"paht": "a.txt"}, EDIT_SCHEMA)

    assert info.value.code == "unknown_param"
    assert info.value.fields == {"param": "paht"}
    assert info.value.message == (
        'edit_file: unknown parameter "paht" (did you mean "path"?). Valid parameters: new_text, old_text, path.'
    )


@pytest.mark.parametrize(
    ("sent", "suggested"),
    [
        ("Path", "path"),
        ("old_txt", "old_text"),
        ("newtext", "new_text"),
        # camelCase, as some clients spell them: to a parameter or to the one an accepted alias stands for
        ("oldString", "old_text"),
        ("newStr", "new_text"),
        ("oldText", "old_text"),
    ],
)
def test_unknown_name_within_two_edits_suggests_the_closest_valid_name(sent: str, suggested: str) -> None:
    with pytest.raises(UnknownParamError, match=f'did you mean "{suggested}"'):
        normalize("edit_file", {sent: "x"}, EDIT_SCHEMA)


def test_unknown_name_more_than_two_edits_away_gets_no_suggestion() -> None:
    assert edit_distance("pathxyz", "path") == 3
    with pytest.raises(UnknownParamError) as info:
        normalize("edit_file", {"pathxyz": "a.txt"}, EDIT_SCHEMA)

    assert "did you mean" not in info.value.message
    assert info.value.message.endswith("Valid parameters: new_text, old_text, path.")


def test_every_unknown_name_is_reported_and_the_first_is_the_param_field() -> None:
    with pytest.raises(UnknownParamError) as info:
        normalize("read_file", {"pth": "a", "limit": 3, "path": "b"}, READ_SCHEMA)

    assert 'unknown parameter "pth" (did you mean "path"?)' in info.value.message
    assert 'unknown parameter "limit"' in info.value.message
    assert info.value.fields == {"param": "pth"}


# --- the empty string for a choice ---------------------------------------------------------------------------------

CHOICE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "mode": {"type": "string", "enum": ["replace", "regex"], "default": "replace"},
        "output": {"anyOf": [{"type": "string", "enum": ["stat", "full"]}, {"type": "null"}], "default": None},
        "action": {"type": "string", "enum": ["status", "log"]},
        "blank": {"type": "string", "enum": ["", "x"], "default": "x"},
        "text": {"type": "string", "default": "a"},
    },
    "required": ["action"],
}


def test_normalize_takes_an_empty_string_for_an_optional_choice_as_absent() -> None:
    sent = {"mode": "", "output": "", "action": "log"}
    assert normalize("t", sent, CHOICE_SCHEMA) == {"action": "log"}


def test_normalize_takes_an_empty_string_for_an_optional_number_boolean_list_or_path_as_absent() -> None:
    schema = {
        "properties": {
            "limit": {"type": "integer", "default": 50},
            "start_line": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "dry_run": {"type": "boolean", "default": False},
            "paths": OPTIONAL_STRINGS,
            "file_path": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "content": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        }
    }
    sent = {"limit": "", "start_line": "", "dry_run": "", "paths": "", "file_path": "", "content": ""}
    assert normalize("t", sent, schema) == {"content": ""}


@pytest.mark.parametrize(
    "sent",
    [{"mode": "regx"}, {"action": ""}, {"blank": ""}, {"text": ""}],
    ids=["an unknown choice", "a required choice", "a choice that includes it", "free text"],
)
def test_normalize_keeps_an_empty_string_where_it_is_not_an_absent_choice(sent: dict[str, str]) -> None:
    assert normalize("t", sent, CHOICE_SCHEMA) == sent


def test_normalize_takes_null_for_an_optional_parameter_without_null_as_absent() -> None:
    sent = {"mode": None, "text": None, "action": None}
    assert normalize("t", sent, CHOICE_SCHEMA) == {"action": None}


NUMBER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "start_line": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
        "limit": {"type": "integer", "minimum": 1, "default": 20},
        "hours": {"anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "null"}]},
        "occurrence": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "max_lines": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
        "flag": {"type": "boolean", "default": True},
        "count": {"type": "integer", "minimum": 1},
    },
    "required": ["count"],
}


def test_normalize_takes_zero_for_an_optional_number_that_must_be_positive_as_absent() -> None:
    sent = {"start_line": 0, "limit": 0, "hours": 0.0, "count": 3}
    assert normalize("t", sent, NUMBER_SCHEMA) == {"count": 3}


@pytest.mark.parametrize(
    "sent",
    [{"occurrence": 0}, {"max_lines": 0}, {"flag": False}, {"count": 0}, {"start_line": -1}],
    ids=["no minimum", "0 is valid", "false is a boolean", "a required number", "a negative number"],
)
def test_normalize_keeps_a_zero_where_it_is_a_value(sent: dict[str, Any]) -> None:
    assert normalize("t", sent, NUMBER_SCHEMA) == sent


# --- JSON text for arrays -----------------------------------------------------------------------------------------


def test_normalize_decodes_a_json_string_sent_for_an_array_parameter() -> None:
    assert normalize("read_file", {"paths": '["a.txt", "b.txt"]'}, READ_SCHEMA) == {"paths": ["a.txt", "b.txt"]}


def test_normalize_decodes_a_json_string_sent_for_an_object_parameter() -> None:
    schema = {"properties": {"options": {"type": "object"}}}
    assert normalize("t", {"options": '{"a": 1,}'}, schema) == {"options": {"a": 1}}


def test_normalize_passes_native_arrays_and_nulls_through() -> None:
    assert normalize("read_file", {"paths": ["a.txt"]}, READ_SCHEMA) == {"paths": ["a.txt"]}
    assert normalize("read_file", {"paths": None}, READ_SCHEMA) == {"paths": None}


@pytest.mark.parametrize(
    "schema",
    [
        {"properties": {"path": {"type": "string"}}},
        {"properties": {"path": {"anyOf": [{"type": "string"}, {"type": "null"}]}}},
        {"properties": {"path": {"anyOf": [{"type": "string"}, {"type": "array"}]}}},
    ],
)
def test_normalize_leaves_json_looking_text_alone_for_a_parameter_that_takes_strings(schema: dict[str, Any]) -> None:
    assert normalize("t", {"path": '["x", 1,]'}, schema) == {"path": '["x", 1,]'}


def test_normalize_refuses_unparsable_json_for_an_array_parameter() -> None:
    with pytest.raises(InvalidParamsError) as info:
        normalize("read_file", {"paths": '["a.txt", "b.txt"'}, READ_SCHEMA)

    assert not isinstance(info.value, UnknownParamError)
    assert info.value.code == "invalid_params"
    assert info.value.fields == {"param": "paths"}
    assert 'parameter "paths" is not valid JSON' in info.value.message


@pytest.mark.parametrize("sent", ["src/a.py", '"src/a.py"'], ids=["plain", "a JSON string"])
def test_normalize_takes_one_path_sent_for_a_list_of_paths_as_that_one_item(sent: str) -> None:
    assert normalize("read_file", {"paths": sent}, READ_SCHEMA) == {"paths": ["src/a.py"]}


def test_normalize_keeps_refusing_text_that_starts_like_json_for_a_list_of_paths() -> None:
    with pytest.raises(InvalidParamsError):
        normalize("read_file", {"paths": "[a.txt"}, READ_SCHEMA)


def test_normalize_refuses_json_text_nested_past_the_stack_as_invalid_params() -> None:
    with pytest.raises(InvalidParamsError) as info:
        normalize("read_file", {"paths": "[" * 100_000 + "]" * 100_000}, READ_SCHEMA)
    assert info.value.fields == {"param": "paths"}
    assert "too deeply" in info.value.message


def test_normalize_accepts_raw_newlines_and_trailing_commas_inside_json_strings() -> None:
    sent = '[\n  "first\nline",\n  "tab\there",\n]'
    assert normalize("read_file", {"paths": sent}, READ_SCHEMA) == {"paths": ["first\nline", "tab\there"]}


def test_normalize_decodes_json_sent_under_an_alias() -> None:
    schema = {"properties": {"old_text": {"type": "array", "items": {"type": "string"}}}}
    assert normalize("t", {"old_string": '["a",]'}, schema) == {"old_text": ["a"]}


def test_valid_json_text_is_read_without_a_walk_for_trailing_commas(monkeypatch: pytest.MonkeyPatch) -> None:
    def walked(text: str) -> str:
        raise AssertionError("valid JSON was walked character by character")

    monkeypatch.setattr(_arguments, "strip_trailing_commas", walked)
    paths = ["x" * 10_000, "b.txt"]
    assert normalize("read_file", {"paths": json.dumps(paths)}, READ_SCHEMA) == {"paths": paths}


# --- strip_trailing_commas ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "stripped", "value"),
    [
        pytest.param('{"a":1,}', '{"a":1}', {"a": 1}, id="object"),
        pytest.param("[1,2,]", "[1,2]", [1, 2], id="array"),
        pytest.param('{"a":[1,[2,],],"b":{"c":3,},}', '{"a":[1,[2]],"b":{"c":3}}', {"a": [1, [2]], "b": {"c": 3}}),
        pytest.param('{"a":1 , }', '{"a":1  }', {"a": 1}, id="spaces around the comma"),
        pytest.param("[1,\n\t]", "[1\n\t]", [1], id="newline before the bracket"),
        pytest.param('["a,]"]', '["a,]"]', ["a,]"], id="comma inside a string"),
        pytest.param('["a\\",]"]', '["a\\",]"]', ['a",]'], id="escaped quote before a comma inside a string"),
        pytest.param('["a\\\\",]', '["a\\\\"]', ["a\\"], id="escaped backslash then a real trailing comma"),
        pytest.param("[1,2]", "[1,2]", [1, 2], id="nothing to strip"),
    ],
)
def test_strip_trailing_commas_removes_only_commas_that_close_an_array_or_object(
    text: str, stripped: str, value: object
) -> None:
    assert strip_trailing_commas(text) == stripped
    assert json.loads(stripped) == value


@given(value=json_values())
def test_strip_trailing_commas_leaves_valid_json_unchanged(value: JsonValue) -> None:
    for text in (json.dumps(value), json.dumps(value, indent=1, ensure_ascii=False)):
        assert strip_trailing_commas(text) == text


@given(sample=json_with_trailing_commas())
def test_strip_trailing_commas_makes_json_with_trailing_commas_parse_to_its_value(
    sample: tuple[JsonValue, str],
) -> None:
    value, text = sample
    assert json.loads(strip_trailing_commas(text)) == value
