"""The session's memory of paths: what it answered for, the hashes it handed out, failed matches; bounded."""

from __future__ import annotations

from pathlib import Path

import pytest

from fsguard.core.errors import NotFoundError
from fsguard.core.session import MISMATCH_HINT, Session, serving


def hinted(session: Session, path: Path) -> bool:
    """Whether a not-found error on ``path`` comes back with the mismatch hint."""
    with pytest.raises(NotFoundError) as raised, session.watching(path):
        raise NotFoundError(f"{path} does not exist.", path=str(path))
    return MISMATCH_HINT in raised.value.message


def test_the_least_recently_touched_path_is_forgotten_past_the_bound() -> None:
    session = Session(max_paths=2)
    a, b, c = Path("/r/a"), Path("/r/b"), Path("/r/c")
    session.saw(a)
    session.saw(b)
    session.record_hash(a, "h-a")  # touched again: b is now the oldest
    session.saw(c)

    assert [hinted(session, path) for path in (a, b, c)] == [True, False, True]
    assert session.known_hash(a) is not None


def test_a_path_gone_by_this_server_and_those_below_it_get_no_hint_until_seen_again() -> None:
    session = Session()
    gone, inner, beside = Path("/r/d"), Path("/r/d/inner"), Path("/r/d2")
    for path in (gone, inner, beside):
        session.record_hash(path, "h")
    session.forget(gone)

    assert [hinted(session, path) for path in (gone, inner, beside)] == [False, False, True]
    assert session.known_hash(gone) is None
    session.saw(inner)  # made again and read: d is there again too
    assert [hinted(session, path) for path in (gone, inner)] == [True, True]


def test_known_hashes_are_bounded_too_to_a_quarter_of_the_paths_per_connection() -> None:
    session = Session(max_paths=8)
    for name in "abc":
        session.record_hash(Path(f"/r/{name}"), f"h-{name}")

    assert [session.known_hash(Path(f"/r/{name}")) is not None for name in "abc"] == [False, True, True]


def test_failed_matches_count_per_text_until_an_edit_of_the_file_succeeds() -> None:
    session = Session()
    path, other = Path("/r/a"), Path("/r/b")
    counts = [session.missed(path, "old"), session.missed(path, "old"), session.missed(path, "other")]
    session.missed(other, "old")
    session.matched(path)

    assert counts == [1, 2, 1]
    assert (session.missed(path, "old"), session.missed(other, "old")) == (1, 2)


def test_failed_matches_of_many_files_are_bounded() -> None:
    session = Session(max_paths=2)
    for name in "abc":
        session.missed(Path(f"/r/{name}"), "old")

    assert [session.missed(Path(f"/r/{name}"), "old") for name in "cba"] == [2, 2, 1]


def test_the_failed_texts_counted_for_one_file_are_bounded_keeping_the_last(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fsguard.core.session.MAX_TEXTS", 2)
    session, path = Session(), Path("/r/a")
    for text in ("one", "two", "one", "three"):
        session.missed(path, text)

    assert [session.missed(path, text) for text in ("one", "three", "two")] == [3, 2, 1]


def test_each_connection_knows_only_the_hashes_handed_out_to_it_and_a_forgotten_path_is_gone_for_all() -> None:
    session, path, other = Session(), Path("/r/a"), Path("/r/b")
    with serving("first"):
        session.record_hash(path, "h-first")
        session.record_hash(other, "h-other")
    with serving("second"):
        assert session.known_hash(path) is None
        session.record_hash(path, "h-second")
    session.forget(path)

    with serving("first"):
        kept = session.known_hash(other)
        assert session.known_hash(path) is None
        assert kept is not None
        assert kept[0] == "h-other"
    with serving("second"):
        assert session.known_hash(path) is None
    assert session.known_hash(other) is None  # no connection: the server's own memory, which was never given it


def test_the_least_recently_served_connection_is_forgotten_past_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("fsguard.core.session.MAX_CLIENTS", 2)
    session, path = Session(), Path("/r/a")
    for client in ("one", "two", "one", "three"):
        with serving(client):
            session.record_hash(path, f"h-{client}")

    known = {}
    for client in ("one", "two", "three"):
        with serving(client):
            known[client] = session.known_hash(path)
    assert [known[client] is not None for client in ("one", "two", "three")] == [True, False, True]
