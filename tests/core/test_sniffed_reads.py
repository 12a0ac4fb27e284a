"""Ranged reads of files above --max-file-size, whose encoding is judged from their first 64 KiB: where the bytes
read leave it (an ASCII start, Western text in cp1252 further on), the text shown is the whole read's."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fsguard.config import Settings
from fsguard.core.selection import LineSelection
from fsguard.core.textio import decode, split_lines
from fsguard.services import Services
from tests.strategies import western_texts


@settings(max_examples=40)
@given(
    text=western_texts(),
    lead=st.sampled_from([70_000, 200_000]),
    count=st.integers(min_value=1, max_value=8),
)
def test_a_read_above_the_limit_past_an_ascii_start_shows_what_a_whole_read_shows(
    text: str, lead: int, count: int
) -> None:
    data = b"x" * lead + b"\n" + text.encode("cp1252")
    whole = decode(data)
    lines = split_lines(whole.text)
    with tempfile.TemporaryDirectory() as temp:
        root = Path(temp) / "root"
        root.mkdir()
        (root / "late.log").write_bytes(data)
        reader = Services.create(Settings(roots=(root,), state_dir=Path(temp) / "state", max_file_size=64)).reader
        tail = reader.read("late.log", LineSelection(mode="tail", max_lines=count))
        ranged = reader.read("late.log", LineSelection(start_line=2))
        assert (root / "late.log").read_bytes() == data

    assert (tail.content, ranged.content) == ("".join(lines[-count:]), "".join(lines[1:]))
    # Only bytes past ASCII tell the encoding: a window of ASCII alone reads as UTF-8, the same text.
    for shown in (tail, ranged):
        assert shown.encoding == ("utf-8" if shown.content.isascii() else whole.encoding)
