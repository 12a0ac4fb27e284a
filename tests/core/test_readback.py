"""The read-back of a write: on_disk_equals tells exactly whether the pinned file holds the given bytes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import readback as readback_module
from fsguard.core.beneath import Pinned
from fsguard.core.readback import on_disk_equals


@given(st.binary(max_size=64), st.binary(max_size=64), st.integers(1, 8))
def test_on_disk_equals_is_true_exactly_when_the_file_holds_the_bytes(
    tmp_path_factory: pytest.TempPathFactory, on_disk: bytes, data: bytes, chunk: int
) -> None:
    directory = tmp_path_factory.mktemp("read-back")
    (directory / "f").write_bytes(on_disk)
    parent = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(readback_module, "_VERIFY_CHUNK", chunk)  # many reads: every boundary is crossed
            assert on_disk_equals(Pinned(parent, "f", directory / "f"), data) == (on_disk == data)
            assert on_disk_equals(Pinned(parent, "f", directory / "f"), on_disk)
    finally:
        os.close(parent)


def test_on_disk_equals_sees_a_file_longer_than_the_bytes(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"abc" * 100_000 + b"!")
    parent = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert not on_disk_equals(Pinned(parent, "f", tmp_path / "f"), b"abc" * 100_000)
    finally:
        os.close(parent)
