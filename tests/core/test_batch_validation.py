"""The request_json batch engine without the protocol: parsing, the simulated tree, cancellation, rollback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.config import Settings
from fsguard.core.batchcheck import check
from fsguard.core.batchplan import BatchRequest, parse_request
from fsguard.core.batchtree import PathTable
from fsguard.core.beneath import Beneath
from fsguard.core.errors import BatchFailedError, InvalidParamsError
from fsguard.core.groups import Change
from fsguard.core.paths import PathPolicy
from fsguard.services import Services
from tests.strategies import nested_paths


def problems_of(raw: Any, root: Path) -> list[str]:
    """Every problem parsing and validation find, as the client would get them."""
    request = parse_request(raw)
    beneath = Beneath((root,))
    try:
        check(request, PathPolicy.create([root]), beneath)
    except InvalidParamsError as exc:
        errors = exc.fields["errors"]
        assert isinstance(errors, list)
        return [str(e) for e in errors]
    finally:
        beneath.close()
    return []


@pytest.fixture
def services(root: Path, state_dir: Path) -> Services:
    return Services.create(Settings(roots=(root,), state_dir=state_dir))


def test_the_canonical_name_wins_over_its_alias_in_either_order_and_the_first_alias_over_the_next() -> None:
    ops = parse_request(
        [
            {"type": "edit", "path": "a", "search": "alias", "old_text": "canonical", "new_text": "n"},
            {"type": "edit", "path": "a", "old_text": "canonical", "find": "alias", "replace": "r", "replacement": "s"},
        ]
    ).operations
    assert [op.old_text for op in ops] == ["canonical", "canonical"]
    assert ops[1].new_text == "r"


def test_booleans_and_numbers_given_as_text_are_accepted_and_nonsense_is_a_problem(root: Path) -> None:
    request = parse_request(
        {
            "operations": [{"type": "extract", "path": "a", "destination": "b", "start_line": "2", "end_line": 3}],
            "atomic": "no",
            "validate_only": "1",
        }
    )
    assert (request.atomic, request.validate_only, request.problems) == (False, True, ())
    assert (request.operations[0].path, request.operations[0].start_line) == ("a", 2)
    bad = parse_request({"operations": [{"type": "delete", "path": "a", "recursive": "maybe"}], "atomc": True})
    assert bad.problems == (
        "request_json: unknown field 'atomc' (did you mean 'atomic'?)",
        "operation 0 (delete a): recursive must be true or false, not 'maybe'",
    )


@pytest.mark.parametrize(
    ("field", "meant"),
    [
        ("whole_word", None),  # edit_file's, which a batch edit does not take
        ("occurence", "occurrence"),
        ("text", None),  # two edits from the alias 'dest': no hint beats a wrong one
        ("oldText", "old_text"),
        ("new_content", "content"),
        ("destination_path", "destination"),
        ("filePath", "path"),
        ("is_recursive", "recursive"),
        ("permanently", "permanent"),
        ("old", "old_text"),
    ],
)
def test_an_unknown_field_is_offered_the_field_it_spells_or_names_and_never_an_unrelated_one(
    field: str, meant: str | None
) -> None:
    found = parse_request([{"type": "edit", "path": "a", "old_text": "x", "new_text": "y", field: 2}])
    hint = f" (did you mean {meant!r}?)" if meant else ""
    assert found.problems == (f"operation 0 (edit a): unknown field {field!r}{hint}",)


@pytest.mark.parametrize(
    ("kind", "meant"),
    [
        ("write_file", "write"),
        ("delete_file", "delete"),
        ("del", "delete"),
        ("remove", "delete"),
        ("mkdir", "create_dir"),
    ],
)
def test_an_unknown_operation_type_is_offered_the_type_it_names(kind: str, meant: str) -> None:
    found = parse_request([{"type": kind, "path": "a"}])
    assert f"unknown operation type {kind!r} (did you mean {meant!r}?)" in found.problems[0]


def test_path_stands_for_source_but_a_different_source_and_path_is_a_problem() -> None:
    assert parse_request([{"type": "move", "path": "a", "dest": "b"}]).operations[0].path == "a"
    clash = parse_request([{"type": "copy", "path": "a", "source": "z", "destination": "b"}])
    assert clash.problems == ("operation 0 (copy z): source and path differ; give the source once",)
    refused = parse_request([{"type": "write", "source": "a", "path": "b", "content": ""}])
    assert "write does not take 'source'" in refused.problems[0]


def test_a_request_without_operations_is_refused_at_once() -> None:
    malformed: tuple[object, ...] = ({}, {"operations": []}, {"operations": "write a"}, "text", 3)
    for raw in malformed:
        with pytest.raises(InvalidParamsError):
            parse_request(raw)


def test_a_directory_moved_earlier_is_found_at_its_new_place_and_no_longer_at_the_old(root: Path) -> None:
    (root / "d" / "sub").mkdir(parents=True)
    (root / "d" / "sub" / "f.txt").write_text("f", encoding="utf-8")
    ops = [
        {"type": "move", "source": "d", "destination": "e"},
        {"type": "edit", "path": "e/sub/f.txt", "old_text": "f", "new_text": "g"},
        {"type": "edit", "path": "d/sub/f.txt", "old_text": "f", "new_text": "g"},
        {"type": "copy", "source": "e", "destination": "c"},
        {"type": "edit", "path": "c/sub/f.txt", "old_text": "f", "new_text": "g"},
        {"type": "write", "path": "e/sub/f.txt", "content": "x"},
    ]
    assert problems_of(ops, root) == [
        f"operation 2 (edit d/sub/f.txt): file does not exist: {root / 'd' / 'sub' / 'f.txt'} "
        "(and no earlier operation creates it)"
    ]


def test_delete_then_edit_fails_but_delete_write_edit_validates(root: Path) -> None:
    (root / "a.txt").write_text("a", encoding="utf-8")
    delete = {"type": "delete", "path": "a.txt"}
    edit = {"type": "edit", "path": "a.txt", "old_text": "a", "new_text": "b"}
    assert len(problems_of([delete, edit], root)) == 1
    assert problems_of([delete, {"type": "write", "path": "a.txt", "content": "a"}, edit], root) == []


def test_nothing_can_be_created_under_a_file_and_a_directory_filled_earlier_needs_recursive(root: Path) -> None:
    (root / "plain.txt").write_text("p", encoding="utf-8")
    ops = [
        {"type": "write", "path": "plain.txt/inner.txt", "content": "x"},
        {"type": "create_dir", "path": "made"},
        {"type": "write", "path": "made/f.txt", "content": "x"},
        {"type": "delete", "path": "made"},
        {"type": "create_dir", "path": "plain.txt"},
    ]
    problems = problems_of(ops, root)
    assert len(problems) == 3
    assert "is a file, so nothing can be created under it" in problems[0]
    assert "pass recursive: true" in problems[1]
    assert "exists and is a file, not a directory" in problems[2]


def test_an_operation_after_one_that_did_not_parse_still_gets_its_path_checked(root: Path) -> None:
    ops = [{"type": "nope"}, {"type": "edit", "path": "missing.txt", "old_text": "a", "new_text": "b"}]
    ops.append({"type": "write", "path": "/etc/x", "content": "x"})
    problems = problems_of(ops, root)
    assert problems[0].startswith("operation 0: unknown operation type 'nope'")
    assert len(problems) == 2  # the edit's missing file is not judged: operation 0 might have created it
    assert problems[1].startswith("operation 2 (write /etc/x): access denied")


def test_a_cancelled_atomic_batch_is_rolled_back_and_a_cancelled_non_atomic_one_keeps_its_work(
    services: Services, root: Path
) -> None:
    def cancel_after_two(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt

    ops = [
        {"type": "write", "path": "n/a.txt", "content": "a"},
        {"type": "write", "path": "n/b.txt", "content": "b"},
        {"type": "write", "path": "n/c.txt", "content": "c"},
    ]
    with pytest.raises(KeyboardInterrupt):
        services.batch.run(parse_request(ops), cancel_after_two)
    assert not (root / "n").exists()
    with pytest.raises(KeyboardInterrupt):
        services.batch.run(parse_request({"operations": ops, "atomic": False}), cancel_after_two)
    assert sorted(p.name for p in (root / "n").iterdir()) == ["a.txt", "b.txt"]


def test_a_cancelled_atomic_batch_whose_rollback_would_undo_another_processes_edit_runs_to_the_end(
    services: Services, root: Path
) -> None:
    # Cancelled between operations, it was rolled back; but another process had edited a.txt since (another line),
    # so the rollback reverted nothing (it never replaces such an edit) and the batch stayed half applied: a.txt
    # changed, b.txt not, and no answer went out to say so.
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"mine: old\ntheirs: old\n")

    def cancel_after_one(done: int, total: int) -> None:
        if done == 1:
            (root / "a.txt").write_bytes((root / "a.txt").read_bytes().replace(b"theirs: old", b"theirs: new"))
            raise KeyboardInterrupt

    ops = [
        {"type": "edit", "path": name, "old_text": "mine: old", "new_text": "mine: new"} for name in ("a.txt", "b.txt")
    ]
    with pytest.raises(KeyboardInterrupt):
        services.batch.run(parse_request(ops), cancel_after_one)
    assert (root / "a.txt").read_bytes() == b"mine: new\ntheirs: new\n"
    assert (root / "b.txt").read_bytes() == b"mine: new\ntheirs: old\n"


def test_an_atomic_batch_cancelled_at_a_later_lock_whose_rollback_would_undo_another_processes_edit_runs_to_the_end(
    services: Services, root: Path
) -> None:
    # The same, cancelled while it waits for b.txt's lock (the check each operation's first lock makes): stopped
    # there with a.txt kept, it would stay half applied.
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"mine: old\ntheirs: old\n")

    def cancelled_once_a_is_edited() -> None:
        if b"mine: new" in (root / "a.txt").read_bytes():
            (root / "a.txt").write_bytes((root / "a.txt").read_bytes().replace(b"theirs: old", b"theirs: new"))
            raise KeyboardInterrupt

    ops = [
        {"type": "edit", "path": name, "old_text": "mine: old", "new_text": "mine: new"} for name in ("a.txt", "b.txt")
    ]
    with services.locks.cancellable(cancelled_once_a_is_edited), pytest.raises(KeyboardInterrupt):
        services.batch.run(parse_request(ops))
    assert (root / "a.txt").read_bytes() == b"mine: new\ntheirs: new\n"
    assert (root / "b.txt").read_bytes() == b"mine: new\ntheirs: old\n"


def test_an_atomic_batch_cancelled_at_a_later_lock_is_rolled_back_before_it_touches_that_file(
    services: Services, root: Path
) -> None:
    for name in ("a.txt", "b.txt"):
        (root / name).write_bytes(b"old\n")
    inode = (root / "b.txt").stat().st_ino

    def cancelled_once_a_is_written() -> None:
        if (root / "a.txt").read_bytes() == b"new\n":
            raise KeyboardInterrupt

    ops = [{"type": "write", "path": name, "content": "new\n"} for name in ("a.txt", "b.txt")]
    with services.locks.cancellable(cancelled_once_a_is_written), pytest.raises(KeyboardInterrupt):
        services.batch.run(parse_request(ops))
    assert [(root / name).read_bytes() for name in ("a.txt", "b.txt")] == [b"old\n", b"old\n"]
    assert (root / "b.txt").stat().st_ino == inode  # never written, not even to be rolled back


def test_a_failed_atomic_batch_carries_what_failed_and_what_was_rolled_back(services: Services, root: Path) -> None:
    (root / "a.txt").write_text("a\n", encoding="utf-8")
    request = parse_request(
        [
            {"type": "copy", "source": "a.txt", "destination": "b.txt"},
            {"type": "search_and_replace", "path": "a.txt", "old_text": "zzz", "new_text": "y"},
        ]
    )
    with pytest.raises(BatchFailedError) as failed:
        services.batch.run(request)
    fields = failed.value.fields
    assert (fields["failed_index"], fields["error_code"], fields["rolled_back"]) == (
        1,
        "no_match",
        [str(root / "b.txt")],
    )
    assert "backup_id" not in fields  # nothing stayed changed, so no group was recorded
    assert not (root / "b.txt").exists()


def test_a_group_s_earlier_change_to_a_path_a_later_change_replaced_is_no_conflict(
    services: Services, root: Path
) -> None:
    report = services.batch.run(
        BatchRequest(
            operations=parse_request(
                [
                    {"type": "write", "path": "d/f.txt", "content": "one\n"},
                    {"type": "edit", "path": "d/f.txt", "old_text": "one", "new_text": "two"},
                    {"type": "move", "source": "d", "destination": "e"},
                ]
            ).operations
        )
    )
    assert report.group_id is not None
    changes = services.groups.get(report.group_id).changes
    assert [c.kind for c in changes] == ["created_dir", "created", "modified", "moved"]
    assert services.reverter.conflicts(changes) == []
    (root / "e" / "f.txt").write_text("changed by someone else\n", encoding="utf-8")
    outside = [Change.modified(root / "e" / "f.txt", None, "0000")]
    assert [c.path for c, _ in services.reverter.conflicts(outside)] == [str(root / "e" / "f.txt")]


@given(st.lists(st.tuples(st.booleans(), nested_paths()), max_size=30))
def test_a_path_table_finds_the_paths_below_any_path_as_a_scan_of_every_recorded_path_would(
    steps: list[tuple[bool, str]],
) -> None:
    table: PathTable[int] = PathTable()
    recorded: dict[Path, int] = {}
    for number, (add, spelled) in enumerate(steps):
        path = Path(spelled)
        if add:
            table[path] = recorded[path] = number
        elif path in recorded:
            del table[path], recorded[path]
    for spelled in ["/", "/r", *(spelled for _, spelled in steps)]:
        path = Path(spelled)
        inside = {key for key in recorded if path in key.parents}
        assert set(table.below(path)) == inside
        assert dict(table.items_below(path)) == {key: recorded[key] for key in inside}
        assert (path in table) == (path in recorded)
