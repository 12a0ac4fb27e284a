"""Running rg: its output spooled and its end awaited, whatever descriptors the server already holds."""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fsguard.core import rgprocess
from fsguard.core.rgprocess import named_batches, run_spooled

SELECT_LIMIT = 1024  # select() refuses a descriptor numbered this or more


@pytest.fixture
def low_descriptors_taken() -> Iterator[None]:
    """Every descriptor below select()'s limit in use, as in a long-lived server with many files open."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < SELECT_LIMIT + 64:
        pytest.skip(f"RLIMIT_NOFILE is {soft}: no descriptor above {SELECT_LIMIT} can be opened here")
    held = []
    try:
        while (fd := os.open(os.devnull, os.O_RDONLY)) < SELECT_LIMIT:
            held.append(fd)
        held.append(fd)
        yield
    finally:
        for fd in held:
            os.close(fd)


@pytest.mark.usefixtures("low_descriptors_taken")
def test_a_run_ends_when_every_descriptor_below_1024_is_taken(tmp_path: Path) -> None:
    command = [sys.executable, "-c", "import sys; sys.stdout.write('a\\0b\\0')"]
    assert run_spooled(command, tmp_path, None) == b"a\0b\0"


@given(st.lists(st.binary(min_size=1, max_size=40).filter(lambda name: b"\0" not in name), max_size=60))
def test_named_batches_keep_every_file_in_order_within_the_argument_bound(files: list[bytes]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rgprocess, "_ARGUMENT_BYTES", 100)
        batches = list(named_batches(files))
    assert [argument for batch in batches for argument in batch] == [b"./" + file for file in files]
    assert all(batch for batch in batches)
    # Each argument costs its bytes, its NUL and a pointer; only a file too long for any run has one alone.
    assert all(sum(len(argument) + 9 for argument in batch) <= 100 or len(batch) == 1 for batch in batches)
