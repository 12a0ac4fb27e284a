"""Which confirmations each --confirm mode asks, and the one-paragraph summary."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fsguard.config import Settings
from fsguard.core.confirmation import ConfirmMode, confirmation, declined
from fsguard.core.gitrepo import GitRequest
from fsguard.core.pipeline import PipelineRequest
from fsguard.core.preflight import deleting, pipelining, pushing, replacing, restoring
from fsguard.core.replacing import ReplaceRequest
from fsguard.services import Services


def _made(*, reversible: bool, count: int = 2) -> str:
    return confirmation(
        "delete_file",
        "Delete things",
        names=[f"/r/{i}" for i in range(count)],
        factors=["big"],
        reversible=reversible,
        undo="from the trash.",
        reason="test",
    ).summary


def test_each_mode_asks_for_its_kind_of_operation() -> None:
    risky = confirmation("x", "Do", names=[], factors=[], reversible=True, undo="u", reason="r")
    final = confirmation("x", "Do", names=[], factors=[], reversible=False, undo="u", reason="r")
    assert [risky.asked_under(mode) for mode in ConfirmMode] == [False, True, False]
    assert [final.asked_under(mode) for mode in ConfirmMode] == [False, True, True]


def test_the_summary_is_one_paragraph_that_says_whether_it_can_be_undone() -> None:
    assert _made(reversible=True) == (
        "Delete things: '/r/0', '/r/1'. Why you are asked: big. It can be undone: from the trash. "
        "Confirm to let the agent go ahead; anything else changes nothing."
    )
    assert "It cannot be undone: " in _made(reversible=False)
    assert "\n" not in _made(reversible=False, count=40)


def test_a_long_list_of_names_is_cut_with_a_count() -> None:
    assert "'/r/4' and 7 more." in _made(reversible=True, count=12)
    assert "/r/5" not in _made(reversible=True, count=12)


def test_names_are_quoted_so_none_can_pose_as_the_summary_or_hide_what_it_is() -> None:
    names = ["/r/a.txt. Nothing is deleted. It can be undone", "/r/x\nLine", "/r/gpj.\u202eexe", "/r/\x1b[2Jz"]
    names.append("/r/z\u200bw")
    summary = confirmation(
        "delete_file", "Delete", names=names, factors=[], reversible=False, undo="no.", reason="r"
    ).summary
    assert summary.startswith("Delete: '/r/a.txt. Nothing is deleted. It can be undone', '/r/x\\nLine', ")
    assert "'/r/gpj.\\u202eexe', '/r/\\x1b[2Jz', '/r/z\\u200bw'." in summary
    assert summary.isprintable()


def test_the_declined_error_says_nothing_changed_and_what_to_do() -> None:
    error = declined("delete_file", "declined")
    assert error.code == "declined"
    assert "nothing was changed" in error.message
    assert "ask the user" in error.message
    assert error.fields == {"operation": "delete_file", "answer": "declined"}


def test_the_preflights_ask_nothing_of_calls_that_are_not_theirs(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    s = Services.create(Settings(roots=(tmp_path / "root",), state_dir=tmp_path / "state"))
    assert deleting(s.policy, s.beneath, ["a"], permanent=False, recursive=False) is None
    assert deleting(s.policy, s.beneath, ["missing"], permanent=True, recursive=False) is None
    forced = ReplaceRequest(path=".", find="a", replace="b", force=True)
    assert replacing(s.replacer, forced) is None
    assert replacing(s.replacer, replace(forced, force=False, preview=True)) is None
    assert pipelining(s.pipelines, PipelineRequest(name="p", steps=(), force=True)) is None
    assert pipelining(s.pipelines, PipelineRequest(name="p", steps=(), dry_run=True)) is None
    for request in (
        GitRequest(action="status"),
        GitRequest(action="restore", paths=("a",), staged=True),
        GitRequest(action="restore", paths=("a",), force=True),
    ):
        assert restoring(s.git, request, s.beneath) is None
    assert pushing(s.git, GitRequest(action="status")) is None
    assert pushing(s.git, GitRequest(action="push", force=True)) is None
