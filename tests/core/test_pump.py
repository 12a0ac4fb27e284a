"""A copy takes the bytes a file had when it was opened: one a process keeps writing is not chased to its end."""

from __future__ import annotations

import os
from pathlib import Path

from fsguard.core import filecopies


def test_a_copy_stops_at_the_size_the_source_had_when_it_was_opened(tmp_path: Path) -> None:
    (tmp_path / "log").write_bytes(b"0123456789" + b"written meanwhile")
    reader = os.open(tmp_path / "log", os.O_RDONLY)
    writer = os.open(tmp_path / "copy", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        assert filecopies._pump(reader, writer, 10) == 10
    finally:
        os.close(reader)
        os.close(writer)
    assert (tmp_path / "copy").read_bytes() == b"0123456789"
