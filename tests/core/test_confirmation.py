"""Which confirmations each --confirm mode asks, and the one-paragraph summary."""

from __future__ import annotations

from fsguard.core.confirmation import ConfirmMode, confirmation, declined


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
        "Delete things: /r/0, /r/1. Why you are asked: big. It can be undone: from the trash. "
        "Confirm to let the agent go ahead; anything else changes nothing."
    )
    assert "It cannot be undone: " in _made(reversible=False)
    assert "\n" not in _made(reversible=False, count=40)


def test_a_long_list_of_names_is_cut_with_a_count() -> None:
    assert "/r/4 and 7 more." in _made(reversible=True, count=12)
    assert "/r/5" not in _made(reversible=True, count=12)


def test_the_declined_error_says_nothing_changed_and_what_to_do() -> None:
    error = declined("delete_file", "declined")
    assert error.code == "declined"
    assert "nothing was changed" in error.message
    assert "ask the user" in error.message
    assert error.fields == {"operation": "delete_file", "answer": "declined"}
