"""Running rg: its output spooled and its end awaited, whatever descriptors the server already holds."""

from __future__ import annotations

import os
import resource
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fsguard.core.rgprocess import run_spooled

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
