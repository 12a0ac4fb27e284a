"""A file read streamed (as one above 4 MiB is) answers every selection as the read of its whole text does: the
same lines, line numbers, hash, encoding, endings, cut and hint, or the same error."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsguard.config import Settings
from fsguard.core import ranges, reading, remembered
from fsguard.core.errors import FsguardError
from fsguard.core.reading import FileReader
from fsguard.core.selection import LineSelection
from fsguard.models import ReadFileResult
from fsguard.services import Services
from tests.strategies import Encoding, break_mixed_texts, encodings, line_selections, long_line_texts

COMPARED = ("content", "start_line", "end_line", "total_lines", "content_hash", "encoding", "line_ending", "hint")


def answer(reader: FileReader, selection: LineSelection, *, as_the_tool: bool = False) -> ReadFileResult | str:
    """The read's result, or its error code (a line past the end is an error either way); ``as_the_tool``: read as
    read_file does, whose media check's first bytes also give a known text's BOM."""
    try:
        found = reader.read_one("f.txt", selection) if as_the_tool else reader.read("f.txt", selection)
    except FsguardError as exc:
        return exc.code
    assert isinstance(found, ReadFileResult)
    return found


@settings(max_examples=150, deadline=None)
@given(
    text=st.one_of(long_line_texts(), break_mixed_texts()),
    encoding=encodings(),
    selection=line_selections(),
    budget=st.sampled_from([200, 700, 4096]),
    truncate=st.sampled_from([3, 300]),  # the lines a read of the whole file shows
)
def test_a_streamed_read_answers_every_selection_as_the_read_of_the_whole_text_does(
    text: str, encoding: Encoding, selection: LineSelection, budget: int, truncate: int
) -> None:
    data = encoding.encode(text)
    with tempfile.TemporaryDirectory() as temp, pytest.MonkeyPatch.context() as patch:
        root = Path(temp) / "root"
        root.mkdir()
        (root / "f.txt").write_bytes(data)
        given_settings = Settings(
            roots=(root,), state_dir=Path(temp) / "state", max_response_bytes=budget, read_truncate_lines=truncate
        )
        # A file just written is remembered too: the second streamed read starts from the fingerprint of the first.
        patch.setattr(remembered, "RACY_WINDOW_NS", -(1 << 62))
        whole = answer(Services.create(given_settings).reader, selection)
        patch.setattr(reading, "STREAM_ABOVE", 0)
        patch.setattr(ranges, "CHUNK", 8)  # chunk boundaries everywhere after the first 64 KiB
        reader = Services.create(given_settings).reader
        cold = answer(reader, selection)  # judged from its start
        warm = [answer(reader, selection), answer(reader, selection, as_the_tool=True)]  # as known
        assert (root / "f.txt").read_bytes() == data

    for streamed in (cold, *warm):
        if isinstance(whole, str) or isinstance(streamed, str):
            assert streamed == whole
            continue
        assert {key: getattr(streamed, key) for key in COMPARED} == {key: getattr(whole, key) for key in COMPARED}
        assert streamed.truncated == whole.truncated
